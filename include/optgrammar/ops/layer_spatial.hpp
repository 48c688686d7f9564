// Layer ops that move or pool feature maps (targets of the lowering package,
// examples/htp_lowering/): NHWC pooling, padding, resizing, channel shuffle, depth/space moves
// and strided slices.
//
//   MaxPool2d(x, kernel, pads, strides, dilations)     window maximum, NHWC
//   AvgPool2d(x, kernel, pads, strides, count_pad)     window mean, NHWC
//   Pad(x, pads, value, mode)                          constant, reflect or edge padding, any rank
//   Resize(x, scales, coord, cubic_a, exclude, extrapolation, mode, nearest)   any rank
//   ChannelShuffle(x, groups)                          the last axis's channels interleaved
//   DepthToSpace(x, block, mode) / SpaceToDepth(x, block)                      NHWC
//   StridedSlice(x, begin, end, steps)                 a strided box, any rank
//
// Parameters are Int32 (Float32 where said) `$Const`s after the data operand. The values are
// read and written through onnx_eval's element access, so the ops take every float dtype, and
// those that only move elements take every dtype.
#pragma once

#include "optgrammar/ops/layer_util.hpp"

#include <cmath>
#include <limits>

namespace optgrammar::ops::layer {

// ---- pooling --------------------------------------------------------------------------------

/// The geometry of a MaxPool2d or AvgPool2d: windows at (oh*sh - pt, ow*sw - pl), each
/// (kh-1)*dh+1 rows high; the output's H and W are the declared ones, the floor or the ceiling
/// of (H + pt + pb - window) / stride + 1 (ONNX's ceil_mode).
struct PoolGeometry {
  std::size_t n = 0, h = 0, w = 0, c = 0, ho = 0, wo = 0;
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0, pb = 0, pr = 0;
};

inline std::optional<PoolGeometry> pool_geometry(const OpView& v, bool with_dilations, std::string& error) {
  if (v.operands.size() != 5) {
    error = cat("a 2-d pool takes 5 operands, not ", v.operands.size());
    return std::nullopt;
  }
  const OutputDef &x = *v.operands[0].def, &o = *v.declared;
  if (x.rank != 4 || o.rank != 4) {
    error = "input and output must have rank 4 (NHWC)";
    return std::nullopt;
  }
  PoolGeometry g;
  g.n = x.dims[0], g.h = x.dims[1], g.w = x.dims[2], g.c = x.dims[3];
  const auto k = ints(v.operands[1]), p = ints(v.operands[2]), s = ints(v.operands[3]);
  const auto d = with_dilations ? ints(v.operands[4]) : std::vector<std::int64_t>{};
  if (k.size() != 2 || (!p.empty() && p.size() != 4) || (!s.empty() && s.size() != 2) ||
      (!d.empty() && d.size() != 2)) {
    error = "kernel takes 2 entries, pads 4, strides and dilations 2 (or none)";
    return std::nullopt;
  }
  g.kh = k[0], g.kw = k[1];
  if (!p.empty()) g.pt = p[0], g.pl = p[1], g.pb = p[2], g.pr = p[3];
  if (!s.empty()) g.sh = s[0], g.sw = s[1];
  if (!d.empty()) g.dh = d[0], g.dw = d[1];
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1 || g.pt < 0 || g.pl < 0 || g.pb < 0 ||
      g.pr < 0) {
    error = "kernel, strides and dilations must be positive, pads not negative";
    return std::nullopt;
  }
  // floor(span / s) + 1 or ceil(span / s) + 1 (ONNX's ceil_mode), span possibly negative: a
  // window larger than the padded input still makes one output in ceil mode.
  auto fits = [&](std::size_t in, std::int64_t p0, std::int64_t p1, std::int64_t kk, std::int64_t dd, std::int64_t ss,
                  std::size_t out) {
    const std::int64_t span = static_cast<std::int64_t>(in) + p0 + p1 - ((kk - 1) * dd + 1);
    const std::int64_t fl = (span >= 0 ? span / ss : -((-span + ss - 1) / ss)) + 1;
    const std::int64_t ce = (span >= 0 ? (span + ss - 1) / ss : -(-span / ss)) + 1;
    const auto o = static_cast<std::int64_t>(out);
    return o >= 1 && (o == fl || o == ce);
  };
  if (o.dims[0] != g.n || o.dims[3] != g.c || !fits(g.h, g.pt, g.pb, g.kh, g.dh, g.sh, o.dims[1]) ||
      !fits(g.w, g.pl, g.pr, g.kw, g.dw, g.sw, o.dims[2])) {
    error = cat("output ", ops::infer::shape_string(o), " is no pooling of ", ops::infer::shape_string(x),
                " with this window");
    return std::nullopt;
  }
  g.ho = o.dims[1], g.wo = o.dims[2];
  return g;
}

