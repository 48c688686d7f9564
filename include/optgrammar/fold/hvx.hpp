// The HVX backend: Hexagon Vector eXtensions, 128-byte vectors, through the Q6_* intrinsics.
//
// Compiled only for Hexagon with 128-byte HVX (v65 or newer); elsewhere this header declares
// nothing and OPTGRAMMAR_FOLD_HAS_HVX is 0. Integer and quantized kernels are vectorized here;
// float kernels (and parameter sets outside the documented narrow limits) forward to the
// portable backend, which the scalar Hexagon core runs with the same IEEE results.
//
// Every kernel walks its buffers one "chunk" of whole vectors at a time with unaligned vector
// loads and stores; the last partial chunk is copied into zero-padded aligned scratch vectors,
// run through the same vector code and copied back, so tails are exercised by the very same
// instructions. The instruction counts per 128-byte vector quoted at each kernel come from
// `llvm-objdump-14 -d` of the v68 test build (see docs/fold.md).
#pragma once

#include "optgrammar/fold/portable.hpp"

#if defined(__hexagon__) && defined(__HVX__) && defined(__HVX_LENGTH__) && __HVX_LENGTH__ == 128 && \
    defined(__HVX_ARCH__) && __HVX_ARCH__ >= 65
#define OPTGRAMMAR_FOLD_HAS_HVX 1
#include <hexagon_types.h>
#include <hvx_hexagon_protos.h>

