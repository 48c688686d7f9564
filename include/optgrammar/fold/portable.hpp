// The portable backend: plain C++ written so that g++ and clang auto-vectorize it on x86-64
// (baseline SSE2, -O2 and -O3), with results bit-identical to reference.hpp.
//
// How it stays vectorizable:
//  * every loop body is branch-free (selects, no early exits) over same-index elements;
//  * OPTGRAMMAR_FOLD_IVDEP tells g++ there is no loop-carried dependence, which is true even
//    in place (out == a), so it needs no runtime alias check (which -O2 would refuse);
//    clang adds a cheap runtime overlap check by itself;
//  * loops run in blocks of a constant trip count, which g++ -O2's "very cheap" vectorizer
//    accepts (it refuses loops that need a scalar epilogue), followed by a scalar tail;
//  * 8-bit quantized kernels compute in int32 with 16-bit factors (|q - zp| <= 255 and
//    |multiplier| <= 32767), which SSE2 does with pmullw/pmulhw or pmaddwd.
#pragma once

#include "optgrammar/fold/reference.hpp"

#if defined(__SSE2__) && !defined(OPTGRAMMAR_FOLD_NO_SSE2)
#include <emmintrin.h>
#endif

// clang vectorizes these loops with a runtime overlap check already, and its assume_safety
// pragma turns every loop it cannot vectorize (Hexagon without auto-HVX) into a warning.
#if defined(__GNUC__) && !defined(__clang__)
#define OPTGRAMMAR_FOLD_IVDEP _Pragma("GCC ivdep")
#else
#define OPTGRAMMAR_FOLD_IVDEP
#endif

