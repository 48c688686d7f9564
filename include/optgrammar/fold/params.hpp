// Fixed-point parameters of the quantized kernels, derived from the tensors' float steps.
// This is where floating point meets the integer kernels: the engine calls these once per
// fold; the kernels then run in integers only, so every backend gives the same bits.
#pragma once

#include "optgrammar/fold/base.hpp"

namespace optgrammar::fold {

/// multiplier / 2^shift, an approximation of a positive real scale.
struct FixedPoint {
  int32_t multiplier;
  int32_t shift;
};

/// The largest shift in [0, max_shift] whose multiplier round(real * 2^shift) is <= max_mult;
/// the multiplier saturates at max_mult when even shift 0 is too large. real >= 0.
/// to_fixed_point(0.75, 32767, 31) == {24576, 15}.
constexpr FixedPoint to_fixed_point(double real, int64_t max_mult, int max_shift) {
  if (!(real > 0.0)) return {0, 0};
  if (real + 0.5 > static_cast<double>(max_mult)) return {static_cast<int32_t>(max_mult), 0};
  double v = real;
  int s = 0;
  while (s < max_shift && static_cast<int64_t>(v * 2.0 + 0.5) <= max_mult) {
    v *= 2.0;  // exact: a power-of-two scaling
    ++s;
  }
  return {static_cast<int32_t>(static_cast<int64_t>(v + 0.5)), s};
}

/// Requantize from (in_step, in_zp) to (out_step, out_zp): real scale in_step / out_step with a
/// 31-bit multiplier (the exact 64-bit product of the kernels allows it).
constexpr RequantParams make_requant_params(QuantParams in, QuantParams out) {
  const FixedPoint f = to_fixed_point(static_cast<double>(in.step) / static_cast<double>(out.step), 2147483647, 62);
  return {in.zero_point, f.multiplier, f.shift, out.zero_point};
}

/// Quantized Add from the three tensors' quantizations. Both inputs share one shift; for
/// 8-bit storage the multipliers stay within 16 bits (the int32 fast paths), else 31 bits.
template <class Q>
constexpr QAddParams make_qadd_params(QuantParams a, QuantParams b, QuantParams out) {
  constexpr int64_t max_mult = sizeof(Q) == 1 ? 32767 : 2147483647;
  constexpr int max_shift = sizeof(Q) == 1 ? 31 : 62;
  const double ra = static_cast<double>(a.step) / static_cast<double>(out.step);
  const double rb = static_cast<double>(b.step) / static_cast<double>(out.step);
  const FixedPoint fa = to_fixed_point(ra, max_mult, max_shift), fb = to_fixed_point(rb, max_mult, max_shift);
  const int s = fa.shift < fb.shift ? fa.shift : fb.shift;
  const FixedPoint ga = to_fixed_point(ra, max_mult, s), gb = to_fixed_point(rb, max_mult, s);
  // to_fixed_point(r, m, s) returns the shift s itself unless r needs less; re-scale to s.
  auto at = [](FixedPoint f, int shift) {
    return static_cast<int32_t>(static_cast<int64_t>(f.multiplier) << (shift - f.shift));
  };
  return {a.zero_point, b.zero_point, out.zero_point, at(ga, s), at(gb, s), s};
}

/// Quantized Mul: real scale a.step * b.step / out.step; multiplier limit 2^14 for 8-bit
/// storage (product and rounding fit int32) and 2^29 for 16-bit (the product fits int64).
template <class Q>
constexpr QMulParams make_qmul_params(QuantParams a, QuantParams b, QuantParams out) {
  constexpr int64_t max_mult = sizeof(Q) == 1 ? 16384 : (int64_t{1} << 29);
  constexpr int max_shift = sizeof(Q) == 1 ? 31 : 62;
  const double r = static_cast<double>(a.step) * static_cast<double>(b.step) / static_cast<double>(out.step);
  const FixedPoint f = to_fixed_point(r, max_mult, max_shift);
  return {a.zero_point, b.zero_point, out.zero_point, f.multiplier, f.shift};
}

}  // namespace optgrammar::fold
