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

// x86-64 hosts get hand-written vector paths for the quantized kernels (fold/x86.hpp);
// OPTGRAMMAR_FOLD_NO_SSE2 turns them off (the plain loops then run, as on every other host).
#if defined(__x86_64__) && defined(__SSE2__) && !defined(OPTGRAMMAR_FOLD_NO_SSE2)
#define OPTGRAMMAR_FOLD_X86 1
#include "optgrammar/fold/x86.hpp"
#else
#define OPTGRAMMAR_FOLD_X86 0
#endif

// clang vectorizes these loops with a runtime overlap check already, and its assume_safety
// pragma turns every loop it cannot vectorize (Hexagon without auto-HVX) into a warning.
#if defined(__GNUC__) && !defined(__clang__)
#define OPTGRAMMAR_FOLD_IVDEP _Pragma("GCC ivdep")
#else
#define OPTGRAMMAR_FOLD_IVDEP
#endif

namespace optgrammar::fold::portable {

/// The instruction sets the quantized kernels choose between: on x86-64 SSE2 (the baseline)
/// and AVX2 when the CPU has it (fold/x86.hpp); `none` is the plain loops, what every other
/// host runs; `host` asks for the best this CPU has. Every level gives the reference's bits.
enum class isa : uint8_t { host, none, sse2, avx2 };

/// The best level this CPU runs.
inline isa host_isa() {
#if OPTGRAMMAR_FOLD_X86
  return x86::cpu_has_avx2() ? isa::avx2 : isa::sse2;
#else
  return isa::none;
#endif
}

/// `level`, or the best the CPU has when that is less (or when `level` is `host`).
inline isa resolve(isa level) {
  const isa best = host_isa();
  return level == isa::host || level > best ? best : level;
}

/// Elements per block of the blocked loops.
inline constexpr size_t block = 64;

/// Runs f(i) for i in [0, n): blocks of `block` (vectorized) then the tail.
template <class F>
inline void for_each_index(size_t n, F&& f) {
  const size_t full = n - n % block;
  for (size_t i = 0; i < full; i += block) {
    OPTGRAMMAR_FOLD_IVDEP
    for (size_t j = 0; j < block; ++j) f(i + j);
  }
  const size_t rest = n - full;  // counted from 0: g++ otherwise warns about i's range
  for (size_t k = 0; k < rest; ++k) f(full + k);
}

namespace detail {
template <BinOp op, class T>
inline T binary_fast(T a, T b) {
  if constexpr (is_float_v<T>) {
    if constexpr (op == BinOp::max) {
      const T m = a > b ? a : b;
      return a != a ? a : m;
    } else if constexpr (op == BinOp::min) {
      const T m = a < b ? a : b;
      return a != a ? a : m;
    } else
      return scalar::binary<op>(a, b);
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
template <BinOp op, class T>
void binary(const T* a, const T* b, T* out, size_t n) {
  for_each_index(n, [&](size_t i) { out[i] = detail::binary_fast<op>(a[i], b[i]); });
}

/// out[i] = a[i] (op) s: the broadcast of a scalar right operand.
template <BinOp op, class T>
void binary_scalar_rhs(const T* a, T s, T* out, size_t n) {
  for_each_index(n, [&](size_t i) { out[i] = detail::binary_fast<op>(a[i], s); });
}
/// out[i] = s (op) b[i].
template <BinOp op, class T>
void binary_scalar_lhs(T s, const T* b, T* out, size_t n) {
  for_each_index(n, [&](size_t i) { out[i] = detail::binary_fast<op>(s, b[i]); });
}

template <UnOp op, class T>
void unary(const T* x, T* out, size_t n) {
  for_each_index(n, [&](size_t i) { out[i] = scalar::unary<op>(x[i]); });
}

template <class T>
void clamp(const T* x, T* out, size_t n, T lo, T hi) {
  for_each_index(n, [&](size_t i) { out[i] = scalar::clamp(x[i], lo, hi); });
}

template <class To, class From>
void cast(const From* x, To* out, size_t n) {
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
      if constexpr (int_range<To>::lo > int_range<From>::lo)
        v = v < int32_t(int_range<To>::lo) ? int32_t(int_range<To>::lo) : v;
      if constexpr (int_range<To>::hi < int_range<From>::hi)
        v = v > int32_t(int_range<To>::hi) ? int32_t(int_range<To>::hi) : v;
      out[i] = static_cast<To>(v);
    });
  } else {
    for_each_index(n, [&](size_t i) { out[i] = scalar::cast<To>(x[i]); });
  }
}

namespace detail {
template <class Q>
[[gnu::always_inline]] inline void quantize_loop(const float* x, Q* out, size_t n, QuantizeParams p) {
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
#if OPTGRAMMAR_FOLD_X86
/// The same loop compiled for AVX2 (the compilers vectorize it 8 floats wide; AVX2 implies no
/// FMA, so nothing contracts and the bits stay the reference's).
template <class Q>
[[gnu::noinline, gnu::target("avx2")]] void quantize_avx2(const float* x, Q* out, size_t n, QuantizeParams p) {
  quantize_loop(x, out, n, p);
}
#endif
}  // namespace detail

template <class Q>
void quantize(const float* x, Q* out, size_t n, QuantizeParams p, isa level = isa::host) {
#if OPTGRAMMAR_FOLD_X86
  if (resolve(level) == isa::avx2) return detail::quantize_avx2(x, out, n, p);
#endif
  (void)level;
  detail::quantize_loop(x, out, n, p);
}

template <class Q>
void dequantize(const Q* q, float* out, size_t n, QuantParams p) {
  if constexpr (is_quant_storage_v<Q>) {
    const int32_t zp = p.zero_point;
    const float step = p.step;
    for_each_index(n, [&](size_t i) { out[i] = static_cast<float>(static_cast<int32_t>(q[i]) - zp) * step; });
  } else {
    for_each_index(n, [&](size_t i) { out[i] = scalar::dequantize(q[i], p); });
  }
}

namespace detail {
template <class Q>
constexpr bool zp_in_range(int32_t zp) {
  return zp >= int_range<Q>::lo && zp <= int_range<Q>::hi;
}
constexpr bool fits_i16(int32_t m) { return m >= -32768 && m <= 32767; }
}  // namespace detail

/// True when qadd's 8-bit int32 formulation is exact for p (the limits make_qadd_params keeps).
template <class Q>
constexpr bool qadd_is_narrow(QAddParams p) {
  return sizeof(Q) == 1 && detail::zp_in_range<Q>(p.a_zero_point) && detail::zp_in_range<Q>(p.b_zero_point) &&
         detail::zp_in_range<Q>(p.out_zero_point) && detail::fits_i16(p.a_multiplier) &&
         detail::fits_i16(p.b_multiplier) && p.shift >= 0 && p.shift <= 31;
}
template <class Q>
constexpr bool qmul_is_narrow(QMulParams p) {
  return sizeof(Q) == 1 && detail::zp_in_range<Q>(p.a_zero_point) && detail::zp_in_range<Q>(p.b_zero_point) &&
         detail::zp_in_range<Q>(p.out_zero_point) && p.multiplier >= -16384 && p.multiplier <= 16384 && p.shift >= 0 &&
         p.shift <= 31;
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

namespace detail {
/// True when the int64 vector formulation of qadd (x86::qadd_wide_avx2) is exact for p.
template <class Q>
constexpr bool qadd_fits_wide(QAddParams p) {
  return sizeof(Q) <= 2 && zp_in_range<Q>(p.a_zero_point) && zp_in_range<Q>(p.b_zero_point) &&
         zp_in_range<Q>(p.out_zero_point) && p.shift >= 0 && p.shift <= 62;
}
}  // namespace detail

template <class Q>
void qadd(const Q* a, const Q* b, Q* out, size_t n, QAddParams p, isa level = isa::host) {
  level = resolve(level);
  if (!qadd_is_narrow<Q>(p)) {
#if OPTGRAMMAR_FOLD_X86
    if (level == isa::avx2 && detail::qadd_fits_wide<Q>(p)) return x86::qadd_wide_avx2(a, b, out, n, p);
#endif
    for_each_index(n, [&](size_t i) { out[i] = scalar::qadd(a[i], b[i], p); });
    return;
  }
#if OPTGRAMMAR_FOLD_X86
  if constexpr (sizeof(Q) == 1) {
    if (level == isa::avx2) return x86::qadd8_avx2(a, b, out, n, p);
    if (level == isa::sse2) return x86::qadd8_sse2(a, b, out, n, p);
  }
#endif
  detail::qadd_narrow(a, b, out, n, static_cast<int16_t>(p.a_zero_point), static_cast<int16_t>(p.b_zero_point),
                      static_cast<int16_t>(p.a_multiplier), static_cast<int16_t>(p.b_multiplier),
                      detail::half_of(p.shift), detail::adj_of(p.shift), p.shift, p.out_zero_point);
}

template <class Q>
void qmul(const Q* a, const Q* b, Q* out, size_t n, QMulParams p, isa level = isa::host) {
  if (!qmul_is_narrow<Q>(p)) {
    for_each_index(n, [&](size_t i) { out[i] = scalar::qmul(a[i], b[i], p); });
    return;
  }
#if OPTGRAMMAR_FOLD_X86
  if (resolve(level) == isa::avx2) return x86::qmul8_avx2(a, b, out, n, p);
#endif
  (void)level;
  detail::qmul_narrow(a, b, out, n, static_cast<int16_t>(p.a_zero_point), static_cast<int16_t>(p.b_zero_point),
                      p.multiplier, detail::half_of(p.shift), detail::adj_of(p.shift), p.shift, p.out_zero_point);
}

template <class Out, class In>
void requantize(const In* x, Out* out, size_t n, RequantParams p, isa level = isa::host) {
#if OPTGRAMMAR_FOLD_X86
  if constexpr (is_quant_storage_v<Out> && !is_float_v<In>) {
    if (resolve(level) == isa::avx2 && detail::zp_in_range<Out>(p.out_zero_point) && p.shift >= 0 && p.shift <= 62)
      return x86::requantize_avx2(x, out, n, p);
  }
#endif
  (void)level;
  for_each_index(n, [&](size_t i) { out[i] = scalar::requantize<Out>(x[i], p); });
}

/// The portable backend as a type, for code generic over backends (layout.hpp, tests).
/// `Level` fixes the instruction set of the kernels that choose one (tests run each);
/// `backend` takes what the CPU has.
template <isa Level>
struct backend_at {
  static constexpr const char* name = "portable";
  template <BinOp op, class T>
  static void binary(const T* a, const T* b, T* out, size_t n) {
    portable::binary<op>(a, b, out, n);
  }
  template <UnOp op, class T>
  static void unary(const T* x, T* out, size_t n) {
    portable::unary<op>(x, out, n);
  }
  template <class T>
  static void clamp(const T* x, T* out, size_t n, T lo, T hi) {
    portable::clamp(x, out, n, lo, hi);
  }
  template <class To, class From>
  static void cast(const From* x, To* out, size_t n) {
    portable::cast<To>(x, out, n);
  }
  template <class Q>
  static void quantize(const float* x, Q* out, size_t n, QuantizeParams p) {
    portable::quantize(x, out, n, p, Level);
  }
  template <class Q>
  static void dequantize(const Q* q, float* out, size_t n, QuantParams p) {
    portable::dequantize(q, out, n, p);
  }
  template <class Out, class In>
  static void requantize(const In* x, Out* out, size_t n, RequantParams p) {
    portable::requantize<Out>(x, out, n, p, Level);
  }
  template <class Q>
  static void qadd(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
    portable::qadd(a, b, out, n, p, Level);
  }
  template <class Q>
  static void qmul(const Q* a, const Q* b, Q* out, size_t n, QMulParams p) {
    portable::qmul(a, b, out, n, p, Level);
  }
};
using backend = backend_at<isa::host>;

}  // namespace optgrammar::fold::portable
