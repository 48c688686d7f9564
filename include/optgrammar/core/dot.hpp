// Graphviz DOT output of a graph: the whole graph, or a region of it (the ops a rewrite changed
// and their neighbours) with its boundary drawn as stubs.
#pragma once

#include <cstring>

#include "optgrammar/core/graph.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace optgrammar {

/// Which ops a picture shows. `shown` empty: every live op. Otherwise `shown[i]` (by graph index)
/// marks the ops drawn; an op's inputs and consumers left out are drawn as one dashed stub each
/// ("… N more inputs", "… N more consumers"). `caption`, when given, is the picture's label.
struct DotView {
  std::vector<char> shown;
  std::string caption;
};

/// A region of a graph: the ops within `hops` producer/consumer steps of the seeds.
struct DotRegion {
  std::vector<char> in;           ///< by graph index
  std::size_t ops = 0;            ///< ops in the region
  std::size_t seeds_left_out = 0; ///< seeds not in the region because the cap was reached
};

/// The ops within `hops` producer/consumer steps of the live ops in `seeds`, at most `cap` of them
/// (0: no cap). Seeds are taken in the given order, each with its neighbourhood, breadth-first,
/// until the cap is reached; the seeds then not in the region are counted as left out. Iterative:
/// the work is linear in the region and its edges, whatever the graph's depth.
inline DotRegion region_around(const Graph& g, std::span<const std::uint32_t> seeds, unsigned hops, std::size_t cap = 0) {
  DotRegion reg;
  reg.in.assign(g.size(), 0);
  auto full = [&] { return cap != 0 && reg.ops >= cap; };
  auto add = [&](std::uint32_t i, std::vector<std::uint32_t>& next) {
    if (reg.in[i] || full()) return;
    reg.in[i] = 1;
    ++reg.ops;
    next.push_back(i);
  };
  std::vector<std::uint32_t> frontier, next;
  for (std::uint32_t s : seeds) {
    if (s >= g.size() || !g.alive(OpRef{s})) continue;
    if (!reg.in[s] && full()) break;
    frontier.clear();
    if (reg.in[s]) frontier.push_back(s);
    else add(s, frontier);
    for (unsigned h = 0; h < hops && !frontier.empty(); ++h) {
      next.clear();
      for (std::uint32_t i : frontier) {
        const OpRef r{i};
        for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) add(g.input(r, k).index, next);
        g.for_each_use(r, [&](OpRef u, std::uint32_t) { add(u.index, next); });
      }
      frontier.swap(next);
    }
  }
  for (std::uint32_t s : seeds)
    if (s < g.size() && g.alive(OpRef{s}) && !reg.in[s]) ++reg.seeds_left_out;
  return reg;
}

/// What changed between `before` and `after`, the same graph later (ops keep their index and new
/// ops are appended, as in the driver): the ops of `before` that are gone or no longer as they
/// were (other inputs, output definition or constant), and the ops of `after` that are new or
/// changed so; both in index order.
struct GraphChanges {
  std::vector<std::uint32_t> removed, created;
};

inline GraphChanges graph_changes(const Graph& before, const Graph& after) {
  auto same = [&](OpRef r) {
    if (!after.alive(r) || before.name_id(r) != after.name_id(r) || before.n_inputs(r) != after.n_inputs(r) ||
        !(before.output(r) == after.output(r)) || before.is_const(r) != after.is_const(r))
      return false;
    for (std::uint32_t k = 0; k < before.n_inputs(r); ++k)
      if (before.input(r, k) != after.input(r, k)) return false;
    if (before.is_const(r) && before.payload_index(r) != after.payload_index(r)) {
      const auto a = before.payload(r), b = after.payload(r);
      if (a.size() != b.size() || (!a.empty() && std::memcmp(a.data(), b.data(), a.size()) != 0)) return false;
    }
    return true;
  };
  GraphChanges c;
  std::vector<char> kept(after.size(), 0);
  for (std::uint32_t i = 0; i < before.size(); ++i) {
    const OpRef r{i};
    if (!before.alive(r)) continue;
    if (same(r)) kept[i] = 1;
    else c.removed.push_back(i);
  }
  for (std::uint32_t i = 0; i < after.size(); ++i)
    if (after.alive(OpRef{i}) && !kept[i]) c.created.push_back(i);
  return c;
}