namespace infer {
template <bool with_dilations>
Inferred pool2d(const OpView& v) {
  std::string e;
  if (!pool_geometry(v, with_dilations, e)) return failed(e);
  Inferred r = like_x(v);
  r.def.dims = v.declared->dims;
  return r;
}
}  // namespace infer

namespace eval {
/// MaxPool2d: the largest element of the window inside the input (padding never wins).
/// AvgPool2d: the window's sum over the elements inside the input divided by, with count_pad,
/// the window positions inside the padded input, else the elements inside the input.
template <bool is_max>
bool pool2d(const OpView& v, std::span<std::byte> out, Backend) {
  std::string e;
  auto g = pool_geometry(v, is_max, e);
  if (!g || !ops::eval::has_data(v.operands[0])) return false;
  const bool count_pad = !is_max && scalar(v.operands[4]) != 0;
  const DType xt = v.operands[0].def->dtype, ot = v.declared->dtype;
  const std::byte* x = v.operands[0].data.data();
  const auto H = static_cast<std::int64_t>(g->h), W = static_cast<std::int64_t>(g->w);
  std::vector<double> acc(g->c);
  for (std::size_t n = 0; n < g->n; ++n)
    for (std::size_t oh = 0; oh < g->ho; ++oh)
      for (std::size_t ow = 0; ow < g->wo; ++ow) {
        std::fill(acc.begin(), acc.end(), is_max ? -std::numeric_limits<double>::infinity() : 0.0);
        std::size_t inside = 0, padded = 0;
        for (std::int64_t i = 0; i < g->kh; ++i) {
          const std::int64_t ih = static_cast<std::int64_t>(oh) * g->sh + i * g->dh - g->pt;
          for (std::int64_t j = 0; j < g->kw; ++j) {
            const std::int64_t iw = static_cast<std::int64_t>(ow) * g->sw + j * g->dw - g->pl;
            if (ih >= -g->pt && ih < H + g->pb && iw >= -g->pl && iw < W + g->pr) ++padded;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            ++inside;
            const std::size_t base =
                ((n * g->h + static_cast<std::size_t>(ih)) * g->w + static_cast<std::size_t>(iw)) * g->c;
            for (std::size_t c = 0; c < g->c; ++c) {
              const double x_ = onnx_eval::get(xt, x, base + c);
              acc[c] = is_max ? std::max(acc[c], x_) : acc[c] + x_;
            }
          }
        }
        const std::size_t base = ((n * g->ho + oh) * g->wo + ow) * g->c;
        const double div = static_cast<double>(count_pad ? padded : inside);
        for (std::size_t c = 0; c < g->c; ++c)
          onnx_eval::put(ot, out.data(), base + c, is_max ? acc[c] : acc[c] / div);  // (no element: 0/0, as ONNX's)
      }
  return true;
}
}  // namespace eval

// ---- padding --------------------------------------------------------------------------------