namespace optgrammar::fold::hvx {

inline constexpr size_t vbytes = 128;

namespace detail {

inline HVX_Vector load(const void* p) { return *static_cast<const HVX_UVector*>(p); }
inline void store(void* p, HVX_Vector v) { *static_cast<HVX_UVector*>(p) = v; }

inline void copy_bytes(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
}

/// Broadcast of one element to every lane of its width.
template <class T>
inline HVX_Vector splat(T v) {
  if constexpr (sizeof(T) == 1)
    return Q6_Vb_vsplat_R(static_cast<int32_t>(static_cast<uint8_t>(v)));
  else if constexpr (sizeof(T) == 2)
    return Q6_Vh_vsplat_R(static_cast<int32_t>(static_cast<uint16_t>(v)));
  else
    return Q6_V_vsplat_R(static_cast<int32_t>(v));
}

/// Elements per chunk: one vector of the narrower of In and Out.
template <class In, class Out>
inline constexpr size_t chunk_elems = vbytes / (sizeof(In) < sizeof(Out) ? sizeof(In) : sizeof(Out));
template <class T, class In, class Out>
inline constexpr int vecs_of = int(chunk_elems<In, Out> * sizeof(T) / vbytes);

/// out = f(a[, b]) chunk by chunk; f takes arrays of input vectors and fills the output vectors.
template <class In, class Out, bool Binary, class F>
inline void map_chunks(const In* a, const In* b, Out* out, size_t n, F&& f) {
  constexpr size_t C = chunk_elems<In, Out>;
  constexpr int NI = vecs_of<In, In, Out>, NO = vecs_of<Out, In, Out>;
  HVX_Vector va[NI], vb[Binary ? NI : 1], vo[NO];
  size_t i = 0;
  for (; i + C <= n; i += C) {
    for (int k = 0; k < NI; ++k) va[k] = load(a + i + size_t(k) * (vbytes / sizeof(In)));
    if constexpr (Binary)
      for (int k = 0; k < NI; ++k) vb[k] = load(b + i + size_t(k) * (vbytes / sizeof(In)));
    f(va, vb, vo);
    for (int k = 0; k < NO; ++k) store(out + i + size_t(k) * (vbytes / sizeof(Out)), vo[k]);
  }
  if (i == n) return;
  // Tail: zero-padded scratch, the same vector code, then only the valid elements back.
  const size_t rest = n - i;
  HVX_Vector sa[NI], sb[Binary ? NI : 1], so[NO];
  for (int k = 0; k < NI; ++k) sa[k] = Q6_V_vzero();
  copy_bytes(sa, a + i, rest * sizeof(In));
  if constexpr (Binary) {
    for (int k = 0; k < NI; ++k) sb[k] = Q6_V_vzero();
    copy_bytes(sb, b + i, rest * sizeof(In));
  }
  f(sa, sb, so);
  copy_bytes(out + i, so, rest * sizeof(Out));
}

template <class T>
inline constexpr bool vec_int_v = is_same_v<T, int32_t> || is_quant_storage_v<T>;

// ---- one-vector operations ---------------------------------------------------------------

template <class T>
inline HVX_Vector vadd(HVX_Vector a, HVX_Vector b) {
  if constexpr (sizeof(T) == 1)
    return Q6_Vb_vadd_VbVb(a, b);
  else if constexpr (sizeof(T) == 2)
    return Q6_Vh_vadd_VhVh(a, b);
  else
    return Q6_Vw_vadd_VwVw(a, b);
}
template <class T>
inline HVX_Vector vsub(HVX_Vector a, HVX_Vector b) {
  if constexpr (sizeof(T) == 1)
    return Q6_Vb_vsub_VbVb(a, b);
  else if constexpr (sizeof(T) == 2)
    return Q6_Vh_vsub_VhVh(a, b);
  else
    return Q6_Vw_vsub_VwVw(a, b);
}
template <class T>
inline HVX_Vector vmul(HVX_Vector a, HVX_Vector b) {
  if constexpr (sizeof(T) == 1) {
    // u8 x u8 -> u16 products (even lanes in lo, odd lanes in hi); the low byte of each product
    // is the wrapped 8-bit result for signed and unsigned alike. vshuffe re-interleaves them.
    const HVX_VectorPair p = Q6_Wuh_vmpy_VubVub(a, b);
    return Q6_Vb_vshuffe_VbVb(Q6_V_hi_W(p), Q6_V_lo_W(p));
  } else if constexpr (sizeof(T) == 2) {
    return Q6_Vh_vmpyi_VhVh(a, b);
  } else {
    // Low 32 bits of a 32x32 product: odd-halfword partial product shifted up, plus the
    // even (unsigned) halfword partial product accumulated.
    const HVX_Vector odd = Q6_Vw_vmpyio_VwVh(a, b);
    return Q6_Vw_vmpyieacc_VwVwVuh(Q6_Vw_vasl_VwR(odd, 16), a, b);
  }
}
template <class T>
inline HVX_Vector vmax(HVX_Vector a, HVX_Vector b) {
  if constexpr (is_same_v<T, uint8_t>)
    return Q6_Vub_vmax_VubVub(a, b);
  else if constexpr (is_same_v<T, int8_t>)
    return Q6_Vb_vmax_VbVb(a, b);
  else if constexpr (is_same_v<T, uint16_t>)
    return Q6_Vuh_vmax_VuhVuh(a, b);
  else if constexpr (is_same_v<T, int16_t>)
    return Q6_Vh_vmax_VhVh(a, b);
  else
    return Q6_Vw_vmax_VwVw(a, b);
}
template <class T>
inline HVX_Vector vmin(HVX_Vector a, HVX_Vector b) {
  if constexpr (is_same_v<T, uint8_t>)
    return Q6_Vub_vmin_VubVub(a, b);
  else if constexpr (is_same_v<T, int8_t>)
    return Q6_Vb_vmin_VbVb(a, b);
  else if constexpr (is_same_v<T, uint16_t>)
    return Q6_Vuh_vmin_VuhVuh(a, b);
  else if constexpr (is_same_v<T, int16_t>)
    return Q6_Vh_vmin_VhVh(a, b);
  else
    return Q6_Vw_vmin_VwVw(a, b);
}
template <class T>
inline HVX_Vector vabs(HVX_Vector x) {
  if constexpr (sizeof(T) == 1)
    return Q6_Vb_vabs_Vb(x);
  else if constexpr (sizeof(T) == 2)
    return Q6_Vh_vabs_Vh(x);
  else
    return Q6_Vw_vabs_Vw(x);
}

template <BinOp op, class T>
inline HVX_Vector vbinary(HVX_Vector a, HVX_Vector b) {
  if constexpr (op == BinOp::add) return vadd<T>(a, b);
  if constexpr (op == BinOp::sub) return vsub<T>(a, b);
  if constexpr (op == BinOp::mul) return vmul<T>(a, b);
  if constexpr (op == BinOp::max) return vmax<T>(a, b);
  if constexpr (op == BinOp::min) return vmin<T>(a, b);
}

/// Two halfwords of a 32-bit scalar register, both m: the multiplier operand of vmpy(Vu.h, Rt.h).
inline int32_t pair_h(int32_t m) {
  const uint32_t u = static_cast<uint16_t>(m);
  return static_cast<int32_t>(u | (u << 16));
}

/// round_shift of each word for n in [1, 31] (|t| + 2^(n-1) < 2^31), narrowed to saturated
/// halfwords with odd/even words re-interleaved (Vu -> odd halfwords, Vv -> even halfwords).
/// Negative words first lose 1, which turns the hardware's half-up rounding into half away
/// from zero. The rounding narrowing shift vasr(Vu.w,Vv.w,Rt):rnd:sat takes only 4 bits of
/// shift, so shifts above 15 add the half explicitly, shift, then saturate-pack.
inline HVX_Vector round_narrow(HVX_Vector odd, HVX_Vector even, int n) {
  const HVX_Vector o = Q6_Vw_vadd_VwVw(odd, Q6_Vw_vasr_VwR(odd, 31));
  const HVX_Vector e = Q6_Vw_vadd_VwVw(even, Q6_Vw_vasr_VwR(even, 31));
  if (n <= 15) return Q6_Vh_vasr_VwVwR_rnd_sat(o, e, n);
  const HVX_Vector half = Q6_V_vsplat_R(int32_t{1} << (n - 1));
  return Q6_Vh_vsat_VwVw(Q6_Vw_vasr_VwR(Q6_Vw_vadd_VwVw(o, half), n), Q6_Vw_vasr_VwR(Q6_Vw_vadd_VwVw(e, half), n));
}

/// Halfwords (already offset by the output zero point) saturated to Q and packed, with the even
/// and odd bytes re-interleaved.
template <class Q>
inline HVX_Vector narrow_h_to_b(HVX_Vector odd_h, HVX_Vector even_h) {
  if constexpr (is_same_v<Q, uint8_t>) {
    return Q6_Vub_vsat_VhVh(odd_h, even_h);
  } else {
    const HVX_Vector lo = Q6_Vh_vsplat_R(-128), hi = Q6_Vh_vsplat_R(127);
    const HVX_Vector o = Q6_Vh_vmin_VhVh(Q6_Vh_vmax_VhVh(odd_h, lo), hi);
    const HVX_Vector e = Q6_Vh_vmin_VhVh(Q6_Vh_vmax_VhVh(even_h, lo), hi);
    return Q6_Vb_vshuffe_VbVb(o, e);
  }
}

/// 8-bit lanes widened to halfwords minus a zero point: lo = even lanes, hi = odd lanes.
template <class Q>
inline HVX_VectorPair widen_minus_zp(HVX_Vector x, HVX_Vector zp_h) {
  const HVX_VectorPair w = is_same_v<Q, uint8_t> ? Q6_Wuh_vzxt_Vub(x) : Q6_Wh_vsxt_Vb(x);
  return Q6_W_vcombine_VV(Q6_Vh_vsub_VhVh(Q6_V_hi_W(w), zp_h), Q6_Vh_vsub_VhVh(Q6_V_lo_W(w), zp_h));
}

}  // namespace detail

// ---- kernels -----------------------------------------------------------------------------

/// Elementwise binary. Per 128-byte vector: add/sub/max/min 1 instruction; mul 1 (i16),
/// 2 (8-bit: vmpy + vshuffe), 3 (i32: vmpyio + vasl + vmpyie:acc). Floats: portable.
/// objdump (v68): loop of 4 packets / 9 instructions for add_u8 and max_i8 (2 vmemu loads,
/// 1 op, 1 vmemu store), 6/10 for mul_u8, 5/9 for mul_i16, 7/11 for mul_i32.
template <BinOp op, class T>
void binary(const T* a, const T* b, T* out, size_t n) {
  if constexpr (detail::vec_int_v<T>) {
    detail::map_chunks<T, T, true>(a, b, out, n, [](const HVX_Vector* va, const HVX_Vector* vb, HVX_Vector* vo) {
      vo[0] = detail::vbinary<op, T>(va[0], vb[0]);
    });
  } else {
    portable::binary<op>(a, b, out, n);
  }
}

/// Elementwise unary. Per vector: neg 1 (vsub from 0), abs 1 (vabs), relu 1 (vmax with 0);
/// unsigned abs/relu are copies. Floats: portable. objdump (v68): 4 packets / 8 instructions
/// (1 load, 1 op, 1 store + loop control) for neg_i16, abs_i32, relu_i8.
template <UnOp op, class T>
void unary(const T* x, T* out, size_t n) {
  if constexpr (detail::vec_int_v<T>) {
    detail::map_chunks<T, T, false>(x, nullptr, out, n, [](const HVX_Vector* vx, const HVX_Vector*, HVX_Vector* vo) {
      constexpr bool is_signed = int_range<T>::lo < 0;
      if constexpr (op == UnOp::neg)
        vo[0] = detail::vsub<T>(Q6_V_vzero(), vx[0]);
      else if constexpr (!is_signed)
        vo[0] = vx[0];
      else if constexpr (op == UnOp::abs)
        vo[0] = detail::vabs<T>(vx[0]);
      else
        vo[0] = detail::vmax<T>(vx[0], Q6_V_vzero());
    });
  } else {
    portable::unary<op>(x, out, n);
  }
}

/// ReluMinMax / Clamp. Per vector: 2 (vmax, vmin). Floats: portable. objdump (v68): 4 packets /
/// 9 instructions for clamp_u8.
template <class T>
void clamp(const T* x, T* out, size_t n, T lo, T hi) {
  if constexpr (detail::vec_int_v<T>) {
    const HVX_Vector vlo = detail::splat(lo), vhi = detail::splat(hi);
    detail::map_chunks<T, T, false>(x, nullptr, out, n, [&](const HVX_Vector* vx, const HVX_Vector*, HVX_Vector* vo) {
      vo[0] = detail::vmin<T>(detail::vmax<T>(vx[0], vlo), vhi);
    });
  } else {
    portable::clamp(x, out, n, lo, hi);
  }
}

/// Quantized Add, 8-bit storage within portable::qadd_is_narrow (else portable). Per 128-byte
/// output vector: widen (2 vzxt/vsxt as one pair op + 4 vsub), 2 vmpy + 2 vmpy:acc (h x Rt.h ->
/// w pairs), rounding (4 vasr + 4 vadd + 2 vasr:rnd:sat narrowing), 2 vadd:sat (zero point),
/// 1 vsat (qu8) or 4 vmax/vmin + 1 vshuffe (qi8). objdump (v68), per 128 outputs: qu8 31 packets
/// / 59 instructions (35 HVX) with shift <= 15, 36 / 64 (40 HVX) above; qi8 33 / 63 and 38 / 68.
template <class Q>
void qadd(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
  if constexpr (sizeof(Q) == 1) {
    if (portable::qadd_is_narrow<Q>(p) && p.shift >= 1) {
      const HVX_Vector azp = Q6_Vh_vsplat_R(p.a_zero_point), bzp = Q6_Vh_vsplat_R(p.b_zero_point);
      const HVX_Vector ozp = Q6_Vh_vsplat_R(p.out_zero_point);
      const int32_t am = detail::pair_h(p.a_multiplier), bm = detail::pair_h(p.b_multiplier);
      const int sh = p.shift;
      detail::map_chunks<Q, Q, true>(a, b, out, n, [&](const HVX_Vector* va, const HVX_Vector* vb, HVX_Vector* vo) {
        const HVX_VectorPair da = detail::widen_minus_zp<Q>(va[0], azp);  // lo: even bytes, hi: odd
        const HVX_VectorPair db = detail::widen_minus_zp<Q>(vb[0], bzp);
        HVX_VectorPair te = Q6_Ww_vmpy_VhRh(Q6_V_lo_W(da), am);  // words of bytes 0,4,.. / 2,6,..
        te = Q6_Ww_vmpyacc_WwVhRh(te, Q6_V_lo_W(db), bm);
        HVX_VectorPair to = Q6_Ww_vmpy_VhRh(Q6_V_hi_W(da), am);  // words of bytes 1,5,.. / 3,7,..
        to = Q6_Ww_vmpyacc_WwVhRh(to, Q6_V_hi_W(db), bm);
        const HVX_Vector he = Q6_Vh_vadd_VhVh_sat(detail::round_narrow(Q6_V_hi_W(te), Q6_V_lo_W(te), sh), ozp);
        const HVX_Vector ho = Q6_Vh_vadd_VhVh_sat(detail::round_narrow(Q6_V_hi_W(to), Q6_V_lo_W(to), sh), ozp);
        vo[0] = detail::narrow_h_to_b<Q>(ho, he);
      });
      return;
    }
  }
  portable::qadd(a, b, out, n, p);
}

/// Quantized Mul, 8-bit storage within portable::qmul_is_narrow (else portable). Per 128-byte
/// output vector: widen (as qadd), 2 vmpy (h x h -> w pairs), 4 vmpyi (w x Rt.h), rounding and
/// narrowing as qadd. objdump (v68), qu8: 34 packets / 60 instructions (37 HVX) with shift <= 15,
/// 39 / 65 (42 HVX) above.
template <class Q>
void qmul(const Q* a, const Q* b, Q* out, size_t n, QMulParams p) {
  if constexpr (sizeof(Q) == 1) {
    if (portable::qmul_is_narrow<Q>(p) && p.shift >= 1) {
      const HVX_Vector azp = Q6_Vh_vsplat_R(p.a_zero_point), bzp = Q6_Vh_vsplat_R(p.b_zero_point);
      const HVX_Vector ozp = Q6_Vh_vsplat_R(p.out_zero_point);
      const int32_t m = detail::pair_h(p.multiplier);
      const int sh = p.shift;
      detail::map_chunks<Q, Q, true>(a, b, out, n, [&](const HVX_Vector* va, const HVX_Vector* vb, HVX_Vector* vo) {
        const HVX_VectorPair da = detail::widen_minus_zp<Q>(va[0], azp);
        const HVX_VectorPair db = detail::widen_minus_zp<Q>(vb[0], bzp);
        const HVX_VectorPair pe = Q6_Ww_vmpy_VhVh(Q6_V_lo_W(da), Q6_V_lo_W(db));
        const HVX_VectorPair po = Q6_Ww_vmpy_VhVh(Q6_V_hi_W(da), Q6_V_hi_W(db));
        const HVX_Vector he = Q6_Vh_vadd_VhVh_sat(
            detail::round_narrow(Q6_Vw_vmpyi_VwRh(Q6_V_hi_W(pe), m), Q6_Vw_vmpyi_VwRh(Q6_V_lo_W(pe), m), sh), ozp);
        const HVX_Vector ho = Q6_Vh_vadd_VhVh_sat(
            detail::round_narrow(Q6_Vw_vmpyi_VwRh(Q6_V_hi_W(po), m), Q6_Vw_vmpyi_VwRh(Q6_V_lo_W(po), m), sh), ozp);
        vo[0] = detail::narrow_h_to_b<Q>(ho, he);
      });
      return;
    }
  }
  portable::qmul(a, b, out, n, p);
}

namespace detail {
/// One vector of int32 requantized to saturated int32 (before the output zero point):
/// exact 64-bit product (vmpye + vmpyo:acc), 64-bit rounding bias with carries, shift.
struct RequantVec {
  HVX_Vector in_zp, mult, bias_lo, bias_hi;
  int n;
  HVX_Vector operator()(HVX_Vector x) const {
    const HVX_Vector d = Q6_Vw_vsub_VwVw(x, in_zp);
    HVX_VectorPair t = Q6_W_vmpye_VwVuh(d, mult);
    t = Q6_W_vmpyoacc_WVwVh(t, d, mult);  // hi:lo = d * multiplier, exactly
    HVX_Vector hi = Q6_V_hi_W(t), lo = Q6_V_lo_W(t);
    // + 2^(n-1) - [t < 0], as a 64-bit add of (bias_hi:bias_lo) and then of (neg:neg).
    const HVX_Vector neg = Q6_Vw_vasr_VwR(hi, 31);
    HVX_VectorPred c = Q6_Q_vsetq_R(0);
    lo = Q6_Vw_vadd_VwVwQ_carry(lo, bias_lo, &c);
    hi = Q6_Vw_vadd_VwVwQ_carry(hi, bias_hi, &c);
    c = Q6_Q_vsetq_R(0);
    lo = Q6_Vw_vadd_VwVwQ_carry(lo, neg, &c);
    hi = Q6_Vw_vadd_VwVwQ_carry(hi, neg, &c);
    if (n >= 32) return Q6_Vw_vasr_VwR(hi, n - 32);
    // n in [1, 31]: the result is hi:lo >> n, saturated to int32.
    const HVX_Vector r = Q6_V_vor_VV(Q6_Vw_vasl_VwR(hi, 32 - n), Q6_Vuw_vlsr_VuwR(lo, n));
    const HVX_Vector top = Q6_Vw_vasr_VwR(hi, n - 1);  // 0 or -1 when the result fits
    const HVX_VectorPred over = Q6_Q_vcmp_gt_VwVw(top, Q6_V_vzero());
    const HVX_VectorPred under = Q6_Q_vcmp_gt_VwVw(Q6_V_vsplat_R(-1), top);
    return Q6_V_vmux_QVV(over, Q6_V_vsplat_R(2147483647), Q6_V_vmux_QVV(under, Q6_V_vsplat_R(-2147483647 - 1), r));
  }
};
}  // namespace detail

/// Requantize int32 -> qu8/qi8/qu16/qi16 (shift in [1, 62]; other inputs or shift 0: portable).
/// Per 128-byte input vector (32 words): vsub, vmpye + vmpyo:acc (exact 64-bit product),
/// vasr + 4 vadd:carry (bias), then 1 vasr (shift >= 32) or vasl/vlsr/vor + 2 vcmp + 2 vmux
/// (shift < 32), 1 vadd:sat (zero point), and 1/2 (16-bit) or 3/4 (8-bit) vpack:sat per output.
/// objdump (v68): i32->qi16, per 64 outputs (2 input vectors): 28 packets / 46 instructions
/// (36 HVX) for shift >= 32, 33 / 52 (43 HVX) below; i32->qu8, per 128 outputs (4 input
/// vectors): 69 / 117 (93 HVX) and 74 / 123 (100 HVX), with constants reloaded from the stack.
template <class Out, class In>
void requantize(const In* x, Out* out, size_t n, RequantParams p) {
  if constexpr (is_same_v<In, int32_t> && is_quant_storage_v<Out>) {
    if (p.shift >= 1 && p.shift <= 62) {
      detail::RequantVec rq{};
      rq.in_zp = Q6_V_vsplat_R(p.in_zero_point);
      rq.mult = Q6_V_vsplat_R(p.multiplier);
      rq.n = p.shift;
      const int64_t half = int64_t{1} << (p.shift - 1);
      rq.bias_lo = Q6_V_vsplat_R(static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(half))));
      rq.bias_hi = Q6_V_vsplat_R(static_cast<int32_t>(static_cast<uint64_t>(half) >> 32));
      const HVX_Vector ozp = Q6_V_vsplat_R(p.out_zero_point);
      detail::map_chunks<In, Out, false>(x, nullptr, out, n,
                                         [&](const HVX_Vector* vx, const HVX_Vector*, HVX_Vector* vo) {
                                           auto word = [&](int k) { return Q6_Vw_vadd_VwVw_sat(rq(vx[k]), ozp); };
                                           if constexpr (sizeof(Out) == 2) {
                                             if constexpr (is_same_v<Out, uint16_t>)
                                               vo[0] = Q6_Vuh_vpack_VwVw_sat(word(1), word(0));
                                             else
                                               vo[0] = Q6_Vh_vpack_VwVw_sat(word(1), word(0));
                                           } else {
                                             const HVX_Vector h0 = Q6_Vh_vpack_VwVw_sat(word(1), word(0));
                                             const HVX_Vector h1 = Q6_Vh_vpack_VwVw_sat(word(3), word(2));
                                             if constexpr (is_same_v<Out, uint8_t>)
                                               vo[0] = Q6_Vub_vpack_VhVh_sat(h1, h0);
                                             else
                                               vo[0] = Q6_Vb_vpack_VhVh_sat(h1, h0);
                                           }
                                         });
      return;
    }
  }
  portable::requantize<Out>(x, out, n, p);
}

