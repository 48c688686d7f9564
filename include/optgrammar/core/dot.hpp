// Graphviz DOT output of a graph: the whole graph, or a region of it (the ops a rewrite changed
// and their neighbours) with its boundary drawn as stubs.
#pragma once

#include <cstring>

#include "optgrammar/core/graph.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar {

/// Which ops a picture shows. `shown` empty: every live op. Otherwise `shown[i]` (by graph index)
/// marks the ops drawn; an op's inputs and consumers left out are drawn as one dashed stub each
/// ("… N more inputs", "… N more consumers"). `caption`, when given, is the picture's label.
/// `marked[i]` draws op i filled with `mark_fill` and a bold border (the ops that changed).
/// `inline_constants`: a constant read by an op drawn is no node of its own but a line of that
/// op's box (`k: %i f32[64,3,3,3]`, with the values of a small one), which keeps a picture of a
/// model, whose weights and attributes are constants, to its computation.
struct DotView {
  std::vector<char> shown;
  std::string caption;
  std::vector<char> marked{};  // {}: DotView{shown, caption} leaves it empty without a warning
  std::string mark_fill = "#ffe0b0";
  bool inline_constants = false;
};

/// The fill of ops a rewrite removed (the before side) and made (the after side).
inline constexpr const char* dot_removed_fill = "#f8d0d0";
inline constexpr const char* dot_created_fill = "#c8ecc8";

/// Text for a DOT string: quotes and backslashes escaped.
inline std::string dot_escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

/// Op r's output type as a label shows it, `%7 f32[1,8]`, with `=v,v,...` for a constant of up to
/// 8 f32 or i32 elements (scalars, permutations, pads, short arrays).
inline void write_dot_op_type(std::ostream& os, const Graph& g, OpRef r) {
  const OutputDef& d = g.output(r);
  os << '%' << r.index << " " << dtype_short_name(d.dtype) << '[';
  for (std::uint32_t k = 0; k < d.rank; ++k) os << (k ? "," : "") << d.dims[k];
  os << ']';
  if (g.is_const(r) && d.element_count() != 0 && d.element_count() <= 8 &&
      (d.dtype == DType::Float32 || d.dtype == DType::Int32)) {
    const auto bytes = g.payload(r);
    os << " =";
    for (std::size_t k = 0; k < d.element_count() && 4 * k + 4 <= bytes.size(); ++k) {
      std::int32_t iv;
      float fv;
      std::memcpy(&iv, bytes.data() + 4 * k, 4);
      std::memcpy(&fv, bytes.data() + 4 * k, 4);
      os << (k ? "," : "");
      if (d.dtype == DType::Int32)
        os << iv;
      else
        os << fv;
    }
  }
}

/// The attributes of op r's node: its label (name, then write_dot_op_type, quantization of
/// quantized types, then one line per input k for which `inlined(k)` holds: that constant's
/// type; where the graph tracks provenance, what made the op and its first source, all of them
/// in its tooltip) and its style (constants filled grey, inputs and outputs as ellipses). `fill`,
/// when given, fills the node and draws it bold.
template <class Inlined>
void write_dot_node_attributes(std::ostream& os, const Graph& g, OpRef r, const char* fill, Inlined inlined) {
  const OutputDef& d = g.output(r);
  os << "label=\"" << dot_escape(g.name(r)) << "\\n";
  write_dot_op_type(os, g, r);
  if (is_quantized(d.dtype)) os << "\\nzp " << d.zero_offset << " step " << d.stepsize;
  for (std::uint32_t k = 0; k < g.n_inputs(r); ++k)
    if (inlined(k)) {
      os << "\\n" << k << ": ";
      write_dot_op_type(os, g, g.input(r, k));
    }
  if (g.tracks_origins() && g.origins().of(r.index) != Origins::none) {
    // Provenance: what made the op, and the first sources it stands for (all in the tooltip).
    const auto from = g.made_from(r);
    os << "\\nby " << dot_escape(g.made_by(r));
    std::string all_from;
    for (std::size_t k = 0; k < from.size(); ++k) all_from.append(k ? ", " : "").append(from[k]);
    if (!from.empty()) {
      os << "\\nfrom " << dot_escape(from[0]);
      if (from.size() > 1) os << " +" << from.size() - 1;
    }
    os << "\", tooltip=\"by " << dot_escape(g.made_by(r)) << (from.empty() ? "" : " from ") << dot_escape(all_from);
  }
  os << '"';
  if (fill)
    os << ", style=\"filled,bold\", fillcolor=\"" << fill << "\", penwidth=2";
  else if (g.is_const(r))
    os << ", style=filled, fillcolor=\"#e8e8e8\"";
  if (g.is_root(r) || g.name_id(r) == op_names::input) os << ", shape=ellipse";
}
inline void write_dot_node_attributes(std::ostream& os, const Graph& g, OpRef r, const char* fill = nullptr) {
  write_dot_node_attributes(os, g, r, fill, [](std::uint32_t) { return false; });
}

/// A region of a graph: the ops within `hops` producer/consumer steps of the seeds.
struct DotRegion {
  std::vector<char> in;            ///< by graph index
  std::size_t ops = 0;             ///< ops in the region (with constants_inline: other than constants)
  std::size_t constants = 0;       ///< with constants_inline: the constants its ops read
  std::size_t seeds_left_out = 0;  ///< seeds not in the region because the cap was reached
};