namespace infer {
/// Pad: each dimension grown by its begin and end pads (`pads` = begins then ends, ONNX's order).
inline Inferred pad(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  const auto p = ints(v.operands[1]);
  if (p.size() != 2 * x.rank)
    return failed(cat("pads has ", p.size(), " entries for rank ", x.rank, " (begins, then ends)"));
  const auto mode = static_cast<std::int64_t>(scalar(v.operands[3]));
  if (mode < 0 || mode > 2) return failed(cat("mode ", mode, " is not 0 (constant), 1 (reflect) or 2 (edge)"));
  std::vector<std::size_t> d = dims_of(x);
  for (std::size_t k = 0; k < x.rank; ++k) {
    const std::int64_t b = p[k], e = p[x.rank + k];
    if (b < 0 || e < 0) return failed("pads must not be negative");
    if (mode == 1 && (b >= static_cast<std::int64_t>(x.dims[k]) || e >= static_cast<std::int64_t>(x.dims[k])))
      return failed(cat("reflect pads of dimension ", k, " must be below its extent ", x.dims[k]));
    if (mode == 2 && x.dims[k] == 0 && b + e > 0) return failed("edge padding of an empty dimension");
    d[k] += static_cast<std::size_t>(b + e);
  }
  return shaped_like(v, 0, d);
}
}  // namespace infer

namespace eval {
/// Pad(x, pads, value, mode): mode 0 fills with value (element 0; none: 0), 1 mirrors without
/// repeating the edge, 2 repeats the edge.
inline bool pad(const OpView& v, std::span<std::byte> out, Backend) {
  const ValueView& x = v.operands[0];
  if (!ops::eval::has_data(x) || !infer::pad(v).error.empty()) return false;
  const auto p = ints(v.operands[1]);
  const int mode = static_cast<int>(scalar(v.operands[3]));
  const double fill = scalar(v.operands[2]);
  const onnx_eval::Dims xd = onnx_eval::dims_of(*x.def), od = onnx_eval::dims_of(*v.declared),
                        xs = onnx_eval::strides_of(xd);
  const std::size_t r = xd.size(), n = onnx_eval::count(od), es = element_size(x.def->dtype);
  if (v.declared->dtype != x.def->dtype) return false;
  onnx_eval::Dims idx(r, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t off = 0;
    bool inside = true;
    for (std::size_t k = 0; k < r; ++k) {
      std::int64_t s = static_cast<std::int64_t>(idx[k]) - p[k];
      const auto len = static_cast<std::int64_t>(xd[k]);
      if (s < 0 || s >= len) {
        if (mode == 0)
          inside = false;
        else if (mode == 2)
          s = s < 0 ? 0 : len - 1;
        else {  // reflect: ... 2 1 | 0 1 2 | 1 0 ...
          const std::int64_t period = 2 * (len - 1);
          s = period == 0 ? 0 : ((s % period) + period) % period;
          if (s >= len) s = period - s;
        }
      }
      off += static_cast<std::size_t>(s) * xs[k];
    }
    if (inside)
      std::memcpy(out.data() + i * es, x.data.data() + off * es, es);
    else
      onnx_eval::put(v.declared->dtype, out.data(), i, fill);
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < od[k]) break;
      idx[k] = 0;
    }
  }
  return true;
}
}  // namespace eval

// ---- resizing -------------------------------------------------------------------------------

namespace eval {
/// Resize(x, scales, coord, cubic_a, exclude, extrapolation, mode, nearest): ONNX's Resize
/// (opset 11-17) of every axis by its scale, computed by its reference loop.
inline bool resize(const OpView& v, std::span<std::byte> out, Backend) {
  if (v.operands.size() != 8 || !v.declared) return false;
  const std::array<ValueView, 10> buf{v.operands[2], v.operands[3], v.operands[4], v.operands[5], v.operands[6],
                                      v.operands[7], v.operands[0], absent(),      v.operands[1], absent()};
  return onnx_eval::resize(OpView{std::span<const ValueView>(buf), v.declared}, out, 6);
}
}  // namespace eval