namespace optgrammar::fold::portable {

/// Elements per block of the blocked loops.
inline constexpr size_t block = 64;

/// Runs f(i) for i in [0, n): blocks of `block` (vectorized) then the tail.
template <class F> inline void for_each_index(size_t n, F&& f) {
  const size_t full = n - n % block;
  for (size_t i = 0; i < full; i += block) {
    OPTGRAMMAR_FOLD_IVDEP
    for (size_t j = 0; j < block; ++j) f(i + j);
  }
  const size_t rest = n - full;  // counted from 0: g++ otherwise warns about i's range
  for (size_t k = 0; k < rest; ++k) f(full + k);
}

namespace detail {
template <BinOp op, class T> inline T binary_fast(T a, T b) {
  if constexpr (is_float_v<T>) {
    if constexpr (op == BinOp::max) { const T m = a > b ? a : b; return a != a ? a : m; }
    else if constexpr (op == BinOp::min) { const T m = a < b ? a : b; return a != a ? a : m; }
    else return scalar::binary<op>(a, b);
  } else if constexpr (sizeof(T) < 4 && (op == BinOp::add || op == BinOp::sub || op == BinOp::mul)) {
    // In the narrow unsigned type the wrap is the same and vectorizers keep the narrow lanes.
    using U = unsigned_of<T>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    if constexpr (op == BinOp::add) return static_cast<T>(static_cast<U>(ua + ub));
    if constexpr (op == BinOp::sub) return static_cast<T>(static_cast<U>(ua - ub));
    if constexpr (op == BinOp::mul) return static_cast<T>(static_cast<U>(static_cast<unsigned>(ua) * ub));
  } else {
    return scalar::binary<op>(a, b);
  }
}
}  // namespace detail

/// out[i] = a[i] (op) b[i]. out may be a or b (in place); no other overlap.
template <BinOp op, class T> void binary(const T* a, const T* b, T* out, size_t n) {
  for_each_index(n, [&](size_t i) { out[i] = detail::binary_fast<op>(a[i], b[i]); });
}

/// out[i] = a[i] (op) s: the broadcast of a scalar right operand.
template <BinOp op, class T> void binary_scalar_rhs(const T* a, T s, T* out, size_t n) {
  for_each_index(n, [&](size_t i) { out[i] = detail::binary_fast<op>(a[i], s); });
}
/// out[i] = s (op) b[i].
template <BinOp op, class T> void binary_scalar_lhs(T s, const T* b, T* out, size_t n) {
  for_each_index(n, [&](size_t i) { out[i] = detail::binary_fast<op>(s, b[i]); });
}

template <UnOp op, class T> void unary(const T* x, T* out, size_t n) {
  for_each_index(n, [&](size_t i) { out[i] = scalar::unary<op>(x[i]); });
}

template <class T> void clamp(const T* x, T* out, size_t n, T lo, T hi) {
  for_each_index(n, [&](size_t i) { out[i] = scalar::clamp(x[i], lo, hi); });
}

template <class To, class From> void cast(const From* x, To* out, size_t n) {
  if constexpr (is_float_v<From> && !is_float_v<To>) {
    constexpr float lo = static_cast<float>(int_range<To>::lo);
    constexpr float hi_excl = static_cast<float>(int_range<To>::hi) + 1.0f;
    constexpr float hi_in = is_same_v<To, int32_t> ? 0.0f : static_cast<float>(int_range<To>::hi);
    for_each_index(n, [&](size_t i) {
      float v = x[i];
      const bool over = v >= hi_excl;
      v = v != v ? 0.0f : v;
      v = v < lo ? lo : v;
      v = over ? hi_in : v;
      const int32_t t = static_cast<int32_t>(v);
      out[i] = over ? static_cast<To>(int_range<To>::hi) : static_cast<To>(t);
    });
  } else if constexpr (!is_float_v<From> && !is_float_v<To> && !is_same_v<To, From>) {
    for_each_index(n, [&](size_t i) {
      int32_t v = static_cast<int32_t>(x[i]);
      if constexpr (int_range<To>::lo > int_range<From>::lo) v = v < int32_t(int_range<To>::lo) ? int32_t(int_range<To>::lo) : v;
      if constexpr (int_range<To>::hi < int_range<From>::hi) v = v > int32_t(int_range<To>::hi) ? int32_t(int_range<To>::hi) : v;
      out[i] = static_cast<To>(v);
    });
  } else {
    for_each_index(n, [&](size_t i) { out[i] = scalar::cast<To>(x[i]); });
  }
}

template <class Q> void quantize(const float* x, Q* out, size_t n, QuantizeParams p) {
  const float lo = static_cast<float>(int_range<Q>::lo - p.zero_point);
  const float hi = static_cast<float>(int_range<Q>::hi - p.zero_point);
  const float inv = p.inv_step;
  const int32_t zp = p.zero_point;
  for_each_index(n, [&](size_t i) {
    float v = x[i] * inv;
    v = v == v ? v : 0.0f;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    const float r = scalar::round_half_even_small(v);
    out[i] = static_cast<Q>(static_cast<int32_t>(r) + zp);
  });
}

template <class Q> void dequantize(const Q* q, float* out, size_t n, QuantParams p) {
  if constexpr (is_quant_storage_v<Q>) {
    const int32_t zp = p.zero_point;
    const float step = p.step;
    for_each_index(n, [&](size_t i) { out[i] = static_cast<float>(static_cast<int32_t>(q[i]) - zp) * step; });
  } else {
    for_each_index(n, [&](size_t i) { out[i] = scalar::dequantize(q[i], p); });
  }
}

namespace detail {
template <class Q> constexpr bool zp_in_range(int32_t zp) { return zp >= int_range<Q>::lo && zp <= int_range<Q>::hi; }
constexpr bool fits_i16(int32_t m) { return m >= -32768 && m <= 32767; }
}  // namespace detail

/// True when qadd's 8-bit int32 formulation is exact for p (the limits make_qadd_params keeps).
template <class Q> constexpr bool qadd_is_narrow(QAddParams p) {
  return sizeof(Q) == 1 && detail::zp_in_range<Q>(p.a_zero_point) && detail::zp_in_range<Q>(p.b_zero_point) &&
         detail::zp_in_range<Q>(p.out_zero_point) && detail::fits_i16(p.a_multiplier) &&
         detail::fits_i16(p.b_multiplier) && p.shift >= 0 && p.shift <= 31;
}
template <class Q> constexpr bool qmul_is_narrow(QMulParams p) {
  return sizeof(Q) == 1 && detail::zp_in_range<Q>(p.a_zero_point) && detail::zp_in_range<Q>(p.b_zero_point) &&
         detail::zp_in_range<Q>(p.out_zero_point) && p.multiplier >= -16384 && p.multiplier <= 16384 &&
         p.shift >= 0 && p.shift <= 31;
}

namespace detail {
/// round_shift in int32 for n in [0, 31] when t + half cannot overflow: half = 2^(n-1) and
/// adj_mask = -1 for n > 0, both 0 for n == 0. (t >> 31) is -1 for negative t: the tie goes
/// away from zero. Branch-free and all-int32, which SSE2 vectorizes.
inline int32_t round_shift32(int32_t t, int32_t half, int32_t adj_mask, int n) {
  return (t + half + ((t >> 31) & adj_mask)) >> n;
}
}  // namespace detail

namespace detail {
// The narrow loops take their constants as int16 parameters and are kept out of line: when g++
// sees them as truncations of the int32 parameter fields it no longer recognizes the 16x16->32
// multiply (pmullw/pmulhw) and falls back to emulated 32-bit multiplies (4x slower).
template <class Q>
[[gnu::noinline]] void qadd_narrow(const Q* a, const Q* b, Q* out, size_t n, int16_t azp, int16_t bzp, int16_t am,
                                   int16_t bm, int32_t half, int32_t adj, int sh, int32_t ozp) {
  constexpr int32_t lo = int_range<Q>::lo, hi = int_range<Q>::hi;
  for_each_index(n, [&](size_t i) {
    const int16_t da = static_cast<int16_t>(a[i] - azp);
    const int16_t db = static_cast<int16_t>(b[i] - bzp);
    const int32_t t = int32_t{da} * int32_t{am} + int32_t{db} * int32_t{bm};
    int32_t r = round_shift32(t, half, adj, sh) + ozp;
    r = r < lo ? lo : r;
    r = r > hi ? hi : r;
    out[i] = static_cast<Q>(r);
  });
}
template <class Q>
[[gnu::noinline]] void qmul_narrow(const Q* a, const Q* b, Q* out, size_t n, int16_t azp, int16_t bzp, int32_t m,
                                   int32_t half, int32_t adj, int sh, int32_t ozp) {
  constexpr int32_t lo = int_range<Q>::lo, hi = int_range<Q>::hi;
  for_each_index(n, [&](size_t i) {
    const int16_t da = static_cast<int16_t>(a[i] - azp);
    const int16_t db = static_cast<int16_t>(b[i] - bzp);
    const int32_t t = (int32_t{da} * int32_t{db}) * m;  // |da * db| <= 65025, |m| <= 2^14: t + half fits int32
    int32_t r = round_shift32(t, half, adj, sh) + ozp;
    r = r < lo ? lo : r;
    r = r > hi ? hi : r;
    out[i] = static_cast<Q>(r);
  });
}
constexpr int32_t half_of(int sh) { return sh > 0 ? int32_t{1} << (sh - 1) : 0; }
constexpr int32_t adj_of(int sh) { return sh > 0 ? -1 : 0; }
}  // namespace detail

#if defined(__SSE2__) && !defined(OPTGRAMMAR_FOLD_NO_SSE2)
namespace detail {
/// 8-bit qadd in SSE2, 16 elements per step. Neither compiler finds this shape by itself (g++
/// emulates the 16x32 products with pmullw/pmulhw, clang does not vectorize the loop):
///  * zero points move into one constant, so storage bytes enter the products unchanged
///    (signed storage is flipped to unsigned by xor 0x80, its zero points shifted by 128):
///    t = a*am + b*bm - Z with Z = azp*am + bzp*bm;
///  * a and b bytes interleave, widen to words, and one pmaddwd per 4 elements gives a*am + b*bm
///    (|a*am + b*bm| <= 2 * 255 * 32768 fits int32);
///  * the rounding of round_shift (ties away from zero) is (t + half - (t < 0)) >> shift, with
///    t < 0 as a compare of the product sum against Z (never true for shift 0);
///  * packssdw saturates to int16, the output zero point is added with saturation and
///    packuswb/packsswb clamps to the storage range: the same as clamping the exact sum, since
///    the int16 range is far wider than the 8-bit one.
/// Bit-identical to scalar::qadd for every input (tests/fold checks it against the reference).
template <class Q>
[[gnu::noinline]] void qadd8_sse2(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
  constexpr bool is_signed = int_range<Q>::lo < 0;
  const int32_t bias = is_signed ? 128 : 0;
  const int32_t azp = p.a_zero_point + bias, bzp = p.b_zero_point + bias;
  const int32_t z = azp * p.a_multiplier + bzp * p.b_multiplier;
  const int32_t half = half_of(p.shift);
  const __m128i mul = _mm_set1_epi32(static_cast<int32_t>((static_cast<uint32_t>(static_cast<uint16_t>(p.b_multiplier)) << 16) |
                                                          static_cast<uint16_t>(p.a_multiplier)));
  const __m128i zcmp = _mm_set1_epi32(p.shift > 0 ? z : -2147483647 - 1);
  const __m128i offs = _mm_set1_epi32(half - z);
  const __m128i cnt = _mm_cvtsi32_si128(p.shift);
  const __m128i ozp = _mm_set1_epi16(static_cast<int16_t>(p.out_zero_point));
  const __m128i flip = _mm_set1_epi8(is_signed ? static_cast<char>(0x80) : 0);
  const __m128i zero = _mm_setzero_si128();
  auto sum4 = [&](__m128i ab) {
    const __m128i s = _mm_madd_epi16(ab, mul);
    const __m128i neg = _mm_cmpgt_epi32(zcmp, s);
    return _mm_sra_epi32(_mm_add_epi32(_mm_add_epi32(s, offs), neg), cnt);
  };
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i va = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)), flip);
    const __m128i vb = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)), flip);
    const __m128i lo = _mm_unpacklo_epi8(va, vb), hi = _mm_unpackhi_epi8(va, vb);  // a0 b0 a1 b1 ...
    const __m128i r0 = sum4(_mm_unpacklo_epi8(lo, zero)), r1 = sum4(_mm_unpackhi_epi8(lo, zero));
    const __m128i r2 = sum4(_mm_unpacklo_epi8(hi, zero)), r3 = sum4(_mm_unpackhi_epi8(hi, zero));
    const __m128i w0 = _mm_adds_epi16(_mm_packs_epi32(r0, r1), ozp);
    const __m128i w1 = _mm_adds_epi16(_mm_packs_epi32(r2, r3), ozp);
    const __m128i o = is_signed ? _mm_packs_epi16(w0, w1) : _mm_packus_epi16(w0, w1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), o);
  }
  for (; i < n; ++i) out[i] = scalar::qadd(a[i], b[i], p);
}
}  // namespace detail
#endif

