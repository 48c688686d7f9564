// Constant-folding kernels: the vocabulary shared by every backend.
//
// Everything under fold/ is freestanding: no containers, no exceptions, no allocation, no libm.
// Only the C headers <stdint.h> and <stddef.h> are used, because those are the ones that also
// resolve in the libc-less Hexagon cross build (clang's own builtin headers); <cstdint> would
// pull libc++'s configuration, which expects a C library there. Buffers are raw pointers plus
// element counts; shapes are fixed-size (rank <= 4).
//
// The numeric rules (rounding, saturation, NaN) are defined once in reference.hpp and written
// down in docs/fold.md. Backends must reproduce the reference bit for bit for integer and
// quantized kernels, and for float kernels too where they use the same IEEE operations.
#pragma once

#include <stddef.h>
#include <stdint.h>

// No float kernel contains a multiply whose result feeds an add directly (Quantize clamps in
// between), so floating-point contraction into FMA (-ffp-contract) cannot change results.

namespace optgrammar::fold {

/// Element types the kernels understand. Quantized tensors use the integer storage types
/// (qu8 = u8 storage + QuantParams, ...).
enum class DType : uint8_t { f32, i32, u8, i8, u16, i16 };

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = DType::i32;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::u8;
};
template <>
struct dtype_of<int8_t> {
  static constexpr DType value = DType::i8;
};
template <>
struct dtype_of<uint16_t> {
  static constexpr DType value = DType::u16;
};
template <>
struct dtype_of<int16_t> {
  static constexpr DType value = DType::i16;
};

/// Range of an integer storage type, as int64 so that comparisons never overflow.
template <class T>
struct int_range;
template <>
struct int_range<int32_t> {
  static constexpr int64_t lo = -2147483647 - 1, hi = 2147483647;
};
template <>
struct int_range<uint8_t> {
  static constexpr int64_t lo = 0, hi = 255;
};
template <>
struct int_range<int8_t> {
  static constexpr int64_t lo = -128, hi = 127;
};
template <>
struct int_range<uint16_t> {
  static constexpr int64_t lo = 0, hi = 65535;
};
template <>
struct int_range<int16_t> {
  static constexpr int64_t lo = -32768, hi = 32767;
};

template <class A, class B>
inline constexpr bool is_same_v = false;
template <class A>
inline constexpr bool is_same_v<A, A> = true;

template <class T>
inline constexpr bool is_float_v = false;
template <>
inline constexpr bool is_float_v<float> = true;
/// The types the quantized kernels accept as storage (qu8, qi8, qu16, qi16).
template <class T>
inline constexpr bool is_quant_storage_v = false;
template <>
inline constexpr bool is_quant_storage_v<uint8_t> = true;
template <>
inline constexpr bool is_quant_storage_v<int8_t> = true;
template <>
inline constexpr bool is_quant_storage_v<uint16_t> = true;
template <>
inline constexpr bool is_quant_storage_v<int16_t> = true;

template <class T>
struct make_unsigned_t_;
template <>
struct make_unsigned_t_<int32_t> {
  using type = uint32_t;
};
template <>
struct make_unsigned_t_<uint8_t> {
  using type = uint8_t;
};
template <>
struct make_unsigned_t_<int8_t> {
  using type = uint8_t;
};
template <>
struct make_unsigned_t_<uint16_t> {
  using type = uint16_t;
};
template <>
struct make_unsigned_t_<int16_t> {
  using type = uint16_t;
};
template <class T>
using unsigned_of = typename make_unsigned_t_<T>::type;

/// Clamps an int64 to T's range and converts.
template <class T>
constexpr T saturate(int64_t v) {
  return static_cast<T>(v < int_range<T>::lo ? int_range<T>::lo : v > int_range<T>::hi ? int_range<T>::hi : v);
}

/// The one rounding rule of every fixed-point kernel: t / 2^n rounded to nearest, ties away
/// from zero, for 0 <= n <= 62 and |t| <= 2^62. round_shift(5, 1) == 3, round_shift(-5, 1) == -3,
/// round_shift(-6, 2) == -2 (-1.5 rounds away from zero).
constexpr int64_t round_shift(int64_t t, int n) {
  if (n <= 0) return t;
  const int64_t half = int64_t{1} << (n - 1);
  return (t + half - (t < 0 ? 1 : 0)) >> n;  // >> of a negative int64 is arithmetic in C++20
}

/// Quantization of a tensor: real = step * (q - zero_point).
struct QuantParams {
  float step;
  int32_t zero_point;
};

/// What Quantize uses: q = zero_point + round_half_even(x * inv_step), saturated. The reciprocal
/// is a parameter (not recomputed per element) so that the kernel needs no float division;
/// quantize_params() computes it as 1.0f / step.
struct QuantizeParams {
  float inv_step;
  int32_t zero_point;
};
constexpr QuantizeParams quantize_params(QuantParams q) { return {1.0f / q.step, q.zero_point}; }

/// Requantize: out = sat(out_zp + round_shift(int64(wrap32(in - in_zp)) * multiplier, shift)),
/// 0 <= shift <= 62. The real scale is multiplier / 2^shift.
struct RequantParams {
  int32_t in_zero_point;
  int32_t multiplier;
  int32_t shift;
  int32_t out_zero_point;
};

/// Quantized Add: out = sat(out_zp + round_shift((a - a_zp) * a_mul + (b - b_zp) * b_mul, shift))
/// with the sum taken exactly (int64). For 8-bit storage make_qadd_params() keeps |a_mul|,
/// |b_mul| <= 32767 so that the sum fits int32 (which the vector backends rely on).
struct QAddParams {
  int32_t a_zero_point, b_zero_point, out_zero_point;
  int32_t a_multiplier, b_multiplier;
  int32_t shift;
};

/// Quantized Mul: out = sat(out_zp + round_shift((a - a_zp) * (b - b_zp) * multiplier, shift)),
/// product exact (int64). make_qmul_params() keeps |multiplier| <= 2^14 for 8-bit storage
/// (so product + rounding fit int32) and <= 2^29 for 16-bit storage (so it fits int64).
struct QMulParams {
  int32_t a_zero_point, b_zero_point, out_zero_point;
  int32_t multiplier;
  int32_t shift;
};

/// A dense row-major shape of rank 0..4. dims[i] for i >= rank are ignored.
struct Shape {
  int rank = 0;
  int64_t dims[4] = {1, 1, 1, 1};
};

constexpr int64_t element_count(const Shape& s) {
  int64_t n = 1;
  for (int i = 0; i < s.rank; ++i) n *= s.dims[i];
  return n;
}

constexpr bool same_shape(const Shape& a, const Shape& b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.dims[i] != b.dims[i]) return false;
  return true;
}

/// Elementwise binary operations. Integer Add/Sub/Mul wrap modulo 2^bits (two's complement).
enum class BinOp : uint8_t { add, sub, mul, max, min };
/// Elementwise unary operations. Integer Neg/Abs wrap (Neg(INT_MIN) == Abs(INT_MIN) == INT_MIN).
enum class UnOp : uint8_t { neg, abs, relu };

}  // namespace optgrammar::fold