/// The ops within `hops` producer/consumer steps of the live ops in `seeds`, at most `cap` of them
/// (0: no cap), grown so that the region is in as few connected pieces as it can be: from the
/// first seed, breadth-first along inputs and consumers, a seed reached joins with its own
/// neighbourhood (steps through seeds cost nothing, through other ops one each), so that a changed
/// part of the graph is taken whole before the next seed not yet reached starts another piece.
/// Seeds not in the region when the cap is reached are counted as left out. With
/// `constants_inline` (DotView::inline_constants), constants are not grown through nor counted
/// against the cap: the region holds those its ops read. Iterative: the work is linear in the
/// region and its edges, whatever the graph's depth.
inline DotRegion region_around(const Graph& g, std::span<const std::uint32_t> seeds, unsigned hops, std::size_t cap = 0,
                               bool constants_inline = false) {
  DotRegion reg;
  reg.in.assign(g.size(), 0);
  std::vector<char> seed(g.size(), 0);
  for (std::uint32_t s : seeds)
    if (s < g.size() && g.alive(OpRef{s})) seed[s] = 1;
  constexpr unsigned unreached = ~0u;
  std::vector<unsigned> dist(g.size(), unreached);  // steps from the nearest seed, through other ops
  std::deque<std::uint32_t> work;                   // 0-1 breadth-first: seeds at the front, other ops at the back
  auto full = [&] { return cap != 0 && reg.ops >= cap; };
  auto reach = [&](std::uint32_t i, unsigned from) {
    if (constants_inline && g.is_const(OpRef{i})) return;
    const unsigned d = seed[i] ? 0 : from + 1;
    if (d > hops || d >= dist[i]) return;
    if (!reg.in[i]) {
      if (full()) return;
      reg.in[i] = 1;
      ++reg.ops;
    }
    dist[i] = d;
    if (d == 0)
      work.push_front(i);
    else
      work.push_back(i);
  };
  for (std::uint32_t s : seeds) {
    if (s >= g.size() || !seed[s] || reg.in[s]) continue;
    if (full()) break;
    reach(s, 0);
    while (!work.empty()) {
      const std::uint32_t i = work.front();
      work.pop_front();
      const unsigned d = dist[i];
      if (d >= hops && !seed[i]) continue;  // the edge of the context
      const OpRef r{i};
      for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) reach(g.input(r, k).index, d);
      g.for_each_use(r, [&](OpRef u, std::uint32_t) { reach(u.index, d); });
    }
  }
  if (constants_inline)
    for (std::uint32_t i = 0; i < g.size(); ++i)
      if (reg.in[i] == 1)
        for (std::uint32_t k = 0; k < g.n_inputs(OpRef{i}); ++k)
          if (const OpRef c = g.input(OpRef{i}, k); g.is_const(c) && !reg.in[c.index]) {
            reg.in[c.index] = 2;
            ++reg.constants;
          }
  for (std::uint32_t s : seeds)
    if (s < g.size() && seed[s] && !reg.in[s]) ++reg.seeds_left_out;
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
    if (same(r))
      kept[i] = 1;
    else
      c.removed.push_back(i);
  }
  for (std::uint32_t i = 0; i < after.size(); ++i)
    if (after.alive(OpRef{i}) && !kept[i]) c.created.push_back(i);
  return c;
}

/// One node per op shown (write_dot_node_attributes: name, %index, output type, ...), one edge per
/// input between ops shown; with DotView::inline_constants, the constants an op shown reads are
/// lines of its box instead.
inline void write_dot(std::ostream& os, const Graph& g, std::string_view title, const DotView& view) {
  const bool all = view.shown.empty();
  auto shown = [&](OpRef r) { return all || (r.index < view.shown.size() && view.shown[r.index]); };
  auto marked = [&](OpRef r) { return r.index < view.marked.size() && view.marked[r.index]; };
  // An inlined constant: read by an op drawn as a box. A constant nothing drawn reads stays a box.
  auto inlined = [&](OpRef c) {
    if (!view.inline_constants || !g.is_const(c)) return false;
    bool read = false;
    g.for_each_use(c, [&](OpRef u, std::uint32_t) { read = read || shown(u); });
    return read;
  };
  auto drawn = [&](OpRef r) { return g.alive(r) && shown(r) && !inlined(r); };
  os << "digraph \"" << dot_escape(title) << "\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  if (!view.caption.empty()) os << "  labelloc=t;\n  label=\"" << dot_escape(view.caption) << "\";\n";
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!drawn(r)) continue;
    os << "  n" << i << " [";
    write_dot_node_attributes(os, g, r, marked(r) ? view.mark_fill.c_str() : nullptr,
                              [&](std::uint32_t k) { return view.inline_constants && g.is_const(g.input(r, k)); });
    os << "];\n";
  }
  std::vector<std::uint32_t> users;
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!drawn(r)) continue;
    std::uint32_t hidden_inputs = 0;
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) {
      const OpRef in = g.input(r, k);
      if (view.inline_constants && g.is_const(in)) continue;  // a line of the box
      if (!shown(in)) {
        ++hidden_inputs;
        continue;
      }
      os << "  n" << in.index << " -> n" << i
         << (g.n_inputs(r) > 1 ? std::string(" [label=\"").append(std::to_string(k)) + "\"]" : "") << ";\n";
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
