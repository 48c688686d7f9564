// Quantized layer ops (targets of the lowering package's quantized rules,
// examples/htp_lowering/quantized.cpp): the integer kernels HTP-style backends run where ONNX's
// QDQ form spells DequantizeLinear -> op -> QuantizeLinear.
//
//   QuantizedConvLayer(x, w, b, w_scale, w_zp, dilations, group, pads, strides)   NHWC
//   QuantizedFullyConnected(x, w, b, w_scale, w_zp, w_layout)
//   QuantizedMatMul(a, b)
//   DequantizeAxis(x, scale, zp, axis)              per-tensor or per-channel dequantization
//
// Activations (x, a, b and the outputs) are quantized tensors: QUInt8, QInt8, QUInt16 or QInt16
// with their own zero offset and step in their output definitions. Weights are integers as
// stored (any integer or quantized storage type; their encoding is not read), with one scale and
// zero point per tensor or per output channel as operands; biases are Int32 (or QInt32) with the
// scale x_step * w_scale[c] and zero point 0. The sums are exact integers; the result is
// requantized with a fixed-point multiplier and shift per output channel (fold/params.hpp's
// to_fixed_point, 31-bit multiplier), rounding halves away from zero, and saturated.
#pragma once

#include "optgrammar/fold/params.hpp"
#include "optgrammar/ops/layer.hpp"
#include "optgrammar/ops/layer_dense.hpp"

#include <algorithm>
#include <cmath>

namespace optgrammar::ops::layer {

namespace quant {
/// Integer storage types a weight or zero point may have.
inline constexpr DTypeSet int_storage = dtypes::integers | dtypes::quantized;

/// The stored integers of a value.
inline std::vector<std::int64_t> stored(const ValueView& v) {
  std::vector<std::int64_t> out(v.def->element_count());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::int64_t>(onnx_eval::get(v.def->dtype, v.data.data(), i));
  return out;
}
/// Element c of per-channel values, or element 0 of per-tensor ones.
template <class T>
T at(const std::vector<T>& v, std::size_t c) {
  return v.size() == 1 ? v[0] : v[c];
}

/// Clamps v to the storage range of a quantized dtype.
inline std::int64_t saturate(DType t, std::int64_t v) {
  switch (t) {
    case DType::QUInt8: return std::clamp<std::int64_t>(v, 0, 255);
    case DType::QInt8: return std::clamp<std::int64_t>(v, -128, 127);
    case DType::QUInt16: return std::clamp<std::int64_t>(v, 0, 65535);
    case DType::QInt16: return std::clamp<std::int64_t>(v, -32768, 32767);
    default: return v;
  }
}

/// Requantizes exact sums: out = sat(zp_y + round_shift(acc * m_c, shift_c)) with m_c / 2^shift_c
/// approximating in_step * w_scale[c] / out_step (acc first held within 32 bits).
struct Requantizer {
  std::vector<fold::FixedPoint> fp;
  std::int32_t zp = 0;
  DType out = DType::QUInt8;

