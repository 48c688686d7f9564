// Reference evaluation of the imported ONNX quantization ops (onnx.hpp's table):
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul, QLinearConv,
// MatMulInteger and ConvInteger. They compute as ONNX Runtime's CPU kernels do, bit for bit:
// scales and divisions in float, rounding half to even, saturation to the output type; integer
// products are summed exactly.
#pragma once

#include "optgrammar/ops/onnx_eval_tensor.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace optgrammar::ops::onnx_eval {

/// The quantization parameter of element i of x: per tensor (one value), or per slice along
/// `axis` (a 1-d parameter of x's size there). nullopt when the parameter fits neither.
struct PerAxis {
  std::size_t axis = 0, inner = 1, len = 1;
  bool per_axis = false;
  std::size_t at(std::size_t i) const { return per_axis ? (i / inner) % len : 0; }
};
inline std::optional<PerAxis> per_axis(const OutputDef& x, const OutputDef& param, std::int64_t axis) {
  PerAxis p;
  if (param.element_count() == 1) return p;
  auto ax = axis_of(axis, x.rank);
  if (!ax || param.rank != 1 || param.dims[0] != x.dims[*ax]) return std::nullopt;
  p.per_axis = true;
  p.axis = *ax;
  p.len = x.dims[*ax];
  for (std::size_t k = *ax + 1; k < x.rank; ++k) p.inner *= x.dims[k];
  return p;
}

/// q = saturate(round_half_even(x / scale) + zero_point), the division in float. The bounds stay
/// within what converts to std::int64_t (a 64-bit type's largest value rounds up to 2^63 as a
/// double, which does not).
inline double quantize_value(float x, float scale, double zero_point, DType t) {
  const IntRange r = storage_range(t);
  const double q = static_cast<double>(std::nearbyint(x / scale)) + zero_point;
  constexpr double below_2_63 = 0x1.fffffffffffffp+62;
  return std::clamp(q, std::max(static_cast<double>(r.lo), -0x1p+63), std::min(static_cast<double>(r.hi), below_2_63));
}

/// QuantizeLinear(axis; x, y_scale, y_zero_point): the output's integer type is the zero
/// point's (UInt8 when it is absent).
inline bool quantize_linear(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &sc = a.in(1);
  const OutputDef& o = *v.declared;
  auto p = per_axis(*x.def, *sc.def, a.attr_int(0));
  if (!p || x.def->element_count() != o.element_count() || is_float(o.dtype)) return false;
  if (a.present(2) && a.in(2).def->element_count() != sc.def->element_count()) return false;
  for (std::size_t i = 0; i < o.element_count(); ++i) {
    const std::size_t j = p->at(i);
    const double zp = a.present(2) ? get(a.in(2).def->dtype, a.in(2).data.data(), j) : 0.0;
    const auto xv = static_cast<float>(get(x.def->dtype, x.data.data(), i));
    const auto q = quantize_value(xv, static_cast<float>(get(sc.def->dtype, sc.data.data(), j)), zp, o.dtype);
    // a NaN (a NaN x, or 0 / 0) has no integer: it quantizes to the zero point, as 0 does
    store_int(o.dtype, out.data(), i, static_cast<std::int64_t>(q == q ? q : zp));
  }
  return true;
}

/// DequantizeLinear(axis; x, x_scale, x_zero_point): (x - zero_point) * scale, in float.
inline bool dequantize_linear(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &sc = a.in(1);
  const OutputDef& o = *v.declared;
  auto p = per_axis(*x.def, *sc.def, a.attr_int(0));
  if (!p || x.def->element_count() != o.element_count()) return false;
  if (a.present(2) && a.in(2).def->element_count() != sc.def->element_count()) return false;
  for (std::size_t i = 0; i < o.element_count(); ++i) {
    const std::size_t j = p->at(i);
    const std::int64_t zp = a.present(2) ? get_int(a.in(2).def->dtype, a.in(2).data.data(), j) : 0;
    const auto d = static_cast<float>(get_int(x.def->dtype, x.data.data(), i) - zp);
    put(o.dtype, out.data(), i, d * static_cast<float>(get(sc.def->dtype, sc.data.data(), j)));
  }
  return true;
}

