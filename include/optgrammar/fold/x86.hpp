// The portable backend's x86-64 vector paths for the quantized kernels, which neither g++ nor
// clang vectorizes well by itself: SSE2 (the x86-64 baseline) for the 8-bit quantized Add, and
// AVX2 (used when the CPU has it, portable.hpp asks) for the 8-bit quantized Add and Mul,
// Requantize and the wide (int64) quantized Add. Each gives the reference's bits for every
// input; tests/fold runs each instruction set against the reference.
//
// The AVX2 functions carry the target attribute instead of needing -mavx2: the library stays
// one build for every x86-64 host. Helpers that take or return __m256i are always_inline and
// carry the attribute too (an intrinsic can only be inlined into an AVX2 function), and no
// lambda appears in them (a lambda's body would not inherit the target).
#pragma once

#include <immintrin.h>

#include "optgrammar/fold/reference.hpp"

#define OPTGRAMMAR_FOLD_AVX2 gnu::target("avx2")
#define OPTGRAMMAR_FOLD_AVX2_INLINE gnu::always_inline, gnu::target("avx2")

namespace optgrammar::fold::portable::x86 {

/// True when the CPU (and the OS, for the YMM state) supports AVX2.
inline bool cpu_has_avx2() { return __builtin_cpu_supports("avx2"); }

/// round_shift on int32 lanes as `(s - z + half - [s < z]) >> shift`, where s is what the
/// vector code computes and z a constant folded out of it: the constants, scalar.
struct RoundConstants {
  int32_t zcmp;    // s < zcmp is t < 0 (INT32_MIN for shift 0: never true, nothing to adjust)
  int32_t offset;  // half - z
};
constexpr RoundConstants round_constants(int32_t z, int shift) {
  const int32_t half = shift > 0 ? int32_t{1} << (shift - 1) : 0;
  return {shift > 0 ? z : -2147483647 - 1, half - z};
}

// ---- 8-bit quantized Add: the pmaddwd formulation --------------------------------------------
//
//  * zero points move into one constant, so storage bytes enter the products unchanged (signed
//    storage is flipped to unsigned by xor 0x80, its zero points shifted by 128):
//    t = a*am + b*bm - z with z = azp*am + bzp*bm;
//  * a and b bytes interleave, widen to words, and one pmaddwd per 4 elements gives a*am + b*bm
//    (|a*am + b*bm| <= 2 * 255 * 32768 fits int32);
//  * the rounding of round_shift (ties away from zero) is (t + half - (t < 0)) >> shift, with
//    t < 0 as a compare of the product sum against z;
//  * packssdw saturates to int16, the output zero point is added with saturation and
//    packuswb/packsswb clamps to the storage range: the same as clamping the exact sum, since
//    the int16 range is far wider than the 8-bit one.
// The 256-bit unpacks and packs work within 128-bit lanes, so the AVX2 loop is the SSE2 loop on
// two lanes at once and the element order comes out unchanged.

/// The scalar constants of the pmaddwd formulation of qadd for 8-bit storage Q.
struct QAdd8Constants {
  int32_t mul_pair;  // (bm << 16) | am as words
  RoundConstants round;
  int16_t out_zero_point;
  char flip;  // 0x80 for signed storage
};
template <class Q>
constexpr QAdd8Constants qadd8_constants(QAddParams p) {
  constexpr bool is_signed = int_range<Q>::lo < 0;
  const int32_t bias = is_signed ? 128 : 0;
  const int32_t z = (p.a_zero_point + bias) * p.a_multiplier + (p.b_zero_point + bias) * p.b_multiplier;
  const uint32_t pair =
      (static_cast<uint32_t>(static_cast<uint16_t>(p.b_multiplier)) << 16) | static_cast<uint16_t>(p.a_multiplier);
  return {static_cast<int32_t>(pair), round_constants(z, p.shift), static_cast<int16_t>(p.out_zero_point),
          static_cast<char>(is_signed ? 0x80 : 0)};
}

/// 8-bit qadd in SSE2, 16 elements per step (portable::qadd_is_narrow parameters).
template <class Q>
[[gnu::noinline]] void qadd8_sse2(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
  const QAdd8Constants k = qadd8_constants<Q>(p);
  const __m128i mul = _mm_set1_epi32(k.mul_pair), zcmp = _mm_set1_epi32(k.round.zcmp);
  const __m128i offs = _mm_set1_epi32(k.round.offset), cnt = _mm_cvtsi32_si128(p.shift);
  const __m128i ozp = _mm_set1_epi16(k.out_zero_point), flip = _mm_set1_epi8(k.flip), zero = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i va = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)), flip);
    const __m128i vb = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)), flip);
    const __m128i lo = _mm_unpacklo_epi8(va, vb), hi = _mm_unpackhi_epi8(va, vb);  // a0 b0 a1 b1 ...
    __m128i r[4];
    const __m128i ab[4] = {_mm_unpacklo_epi8(lo, zero), _mm_unpackhi_epi8(lo, zero), _mm_unpacklo_epi8(hi, zero),
                           _mm_unpackhi_epi8(hi, zero)};
    for (int j = 0; j < 4; ++j) {
      const __m128i s = _mm_madd_epi16(ab[j], mul);
      r[j] = _mm_sra_epi32(_mm_add_epi32(_mm_add_epi32(s, offs), _mm_cmpgt_epi32(zcmp, s)), cnt);
    }
    const __m128i w0 = _mm_adds_epi16(_mm_packs_epi32(r[0], r[1]), ozp);
    const __m128i w1 = _mm_adds_epi16(_mm_packs_epi32(r[2], r[3]), ozp);
    const __m128i o = int_range<Q>::lo < 0 ? _mm_packs_epi16(w0, w1) : _mm_packus_epi16(w0, w1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), o);
  }
  for (; i < n; ++i) out[i] = scalar::qadd(a[i], b[i], p);
}