namespace infer {
/// Resize: the output keeps x's rank and dtype; with scales, each axis is floor(extent * scale).
inline Inferred resize(const OpView& v) {
  const OutputDef &x = *v.operands[0].def, &o = *v.declared;
  if (o.rank != x.rank) return failed(cat("output rank ", o.rank, " differs from the input's ", x.rank));
  const ValueView& s = v.operands[1];
  const std::size_t ns = s.def->element_count();
  if (ns != 0 && ns != x.rank) return failed(cat("scales has ", ns, " entries for rank ", x.rank));
  std::vector<std::size_t> d = dims_of(o);
  if (ns && ops::eval::has_data(s))
    for (std::size_t k = 0; k < x.rank; ++k)
      d[k] = static_cast<std::size_t>(
          std::floor(static_cast<double>(x.dims[k]) * onnx_eval::get(s.def->dtype, s.data.data(), k)));
  return shaped_like(v, 0, d);
}
}  // namespace infer

// ---- channel and space moves ----------------------------------------------------------------

namespace infer {
inline Inferred channel_shuffle(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  const auto g = static_cast<std::int64_t>(scalar(v.operands[1]));
  if (x.rank < 1 || g < 1 || x.dims[x.rank - 1] % static_cast<std::size_t>(g))
    return failed(cat("groups ", g, " does not divide the last dimension of ", ops::infer::shape_string(x)));
  return like_x(v);
}
/// DepthToSpace (to_space) or SpaceToDepth of an NHWC tensor by `block`.
template <bool to_space>
Inferred depth_space(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  const auto b = static_cast<std::int64_t>(scalar(v.operands[1]));
  if (x.rank != 4 || b < 1) return failed("input must be NHWC and block positive");
  const auto B = static_cast<std::size_t>(b);
  std::vector<std::size_t> d = dims_of(x);
  if (to_space) {
    if (d[3] % (B * B)) return failed(cat("block ", B, " squared does not divide the channels ", d[3]));
    d[1] *= B, d[2] *= B, d[3] /= B * B;
  } else {
    if (d[1] % B || d[2] % B)
      return failed(cat("block ", B, " does not divide H and W of ", ops::infer::shape_string(x)));
    d[1] /= B, d[2] /= B, d[3] *= B * B;
  }
  return shaped_like(v, 0, d);
}
}  // namespace infer

namespace eval {
/// Copies, for every output element i, input element src(i) (src within x: the callers'
/// inference checked the shapes).
template <class F>
bool permute_elements(const OpView& v, std::span<std::byte> out, F&& src) {
  const ValueView& x = v.operands[0];
  if (!ops::eval::has_data(x) || x.def->dtype != v.declared->dtype) return false;
  const std::size_t es = element_size(x.def->dtype), n = v.declared->element_count();
  for (std::size_t i = 0; i < n; ++i) std::memcpy(out.data() + i * es, x.data.data() + src(i) * es, es);
  return true;
}
/// out[..., c] = x[..., (c % g) * (C/g) + c / g].
inline bool channel_shuffle(const OpView& v, std::span<std::byte> out, Backend) {
  if (!infer::channel_shuffle(v).error.empty()) return false;
  const std::size_t C = v.operands[0].def->dims[v.operands[0].def->rank - 1];
  const auto g = static_cast<std::size_t>(scalar(v.operands[1]));
  return permute_elements(v, out, [&](std::size_t i) {
    const std::size_t c = i % C;
    return i - c + (c % g) * (C / g) + c / g;
  });
}
/// DepthToSpace, NHWC: out[n, h*b+i, w*b+j, c] = x[n, h, w, (i*b + j)*C' + c] (mode 0, DCR) or
/// x[n, h, w, c*b*b + i*b + j] (mode 1, CRD). SpaceToDepth is DepthToSpace's DCR inverse.
template <bool to_space>
bool depth_space(const OpView& v, std::span<std::byte> out, Backend) {
  if (!infer::depth_space<to_space>(v).error.empty()) return false;
  const auto b = static_cast<std::size_t>(scalar(v.operands[1]));
  const bool crd = to_space && v.operands.size() > 2 && scalar(v.operands[2]) != 0;
  const OutputDef& x = *v.operands[0].def;
  const std::size_t H = x.dims[1], W = x.dims[2], C = x.dims[3];
  // The deep side [N, h, w, C_deep] and the spatial side [N, h*b, w*b, C_flat].
  const std::size_t hs = to_space ? H : H / b, ws = to_space ? W : W / b, cf = to_space ? C / (b * b) : C;
  const std::size_t cd = cf * b * b;
  auto deep_index = [&](std::size_t n, std::size_t h, std::size_t w, std::size_t i, std::size_t j, std::size_t c) {
    const std::size_t ch = crd ? c * b * b + i * b + j : (i * b + j) * cf + c;
    return ((n * hs + h) * ws + w) * cd + ch;
  };
  return permute_elements(v, out, [&](std::size_t k) {
    if (to_space) {  // k indexes the spatial side
      const std::size_t c = k % cf, w = (k / cf) % (ws * b), h = (k / cf / (ws * b)) % (hs * b),
                        n = k / cf / (ws * b) / (hs * b);
      return deep_index(n, h / b, w / b, h % b, w % b, c);
    }
    // k indexes the deep side: which spatial element it holds
    const std::size_t ch = k % cd, w = (k / cd) % ws, h = (k / cd / ws) % hs, n = k / cd / ws / hs;
    const std::size_t i = ch / cf / b, j = (ch / cf) % b, c = ch % cf;
    return ((n * hs * b + h * b + i) * ws * b + w * b + j) * cf + c;
  });
}
}  // namespace eval