template <class Q> void qadd(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
  if (!qadd_is_narrow<Q>(p)) {
    for_each_index(n, [&](size_t i) { out[i] = scalar::qadd(a[i], b[i], p); });
    return;
  }
#if defined(__SSE2__) && !defined(OPTGRAMMAR_FOLD_NO_SSE2)
  if constexpr (sizeof(Q) == 1) {
    detail::qadd8_sse2(a, b, out, n, p);
    return;
  }
#endif
  detail::qadd_narrow(a, b, out, n, static_cast<int16_t>(p.a_zero_point), static_cast<int16_t>(p.b_zero_point),
                      static_cast<int16_t>(p.a_multiplier), static_cast<int16_t>(p.b_multiplier),
                      detail::half_of(p.shift), detail::adj_of(p.shift), p.shift, p.out_zero_point);
}

template <class Q> void qmul(const Q* a, const Q* b, Q* out, size_t n, QMulParams p) {
  if (!qmul_is_narrow<Q>(p)) {
    for_each_index(n, [&](size_t i) { out[i] = scalar::qmul(a[i], b[i], p); });
    return;
  }
  detail::qmul_narrow(a, b, out, n, static_cast<int16_t>(p.a_zero_point), static_cast<int16_t>(p.b_zero_point),
                      p.multiplier, detail::half_of(p.shift), detail::adj_of(p.shift), p.shift, p.out_zero_point);
}