/// 8-bit qadd in AVX2, 32 elements per step (portable::qadd_is_narrow parameters).
template <class Q>
[[gnu::noinline, OPTGRAMMAR_FOLD_AVX2]] void qadd8_avx2(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
  const QAdd8Constants k = qadd8_constants<Q>(p);
  const __m256i mul = _mm256_set1_epi32(k.mul_pair), zcmp = _mm256_set1_epi32(k.round.zcmp);
  const __m256i offs = _mm256_set1_epi32(k.round.offset);
  const __m128i cnt = _mm_cvtsi32_si128(p.shift);
  const __m256i ozp = _mm256_set1_epi16(k.out_zero_point), flip = _mm256_set1_epi8(k.flip),
                zero = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i va = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)), flip);
    const __m256i vb = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)), flip);
    const __m256i lo = _mm256_unpacklo_epi8(va, vb), hi = _mm256_unpackhi_epi8(va, vb);
    __m256i r[4];
    const __m256i ab[4] = {_mm256_unpacklo_epi8(lo, zero), _mm256_unpackhi_epi8(lo, zero),
                           _mm256_unpacklo_epi8(hi, zero), _mm256_unpackhi_epi8(hi, zero)};
    for (int j = 0; j < 4; ++j) {
      const __m256i s = _mm256_madd_epi16(ab[j], mul);
      r[j] = _mm256_sra_epi32(_mm256_add_epi32(_mm256_add_epi32(s, offs), _mm256_cmpgt_epi32(zcmp, s)), cnt);
    }
    const __m256i w0 = _mm256_adds_epi16(_mm256_packs_epi32(r[0], r[1]), ozp);
    const __m256i w1 = _mm256_adds_epi16(_mm256_packs_epi32(r[2], r[3]), ozp);
    const __m256i o = int_range<Q>::lo < 0 ? _mm256_packs_epi16(w0, w1) : _mm256_packus_epi16(w0, w1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), o);
  }
  for (; i < n; ++i) out[i] = scalar::qadd(a[i], b[i], p);
}

// ---- 8-bit quantized Mul -----------------------------------------------------------------------