// ---- strided slices -------------------------------------------------------------------------

namespace infer {
/// StridedSlice: begin, end and steps have one entry per dimension; extent ceil((end - begin) /
/// step), begin within [0, extent) (for a negative step, end may be -1).
inline Inferred strided_slice(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  const auto b = ints(v.operands[1]), e = ints(v.operands[2]), s = ints(v.operands[3]);
  if (b.size() != x.rank || e.size() != x.rank || s.size() != x.rank)
    return failed(cat("begin, end and steps need ", x.rank, " entries each"));
  std::vector<std::size_t> d(x.rank);
  for (std::size_t k = 0; k < x.rank; ++k) {
    const auto n = static_cast<std::int64_t>(x.dims[k]);
    if (s[k] == 0) return failed("a step of 0");
    const bool fwd = s[k] > 0;
    if (fwd ? (b[k] < 0 || e[k] > n || b[k] > e[k]) : (b[k] >= n || e[k] < -1 || b[k] < e[k]))
      return failed(cat("dimension ", k, ": [", b[k], ", ", e[k], ") by ", s[k], " leaves its extent ", n));
    d[k] = static_cast<std::size_t>(fwd ? (e[k] - b[k] + s[k] - 1) / s[k] : (b[k] - e[k] - s[k] - 1) / -s[k]);
  }
  return shaped_like(v, 0, d);
}
}  // namespace infer

namespace eval {
inline bool strided_slice(const OpView& v, std::span<std::byte> out, Backend) {
  if (!infer::strided_slice(v).error.empty()) return false;
  const auto b = ints(v.operands[1]), s = ints(v.operands[3]);
  const onnx_eval::Dims od = onnx_eval::dims_of(*v.declared),
                        xs = onnx_eval::strides_of(onnx_eval::dims_of(*v.operands[0].def));
  const std::size_t r = od.size();
  onnx_eval::Dims idx(r, 0);
  std::vector<std::size_t> src(onnx_eval::count(od));
  for (std::size_t i = 0; i < src.size(); ++i) {
    std::size_t off = 0;
    for (std::size_t k = 0; k < r; ++k)
      off += static_cast<std::size_t>(b[k] + static_cast<std::int64_t>(idx[k]) * s[k]) * xs[k];
    src[i] = off;
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < od[k]) break;
      idx[k] = 0;
    }
  }
  return permute_elements(v, out, [&](std::size_t i) { return src[i]; });
}
}  // namespace eval

