// One element of a tensor's row-major bytes, of any dtype, read as a number and written from
// one: the reference interpreter, the constant readers of rules and the tools share these.
#pragma once

#include "optgrammar/core/dtype.hpp"
#include "optgrammar/core/float_math.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace optgrammar {

/// IEEE half (bits) to float.
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h >> 15) << 31;
  const std::uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  float f;
  if (exp == 0) {
    f = fmath::ldexp(static_cast<float>(man), -24);
    return sign ? -f : f;
  }
  std::uint32_t bits;
  if (exp == 31)
    bits = sign | 0x7F800000u | (man << 13);
  else
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  std::memcpy(&f, &bits, 4);
  return f;
}

/// float to IEEE half (bits), rounding to nearest even.
inline std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t ax = x & 0x7FFFFFFFu;
  if (ax >= 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7C00u | (ax > 0x7F800000u ? 0x200u : 0u));
  if (ax >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds past 65504
  if (ax < 0x38800000u) {                          // below the smallest normal half: a multiple of 2^-24
    const float a = fmath::fabs(f) * 16777216.0f;  // exact scaling
    const float r = fmath::nearbyint(a);           // current rounding mode: to nearest even
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(r));
  }
  std::uint32_t m = ax + 0xC8000000u;  // rebias the exponent (127 -> 15)
  m = m + 0x0FFFu + ((m >> 13) & 1u);  // round to nearest even at bit 13
  return static_cast<std::uint16_t>(sign | (m >> 13));
}

/// bfloat16 (the upper half of a float's bits) to float: exact.
inline float bfloat16_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// float to bfloat16, rounding to nearest even (NaN stays a quiet NaN).
inline std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

namespace element_detail {
template <class T>
T load(const std::byte* p, std::size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}
template <class T>
void store(std::byte* p, std::size_t i, T v) {
  std::memcpy(p + i * sizeof(T), &v, sizeof(T));
}
}  // namespace element_detail

/// Element i of a tensor of type t, as a double (quantized types: the stored integer; 64-bit
/// integers beyond 2^53 are rounded, element_int reads them exactly).
inline double element_value(DType t, const std::byte* p, std::size_t i) {
  using element_detail::load;
  switch (t) {
    case DType::Float32: return load<float>(p, i);
    case DType::Float16: return half_to_float(load<std::uint16_t>(p, i));
    case DType::BFloat16: return bfloat16_to_float(load<std::uint16_t>(p, i));
    case DType::Float64: return load<double>(p, i);
    case DType::QUInt8:
    case DType::UInt8:
    case DType::Bool: return load<std::uint8_t>(p, i);
    case DType::QInt8:
    case DType::Int8: return load<std::int8_t>(p, i);
    case DType::QUInt16:
    case DType::UInt16: return load<std::uint16_t>(p, i);
    case DType::QInt16:
    case DType::Int16: return load<std::int16_t>(p, i);
    case DType::QInt32:
    case DType::Int32: return load<std::int32_t>(p, i);
    case DType::UInt32: return load<std::uint32_t>(p, i);
    case DType::Int64: return static_cast<double>(load<std::int64_t>(p, i));
    case DType::UInt64: return static_cast<double>(load<std::uint64_t>(p, i));
  }
  return 0;
}

/// A double as an int64 the way a float-to-integer conversion goes here: truncated toward zero,
/// saturated to int64's range, NaN as 0.
inline std::int64_t truncate_to_int64(double v) {
  if (fmath::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<std::int64_t>(v);
}

/// Element i of an integer, quantized or bool tensor exactly (floats: truncate_to_int64).
inline std::int64_t element_int(DType t, const std::byte* p, std::size_t i) {
  using element_detail::load;
  switch (t) {
    case DType::Int64: return load<std::int64_t>(p, i);
    case DType::UInt64: return static_cast<std::int64_t>(load<std::uint64_t>(p, i));
    case DType::Float32:
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float64: return truncate_to_int64(element_value(t, p, i));
    default: return static_cast<std::int64_t>(element_value(t, p, i));
  }
}

/// Stores an integer as element i: wrapped to the storage width (two's complement), Bool as
/// v != 0, floats converted (rounded to nearest).
inline void store_int(DType t, std::byte* p, std::size_t i, std::int64_t v) {
  using element_detail::store;
  const auto u = static_cast<std::uint64_t>(v);
  switch (t) {
    case DType::Bool: store(p, i, static_cast<std::uint8_t>(v != 0)); return;
    case DType::QUInt8:
    case DType::QInt8:
    case DType::UInt8:
    case DType::Int8: store(p, i, static_cast<std::uint8_t>(u)); return;
    case DType::QUInt16:
    case DType::QInt16:
    case DType::UInt16:
    case DType::Int16: store(p, i, static_cast<std::uint16_t>(u)); return;
    case DType::QInt32:
    case DType::Int32:
    case DType::UInt32: store(p, i, static_cast<std::uint32_t>(u)); return;
    case DType::Int64:
    case DType::UInt64: store(p, i, u); return;
    case DType::Float32: store(p, i, static_cast<float>(v)); return;
    case DType::Float16: store(p, i, float_to_half(static_cast<float>(v))); return;
    case DType::BFloat16: store(p, i, float_to_bfloat16(static_cast<float>(v))); return;
    case DType::Float64: store(p, i, static_cast<double>(v)); return;
  }
}

/// Stores v as element i: floats rounded to nearest (Float16 and BFloat16 through float),
/// Bool as v != 0 (NaN is true), other integers truncated toward zero and wrapped to the
/// storage width (NaN gives 0; beyond int64's range, its ends).
inline void store_value(DType t, std::byte* p, std::size_t i, double v) {
  using element_detail::store;
  switch (t) {
    case DType::Float32: store(p, i, static_cast<float>(v)); return;
    case DType::Float16: store(p, i, float_to_half(static_cast<float>(v))); return;
    case DType::BFloat16: store(p, i, float_to_bfloat16(static_cast<float>(v))); return;
    case DType::Float64: store(p, i, v); return;
    case DType::Bool: store(p, i, static_cast<std::uint8_t>(v != 0)); return;
    case DType::UInt64:
      if (v >= 9223372036854775808.0 && v < 18446744073709551616.0) {
        store(p, i, static_cast<std::uint64_t>(v));
        return;
      }
      break;
    default: break;
  }
  store_int(t, p, i, truncate_to_int64(v));
}

}  // namespace optgrammar
