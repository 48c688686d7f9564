// The description of an op's output tensor: shape, element type and quantization.
#pragma once

#include "optgrammar/core/dtype.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace optgrammar {

inline constexpr std::size_t max_rank = 8;
/// The largest dimension a shape may have (dims are int32 in shape tensors).
inline constexpr std::size_t max_dim = 0x7FFFFFFF;
/// The largest byte size of a tensor (2^48): element counts, byte sizes and the products of any
/// of a shape's dims (strides) then never overflow 64 bits.
inline constexpr std::uint64_t max_byte_size = std::uint64_t{1} << 48;

/// Shape, dtype and quantization of one op output. Dims past the rank are 0.
struct OutputDef {
  std::uint32_t rank = 0;
  DType dtype = DType::Float32;
  std::int32_t zero_offset = 0;
  float stepsize = 1.0f;
  std::array<std::size_t, max_rank> dims{};

  /// OutputDef::make(DType::Float32, {1, 32, 32, 16}).
  static OutputDef make(DType t, std::initializer_list<std::size_t> shape, std::int32_t zero = 0, float step = 1.0f) {
    OutputDef d;
    d.dtype = t;
    d.zero_offset = zero;
    d.stepsize = step;
    for (std::size_t v : shape)
      if (d.rank < max_rank) d.dims[d.rank++] = v;
    return d;
  }

  /// DIM_OF semantics: a dimension past the rank is 0.
  constexpr std::size_t dim(std::size_t i) const noexcept { return i < rank ? dims[i] : 0; }

  constexpr std::size_t element_count() const noexcept {
    std::size_t n = 1;
    for (std::uint32_t i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
  constexpr std::size_t byte_size() const noexcept { return element_count() * element_size(dtype); }

  /// Why this definition cannot be represented: a rank beyond max_rank, a dim beyond max_dim,
  /// or dims whose product (zero dims counted as 1) times the element size exceeds
  /// max_byte_size. nullptr when it can.
  constexpr const char* unrepresentable() const noexcept {
    if (rank > max_rank) return "more than 8 dimensions";
    std::uint64_t bytes = element_size(dtype);
    for (std::uint32_t i = 0; i < rank; ++i) {
      if (dims[i] > max_dim) return "a dimension exceeds 2147483647";
      if (dims[i] == 0) continue;
      if (bytes > max_byte_size / dims[i]) return "the byte size exceeds 2^48";
      bytes *= dims[i];
    }
    return nullptr;
  }

  /// Same dtype and, when quantized, same zero offset and step size (SAME_ENCODING).
  constexpr bool same_encoding(const OutputDef& o) const noexcept {
    if (dtype != o.dtype) return false;
    return !is_quantized(dtype) || (zero_offset == o.zero_offset && stepsize == o.stepsize);
  }
  constexpr bool same_shape(const OutputDef& o) const noexcept { return rank == o.rank && dims == o.dims; }

  friend bool operator==(const OutputDef& a, const OutputDef& b) noexcept {
    return a.rank == b.rank && a.dtype == b.dtype && a.zero_offset == b.zero_offset && a.stepsize == b.stepsize &&
           a.dims == b.dims;
  }
};

struct OutputDefHash {
  std::size_t operator()(const OutputDef& d) const noexcept {
    std::size_t h = d.rank * 0x9E3779B97F4A7C15ull;
    auto mix = [&h](std::size_t v) { h = (h ^ v) * 0x100000001B3ull + (h >> 29); };
    mix(static_cast<std::size_t>(d.dtype));
    mix(static_cast<std::size_t>(static_cast<std::uint32_t>(d.zero_offset)));
    // the bits of the step size; -0 and +0 compare equal, so they hash alike
    mix(d.stepsize == 0.0f ? 0u : std::bit_cast<std::uint32_t>(d.stepsize));
    for (std::uint32_t i = 0; i < d.rank; ++i) mix(d.dims[i]);
    return h;
  }
};

}  // namespace optgrammar
