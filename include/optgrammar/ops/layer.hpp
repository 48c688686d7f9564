// HTP-style layer ops, NHWC: the targets of the lowering package (examples/htp_lowering/).
//
//   ConvLayer(x, w, b, dilations, group, pads, strides)       convolution plus bias
//   ConvLayerRelu(x, w, b, dilations, group, pads, strides)   the same, then max(., 0)
//   HardSigmoid(x, alpha, beta)                               clamp(alpha x + beta, 0, 1)
//   HardSwish(x)                                              x clamp(x/6 + 1/2, 0, 1)
//   GlobalAvgPool(x)                                          mean over H and W
//
// x is [N,H,W,Ci], w [KH,KW,Ci/group,Co] (HWIO), b any shape of Co elements, the output
// [N,Ho,Wo,Co]. dilations and strides are Int32 [2] (height, width; empty: 1), pads Int32 [4]
// (top, left, bottom, right; empty: 0), group an Int32 scalar; each a `$Const` or a `$Shape`
// (AUTOSPLIT's tiles get their pads as shapes). f32 only; sums in double over (kh, kw, ci),
// rounded once to f32 after the bias.
#pragma once

#include "optgrammar/ops/layer_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

namespace optgrammar::ops::layer {

/// The geometry of one ConvLayer, read from its operands.
struct ConvGeometry {
  std::size_t n = 0, h = 0, w = 0, ci = 0;  // input
  std::size_t kh = 0, kw = 0, co = 0;       // filter
  std::size_t group = 1;
  std::int64_t dh = 1, dw = 1, sh = 1, sw = 1;
  std::int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  std::size_t ho = 0, wo = 0;
};

/// The geometry, or an error message in `error`.
inline std::optional<ConvGeometry> conv_geometry(std::span<const ValueView> in, std::string& error) {
  if (in.size() != 7) {
    error = cat("ConvLayer takes 7 operands, not ", in.size());
    return std::nullopt;
  }
  const OutputDef &x = *in[0].def, &w = *in[1].def, &b = *in[2].def;
  if (x.rank != 4 || w.rank != 4) {
    error = "input and filter must have rank 4 (NHWC, HWIO)";
    return std::nullopt;
  }
  ConvGeometry g;
  g.n = x.dims[0], g.h = x.dims[1], g.w = x.dims[2], g.ci = x.dims[3];
  g.kh = w.dims[0], g.kw = w.dims[1], g.co = w.dims[3];
  auto dil = eval::int_values(in[3]), grp = eval::int_values(in[4]), pads = eval::int_values(in[5]),
       str = eval::int_values(in[6]);
  if (!dil || !grp || !pads || !str) {
    error = "dilations, group, pads and strides must be constants or shapes";
    return std::nullopt;
  }
  if (grp->size() != 1 || (*grp)[0] < 1) {
    error = "group must be one positive integer";
    return std::nullopt;
  }
  g.group = static_cast<std::size_t>((*grp)[0]);
  if ((!dil->empty() && dil->size() != 2) || (!str->empty() && str->size() != 2) ||
      (!pads->empty() && pads->size() != 4)) {
    error = "dilations and strides take 2 entries, pads 4 (or none)";
    return std::nullopt;
  }
  if (!dil->empty()) g.dh = (*dil)[0], g.dw = (*dil)[1];
  if (!str->empty()) g.sh = (*str)[0], g.sw = (*str)[1];
  if (!pads->empty()) g.pt = (*pads)[0], g.pl = (*pads)[1], g.pb = (*pads)[2], g.pr = (*pads)[3];
  if (g.dh < 1 || g.dw < 1 || g.sh < 1 || g.sw < 1 || g.pt < 0 || g.pl < 0 || g.pb < 0 || g.pr < 0) {
    error = "dilations and strides must be positive, pads not negative";
    return std::nullopt;
  }
  if (g.ci % g.group || g.co % g.group || w.dims[2] * g.group != g.ci) {
    error = cat("filter input channels ", w.dims[2], " times group ", g.group, " differ from the input's ", g.ci);
    return std::nullopt;
  }
  if (b.element_count() != g.co) {
    error = cat("bias has ", b.element_count(), " elements for ", g.co, " output channels");
    return std::nullopt;
  }
  auto extent = [](std::size_t in_size, std::int64_t p0, std::int64_t p1, std::size_t k, std::int64_t d,
                   std::int64_t s) -> std::int64_t {
    const std::int64_t span = static_cast<std::int64_t>(in_size) + p0 + p1 - (static_cast<std::int64_t>(k) - 1) * d - 1;
    return span < 0 ? -1 : span / s + 1;
  };
  const std::int64_t ho = extent(g.h, g.pt, g.pb, g.kh, g.dh, g.sh), wo = extent(g.w, g.pl, g.pr, g.kw, g.dw, g.sw);
  if (ho < 1 || wo < 1) {
    error = "the window is larger than the padded input";
    return std::nullopt;
  }
  g.ho = static_cast<std::size_t>(ho), g.wo = static_cast<std::size_t>(wo);
  return g;
}

/// Calls f(kh, kw, pixel) for each tap of the window of output position (n, oh, ow) that lies
/// inside the input; pixel is the input's (n, ih, iw) index, its first channel at pixel * Ci.
template <class F>
void for_each_tap(const ConvGeometry& g, std::size_t n, std::size_t oh, std::size_t ow, F&& f) {
  for (std::size_t kh = 0; kh < g.kh; ++kh) {
    const std::int64_t ih = static_cast<std::int64_t>(oh) * g.sh + static_cast<std::int64_t>(kh) * g.dh - g.pt;
    if (ih < 0 || ih >= static_cast<std::int64_t>(g.h)) continue;
    for (std::size_t kw = 0; kw < g.kw; ++kw) {
      const std::int64_t iw = static_cast<std::int64_t>(ow) * g.sw + static_cast<std::int64_t>(kw) * g.dw - g.pl;
      if (iw < 0 || iw >= static_cast<std::int64_t>(g.w)) continue;
      f(kh, kw, (n * g.h + static_cast<std::size_t>(ih)) * g.w + static_cast<std::size_t>(iw));
    }
  }
}

namespace infer {
inline Inferred conv_layer(const OpView& v) {
  Inferred r;
  r.def = *v.operands[0].def;
  r.dtype = r.quant = true;
  if (auto g = conv_geometry(v.operands, r.error)) {
    r.def.dims[1] = g->ho;
    r.def.dims[2] = g->wo;
    r.def.dims[3] = g->co;
    r.shape = true;
  }
  return r;
}
inline Inferred global_avg_pool(const OpView& v) {
  Inferred r;
  r.def = *v.operands[0].def;
  r.dtype = r.quant = true;
  if (r.def.rank != 4) {
    r.error = "input must have rank 4 (NHWC)";
    return r;
  }
  r.def.dims[1] = r.def.dims[2] = 1;
  r.shape = true;
  return r;
}
}  // namespace infer

namespace eval {
using ops::eval::has_data;

template <bool relu>
bool conv_layer(const OpView& v, std::span<std::byte> out, Backend) {
  std::string error;
  auto g = conv_geometry(v.operands, error);
  if (!g) return false;
  for (std::size_t k = 0; k < 3; ++k)
    if (!has_data(v.operands[k]) || v.operands[k].def->dtype != DType::Float32) return false;
  const OutputDef& o = *v.declared;
  if (o.dtype != DType::Float32 || o.rank != 4 || o.dims[0] != g->n || o.dims[1] != g->ho || o.dims[2] != g->wo ||
      o.dims[3] != g->co)
    return false;
  const float* x = ops::eval::ptr<float>(v.operands[0]);
  const float* w = ops::eval::ptr<float>(v.operands[1]);
  const float* b = ops::eval::ptr<float>(v.operands[2]);
  float* y = ops::eval::ptr<float>(out);
  const std::size_t cig = g->ci / g->group, cog = g->co / g->group;
  std::vector<double> acc(g->co);
  for (std::size_t n = 0; n < g->n; ++n)
    for (std::size_t oh = 0; oh < g->ho; ++oh)
      for (std::size_t ow = 0; ow < g->wo; ++ow) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for_each_tap(*g, n, oh, ow, [&](std::size_t kh, std::size_t kw, std::size_t pixel) {
          const float* xp = x + pixel * g->ci;
          const float* wp = w + (kh * g->kw + kw) * cig * g->co;
          for (std::size_t c = 0; c < g->co; ++c) {
            const std::size_t c0 = (c / cog) * cig;
            double s = 0;
            for (std::size_t i = 0; i < cig; ++i) s += static_cast<double>(xp[c0 + i]) * wp[i * g->co + c];
            acc[c] += s;
          }
        });
        float* yp = y + ((n * g->ho + oh) * g->wo + ow) * g->co;
        for (std::size_t c = 0; c < g->co; ++c) {
          const double r = acc[c] + b[c];
          yp[c] = static_cast<float>(relu && r < 0 ? 0.0 : r);
        }
      }
  return true;
}

inline bool global_avg_pool(const OpView& v, std::span<std::byte> out, Backend) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || x.def->dtype != DType::Float32 || x.def->rank != 4 || o.dtype != DType::Float32 || o.rank != 4 ||
      o.dims[0] != x.def->dims[0] || o.dims[1] != 1 || o.dims[2] != 1 || o.dims[3] != x.def->dims[3])
    return false;
  const std::size_t n = x.def->dims[0], hw = x.def->dims[1] * x.def->dims[2], c = x.def->dims[3];
  const float* xp = ops::eval::ptr<float>(x);
  float* yp = ops::eval::ptr<float>(out);
  std::vector<double> acc(c);
  for (std::size_t b = 0; b < n; ++b) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::size_t i = 0; i < hw; ++i)
      for (std::size_t k = 0; k < c; ++k) acc[k] += xp[(b * hw + i) * c + k];
    for (std::size_t k = 0; k < c; ++k) yp[b * c + k] = static_cast<float>(acc[k] / static_cast<double>(hw));
  }
  return true;
}