/// 8-bit qmul in AVX2, 32 elements per step (portable::qmul_is_narrow parameters): the
/// differences from the zero points as words, their exact int32 product from pmullw/pmulhw
/// (|da * db| <= 65025), one vpmulld by the multiplier (|t| + half < 2^31), then the rounding
/// and narrowing of qadd8.
template <class Q>
[[gnu::noinline, OPTGRAMMAR_FOLD_AVX2]] void qmul8_avx2(const Q* a, const Q* b, Q* out, size_t n, QMulParams p) {
  constexpr bool is_signed = int_range<Q>::lo < 0;
  const int32_t bias = is_signed ? 128 : 0;
  const RoundConstants rc = round_constants(0, p.shift);
  const __m256i azp = _mm256_set1_epi16(static_cast<int16_t>(p.a_zero_point + bias));
  const __m256i bzp = _mm256_set1_epi16(static_cast<int16_t>(p.b_zero_point + bias));
  const __m256i m = _mm256_set1_epi32(p.multiplier), zcmp = _mm256_set1_epi32(rc.zcmp),
                offs = _mm256_set1_epi32(rc.offset);
  const __m128i cnt = _mm_cvtsi32_si128(p.shift);
  const __m256i ozp = _mm256_set1_epi16(static_cast<int16_t>(p.out_zero_point));
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(is_signed ? 0x80 : 0)), zero = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i va = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)), flip);
    const __m256i vb = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)), flip);
    const __m256i da[2] = {_mm256_sub_epi16(_mm256_unpacklo_epi8(va, zero), azp),
                           _mm256_sub_epi16(_mm256_unpackhi_epi8(va, zero), azp)};
    const __m256i db[2] = {_mm256_sub_epi16(_mm256_unpacklo_epi8(vb, zero), bzp),
                           _mm256_sub_epi16(_mm256_unpackhi_epi8(vb, zero), bzp)};
    __m256i w[2];
    for (int j = 0; j < 2; ++j) {
      const __m256i plo = _mm256_mullo_epi16(da[j], db[j]), phi = _mm256_mulhi_epi16(da[j], db[j]);
      __m256i r[2] = {_mm256_unpacklo_epi16(plo, phi), _mm256_unpackhi_epi16(plo, phi)};
      for (__m256i& x : r) {
        const __m256i t = _mm256_mullo_epi32(x, m);
        x = _mm256_sra_epi32(_mm256_add_epi32(_mm256_add_epi32(t, offs), _mm256_cmpgt_epi32(zcmp, t)), cnt);
      }
      w[j] = _mm256_adds_epi16(_mm256_packs_epi32(r[0], r[1]), ozp);
    }
    const __m256i o = is_signed ? _mm256_packs_epi16(w[0], w[1]) : _mm256_packus_epi16(w[0], w[1]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), o);
  }
  for (; i < n; ++i) out[i] = scalar::qmul(a[i], b[i], p);
}

// ---- int64 rounding: Requantize and the wide quantized Add ---------------------------------------
//
// The exact products come from vpmuldq (signed 32 x 32 -> 64 bits) on the even int32 lanes and,
// after a 64-bit shift by 32, on the odd ones. round_shift then works on the int64 lanes: add
// half - [t < 0] (vpcmpgtq gives the -1), and
//  * shift >= 32: the high dwords are the result shifted by 32, arithmetic, so one vpsrad by
//    shift - 32 finishes it;
//  * shift < 32: the low dword of the logical shift is exact when the result fits in 31 bits;
//    when the parameters allow more, clamp to [-2^30, 2^30) << shift first (vpcmpgtq +
//    vpblendvb; the output range plus any zero point lies well inside).
// The int32 results plus the output zero point then narrow with saturating packs.

/// How round_shift narrows int64 lanes: by the high dwords, by the low ones, or by the low ones
/// after a clamp.
enum class WideShift { high, low, low_clamped };

/// The shape of round_shift for a shift and a bound on |t|.
constexpr WideShift wide_shift(int shift, uint64_t max_abs_t) {
  if (shift >= 32) return WideShift::high;
  const uint64_t half = shift > 0 ? uint64_t{1} << (shift - 1) : 0;
  return max_abs_t + half < (uint64_t{1} << (30 + shift)) ? WideShift::low : WideShift::low_clamped;
}

