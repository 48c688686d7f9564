// The reference: scalar definitions of every folding kernel. This file *is* the semantics;
// docs/fold.md restates it in prose and the backends are tested against it bit for bit.
#pragma once

#include "optgrammar/fold/base.hpp"

namespace optgrammar::fold {

/// One element at a time. Written for clarity, not speed.
namespace scalar {

template <class T>
constexpr T wrap_from(uint32_t v) {
  return static_cast<T>(static_cast<unsigned_of<T>>(v));
}

template <BinOp op, class T>
constexpr T binary(T a, T b) {
  if constexpr (is_float_v<T>) {
    if constexpr (op == BinOp::add) return a + b;
    if constexpr (op == BinOp::sub) return a - b;
    if constexpr (op == BinOp::mul) return a * b;
    // max/min: a NaN operand gives NaN; between -0 and +0 the second operand wins.
    if constexpr (op == BinOp::max) return a != a ? a : (a > b ? a : b);
    if constexpr (op == BinOp::min) return a != a ? a : (a < b ? a : b);
  } else {
    // Arithmetic modulo 2^32 then truncation: the two's-complement wrap of T.
    const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    if constexpr (op == BinOp::add) return wrap_from<T>(ua + ub);
    if constexpr (op == BinOp::sub) return wrap_from<T>(ua - ub);
    if constexpr (op == BinOp::mul) return wrap_from<T>(ua * ub);
    if constexpr (op == BinOp::max) return a > b ? a : b;
    if constexpr (op == BinOp::min) return a < b ? a : b;
  }
}

template <UnOp op, class T>
constexpr T unary(T x) {
  if constexpr (is_float_v<T>) {
    if constexpr (op == UnOp::neg) return -x;
    if constexpr (op == UnOp::abs) return __builtin_fabsf(x);    // clears the sign bit, also of NaN
    if constexpr (op == UnOp::relu) return x < 0.0f ? 0.0f : x;  // NaN and -0 pass unchanged
  } else {
    if constexpr (op == UnOp::neg) return wrap_from<T>(0u - static_cast<uint32_t>(x));
    if constexpr (op == UnOp::abs) return x < 0 ? wrap_from<T>(0u - static_cast<uint32_t>(x)) : x;
    if constexpr (op == UnOp::relu) return x < 0 ? T(0) : x;
  }
}

/// ReluMinMax / Clamp: lo where x < lo, else hi where x > hi, else x (NaN passes unchanged).
template <class T>
constexpr T clamp(T x, T lo, T hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

/// Round to nearest, ties to even, for |x| <= 2^22, without libm: adding 1.5 * 2^23 moves x
/// to where the float spacing is 1, so the IEEE addition itself rounds (to even).
constexpr float round_half_even_small(float x) {
  constexpr float magic = 12582912.0f;  // 1.5 * 2^23
  const float y = x + magic;
  return y - magic;
}

/// Cast: int -> int saturates; float -> int truncates toward zero, saturates, NaN -> 0;
/// int -> float rounds to nearest even (IEEE); same type copies.
template <class To, class From>
constexpr To cast(From x) {
  if constexpr (is_same_v<To, From>)
    return x;
  else if constexpr (is_float_v<To>)
    return static_cast<float>(x);
  else if constexpr (is_float_v<From>) {
    constexpr float lo = static_cast<float>(int_range<To>::lo);
    constexpr float hi_excl = static_cast<float>(int_range<To>::hi) + 1.0f;  // exact: a power of two
    if (x != x) return To(0);
    if (x <= lo) return static_cast<To>(int_range<To>::lo);
    if (x >= hi_excl) return static_cast<To>(int_range<To>::hi);
    return static_cast<To>(x);
  } else {
    return saturate<To>(static_cast<int64_t>(x));
  }
}

/// Quantize: q = zp + round_half_even(x * inv_step), saturated to Q; NaN -> zp. The clamp happens
/// on the float before rounding (same result, and the rounding then never sees a huge value).
template <class Q>
constexpr Q quantize(float x, QuantizeParams p) {
  float v = x * p.inv_step;
  if (v != v) v = 0.0f;
  const float lo = static_cast<float>(int_range<Q>::lo - p.zero_point);
  const float hi = static_cast<float>(int_range<Q>::hi - p.zero_point);
  v = v < lo ? lo : (v > hi ? hi : v);
  const float r = round_half_even_small(v);
  return static_cast<Q>(static_cast<int32_t>(r) + p.zero_point);
}

/// Dequantize: step * (q - zp), the difference computed exactly then converted to float.
template <class Q>
constexpr float dequantize(Q q, QuantParams p) {
  return static_cast<float>(static_cast<int64_t>(q) - p.zero_point) * p.step;
}

/// Requantize: sat(out_zp + round_shift(int64(wrap32(x - in_zp)) * multiplier, shift)).
template <class Out, class In>
constexpr Out requantize(In x, RequantParams p) {
  const int32_t d = static_cast<int32_t>(static_cast<uint32_t>(x) - static_cast<uint32_t>(p.in_zero_point));
  const int64_t t = static_cast<int64_t>(d) * p.multiplier;
  return saturate<Out>(round_shift(t, p.shift) + p.out_zero_point);
}

template <class Q>
constexpr Q qadd(Q a, Q b, QAddParams p) {
  const int64_t t = (static_cast<int64_t>(a) - p.a_zero_point) * p.a_multiplier +
                    (static_cast<int64_t>(b) - p.b_zero_point) * p.b_multiplier;
  return saturate<Q>(round_shift(t, p.shift) + p.out_zero_point);
}

template <class Q>
constexpr Q qmul(Q a, Q b, QMulParams p) {
  const int64_t prod = (static_cast<int64_t>(a) - p.a_zero_point) * (static_cast<int64_t>(b) - p.b_zero_point);
  // Wrapping multiply: only a multiplier outside make_qmul_params()' bounds can overflow.
  const int64_t t = static_cast<int64_t>(static_cast<uint64_t>(prod) * static_cast<uint64_t>(int64_t{p.multiplier}));
  return saturate<Q>(round_shift(t, p.shift) + p.out_zero_point);
}

}  // namespace scalar

/// Reference kernels over buffers: plain loops over the scalar definitions.
namespace reference {

template <BinOp op, class T>
void binary(const T* a, const T* b, T* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::binary<op>(a[i], b[i]);
}
template <UnOp op, class T>
void unary(const T* x, T* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::unary<op>(x[i]);
}
template <class T>
void clamp(const T* x, T* out, size_t n, T lo, T hi) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::clamp(x[i], lo, hi);
}
template <class To, class From>
void cast(const From* x, To* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::cast<To>(x[i]);
}
template <class Q>
void quantize(const float* x, Q* out, size_t n, QuantizeParams p) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::quantize<Q>(x[i], p);
}
template <class Q>
void dequantize(const Q* q, float* out, size_t n, QuantParams p) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::dequantize(q[i], p);
}
template <class Out, class In>
void requantize(const In* x, Out* out, size_t n, RequantParams p) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::requantize<Out>(x[i], p);
}
template <class Q>
void qadd(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::qadd(a[i], b[i], p);
}
template <class Q>
void qmul(const Q* a, const Q* b, Q* out, size_t n, QMulParams p) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::qmul(a[i], b[i], p);
}