  Requantizer(double in_step, const std::vector<double>& w_scale, const OutputDef& o)
      : zp(o.zero_offset), out(o.dtype) {
    for (double s : w_scale)
      fp.push_back(fold::to_fixed_point(in_step * s / static_cast<double>(o.stepsize), 2147483647, 62));
  }
  void put(std::span<std::byte> dst, std::size_t i, std::int64_t acc, std::size_t c) const {
    const fold::FixedPoint f = at(fp, c);
    acc = std::clamp<std::int64_t>(acc, -(std::int64_t{1} << 31), (std::int64_t{1} << 31) - 1);
    const std::int64_t r = saturate(out, fold::round_shift(acc * f.multiplier, f.shift) + zp);
    onnx_eval::put(out, dst.data(), i, static_cast<double>(r));
  }
};

/// The weight parameters hold one element or n.
inline std::string weight_params_problem(const ValueView& scale, const ValueView& zp, std::size_t n) {
  const std::size_t s = scale.def->element_count(), z = zp.def->element_count();
  if ((s != 1 && s != n) || (z != 1 && z != n)) return cat("w_scale and w_zp need 1 or ", n, " elements");
  return {};
}

inline std::vector<double> doubles(const ValueView& v) {
  std::vector<double> out(v.def->element_count());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = onnx_eval::get(v.def->dtype, v.data.data(), i);
  return out;
}
}  // namespace quant

// ---- convolution ----------------------------------------------------------------------------

namespace infer {
/// QuantizedConvLayer: ConvLayer's geometry with the weight in ONNX's [Co, Ci/group, KH, KW].
inline std::optional<ConvGeometry> quantized_conv_geometry(const OpView& v, std::string& error) {
  if (v.operands.size() != 9) {
    error = cat("QuantizedConvLayer takes 9 operands, not ", v.operands.size());
    return std::nullopt;
  }
  const OutputDef& w = *v.operands[1].def;
  if (w.rank != 4) {
    error = "the weight must have rank 4 ([Co, Ci/group, KH, KW])";
    return std::nullopt;
  }
  // ConvLayer's view of it: the weight's dims as HWIO, a bias of Co elements.
  OutputDef hwio = OutputDef::make(w.dtype, {w.dims[2], w.dims[3], w.dims[1], w.dims[0]});
  OutputDef bias = OutputDef::make(DType::Int32, {w.dims[0]});
  const std::array<ValueView, 7> as_conv{v.operands[0], ValueView{&hwio}, ValueView{&bias}, v.operands[5],
                                         v.operands[6], v.operands[7],    v.operands[8]};
  auto g = conv_geometry(as_conv, error);
  if (!g) return g;
  const std::size_t nb = v.operands[2].def->element_count();
  if (nb != 0 && nb != g->co) {
    error = cat("bias has ", nb, " elements for ", g->co, " output channels");
    return std::nullopt;
  }
  if (auto p = quant::weight_params_problem(v.operands[3], v.operands[4], g->co); !p.empty()) {
    error = p;
    return std::nullopt;
  }
  return g;
}
inline Inferred quantized_conv(const OpView& v) {
  Inferred r;
  r.def = *v.declared;
  if (auto g = quantized_conv_geometry(v, r.error)) {
    r.def.rank = 4;
    r.def.dims = {g->n, g->ho, g->wo, g->co};
    r.shape = true;
  }
  return r;
}
}  // namespace infer

namespace eval {
/// out[n,oh,ow,c] = requant(b[c] + sum (x - x_zp) (w[c,i,kh,kw] - w_zp[c]), x_step * w_scale[c] / out_step).
inline bool quantized_conv(const OpView& v, std::span<std::byte> out, Backend) {
  std::string error;
  auto g = infer::quantized_conv_geometry(v, error);
  if (!g || !all_data(v.operands) || !dtypes::quantized.contains(v.operands[0].def->dtype) ||
      !dtypes::quant_storage.contains(v.declared->dtype))
    return false;
  const OutputDef& xd = *v.operands[0].def;
  const auto x = quant::stored(v.operands[0]), w = quant::stored(v.operands[1]), b = quant::stored(v.operands[2]);
  const auto wz = quant::stored(v.operands[4]);
  const quant::Requantizer rq(xd.stepsize, quant::doubles(v.operands[3]), *v.declared);
  const std::size_t cig = g->ci / g->group, cog = g->co / g->group;
  for (std::size_t n = 0; n < g->n; ++n)
    for (std::size_t oh = 0; oh < g->ho; ++oh)
      for (std::size_t ow = 0; ow < g->wo; ++ow)
        for (std::size_t c = 0; c < g->co; ++c) {
          std::int64_t acc = b.empty() ? 0 : b[c];
          const std::size_t c0 = (c / cog) * cig;
          const std::int64_t zw = quant::at(wz, c);
          for_each_tap(*g, n, oh, ow, [&](std::size_t kh, std::size_t kw, std::size_t pixel) {
            const std::size_t xp = pixel * g->ci + c0;
            for (std::size_t i = 0; i < cig; ++i)
              acc += (x[xp + i] - xd.zero_offset) * (w[((c * cig + i) * g->kh + kh) * g->kw + kw] - zw);
          });
          rq.put(out, ((n * g->ho + oh) * g->wo + ow) * g->co + c, acc, c);
        }
  return true;
}
}  // namespace eval

// ---- fully connected and matmul -------------------------------------------------------------

namespace infer {
/// QuantizedFullyConnected: x [..., K], w [N, K] (layout 0) or [K, N] (layout 1): [..., N].
inline Inferred quantized_fc(const OpView& v) {
  const OutputDef &x = *v.operands[0].def, &w = *v.operands[1].def;
  const auto layout = static_cast<std::int64_t>(scalar(v.operands[5]));
  if (x.rank < 1 || w.rank != 2 || (layout != 0 && layout != 1))
    return failed("x needs rank >= 1, w rank 2, w_layout 0 or 1");
  const std::size_t K = layout ? w.dims[0] : w.dims[1], N = layout ? w.dims[1] : w.dims[0];
  if (K != x.dims[x.rank - 1])
    return failed(cat("w ", ops::infer::shape_string(w), " does not take K = ", x.dims[x.rank - 1]));
  const std::size_t nb = v.operands[2].def->element_count();
  if (nb != 0 && nb != N) return failed(cat("bias has ", nb, " elements for ", N, " outputs"));
  if (auto p = quant::weight_params_problem(v.operands[3], v.operands[4], N); !p.empty()) return failed(p);
  std::vector<std::size_t> d = dims_of(x);
  d.back() = N;
  Inferred r = shaped_like(v, 0, d);
  r.def.dtype = v.declared->dtype;
  r.quant = false;
  return r;
}
/// QuantizedMatMul: MatMul's shapes.
inline Inferred quantized_matmul(const OpView& v) {
  Inferred r = matmul(v);
  r.def.dtype = v.declared->dtype;
  r.quant = false;
  return r;
}
}  // namespace infer

namespace eval {
inline bool quantized_fc(const OpView& v, std::span<std::byte> out, Backend) {
  if (!all_data(v.operands) || !infer::quantized_fc(v).error.empty() ||
      !dtypes::quantized.contains(v.operands[0].def->dtype) || !dtypes::quant_storage.contains(v.declared->dtype))
    return false;
  const OutputDef &xd = *v.operands[0].def, &wd = *v.operands[1].def;
  const bool kn = scalar(v.operands[5]) != 0;
  const std::size_t K = kn ? wd.dims[0] : wd.dims[1], N = kn ? wd.dims[1] : wd.dims[0],
                    M = xd.element_count() / std::max<std::size_t>(K, 1);
  const auto x = quant::stored(v.operands[0]), w = quant::stored(v.operands[1]), b = quant::stored(v.operands[2]);
  const auto wz = quant::stored(v.operands[4]);
  const quant::Requantizer rq(xd.stepsize, quant::doubles(v.operands[3]), *v.declared);
  for (std::size_t m = 0; m < M; ++m)
    for (std::size_t n = 0; n < N; ++n) {
      std::int64_t acc = b.empty() ? 0 : b[n];
      const std::int64_t zw = quant::at(wz, n);
      for (std::size_t k = 0; k < K; ++k) acc += (x[m * K + k] - xd.zero_offset) * (w[kn ? k * N + n : n * K + k] - zw);
      rq.put(out, m * N + n, acc, n);
    }
  return true;
}

/// out = requant(sum (a - a_zp)(b - b_zp), a_step * b_step / out_step); batch dims broadcast.
inline bool quantized_matmul(const OpView& v, std::span<std::byte> out, Backend) {
  const Inferred inf = infer::quantized_matmul(v);
  if (!all_data(v.operands) || !inf.error.empty() || !dtypes::quantized.contains(v.operands[0].def->dtype) ||
      !dtypes::quantized.contains(v.operands[1].def->dtype) || !dtypes::quant_storage.contains(v.declared->dtype))
    return false;
  const OutputDef &ad = *v.operands[0].def, &bd = *v.operands[1].def;
  const std::size_t M = ad.dims[ad.rank - 2], K = ad.dims[ad.rank - 1], N = bd.dims[bd.rank - 1];
  OutputDef abatch = ad, bbatch = bd, batch;
  abatch.rank -= 2, bbatch.rank -= 2;
  broadcast(abatch, bbatch, batch);
  auto ao = onnx_eval::broadcast_offsets(onnx_eval::dims_of(abatch), onnx_eval::dims_of(batch));
  auto bo = onnx_eval::broadcast_offsets(onnx_eval::dims_of(bbatch), onnx_eval::dims_of(batch));
  if (!ao || !bo) return false;
  const auto a = quant::stored(v.operands[0]), b = quant::stored(v.operands[1]);
  const quant::Requantizer rq(static_cast<double>(ad.stepsize), {static_cast<double>(bd.stepsize)}, *v.declared);
  for (std::size_t t = 0; t < ao->size(); ++t)
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        std::int64_t acc = 0;
        for (std::size_t k = 0; k < K; ++k)
          acc += (a[((*ao)[t] * M + i) * K + k] - ad.zero_offset) * (b[((*bo)[t] * K + k) * N + j] - bd.zero_offset);
        rq.put(out, (t * M + i) * N + j, acc, 0);
      }
  return true;
}
}  // namespace eval

