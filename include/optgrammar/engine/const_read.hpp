// Reading constants' elements and graph options with the language's conversions (CONSTVAL_INT,
// CONSTVAL_FLOAT, OPTION_*), outside the slot cache's fast path.
#pragma once

#include "optgrammar/core/element.hpp"
#include "optgrammar/core/float_math.hpp"
#include "optgrammar/core/graph.hpp"

#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace optgrammar::engine {

/// Element `i` of a constant as a double, or nothing when `r` is not a constant or i is out of
/// range. Quantized elements are read raw when `raw`, else dequantized.
[[gnu::noinline]] inline bool const_element(const Graph& g, OpRef r, long long i, bool raw, double& out) {
  if (!g.valid(r) || !g.alive(r) || !g.is_const(r)) return false;
  const OutputDef& d = g.outdef_at(g.output_index(r));
  if (i < 0 || static_cast<std::size_t>(i) >= d.element_count()) return false;
  const std::byte* p = g.payload(r).data() + static_cast<std::size_t>(i) * element_size(d.dtype);
  double v = element_value(d.dtype, p, 0);
  if (!raw && is_quantized(d.dtype)) v = (v - d.zero_offset) * static_cast<double>(d.stepsize);
  out = v;
  return true;
}

inline bool constval_int(const Graph& g, OpRef r, long long i, int& out) {
  // Fast path: 32-bit integer constants need no conversion or range check.
  if (g.valid(r) && g.alive(r) && g.is_const(r)) {
    const OutputDef& d = g.outdef_at(g.output_index(r));
    if ((d.dtype == DType::Int32 || d.dtype == DType::QInt32) && i >= 0 &&
        static_cast<std::size_t>(i) < d.element_count()) {
      std::int32_t v;
      std::memcpy(&v, g.payload(r).data() + static_cast<std::size_t>(i) * 4, 4);
      out = v;
      return true;
    }
  }
  double v;
  if (!const_element(g, r, i, true, v)) return false;
  if (!(v >= INT_MIN && v <= INT_MAX) || v != fmath::floor(v)) return false;
  out = static_cast<int>(v);
  return true;
}

inline bool constval_float(const Graph& g, OpRef r, long long i, float& out) {
  // Fast path: f32 constants are read as they are.
  if (g.valid(r) && g.alive(r) && g.is_const(r)) {
    const OutputDef& d = g.outdef_at(g.output_index(r));
    if (d.dtype == DType::Float32 && i >= 0 && static_cast<std::size_t>(i) < d.element_count()) {
      std::memcpy(&out, g.payload(r).data() + static_cast<std::size_t>(i) * 4, 4);
      return true;
    }
  }
  double v;
  if (!const_element(g, r, i, false, v)) return false;
  out = static_cast<float>(v);
  return true;
}

/// Reads a graph option with the spec's conversions; a missing option reads as 0 / false.
template <class T>
[[gnu::noinline]] T read_option(const Graph& g, std::string_view name) {
  const OptionValue* v = g.option(name);
  if (!v) return T{};
  return std::visit(
      [](const auto& x) -> T {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::string>)
          return static_cast<T>(x.empty() ? 0 : 1);
        else if constexpr (std::is_same_v<T, bool>)
          return x != X{};
        else
          return static_cast<T>(x);
      },
      *v);
}

}  // namespace optgrammar::engine