/// f(x, params...) elementwise over f32, with the scalar parameters read from operands 1...
template <float (*F)(float, const float*)>
bool unary_params(const OpView& v, std::span<std::byte> out, Backend) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || x.def->dtype != DType::Float32 || o.dtype != DType::Float32 || !x.def->same_shape(o))
    return false;
  float p[2] = {0, 0};
  for (std::size_t k = 1; k < v.operands.size() && k <= 2; ++k) {
    auto f = ops::eval::first<float>(v.operands[k]);
    if (!f || v.operands[k].def->dtype != DType::Float32) return false;
    p[k - 1] = *f;
  }
  const float* xp = ops::eval::ptr<float>(x);
  float* yp = ops::eval::ptr<float>(out);
  for (std::size_t i = 0, e = o.element_count(); i < e; ++i) yp[i] = F(xp[i], p);
  return true;
}
inline float hard_sigmoid(float x, const float* p) { return std::clamp(p[0] * x + p[1], 0.0f, 1.0f); }
inline float hard_swish(float x, const float*) { return x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f); }
}  // namespace eval

inline void add_definitions(Definitions& t) {
  auto conv = [&](std::string_view name, std::string_view summary, EvalFn fn) {
    OpDefinition d;
    d.name = name;
    d.summary = summary;
    d.description =
        "NHWC input `x` [N,H,W,Ci], HWIO filter `w` [KH,KW,Ci/group,Co], bias `b` of Co elements (any shape). "
        "`out[n,oh,ow,c] = b[c] + sum(kh, kw, i) x[n, oh*sh + kh*dh - pt, ow*sw + kw*dw - pl, g*Ci/group + i] * "
        "w[kh,kw,i,c]` with g = c / (Co/group), zero outside the input; Ho = (H + pt + pb - (KH-1)*dh - 1) / sh + 1, "
        "Wo likewise. Summed in double, rounded once to f32. AUTOSPLIT tiles it by rows: each tile reads the rows "
        "its window needs and gets its own pads (a `$Shape`).";
    d.operands = {
        data("x", dtypes::f32, "input [N,H,W,Ci]"),  data("w", dtypes::f32, "filter [KH,KW,Ci/group,Co]"),
        data("b", dtypes::f32, "bias, Co elements"), int_param("dilations", "[dh, dw]; empty: 1"),
        int_param("group", "groups (scalar)"),       int_param("pads", "[top, left, bottom, right]; empty: 0"),
        int_param("strides", "[sh, sw]; empty: 1")};
    d.result = {"out", TypeRule::same_as_first, dtypes::f32, "[N,Ho,Wo,Co]"};
    d.traits = Trait::pure;
    d.infer = infer::conv_layer;
    d.eval = fn;
    d.kernel = "ops::layer::eval::conv_layer (reference loop)";
    t.add(std::move(d));
  };
  conv("ConvLayer", "2-d grouped convolution plus bias, NHWC (the lowering's convolution).", eval::conv_layer<false>);
  conv("ConvLayerRelu", "ConvLayer followed by max(x, 0), as one op.", eval::conv_layer<true>);
  {
    OpDefinition d;
    d.name = "HardSigmoid";
    d.summary = "Elementwise clamp(alpha*x + beta, 0, 1).";
    d.description = "`alpha` and `beta` are f32 constants (element 0). Computed in f32.";
    d.operands = {data("x", dtypes::f32, "input"), data("alpha", dtypes::f32, "slope"),
                  data("beta", dtypes::f32, "offset")};
    d.operands[1].must_be_constant = d.operands[2].must_be_constant = true;
    d.result = {"out", TypeRule::same_as_first, dtypes::f32, "same definition as x"};
    d.traits = Trait::pure;
    d.infer = like_x;
    d.eval = eval::unary_params<eval::hard_sigmoid>;
    d.kernel = "ops::layer::eval::hard_sigmoid (reference loop)";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "GlobalAvgPool";
    d.summary = "Mean over height and width, NHWC: [N,H,W,C] to [N,1,1,C].";
    d.description = "Summed in double, divided by H*W, rounded once to f32.";
    d.operands = {data("x", dtypes::f32, "input [N,H,W,C]")};
    d.result = {"out", TypeRule::same_as_first, dtypes::f32, "[N,1,1,C]"};
    d.traits = Trait::pure;
    d.infer = infer::global_avg_pool;
    d.eval = eval::global_avg_pool;
    d.kernel = "ops::layer::eval::global_avg_pool (reference loop)";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "HardSwish";
    d.summary = "Elementwise x * clamp(x/6 + 1/2, 0, 1).";
    d.description = "The hard-swish activation, computed in f32.";
    d.operands = {data("x", dtypes::f32, "input")};
    d.result = {"out", TypeRule::same_as_first, dtypes::f32, "same definition as x"};
    d.traits =
        Trait::pure | Trait::elementwise | Trait::same_operands_and_result_type | Trait::same_operands_and_result_shape;
    d.infer = like_x;
    d.eval = eval::unary_params<eval::hard_swish>;
    d.kernel = "ops::layer::eval::hard_swish (reference loop)";
    t.add(std::move(d));
  }
}

}  // namespace optgrammar::ops::layer