// ---- dequantization -------------------------------------------------------------------------

namespace infer {
inline Inferred dequantize_axis(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  const std::int64_t a = static_cast<std::int64_t>(scalar(v.operands[3]));
  const auto ax = onnx_eval::axis_of(a, x.rank);
  const std::size_t s = v.operands[1].def->element_count();
  if (s != 1 && (!ax || s != x.dims[*ax]))
    return failed(cat("scale has ", s, " elements: one, or one per entry of axis ", a));
  if (v.operands[2].def->element_count() != s && v.operands[2].def->element_count() > 1)
    return failed("zp has another count than scale");
  Inferred r = like_x(v);
  r.def.dtype = DType::Float32;
  r.def.zero_offset = 0;
  r.def.stepsize = 1.0f;
  return r;
}
}  // namespace infer

namespace eval {
/// (x - zp[i]) * scale[i] in float, i the index along axis (ONNX DequantizeLinear's arithmetic:
/// the difference exact, converted to float, times the float scale).
inline bool dequantize_axis(const OpView& v, std::span<std::byte> out, Backend) {
  if (!all_data(v.operands) || !infer::dequantize_axis(v).error.empty() || v.declared->dtype != DType::Float32)
    return false;
  const OutputDef& x = *v.operands[0].def;
  const std::size_t s = v.operands[1].def->element_count();
  const auto ax = onnx_eval::axis_of(static_cast<std::int64_t>(scalar(v.operands[3])), x.rank);
  std::size_t inner = 1;
  if (s > 1)
    for (std::uint32_t k = static_cast<std::uint32_t>(*ax) + 1; k < x.rank; ++k) inner *= x.dims[k];
  const auto xv = quant::stored(v.operands[0]), zv = quant::stored(v.operands[2]);
  const auto sv = quant::doubles(v.operands[1]);
  for (std::size_t i = 0; i < xv.size(); ++i) {
    const std::size_t c = s > 1 ? (i / inner) % s : 0;
    const float d = static_cast<float>(xv[i] - (zv.empty() ? 0 : quant::at(zv, c)));
    onnx_eval::put(DType::Float32, out.data(), i, static_cast<double>(d * static_cast<float>(sv[c])));
  }
  return true;
}
}  // namespace eval