/// The constants of round_shift on int64 lanes, for one shift.
struct WideRound {
  __m256i half, zcmp, lo, hi;
  __m128i cnt, cnt_odd;
};
[[OPTGRAMMAR_FOLD_AVX2_INLINE]] inline WideRound wide_round(int shift) {
  const int64_t half = shift > 0 ? int64_t{1} << (shift - 1) : 0;
  const int64_t bound = shift < 32 ? int64_t{1} << (30 + shift) : 0;
  return {_mm256_set1_epi64x(half),
          _mm256_set1_epi64x(shift > 0 ? 0 : INT64_MIN),
          _mm256_set1_epi64x(-bound),
          _mm256_set1_epi64x(bound - 1),
          _mm_cvtsi32_si128(shift >= 32 ? shift - 32 : shift),
          _mm_cvtsi32_si128(32 - shift)};
}

/// round_shift of 4 int64 lanes, before narrowing: t + half - [t < 0], clamped if need be.
template <WideShift mode>
[[OPTGRAMMAR_FOLD_AVX2_INLINE]] inline __m256i wide_bias(__m256i t, const WideRound& c) {
  t = _mm256_add_epi64(_mm256_add_epi64(t, c.half), _mm256_cmpgt_epi64(c.zcmp, t));
  if constexpr (mode == WideShift::low_clamped) {
    t = _mm256_blendv_epi8(t, c.hi, _mm256_cmpgt_epi64(t, c.hi));
    t = _mm256_blendv_epi8(t, c.lo, _mm256_cmpgt_epi64(c.lo, t));
  }
  return t;
}

/// round_shift of the int64 values of the even (te) and odd (to) int32 lanes, as 8 int32 lanes
/// in element order.
template <WideShift mode>
[[OPTGRAMMAR_FOLD_AVX2_INLINE]] inline __m256i wide_round_shift(__m256i te, __m256i to, const WideRound& c) {
  te = wide_bias<mode>(te, c);
  to = wide_bias<mode>(to, c);
  if constexpr (mode == WideShift::high)
    return _mm256_sra_epi32(_mm256_blend_epi32(_mm256_srli_epi64(te, 32), to, 0xAA), c.cnt);
  else
    return _mm256_blend_epi32(_mm256_srl_epi64(te, c.cnt), _mm256_sll_epi64(to, c.cnt_odd), 0xAA);
}

/// Runs F::template loop<mode> for the mode of (shift, max_abs_t).
template <class F, class... A>
void with_wide_shift(int shift, uint64_t max_abs_t, A... args) {
  switch (wide_shift(shift, max_abs_t)) {
    case WideShift::high: return F::template loop<WideShift::high>(args...);
    case WideShift::low: return F::template loop<WideShift::low>(args...);
    case WideShift::low_clamped: return F::template loop<WideShift::low_clamped>(args...);
  }
}

/// The products x * m of the even and odd int32 lanes of x, as int64 lanes.
[[OPTGRAMMAR_FOLD_AVX2_INLINE]] inline void mul_wide(__m256i x, __m256i m, __m256i& even, __m256i& odd) {
  even = _mm256_mul_epi32(x, m);
  odd = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), m);
}

/// Stores 32 bytes of Q (8- or 16-bit storage) from 32 / sizeof(Q) int32 values in element
/// order (r[0] holds the first 8), saturated to Q's range.
template <class Q>
[[OPTGRAMMAR_FOLD_AVX2_INLINE]] inline void store_saturated(Q* out, const __m256i* r) {
  constexpr bool is_signed = int_range<Q>::lo < 0;
  __m256i o;
  if constexpr (sizeof(Q) == 1) {  // the in-lane packs leave dword groups in the order 0 4 1 5 2 6 3 7
    const __m256i w0 = _mm256_packs_epi32(r[0], r[1]), w1 = _mm256_packs_epi32(r[2], r[3]);
    o = is_signed ? _mm256_packs_epi16(w0, w1) : _mm256_packus_epi16(w0, w1);
    o = _mm256_permutevar8x32_epi32(o, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  } else {  // quadwords in the order 0 2 1 3
    o = is_signed ? _mm256_packs_epi32(r[0], r[1]) : _mm256_packus_epi32(r[0], r[1]);
    o = _mm256_permute4x64_epi64(o, 0xD8);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), o);
}

