// Graphviz DOT output of a graph.
#pragma once

#include <cstring>

#include "optgrammar/core/graph.hpp"

#include <ostream>
#include <string>

namespace optgrammar {

/// One node per live op (label: name, %index, output type, quantization of quantized types,
/// values of constants of up to 8 f32 or i32 elements), one edge per input.
inline void write_dot(std::ostream& os, const Graph& g, std::string_view title = "optgrammar") {
  auto esc = [](std::string_view s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  };
  os << "digraph \"" << esc(title) << "\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!g.alive(r)) continue;
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
    os << '"';
    if (g.is_const(r)) os << ", style=filled, fillcolor=\"#e8e8e8\"";
    if (g.is_root(r) || g.name_id(r) == op_names::input) os << ", shape=ellipse";
    os << "];\n";
  }
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!g.alive(r)) continue;
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k)
      os << "  n" << g.input(r, k).index << " -> n" << i << (g.n_inputs(r) > 1 ? std::string(" [label=\"").append(std::to_string(k)) + "\"]" : "") << ";\n";
  }
  os << "}\n";
}

}  // namespace optgrammar