inline void add_quantized_definitions(Definitions& t) {
  const DTypeSet act = dtypes::quant_storage;
  const ResultSpec qout{"out", TypeRule::in_set, act, "declared quantization"};
  auto weight_ops = [&](std::string_view shape) {
    return std::vector<OperandSpec>{
        data("w", quant::int_storage, shape),
        data("b", of(DType::Int32, DType::QInt32), "Int32 bias, scale x_step * w_scale[c] (or none)"),
        float_param("w_scale", "the weight's scale: one, or one per output channel"),
        param("w_zp", quant::int_storage, "the weight's zero point: one, or one per output channel")};
  };
  {
    std::vector<OperandSpec> ops{data("x", act, "input [N,H,W,Ci], its own quantization")};
    for (auto& o : weight_ops("weight [Co, Ci/group, KH, KW] (ONNX's layout)")) ops.push_back(o);
    for (auto n : {"dilations", "group", "pads", "strides"}) ops.push_back(int_param(n, "as ConvLayer's"));
    t.add(make_def(
        "QuantizedConvLayer", "Quantized 2-d grouped convolution plus bias, NHWC, integer sums requantized.",
        "`acc[n,oh,ow,c] = b[c] + sum (x - x_zp) * (w[c,i,kh,kw] - w_zp[c])` over ConvLayer's window, exact; "
        "`out = sat(out_zp + round_shift(acc * m_c, s_c))` with m_c / 2^s_c approximating x_step * w_scale[c] / "
        "out_step (31-bit multiplier, halves away from zero). The weight is ONNX's [Co, Ci/group, KH, KW] "
        "integers; w_scale and w_zp per tensor or per output channel.",
        std::move(ops), qout, infer::quantized_conv, eval::quantized_conv,
        "ops::layer::eval::quantized_conv (reference loop)", Trait::pure | Trait::quantized));
  }
  {
    std::vector<OperandSpec> ops{data("x", act, "input [..., K], its own quantization")};
    for (auto& o : weight_ops("weight [N, K] (w_layout 0) or [K, N] (w_layout 1)")) ops.push_back(o);
    ops.push_back(int_param("w_layout", "0: w is [N, K] (Gemm's transB); 1: [K, N] (MatMul's)"));
    t.add(make_def("QuantizedFullyConnected", "Quantized fully-connected layer: integer sums requantized.",
                   "`acc[..., n] = b[n] + sum_k (x[..., k] - x_zp) * (w[n, k] - w_zp[n])`, exact, requantized as "
                   "QuantizedConvLayer's.",
                   std::move(ops), qout, infer::quantized_fc, eval::quantized_fc,
                   "ops::layer::eval::quantized_fc (reference loop)", Trait::pure | Trait::quantized));
  }
  t.add(make_def(
      "QuantizedMatMul", "Quantized numpy matmul of two quantized tensors.",
      "`acc = sum_k (a[..., i, k] - a_zp) * (b[..., k, j] - b_zp)`, exact, requantized with a_step * b_step / "
      "out_step as QuantizedConvLayer's; batch dims broadcast.",
      {data("a", act, "[..., M, K], its own quantization"), data("b", act, "[..., K, N], its own quantization")}, qout,
      infer::quantized_matmul, eval::quantized_matmul, "ops::layer::eval::quantized_matmul (reference loop)",
      Trait::pure | Trait::quantized));
  t.add(make_def(
      "DequantizeAxis", "Integers to f32 with one scale and zero point per tensor or per entry of an axis.",
      "`(x - zp[i]) * scale[i]` with i the index along `axis` (per tensor: one each), the difference exact, then "
      "in float: ONNX's DequantizeLinear. x's own encoding is not read.",
      {data("x", quant::int_storage, "integers"), float_param("scale", "one, or one per entry of axis"),
       param("zp", quant::int_storage, "one, or one per entry of axis (or none: 0)"), int_param("axis", "the axis")},
      {"out", TypeRule::in_set, dtypes::f32, "x's shape, f32"}, infer::dequantize_axis, eval::dequantize_axis,
      "ops::layer::eval::dequantize_axis (reference loop)"));
}

}  // namespace optgrammar::ops::layer
