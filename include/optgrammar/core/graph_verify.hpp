// Graph verification: structural invariants every rewrite must keep.
#pragma once

#include "optgrammar/core/graph.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace optgrammar {

/// Returns one line per problem; empty when the graph is sound. Checks: inputs are live ops;
/// use lists agree with input slots; output definitions are within rank; a quantized output has
/// a zero offset its type can hold and a finite step size > 0; graph inputs and constants read
/// nothing and a graph output reads exactly one value; constants hold exactly the bytes their
/// shape needs; shapes are representable (OutputDef::unrepresentable); no cycles. When `where`
/// is given, it receives the op of each problem (same order), for messages that point at the
/// op's source.
inline std::vector<std::string> verify(const Graph& g, std::vector<OpRef>* where = nullptr) {
  std::vector<std::string> out;
  auto at = [](OpRef r) { return std::string("%").append(std::to_string(r.index)); };
  auto add = [&](OpRef r, std::string msg) {
    out.push_back(std::move(msg));
    if (where) where->push_back(r);
  };
  std::vector<std::uint32_t> uses(g.size(), 0);
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!g.alive(r)) continue;
    const OutputDef& d = g.output(r);
    if (d.rank > max_rank)
      add(r, at(r) + std::string(": rank ").append(std::to_string(d.rank)) +
                 std::string(" exceeds ").append(std::to_string(max_rank)));
    else if (const char* why = d.unrepresentable())
      add(r, at(r) + ": shape cannot be represented: " + why);
    for (std::uint32_t k = d.rank; k < max_rank; ++k)
      if (d.dims[k] != 0) {
        add(r, at(r) + std::string(": dimension ").append(std::to_string(k)) + " set past the rank");
        break;
      }
    if (is_quantized(d.dtype)) {
      if (!storage_range(d.dtype).contains(d.zero_offset))
        add(r, at(r) + std::string(": zero offset ").append(std::to_string(d.zero_offset)) + " is outside " +
                   std::string(dtype_short_name(d.dtype)) + "'s range");
      if (!(d.stepsize > 0.0f) || !std::isfinite(d.stepsize))
        add(r, at(r) + ": step size " + std::to_string(d.stepsize) + " is not a finite number > 0");
    }
    const OpNameId name = g.name_id(r);
    const auto inputs = [&] {
      const std::uint32_t n = g.n_inputs(r);
      return std::to_string(n).append(n == 1 ? " input" : " inputs");
    };
    if ((name == op_names::input || g.is_const(r)) && g.n_inputs(r) != 0)
      add(r, at(r) + ": " + std::string(g.name(r)) + " has " + inputs() + ", but must have none");
    if (name == op_names::output && g.n_inputs(r) != 1)
      add(r, at(r) + ": Output has " + inputs() + ", but must have exactly one");
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) {
      OpRef in = g.input(r, k);
      if (!g.alive(in)) {
        add(r, at(r) + std::string(": input ").append(std::to_string(k)) + " is " + at(in) + ", which does not exist");
        continue;
      }
      ++uses[in.index];
    }
    if (g.is_const(r) && g.payload(r).size() != d.byte_size())
      add(r, at(r) + std::string(": constant holds ").append(std::to_string(g.payload(r).size())) +
                 std::string(" bytes, its shape needs ").append(std::to_string(d.byte_size())));
    std::uint32_t listed = 0;
    g.for_each_use(r, [&](OpRef user, std::uint32_t slot) {
      ++listed;
      if (!g.alive(user) || slot >= g.n_inputs(user) || g.input(user, slot) != r)
        add(r,
            at(r) + ": use list names " + at(user) + std::string(" slot ").append(std::to_string(slot)) + " wrongly");
    });
    if (listed != g.n_uses(r)) add(r, at(r) + ": use count disagrees with its use list");
  }
  for (std::uint32_t i = 0; i < g.size(); ++i)
    if (g.alive(OpRef{i}) && uses[i] != g.n_uses(OpRef{i}))
      add(OpRef{i}, at(OpRef{i}) + std::string(": ").append(std::to_string(g.n_uses(OpRef{i}))) +
                        std::string(" uses recorded, ").append(std::to_string(uses[i])) + " input slots read it");
  // Cycles: iterative depth-first search with colors.
  std::vector<unsigned char> color(g.size(), 0);
  std::vector<std::pair<OpRef, std::uint32_t>> stack;
  for (std::uint32_t i = 0; i < g.size() && out.size() < 100; ++i) {
    if (!g.alive(OpRef{i}) || color[i]) continue;
    stack.emplace_back(OpRef{i}, 0);
    color[i] = 1;
    while (!stack.empty()) {
      auto& [r, k] = stack.back();
      if (k < g.n_inputs(r)) {
        OpRef in = g.input(r, k++);
        if (!g.alive(in)) continue;
        if (color[in.index] == 1) {
          add(r, at(r) + ": cycle through " + at(in));
        } else if (color[in.index] == 0) {
          color[in.index] = 1;
          stack.emplace_back(in, 0);
        }
      } else {
        color[r.index] = 2;
        stack.pop_back();
      }
    }
  }
  return out;
}

}  // namespace optgrammar