template <class Out, class In> void requantize(const In* x, Out* out, size_t n, RequantParams p) {
  for_each_index(n, [&](size_t i) { out[i] = scalar::requantize<Out>(x[i], p); });
}


/// The portable backend as a type, for code generic over backends (broadcast.hpp, tests).
struct backend {
  static constexpr const char* name = "portable";
  template <BinOp op, class T> static void binary(const T* a, const T* b, T* out, size_t n) { portable::binary<op>(a, b, out, n); }
  template <UnOp op, class T> static void unary(const T* x, T* out, size_t n) { portable::unary<op>(x, out, n); }
  template <class T> static void clamp(const T* x, T* out, size_t n, T lo, T hi) { portable::clamp(x, out, n, lo, hi); }
  template <class To, class From> static void cast(const From* x, To* out, size_t n) { portable::cast<To>(x, out, n); }
  template <class Q> static void quantize(const float* x, Q* out, size_t n, QuantizeParams p) { portable::quantize(x, out, n, p); }
  template <class Q> static void dequantize(const Q* q, float* out, size_t n, QuantParams p) { portable::dequantize(q, out, n, p); }
  template <class Out, class In> static void requantize(const In* x, Out* out, size_t n, RequantParams p) { portable::requantize<Out>(x, out, n, p); }
  template <class Q> static void qadd(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) { portable::qadd(a, b, out, n, p); }
  template <class Q> static void qmul(const Q* a, const Q* b, Q* out, size_t n, QMulParams p) { portable::qmul(a, b, out, n, p); }
};

}  // namespace optgrammar::fold::portable