/// 8 elements of 8-, 16- or 32-bit storage as int32 lanes.
template <class T>
[[OPTGRAMMAR_FOLD_AVX2_INLINE]] inline __m256i load8_as_i32(const T* p) {
  if constexpr (sizeof(T) == 4)
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  else if constexpr (sizeof(T) == 2) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return int_range<T>::lo < 0 ? _mm256_cvtepi16_epi32(v) : _mm256_cvtepu16_epi32(v);
  } else {
    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return int_range<T>::lo < 0 ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v);
  }
}

constexpr uint64_t abs64(int64_t v) {
  return v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

/// Requantize to 8- or 16-bit storage from any integer storage, 32 / sizeof(Out) per step.
template <class Out, class In>
struct RequantizeAvx2 {
  template <WideShift mode>
  [[gnu::noinline, OPTGRAMMAR_FOLD_AVX2]] static void loop(const In* x, Out* out, size_t n, RequantParams p) {
    const WideRound c = wide_round(p.shift);
    const __m256i inzp = _mm256_set1_epi32(p.in_zero_point), m = _mm256_set1_epi32(p.multiplier);
    const __m256i ozp = _mm256_set1_epi32(p.out_zero_point);
    constexpr size_t step = 32 / sizeof(Out);
    size_t i = 0;
    for (; i + step <= n; i += step) {
      __m256i r[step / 8];
      for (size_t j = 0; j < step / 8; ++j) {
        __m256i te, to;
        mul_wide(_mm256_sub_epi32(load8_as_i32(x + i + 8 * j), inzp), m, te, to);
        r[j] = _mm256_add_epi32(wide_round_shift<mode>(te, to, c), ozp);
      }
      store_saturated(out + i, r);
    }
    for (; i < n; ++i) out[i] = scalar::requantize<Out>(x[i], p);
  }
};
/// Requantize with AVX2 (shift in [0, 62], out_zero_point in Out's range).
template <class Out, class In>
void requantize_avx2(const In* x, Out* out, size_t n, RequantParams p) {
  with_wide_shift<RequantizeAvx2<Out, In>>(p.shift, (uint64_t{1} << 31) * abs64(p.multiplier), x, out, n, p);
}

/// qadd with multipliers of up to 32 bits (make_qadd_params for 16-bit storage), 8- or 16-bit
/// storage, zero points within the storage range: the exact int64 sum of two vpmuldq products.
template <class Q>
struct QAddWideAvx2 {
  template <WideShift mode>
  [[gnu::noinline, OPTGRAMMAR_FOLD_AVX2]] static void loop(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
    const WideRound c = wide_round(p.shift);
    const __m256i azp = _mm256_set1_epi32(p.a_zero_point), bzp = _mm256_set1_epi32(p.b_zero_point);
    const __m256i am = _mm256_set1_epi32(p.a_multiplier), bm = _mm256_set1_epi32(p.b_multiplier);
    const __m256i ozp = _mm256_set1_epi32(p.out_zero_point);
    constexpr size_t step = 32 / sizeof(Q);
    size_t i = 0;
    for (; i + step <= n; i += step) {
      __m256i r[step / 8];
      for (size_t j = 0; j < step / 8; ++j) {
        __m256i ae, ao, be, bo;
        mul_wide(_mm256_sub_epi32(load8_as_i32(a + i + 8 * j), azp), am, ae, ao);
        mul_wide(_mm256_sub_epi32(load8_as_i32(b + i + 8 * j), bzp), bm, be, bo);
        r[j] = _mm256_add_epi32(wide_round_shift<mode>(_mm256_add_epi64(ae, be), _mm256_add_epi64(ao, bo), c), ozp);
      }
      store_saturated(out + i, r);
    }
    for (; i < n; ++i) out[i] = scalar::qadd(a[i], b[i], p);
  }
};
/// qadd with AVX2 in int64 (zero points in Q's range, shift in [0, 62]).
template <class Q>
void qadd_wide_avx2(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
  constexpr uint64_t span = static_cast<uint64_t>(int_range<Q>::hi - int_range<Q>::lo);  // bounds |q - zp|
  with_wide_shift<QAddWideAvx2<Q>>(p.shift, span * abs64(p.a_multiplier) + span * abs64(p.b_multiplier), a, b, out, n,
                                   p);
}

}  // namespace optgrammar::fold::portable::x86

#undef OPTGRAMMAR_FOLD_AVX2
#undef OPTGRAMMAR_FOLD_AVX2_INLINE
