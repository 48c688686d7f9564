// The reference interpreter: runs a graph on given input values with the scalar reference
// kernels (through the op definitions' eval) and returns the graph outputs' bytes. Tests use
// it to check that a rule package preserves results: run before and after, compare.
//
//   auto ins = engine::random_inputs(g, 42);
//   auto before = engine::interpret(g, ins);
//   run_rules(g, rules);
//   CHECK(engine::interpret(g, ins) == before);
//
// Inputs are matched to the graph's Input ops in op id order, outputs are returned in the op id
// order of the Output ops: rewrites keep both kinds of ops and their ids. Only the values the
// outputs need are computed.
#pragma once

#include "optgrammar/core/element.hpp"
#include "optgrammar/ops/definition_verify.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace optgrammar::engine {

/// A tensor value: its definition and row-major bytes.
struct Tensor {
  OutputDef def;
  std::vector<std::byte> data;
  friend bool operator==(const Tensor& a, const Tensor& b) { return a.def == b.def && a.data == b.data; }
};

class InterpretError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Ops of one name, in op id order.
inline std::vector<OpRef> ops_named(const Graph& g, OpNameId name) {
  std::vector<OpRef> v;
  for (OpRef r : g.live_ops())
    if (g.name_id(r) == name) v.push_back(r);
  std::stable_sort(v.begin(), v.end(), [&](OpRef a, OpRef b) { return g.op_id(a) < g.op_id(b); });
  return v;
}

struct InterpretOptions {
  ops::Backend backend = ops::Backend::reference;
};

/// Values of the graph outputs for the given inputs (one per Input op, in op id order).
inline std::vector<Tensor> interpret(const Graph& g, const std::vector<Tensor>& inputs, InterpretOptions opt = {}) {
  const auto in_ops = ops_named(g, op_names::input);
  if (in_ops.size() != inputs.size())
    throw InterpretError(ops::cat("the graph has ", in_ops.size(), " inputs, ", inputs.size(), " values given"));
  std::vector<std::vector<std::byte>> values(g.size());
  std::vector<unsigned char> state(g.size(), 0);  // 0 not computed, 1 on the stack, 2 computed
  for (std::size_t i = 0; i < in_ops.size(); ++i) {
    const OutputDef& d = g.output(in_ops[i]);
    if (inputs[i].data.size() != d.byte_size())
      throw InterpretError(
          ops::cat("input ", i, " has ", inputs[i].data.size(), " bytes, its definition needs ", d.byte_size()));
    values[in_ops[i].index] = inputs[i].data;
    state[in_ops[i].index] = 2;
  }
  auto view = [&](OpRef r) {
    ops::ValueView v = ops::value_view(g, r);
    if (!v.known && state[r.index] == 2) {
      v.data = values[r.index];
      v.known = true;
    }
    return v;
  };
  std::vector<ops::ValueView> buf;
  std::vector<std::string> problems;
  auto compute = [&](OpRef r) {
    if (g.is_const(r) || g.name_id(r) == op_names::shape) return;
    const ops::OpDefinition* def = ops::find_definition(g.name_id(r));
    const std::string where = ops::cat("%", r.index, " (", g.name(r), ")");
    if (!def || !def->eval) throw InterpretError(where + ": no evaluation for this op");
    // The kernels trust the operands to fit the definition; an op that breaks it is an error.
    problems.clear();
    ops::verify_op(g, r, *def, problems, buf);
    if (!problems.empty()) throw InterpretError(problems.front());
    buf.clear();
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) buf.push_back(view(g.input(r, k)));
    std::vector<std::byte> out(g.output(r).byte_size());
    if (!def->eval(ops::OpView{buf, &g.output(r)}, out, opt.backend))
      throw InterpretError(where + ": the kernels do not take these operand types or shapes");
    values[r.index] = std::move(out);
  };
  // Depth-first from each output, inputs before users, without recursion.
  std::vector<std::pair<OpRef, std::uint32_t>> stack;
  std::vector<Tensor> results;
  for (OpRef root : ops_named(g, op_names::output)) {
    if (state[root.index] == 0) {
      stack.emplace_back(root, 0);
      state[root.index] = 1;
      while (!stack.empty()) {
        auto& [r, k] = stack.back();
        if (k < g.n_inputs(r)) {
          OpRef in = g.input(r, k++);
          if (state[in.index] == 1) throw InterpretError("the graph has a cycle");
          if (state[in.index] == 0) {
            state[in.index] = 1;
            stack.emplace_back(in, 0);
          }
          continue;
        }
        OpRef done = r;
        stack.pop_back();
        compute(done);
        state[done.index] = 2;
      }
    }
    results.push_back(Tensor{g.output(root), values[root.index]});
  }
  return results;
}

/// Random values for every Input op (op id order): floats in [-4, 4) with a few exact zeros
/// (Float16: |x| < 1), integers over their whole storage range, Bool 0 or 1.
inline std::vector<Tensor> random_inputs(const Graph& g, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Tensor> out;
  for (OpRef r : ops_named(g, op_names::input)) {
    Tensor t{g.output(r), std::vector<std::byte>(g.output(r).byte_size())};
    const std::size_t n = t.def.element_count();
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t bits = rng();
      const DType dt = t.def.dtype;
      if (dt == DType::Float16) {
        store_int(DType::UInt16, t.data.data(), i, static_cast<std::int64_t>(bits & 0x3BFF));  // finite, |x| < 1
      } else if (is_floating(dt)) {
        const double x = bits % 16 == 0
                             ? 0.0
                             : static_cast<double>(static_cast<std::int64_t>(bits >> 40) - (1 << 23)) / double(1 << 21);
        store_value(dt, t.data.data(), i, x);
      } else {
        store_int(dt, t.data.data(), i,
                  static_cast<std::int64_t>(dt == DType::Bool ? bits & 1 : bits));  // wrapped: the whole storage range
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace optgrammar::engine