/// Float kernels: the portable code (HVX float instructions are v68+ and not run here).
template <class To, class From>
void cast(const From* x, To* out, size_t n) {
  portable::cast<To>(x, out, n);
}
template <class Q>
void quantize(const float* x, Q* out, size_t n, QuantizeParams p) {
  portable::quantize(x, out, n, p);
}
template <class Q>
void dequantize(const Q* q, float* out, size_t n, QuantParams p) {
  portable::dequantize(q, out, n, p);
}

/// The hvx backend as a type, for code generic over backends (broadcast.hpp, tests).
struct backend {
  static constexpr const char* name = "hvx";
  template <BinOp op, class T>
  static void binary(const T* a, const T* b, T* out, size_t n) {
    hvx::binary<op>(a, b, out, n);
  }
  template <UnOp op, class T>
  static void unary(const T* x, T* out, size_t n) {
    hvx::unary<op>(x, out, n);
  }
  template <class T>
  static void clamp(const T* x, T* out, size_t n, T lo, T hi) {
    hvx::clamp(x, out, n, lo, hi);
  }
  template <class To, class From>
  static void cast(const From* x, To* out, size_t n) {
    hvx::cast<To>(x, out, n);
  }
  template <class Q>
  static void quantize(const float* x, Q* out, size_t n, QuantizeParams p) {
    hvx::quantize(x, out, n, p);
  }
  template <class Q>
  static void dequantize(const Q* q, float* out, size_t n, QuantParams p) {
    hvx::dequantize(q, out, n, p);
  }
  template <class Out, class In>
  static void requantize(const In* x, Out* out, size_t n, RequantParams p) {
    hvx::requantize<Out>(x, out, n, p);
  }
  template <class Q>
  static void qadd(const Q* a, const Q* b, Q* out, size_t n, QAddParams p) {
    hvx::qadd(a, b, out, n, p);
  }
  template <class Q>
  static void qmul(const Q* a, const Q* b, Q* out, size_t n, QMulParams p) {
    hvx::qmul(a, b, out, n, p);
  }
};

}  // namespace optgrammar::fold::hvx

#else
#define OPTGRAMMAR_FOLD_HAS_HVX 0
#endif