/// One node per op shown (label: name, %index, output type, quantization of quantized types,
/// values of constants of up to 8 f32 or i32 elements, and where the graph tracks provenance,
/// what made the op and its first source, all of them in its tooltip), one edge per input between
/// ops shown.
inline void write_dot(std::ostream& os, const Graph& g, std::string_view title, const DotView& view) {
  auto esc = [](std::string_view s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  };
  const bool all = view.shown.empty();
  auto shown = [&](OpRef r) { return all || (r.index < view.shown.size() && view.shown[r.index]); };
  os << "digraph \"" << esc(title) << "\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  if (!view.caption.empty()) os << "  labelloc=t;\n  label=\"" << esc(view.caption) << "\";\n";
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!g.alive(r) || !shown(r)) continue;
    const OutputDef& d = g.output(r);
    os << "  n" << i << " [label=\"" << esc(g.name(r)) << "\\n%" << i << " " << dtype_short_name(d.dtype) << '[';
    for (std::uint32_t k = 0; k < d.rank; ++k) os << (k ? "," : "") << d.dims[k];
    os << ']';
    if (is_quantized(d.dtype)) os << "\\nzp " << d.zero_offset << " step " << d.stepsize;
    if (g.is_const(r) && d.element_count() <= 8 && (d.dtype == DType::Float32 || d.dtype == DType::Int32)) {
      // Small constants show their values (scalars, permutations, pads, short arrays).
      const auto bytes = g.payload(r);
      os << "\\n=";
      for (std::size_t k = 0; k < d.element_count() && 4 * k + 4 <= bytes.size(); ++k) {
        std::int32_t iv;
        float fv;
        std::memcpy(&iv, bytes.data() + 4 * k, 4);
        std::memcpy(&fv, bytes.data() + 4 * k, 4);
        os << (k ? "," : "");
        if (d.dtype == DType::Int32) os << iv;
        else os << fv;
      }
    }
    if (g.tracks_origins() && g.origins().of(i) != Origins::none) {
      // Provenance: what made the op, and the first sources it stands for (all in the tooltip).
      const auto from = g.made_from(r);
      os << "\\nby " << esc(g.made_by(r));
      std::string all_from;
      for (std::size_t k = 0; k < from.size(); ++k) all_from.append(k ? ", " : "").append(from[k]);
      if (!from.empty()) {
        os << "\\nfrom " << esc(from[0]);
        if (from.size() > 1) os << " +" << from.size() - 1;
      }
      os << "\", tooltip=\"by " << esc(g.made_by(r)) << (from.empty() ? "" : " from ") << esc(all_from);
    }
    os << '"';
    if (g.is_const(r)) os << ", style=filled, fillcolor=\"#e8e8e8\"";
    if (g.is_root(r) || g.name_id(r) == op_names::input) os << ", shape=ellipse";
    os << "];\n";
  }
  std::vector<std::uint32_t> users;
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!g.alive(r) || !shown(r)) continue;
    std::uint32_t hidden_inputs = 0;
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) {
      if (!shown(g.input(r, k))) {
        ++hidden_inputs;
        continue;
      }
      os << "  n" << g.input(r, k).index << " -> n" << i << (g.n_inputs(r) > 1 ? std::string(" [label=\"").append(std::to_string(k)) + "\"]" : "") << ";\n";
    }
    if (all) continue;
    // The region's boundary: one dashed stub for the inputs left out, one for the consumers.
    if (hidden_inputs != 0)
      os << "  i" << i << " [label=\"… " << hidden_inputs << " more input" << (hidden_inputs > 1 ? "s" : "")
         << "\", style=dashed, fontcolor=gray40, color=gray60];\n  i" << i << " -> n" << i
         << " [style=dashed, color=gray60];\n";
    users.clear();
    g.for_each_use(r, [&](OpRef u, std::uint32_t) {
      if (!shown(u)) users.push_back(u.index);
    });
    std::sort(users.begin(), users.end());
    const auto consumers = static_cast<std::size_t>(std::unique(users.begin(), users.end()) - users.begin());
    if (consumers != 0)
      os << "  c" << i << " [label=\"… " << consumers << " more consumer" << (consumers > 1 ? "s" : "")
         << "\", style=dashed, fontcolor=gray40, color=gray60];\n  n" << i << " -> c" << i
         << " [style=dashed, color=gray60];\n";
  }
  os << "}\n";
}

/// The whole graph: one node per live op, one edge per input.
inline void write_dot(std::ostream& os, const Graph& g, std::string_view title = "optgrammar") {
  write_dot(os, g, title, DotView{});
}

}  // namespace optgrammar
