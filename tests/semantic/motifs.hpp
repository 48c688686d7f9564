// Small pieces the packages' motif builders share: random constants and shapes.
#pragma once

#include "semantic_check.hpp"

#include <algorithm>
#include <numeric>

namespace semantic {

/// Random float values in [-4, 4) on a grid of 1/64, with exact zeros now and then.
inline std::vector<float> random_floats(std::mt19937_64& rng, std::size_t n) {
  std::vector<float> v(n);
  for (float& x : v) x = rng() % 8 == 0 ? 0.0f : static_cast<float>(static_cast<int>(rng() % 512) - 256) / 64.0f;
  return v;
}

/// A constant of definition d, every element `value` (in d's storage type: f32 or i32).
inline OpRef filled_const(Graph& g, const OutputDef& d, double value) {
  const std::size_t n = d.element_count();
  if (d.dtype == DType::Int32) {
    std::vector<std::int32_t> v(n, static_cast<std::int32_t>(value));
    return g.add_const(d, std::span<const std::int32_t>(v));
  }
  std::vector<float> v(n, static_cast<float>(value));
  return g.add_const(d, std::span<const float>(v));
}

/// A definition of dtype t and the first `rank` dims of m.
inline OutputDef shape_of(DType t, const Motif& m, std::uint32_t rank, std::int32_t zero = 0, float step = 1.0f) {
  OutputDef d = OutputDef::make(t, {}, zero, step);
  d.rank = rank;
  for (std::uint32_t i = 0; i < rank; ++i) d.dims[i] = m.dims[i];
  return d;
}

inline std::array<std::size_t, 4> random_dims(std::mt19937_64& rng, std::size_t max) {
  std::array<std::size_t, 4> d{};
  for (auto& x : d) x = 1 + rng() % max;
  return d;
}

/// A motif of `kind` with a random variant (of 6) and random dims of 1..max_dim; a package's
/// draw function adjusts what its motifs need.
inline Motif random_motif(std::mt19937_64& rng, int kind, std::size_t max_dim) {
  Motif m;
  m.kind = kind;
  m.variant = static_cast<int>(rng() % 6);
  m.dims = random_dims(rng, max_dim);
  return m;
}

/// A random permutation of 0..n-1.
inline std::vector<std::int32_t> random_perm(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::int32_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

}  // namespace semantic