namespace infer {
/// Expand: x broadcasts (numpy) to the declared shape.
inline Inferred expand(const OpView& v) {
  OutputDef b;
  if (!broadcast(*v.operands[0].def, *v.declared, b) || !b.same_shape(*v.declared))
    return failed(cat(ops::infer::shape_string(*v.operands[0].def), " does not broadcast to ",
                      ops::infer::shape_string(*v.declared)));
  Inferred r = like_x(v);
  r.def.rank = v.declared->rank;
  r.def.dims = v.declared->dims;
  return r;
}
}  // namespace infer

inline void add_spatial_definitions(Definitions& t) {
  const DTypeSet floats = dtypes::floats, movable = dtypes::any;
  auto pool = [&](std::string_view name, std::string_view summary, std::string_view desc, bool is_max) {
    OperandSpec last =
        is_max ? int_param("dilations", "[dh, dw]; empty: 1")
               : int_param(
                     "count_pad",
                     "1: divide by the window positions inside the padded input; 0: by the elements inside the input");
    t.add(make_def(
        name, summary, desc,
        {data("x", is_max ? movable : floats, "input [N,H,W,C]"), int_param("kernel", "[kh, kw]"),
         int_param("pads", "[top, left, bottom, right]; empty: 0"), int_param("strides", "[sh, sw]; empty: 1"), last},
        {"out", TypeRule::same_as_first, dtypes::any, "[N,Ho,Wo,C], declared"},
        is_max ? infer::pool2d<true> : infer::pool2d<false>, is_max ? eval::pool2d<true> : eval::pool2d<false>,
        "ops::layer::eval::pool2d (reference loop)"));
  };
  pool("MaxPool2d", "Window maximum over height and width, NHWC.",
       "Windows start at (oh*sh - pt, ow*sw - pl) and span (kh-1)*dh+1 by (kw-1)*dw+1 positions; the output "
       "element is the largest input element the window covers (padding never wins). Ho and Wo are the declared "
       "ones: the floor or the ceiling of (H + pt + pb - window) / sh + 1 (ONNX's ceil_mode), likewise Wo. Any "
       "dtype: elements are compared as values.",
       true);
  pool("AvgPool2d", "Window mean over height and width, NHWC.",
       "Windows as MaxPool2d's without dilation; the output element is the sum of the input elements the window "
       "covers divided by, with count_pad 1, the window positions inside the padded input [-pt, H + pb) x "
       "[-pl, W + pr), with 0 the input elements covered (ONNX's count_include_pad). Summed in double, rounded "
       "once.",
       false);
  t.add(make_def(
      "Pad", "Pads every dimension: constant, reflect or edge (any rank).",
      "`pads` holds the elements added before each dimension, then those after it (ONNX's order); "
      "mode 0 fills them with `value` (element 0, in x's dtype; an empty value: 0), mode 1 mirrors the "
      "input without repeating its edge, mode 2 repeats the edge.",
      {data("x", movable, "input"), int_param("pads", "[begin_0, ..., begin_r-1, end_0, ..., end_r-1]"),
       param("value", movable, "fill value (mode 0); empty: 0"), int_param("mode", "0 constant, 1 reflect, 2 edge")},
      {"out", TypeRule::same_as_first, dtypes::any, "each dimension grown by its pads"}, infer::pad, eval::pad,
      "ops::layer::eval::pad (copies)"));
  t.add(make_def("Resize", "Resizes every axis by its scale (nearest, linear or cubic; any rank).",
                 "ONNX's Resize of opsets 11 to 17 with the roi unused: output coordinate o of an axis reads "
                 "input coordinate x(o) by `coord` (0 half_pixel, 1 pytorch_half_pixel, 2 align_corners, 3 "
                 "asymmetric, 4 tf_half_pixel_for_nn) with the axis's scale (empty scales: output extent / input "
                 "extent), sampled by `mode` (0 nearest with `nearest` 0 round_prefer_floor, 1 round_prefer_ceil, "
                 "2 floor, 3 ceil; 1 linear; 2 cubic with `cubic_a` and `exclude`), edge-clamped. An NHWC resize "
                 "of H and W has scales [1, sh, sw, 1]. Computed in double by ONNX Resize's reference loop.",
                 {data("x", floats, "input"), float_param("scales", "one per axis; empty: from the output's extents"),
                  int_param("coord", "coordinate transformation (0-4)"), float_param("cubic_a", "cubic coefficient"),
                  int_param("exclude", "1: cubic weights outside the input dropped"),
                  float_param("extrapolation", "unused (no crop box)"),
                  int_param("mode", "0 nearest, 1 linear, 2 cubic"), int_param("nearest", "nearest rounding (0-3)")},
                 {"out", TypeRule::same_as_first, floats, "x's rank; each axis floor(extent * scale)"}, infer::resize,
                 eval::resize, "ops::onnx_eval::resize (reference loop)"));
  t.add(make_def("ChannelShuffle", "Interleaves the groups of the last axis (ShuffleNet's channel shuffle).",
                 "With C the last extent and g `groups`: `out[..., c] = x[..., (c % g) * (C/g) + c / g]`, the "
                 "reshape to [g, C/g], transpose and reshape back in one op.",
                 {data("x", movable, "input, channels last"), int_param("groups", "g, dividing C")},
                 {"out", TypeRule::same_as_first, dtypes::any, "x's definition"}, infer::channel_shuffle,
                 eval::channel_shuffle, "ops::layer::eval::channel_shuffle (copies)"));
  t.add(make_def("DepthToSpace", "Moves channel blocks into b x b spatial blocks, NHWC.",
                 "`out[n, h*b+i, w*b+j, c] = x[n, h, w, (i*b + j)*C' + c]` (mode 0, DCR) or `x[n, h, w, c*b*b + "
                 "i*b + j]` (mode 1, CRD), C' = C / b^2: ONNX's DepthToSpace with channels last.",
                 {data("x", movable, "input [N,H,W,C]"), int_param("block", "b"), int_param("mode", "0 DCR, 1 CRD")},
                 {"out", TypeRule::same_as_first, dtypes::any, "[N,H*b,W*b,C/b^2]"}, infer::depth_space<true>,
                 eval::depth_space<true>, "ops::layer::eval::depth_space (copies)"));
  t.add(make_def("SpaceToDepth", "Moves b x b spatial blocks into channels, NHWC (DepthToSpace DCR's inverse).",
                 "`out[n, h, w, (i*b + j)*C + c] = x[n, h*b+i, w*b+j, c]`: ONNX's SpaceToDepth with channels last.",
                 {data("x", movable, "input [N,H,W,C]"), int_param("block", "b")},
                 {"out", TypeRule::same_as_first, dtypes::any, "[N,H/b,W/b,C*b^2]"}, infer::depth_space<false>,
                 eval::depth_space<false>, "ops::layer::eval::depth_space (copies)"));
  t.add(make_def("Expand", "x repeated along its dims of extent 1 to the declared shape (numpy broadcasting).",
                 "`out[i...] = x[j...]` with j_k = i_k where x's dim k is the output's, 0 where it is 1 (leading dims "
                 "added as needed).",
                 {data("x", movable, "input")}, {"out", TypeRule::same_as_first, dtypes::any, "the declared shape"},
                 infer::expand, as_is<onnx_eval::expand>, "ops::onnx_eval::expand (copies)"));
  t.add(make_def("StridedSlice", "A strided box of its input (any rank).",
                 "`out[i_0, ...] = x[begin_0 + i_0*step_0, ...]`: per dimension, extent ceil((end - begin) / step); "
                 "begin, end and steps have one entry per dimension, already within the input (a negative step "
                 "walks down from begin to end + 1, end >= -1).",
                 {data("x", movable, "input"), int_param("begin", "first index per dimension"),
                  int_param("end", "one past the last, per dimension"), int_param("steps", "non-zero, per dimension")},
                 {"out", TypeRule::same_as_first, dtypes::any, "the box"}, infer::strided_slice, eval::strided_slice,
                 "ops::layer::eval::strided_slice (copies)"));
}

}  // namespace optgrammar::ops::layer