/// DynamicQuantizeLinear(output; x): output 1 the scale (max(0, max x) - min(0, min x)) / 255,
/// output 2 the zero point saturate(round_half_even(-min / scale)), output 0 x quantized to UInt8
/// with them (all in float).
inline bool dynamic_quantize_linear(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  float lo = 0, hi = 0;
  for (std::size_t i = 0; i < x.def->element_count(); ++i) {
    const auto e = static_cast<float>(get(x.def->dtype, x.data.data(), i));
    lo = std::min(lo, e);
    hi = std::max(hi, e);
  }
  const float scale = (hi - lo) / 255.0f;
  const float zp_real = scale == 0 ? 0.0f : 0.0f - lo / scale;
  const double zp = std::nearbyint(std::clamp(zp_real, 0.0f, 255.0f));
  const OutputDef& o = *v.declared;
  switch (a.attr_int(0)) {
    case 0:
      if (o.element_count() != x.def->element_count()) return false;
      for (std::size_t i = 0; i < o.element_count(); ++i)
        store_int(o.dtype, out.data(), i,
                  static_cast<std::int64_t>(
                      scale == 0 ? zp
                                 : quantize_value(static_cast<float>(get(x.def->dtype, x.data.data(), i)), scale, zp,
                                                  DType::UInt8)));
      return true;
    case 1: put(o.dtype, out.data(), 0, scale); return true;
    case 2: store_int(o.dtype, out.data(), 0, static_cast<std::int64_t>(zp)); return true;
    default: return false;
  }
}

/// x's values less its zero point (absent: 0): a scalar, or one per row (rows: the dim before the
/// last, per_row) or per column (the last dim) of a matmul operand, or per output channel (dim 0)
/// of a convolution's weight.
enum class ZeroAt { tensor, row, column, channel };
inline bool minus_zero_point(const ValueView& x, const ValueView* zp, ZeroAt where, std::vector<double>& res) {
  res = values_of(x);
  if (!zp || !zp->def || zp->def->element_count() == 0) return true;
  const std::size_t nz = zp->def->element_count();
  const Dims xd = dims_of(*x.def);
  for (std::size_t i = 0; i < res.size(); ++i) {
    std::size_t j = 0;
    if (nz > 1) {
      switch (where) {
        case ZeroAt::tensor: return false;
        case ZeroAt::row: j = xd.size() >= 2 ? (i / xd.back()) % xd[xd.size() - 2] : 0; break;
        case ZeroAt::column: j = i % xd.back(); break;
        case ZeroAt::channel: j = i / (res.size() / std::max<std::size_t>(1, xd[0])); break;
      }
      if (j >= nz) return false;
    }
    res[i] -= get(zp->def->dtype, zp->data.data(), j);
  }
  return true;
}

/// ONNX Runtime's requantization of an exact integer sum: saturate(round_half_even(float(acc) *
/// scale) + zero_point), with scale = a_scale * b_scale / y_scale computed in float.
inline double requantize(double acc, float scale, double zero_point, DType t) {
  const IntRange r = storage_range(t);
  return std::clamp(static_cast<double>(std::nearbyint(static_cast<float>(acc) * scale)) + zero_point,
                    static_cast<double>(r.lo), static_cast<double>(r.hi));
}

/// MatMulInteger(A, B, a_zero_point, b_zero_point): Int32 sums of (a - a_zp)(b - b_zp) (a_zp
/// per row or scalar, b_zp per column or scalar).
inline bool matmul_integer(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  std::vector<double> av, bv, res;
  if (!minus_zero_point(a.in(0), a.present(2) ? &a.in(2) : nullptr, ZeroAt::row, av) ||
      !minus_zero_point(a.in(1), a.present(3) ? &a.in(3) : nullptr, ZeroAt::column, bv) ||
      !matmul_values(dims_of(*a.in(0).def), av, dims_of(*a.in(1).def), bv, res) ||
      res.size() != v.declared->element_count())
    return false;
  for (std::size_t i = 0; i < res.size(); ++i)
    store_int(v.declared->dtype, out.data(), i, static_cast<std::int64_t>(res[i]));
  return true;
}

/// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
/// the exact sums of (a - a_zp)(b - b_zp), requantized with a_scale * b_scale / y_scale (b's
/// scale and zero point per column or scalar).
inline bool qlinear_matmul(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 8 || !a.inputs_have_data()) return false;
  std::vector<double> av, bv, res;
  if (!minus_zero_point(a.in(0), &a.in(2), ZeroAt::row, av) ||
      !minus_zero_point(a.in(3), &a.in(5), ZeroAt::column, bv) ||
      !matmul_values(dims_of(*a.in(0).def), av, dims_of(*a.in(3).def), bv, res) ||
      res.size() != v.declared->element_count())
    return false;
  const OutputDef& o = *v.declared;
  const auto sa = static_cast<float>(get(a.in(1).def->dtype, a.in(1).data.data(), 0)),
             sy = static_cast<float>(get(a.in(6).def->dtype, a.in(6).data.data(), 0));
  const double zy = get(a.in(7).def->dtype, a.in(7).data.data(), 0);
  const std::size_t N = o.rank ? o.dims[o.rank - 1] : 1, nb = a.in(4).def->element_count();
  for (std::size_t i = 0; i < res.size(); ++i) {
    const auto sb = static_cast<float>(get(a.in(4).def->dtype, a.in(4).data.data(), nb > 1 ? i % N : 0));
    store_int(o.dtype, out.data(), i, static_cast<std::int64_t>(requantize(res[i], sa * sb / sy, zy, o.dtype)));
  }
  return true;
}

/// ConvInteger(auto_pad, dilations, group, kernel_shape, pads, strides; x, w, x_zero_point,
/// w_zero_point): Int32 sums of (x - x_zp)(w - w_zp) (w_zp per output channel or scalar).
inline bool conv_integer(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  ConvShape s;
  std::vector<double> xv, wv;
  if (!conv_shape(a, *a.in(0).def, *a.in(1).def, *v.declared, s) ||
      !minus_zero_point(a.in(0), a.present(2) ? &a.in(2) : nullptr, ZeroAt::tensor, xv) ||
      !minus_zero_point(a.in(1), a.present(3) ? &a.in(3) : nullptr, ZeroAt::channel, wv))
    return false;
  const std::vector<double> acc = conv_sums(s, xv, wv);
  if (acc.size() != v.declared->element_count()) return false;
  for (std::size_t i = 0; i < acc.size(); ++i)
    store_int(v.declared->dtype, out.data(), i, static_cast<std::int64_t>(acc[i]));
  return true;
}

/// QLinearConv(auto_pad, dilations, group, kernel_shape, pads, strides; x, x_scale,
/// x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B): the exact sums of
/// (x - x_zp)(w - w_zp) plus the Int32 bias, requantized per output channel with
/// x_scale * w_scale[m] / y_scale.
inline bool qlinear_conv(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() < 8 || !a.inputs_have_data()) return false;
  ConvShape s;
  std::vector<double> xv, wv;
  if (!conv_shape(a, *a.in(0).def, *a.in(3).def, *v.declared, s) ||
      !minus_zero_point(a.in(0), &a.in(2), ZeroAt::tensor, xv) ||
      !minus_zero_point(a.in(3), &a.in(5), ZeroAt::channel, wv))
    return false;
  const std::vector<double> acc = conv_sums(s, xv, wv);
  const OutputDef& o = *v.declared;
  if (acc.size() != o.element_count()) return false;
  const auto sx = static_cast<float>(get(a.in(1).def->dtype, a.in(1).data.data(), 0)),
             sy = static_cast<float>(get(a.in(6).def->dtype, a.in(6).data.data(), 0));
  const double zy = get(a.in(7).def->dtype, a.in(7).data.data(), 0);
  const std::size_t nw = a.in(4).def->element_count();
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const std::size_t m = (i / s.out_size) % s.M;
    const double bias = a.present(8) ? get(a.in(8).def->dtype, a.in(8).data.data(), m) : 0.0;
    const auto sw = static_cast<float>(get(a.in(4).def->dtype, a.in(4).data.data(), nw > 1 ? m : 0));
    store_int(o.dtype, out.data(), i, static_cast<std::int64_t>(requantize(acc[i] + bias, sx * sw / sy, zy, o.dtype)));
  }
  return true;
}

}  // namespace optgrammar::ops::onnx_eval