/// The reference backend as a type, for code generic over backends (broadcast.hpp, tests).
struct backend {
  static constexpr const char* name = "reference";
  template <BinOp op, class T>
  static void binary(const T* a, const T* b, T* out, size_t n) {
    reference::binary<op>(a, b, out, n);
  }
  template <UnOp op, class T>
  static void unary(const T* x, T* out, size_t n) {
    reference::unary<op>(x, out, n);
  }
  template <class T>
  static void clamp(const T* x, T* out, size_t n, T lo, T hi) {
    reference::clamp(x, out, n, lo, hi);
  }
  template <class To, class From>
  static void cast(const From* x, To* out, size_t n) {
    reference::cast<To>(x, out, n);
  }
  template <class Q>
  static void quantize(const float* x, Q* out, size_t n, QuantizeParams p) {
    reference::quantize(x, out, n, p);
  }
  template <class Q>
  static void dequantize(const Q* q, float* out, size_t n, QuantParams p) {
    reference::dequantize(q, out, n, p);
  }
  template <class Out, class In>
  static void requantize(const In* x, Out* out, size_t n, RequantParams p) {
    reference::requantize<Out>(x, out, n, p);
  }
  template <class Q>
  static void qadd(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
    reference::qadd(a, b, out, n, p);
  }
  template <class Q>
  static void qmul(const Q* a, const Q* b, Q* out, size_t n, QMulParams p) {
    reference::qmul(a, b, out, n, p);
  }
};

}  // namespace reference
}  // namespace optgrammar::fold
