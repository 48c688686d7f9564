// Layer ops of dense networks and transformers (targets of the lowering package,
// examples/htp_lowering/): fully-connected layers, matrix products, softmax, reductions,
// gathers, normalizations, attention and rotary position embedding. Any rank unless said; f32
// or f16 data, computed in double and rounded once to the output's dtype.
//
//   FullyConnected(x, w, b)                          x [..., K] times w [N, K] transposed, plus b
//   MatMul(a, b)                                     numpy matmul (batch dims broadcast)
//   Softmax(x, axis) / LogSoftmax(x, axis)
//   ReduceMean / ReduceSum / ReduceMax / ReduceMin(x, axes)   dims kept (size 1)
//   Gather(x, indices, axis)
//   LayerNorm(x, gamma, beta, epsilon, axis)         over the dims from axis on
//   RmsNorm(x, gamma, epsilon, axis)                 x / sqrt(mean(x^2) + eps) * gamma
//   GroupNorm(x, gamma, beta, epsilon, groups)       channels last, statistics per group
//   Attention(q, k, v, mask, scale)                  softmax(q k^T scale + mask) v
//   Rope(x, cos, sin)                                x cos + rotate_half(x) sin
#pragma once

#include "optgrammar/ops/layer_util.hpp"

#include <cmath>
#include <limits>

namespace optgrammar::ops::layer {

namespace dense {
/// The values of a value as doubles.
inline std::vector<double> values(const ValueView& v) {
  std::vector<double> out(v.def->element_count());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = onnx_eval::get(v.def->dtype, v.data.data(), i);
  return out;
}
inline std::size_t product(const OutputDef& d, std::uint32_t from, std::uint32_t to) {
  std::size_t n = 1;
  for (std::uint32_t i = from; i < to; ++i) n *= d.dims[i];
  return n;
}
}  // namespace dense

// ---- fully connected and matmul --------------------------------------------------------------

namespace infer {
/// FullyConnected: x [..., K], w [N, K], b of N elements (or none): [..., N].
inline Inferred fully_connected(const OpView& v) {
  const OutputDef &x = *v.operands[0].def, &w = *v.operands[1].def, &b = *v.operands[2].def;
  if (x.rank < 1 || w.rank != 2) return failed("x needs rank >= 1 and w rank 2 ([N, K])");
  if (w.dims[1] != x.dims[x.rank - 1])
    return failed(cat("w ", ops::infer::shape_string(w), " takes K = ", w.dims[1], ", x ", ops::infer::shape_string(x),
                      " gives ", x.dims[x.rank - 1]));
  if (b.element_count() != 0 && b.element_count() != w.dims[0])
    return failed(cat("bias has ", b.element_count(), " elements for ", w.dims[0], " outputs"));
  std::vector<std::size_t> d = dims_of(x);
  d.back() = w.dims[0];
  return shaped_like(v, 0, d);
}
/// MatMul: a [..., M, K], b [..., K, N] of rank >= 2, the batch dims broadcast.
inline Inferred matmul(const OpView& v) {
  const OutputDef &a = *v.operands[0].def, &b = *v.operands[1].def;
  if (a.rank < 2 || b.rank < 2) return failed("both operands need rank >= 2");
  if (a.dims[a.rank - 1] != b.dims[b.rank - 2])
    return failed(cat(ops::infer::shape_string(a), " and ", ops::infer::shape_string(b), " disagree in K"));
  OutputDef ab = a, bb = b, out;
  ab.rank -= 2, bb.rank -= 2;
  if (!broadcast(ab, bb, out)) return failed("the batch dims do not broadcast");
  std::vector<std::size_t> d = dims_of(out);
  d.push_back(a.dims[a.rank - 2]);
  d.push_back(b.dims[b.rank - 1]);
  return shaped_like(v, 0, d);
}
}  // namespace infer

namespace eval {
/// out[m, n] = b[n] + sum_k x[m, k] w[n, k], summed in double.
inline bool fully_connected(const OpView& v, std::span<std::byte> out, Backend) {
  if (!all_data(v.operands) || !infer::fully_connected(v).error.empty()) return false;
  const OutputDef &x = *v.operands[0].def, &w = *v.operands[1].def;
  const std::size_t K = w.dims[1], N = w.dims[0], M = x.element_count() / std::max<std::size_t>(1, K);
  if (v.declared->element_count() != M * N) return false;
  const auto xv = dense::values(v.operands[0]), wv = dense::values(v.operands[1]), bv = dense::values(v.operands[2]);
  for (std::size_t m = 0; m < M; ++m)
    for (std::size_t n = 0; n < N; ++n) {
      double s = bv.empty() ? 0.0 : bv[n];
      for (std::size_t k = 0; k < K; ++k) s += xv[m * K + k] * wv[n * K + k];
      onnx_eval::put(v.declared->dtype, out.data(), m * N + n, s);
    }
  return true;
}
}  // namespace eval

// ---- softmax, reductions, gather -----------------------------------------------------------

namespace infer {
inline Inferred along_axis(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  const auto a = static_cast<std::int64_t>(scalar(v.operands[1]));
  if (!onnx_eval::axis_of(a, x.rank)) return failed(cat("axis ", a, " is outside rank ", x.rank));
  return like_x(v);
}
/// Reduce*: the axes (empty: all) kept with extent 1 or, when the declared output has a lower
/// rank, left out.
inline Inferred reduce(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  std::vector<bool> red(x.rank, false);
  const auto axes = ints(v.operands[1]);
  if (axes.empty()) red.assign(x.rank, true);
  for (auto a : axes) {
    auto k = onnx_eval::axis_of(a, x.rank);
    if (!k) return failed(cat("axis ", a, " is outside rank ", x.rank));
    red[*k] = true;
  }
  const bool keep = v.declared->rank == x.rank;
  std::vector<std::size_t> d;
  for (std::uint32_t k = 0; k < x.rank; ++k)
    if (!red[k])
      d.push_back(x.dims[k]);
    else if (keep)
      d.push_back(1);
  return shaped_like(v, 0, d);
}
/// Gather: x's dims before axis, then the indices' dims, then x's after axis.
inline Inferred gather(const OpView& v) {
  const OutputDef &x = *v.operands[0].def, &ind = *v.operands[1].def;
  const auto a = onnx_eval::axis_of(static_cast<std::int64_t>(scalar(v.operands[2])), x.rank);
  if (!a) return failed(cat("axis is outside rank ", x.rank));
  std::vector<std::size_t> d(x.dims.begin(), x.dims.begin() + *a);
  for (std::uint32_t i = 0; i < ind.rank; ++i) d.push_back(ind.dims[i]);
  for (std::uint32_t i = static_cast<std::uint32_t>(*a) + 1; i < x.rank; ++i) d.push_back(x.dims[i]);
  if (d.size() > max_rank) return failed("the result has more than 8 dimensions");
  return shaped_like(v, 0, d);
}
}  // namespace infer

namespace eval {
/// Reduce*(x, axes) through ONNX's reduction loop (its attributes: axes, keepdims, noop).
template <onnx_eval::Reduce R>
bool reduce(const OpView& v, std::span<std::byte> out, Backend) {
  if (v.operands.size() != 2 || !v.declared) return false;
  const std::array<ValueView, 4> buf{v.operands[1], absent(), absent(), v.operands[0]};
  return onnx_eval::reduce<R>(OpView{std::span<const ValueView>(buf), v.declared}, out, 3);
}
}  // namespace eval

// ---- normalization --------------------------------------------------------------------------

namespace infer {
/// LayerNorm / RmsNorm: gamma (and beta, or none) hold one element per position of the
/// normalized dims (from axis on) or one in all.
template <bool with_beta>
Inferred norm(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  const std::size_t axis_at = with_beta ? 4 : 3;
  const auto a = onnx_eval::axis_of(static_cast<std::int64_t>(scalar(v.operands[axis_at])), x.rank);
  if (!a) return failed(cat("axis is outside rank ", x.rank));
  const std::size_t n = dense::product(x, static_cast<std::uint32_t>(*a), x.rank);
  for (std::size_t k = 1; k < (with_beta ? 3u : 2u); ++k) {
    const std::size_t e = v.operands[k].def->element_count();
    if (e != n && e != 1 && !(k == 2 && e == 0))
      return failed(cat(k == 1 ? "gamma" : "beta", " has ", e, " elements, the normalized dims ", n));
  }
  return like_x(v);
}
/// GroupNorm: x [N, ..., C] with C a multiple of groups; gamma and beta of C elements.
inline Inferred group_norm(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  const auto g = static_cast<std::int64_t>(scalar(v.operands[4]));
  if (x.rank < 2 || g < 1 || x.dims[x.rank - 1] % static_cast<std::size_t>(g))
    return failed(cat("groups ", g, " must divide the last (channel) dimension of ", ops::infer::shape_string(x)));
  const std::size_t C = x.dims[x.rank - 1];
  if (v.operands[1].def->element_count() != C || v.operands[2].def->element_count() != C)
    return failed(cat("gamma and beta need ", C, " elements each"));
  return like_x(v);
}
}  // namespace infer

namespace eval {
/// LayerNorm (with beta, centred) or RmsNorm: over each run of the normalized dims, y = (x - mean)
/// / sqrt(var + eps) * gamma + beta, var the biased variance; RmsNorm y = x / sqrt(mean(x^2) + eps)
/// * gamma.
template <bool layer_norm>
bool norm(const OpView& v, std::span<std::byte> out, Backend) {
  if (!all_data(v.operands) || !infer::norm<layer_norm>(v).error.empty()) return false;
  const OutputDef& x = *v.operands[0].def;
  const std::size_t axis_at = layer_norm ? 4 : 3;
  const auto a = *onnx_eval::axis_of(static_cast<std::int64_t>(scalar(v.operands[axis_at])), x.rank);
  const std::size_t inner = dense::product(x, static_cast<std::uint32_t>(a), x.rank),
                    outer = x.element_count() / std::max<std::size_t>(1, inner);
  const double eps = scalar(v.operands[layer_norm ? 3 : 2]);
  const auto xv = dense::values(v.operands[0]), gv = dense::values(v.operands[1]);
  const auto bv = layer_norm ? dense::values(v.operands[2]) : std::vector<double>{};
  for (std::size_t o = 0; o < outer; ++o) {
    const double* row = xv.data() + o * inner;
    double mean = 0, var = 0;
    if (layer_norm) {
      for (std::size_t i = 0; i < inner; ++i) mean += row[i];
      mean /= static_cast<double>(inner);
    }
    for (std::size_t i = 0; i < inner; ++i) var += (row[i] - mean) * (row[i] - mean);
    const double inv = 1.0 / std::sqrt(var / static_cast<double>(inner) + eps);
    for (std::size_t i = 0; i < inner; ++i) {
      double y = (row[i] - mean) * inv * gv[gv.size() == 1 ? 0 : i];
      if (!bv.empty()) y += bv[bv.size() == 1 ? 0 : i];
      onnx_eval::put(v.declared->dtype, out.data(), o * inner + i, y);
    }
  }
  return true;
}

/// GroupNorm: per batch entry and group, the mean and biased variance over every position and
/// the group's channels; y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c].
inline bool group_norm(const OpView& v, std::span<std::byte> out, Backend) {
  if (!all_data(v.operands) || !infer::group_norm(v).error.empty()) return false;
  const OutputDef& x = *v.operands[0].def;
  const std::size_t N = x.dims[0], C = x.dims[x.rank - 1], G = static_cast<std::size_t>(scalar(v.operands[4]));
  const std::size_t P = x.element_count() / std::max<std::size_t>(1, N * C), cg = C / G;
  const double eps = scalar(v.operands[3]);
  const auto xv = dense::values(v.operands[0]), gv = dense::values(v.operands[1]), bv = dense::values(v.operands[2]);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t g = 0; g < G; ++g) {
      double mean = 0, var = 0;
      const double cnt = static_cast<double>(P * cg);
      for (std::size_t p = 0; p < P; ++p)
        for (std::size_t c = g * cg; c < (g + 1) * cg; ++c) mean += xv[(n * P + p) * C + c];
      mean /= cnt;
      for (std::size_t p = 0; p < P; ++p)
        for (std::size_t c = g * cg; c < (g + 1) * cg; ++c) {
          const double d = xv[(n * P + p) * C + c] - mean;
          var += d * d;
        }
      const double inv = 1.0 / std::sqrt(var / cnt + eps);
      for (std::size_t p = 0; p < P; ++p)
        for (std::size_t c = g * cg; c < (g + 1) * cg; ++c) {
          const std::size_t i = (n * P + p) * C + c;
          onnx_eval::put(v.declared->dtype, out.data(), i, (xv[i] - mean) * inv * gv[c] + bv[c]);
        }
    }
  return true;
}
}  // namespace eval

// ---- attention and rotary embedding ---------------------------------------------------------

namespace infer {
/// Attention: q [..., S, d], k [..., T, d], v [..., T, dv] with equal leading dims; a mask (or
/// none: no elements) broadcasting to [..., S, T]; the output [..., S, dv].
inline Inferred attention(const OpView& v) {
  const OutputDef &q = *v.operands[0].def, &k = *v.operands[1].def, &val = *v.operands[2].def, &m = *v.operands[3].def;
  if (q.rank < 2 || k.rank != q.rank || val.rank != q.rank) return failed("q, k and v need one rank >= 2");
  const std::uint32_t r = q.rank;
  for (std::uint32_t i = 0; i + 2 < r; ++i)
    if (k.dims[i] != q.dims[i] || val.dims[i] != q.dims[i]) return failed("q, k and v differ in their leading dims");
  if (k.dims[r - 1] != q.dims[r - 1])
    return failed(cat("q and k differ in depth: ", q.dims[r - 1], " and ", k.dims[r - 1]));
  if (val.dims[r - 2] != k.dims[r - 2])
    return failed(cat("k and v differ in length: ", k.dims[r - 2], " and ", val.dims[r - 2]));
  if (m.element_count() != 0) {
    OutputDef s = q, b;
    s.dims[r - 1] = k.dims[r - 2];
    if (!broadcast(m, s, b) || !b.same_shape(s))
      return failed(
          cat("mask ", ops::infer::shape_string(m), " does not broadcast to the scores ", ops::infer::shape_string(s)));
  }
  std::vector<std::size_t> d = dims_of(q);
  d.back() = val.dims[r - 1];
  return shaped_like(v, 0, d);
}
/// Rope: x [..., d] with d even; cos and sin broadcast to x.
inline Inferred rope(const OpView& v) {
  const OutputDef& x = *v.operands[0].def;
  if (x.rank < 1 || x.dims[x.rank - 1] % 2) return failed("the last dimension must be even");
  for (std::size_t k = 1; k < 3; ++k) {
    OutputDef b;
    if (!broadcast(*v.operands[k].def, x, b) || !b.same_shape(x))
      return failed(cat(k == 1 ? "cos " : "sin ", ops::infer::shape_string(*v.operands[k].def),
                        " does not broadcast to ", ops::infer::shape_string(x)));
  }
  return like_x(v);
}
}  // namespace infer

namespace eval {
/// out = softmax(q k^T * scale + mask) v over the last axis of the scores, in double.
inline bool attention(const OpView& v, std::span<std::byte> out, Backend) {
  if (!all_data(v.operands) || !infer::attention(v).error.empty()) return false;
  const OutputDef &q = *v.operands[0].def, &k = *v.operands[1].def, &val = *v.operands[2].def, &m = *v.operands[3].def;
  const std::uint32_t r = q.rank;
  const std::size_t S = q.dims[r - 2], D = q.dims[r - 1], T = k.dims[r - 2], DV = val.dims[r - 1];
  const std::size_t B = dense::product(q, 0, r - 2);
  const double scale = scalar(v.operands[4], 1.0);
  const auto qv = dense::values(v.operands[0]), kv = dense::values(v.operands[1]), vv = dense::values(v.operands[2]);
  std::vector<double> mv;
  std::vector<std::size_t> moff;
  if (m.element_count()) {
    OutputDef s = q;
    s.dims[r - 1] = T;
    auto offs = onnx_eval::broadcast_offsets(onnx_eval::dims_of(m), onnx_eval::dims_of(s));
    if (!offs) return false;
    moff = std::move(*offs);
    mv = dense::values(v.operands[3]);
  }
  std::vector<double> p(T);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < S; ++i) {
      double mx = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < T; ++j) {
        double s = 0;
        for (std::size_t d = 0; d < D; ++d) s += qv[(b * S + i) * D + d] * kv[(b * T + j) * D + d];
        s *= scale;
        if (!mv.empty()) s += mv[moff[(b * S + i) * T + j]];
        p[j] = s;
        mx = std::max(mx, s);
      }
      double sum = 0;
      for (std::size_t j = 0; j < T; ++j) sum += p[j] = std::exp(p[j] - mx);
      for (std::size_t d = 0; d < DV; ++d) {
        double o = 0;
        for (std::size_t j = 0; j < T; ++j) o += p[j] * vv[(b * T + j) * DV + d];
        onnx_eval::put(v.declared->dtype, out.data(), (b * S + i) * DV + d, o / sum);
      }
    }
  return true;
}

/// out[..., i] = x[..., i] cos[..., i] + rot[..., i] sin[..., i], rot = (-x[d/2:], x[:d/2]).
inline bool rope(const OpView& v, std::span<std::byte> out, Backend) {
  if (!all_data(v.operands) || !infer::rope(v).error.empty()) return false;
  const OutputDef& x = *v.operands[0].def;
  const auto xd = onnx_eval::dims_of(x);
  auto co = onnx_eval::broadcast_offsets(onnx_eval::dims_of(*v.operands[1].def), xd);
  auto so = onnx_eval::broadcast_offsets(onnx_eval::dims_of(*v.operands[2].def), xd);
  if (!co || !so) return false;
  const std::size_t D = x.dims[x.rank - 1], h = D / 2;
  const auto xv = dense::values(v.operands[0]), cv = dense::values(v.operands[1]), sv = dense::values(v.operands[2]);
  for (std::size_t i = 0; i < xv.size(); ++i) {
    const std::size_t j = i % D;
    const double rot = j < h ? -xv[i + h] : xv[i - h];
    onnx_eval::put(v.declared->dtype, out.data(), i, xv[i] * cv[(*co)[i]] + rot * sv[(*so)[i]]);
  }
  return true;
}
}  // namespace eval

inline void add_dense_definitions(Definitions& t) {
  const DTypeSet fl = dtypes::floats;
  const ResultSpec like{"out", TypeRule::same_as_first, fl, "same definition as x"};
  t.add(make_def("FullyConnected", "x times the transposed weight plus a bias: [..., K] x [N, K] -> [..., N].",
                 "`out[..., n] = b[n] + sum_k x[..., k] * w[n, k]`: the weight in [N, K] (ONNX Gemm's transB = 1, "
                 "PyTorch's Linear); the bias has N elements (any shape) or none. Summed in double, rounded once.",
                 {data("x", fl, "input [..., K]"), same("w", "weight [N, K]"), same("b", "bias, N elements (or none)")},
                 {"out", TypeRule::same_as_first, fl, "[..., N]"}, infer::fully_connected, eval::fully_connected,
                 "ops::layer::eval::fully_connected (reference loop)"));
  t.add(make_def("MatMul", "numpy matmul of operands of rank >= 2: [..., M, K] x [..., K, N].",
                 "The batch dims broadcast; summed in double, rounded once.",
                 {data("a", fl, "[..., M, K]"), same("b", "[..., K, N]")},
                 {"out", TypeRule::same_as_first, fl, "[..., M, N]"}, infer::matmul, as_is<onnx_eval::matmul>,
                 "ops::onnx_eval::matmul (reference loop)"));
  t.add(make_def("Softmax", "e^x / sum e^x along one axis.", "Shifted by the maximum, in double.",
                 {data("x", fl, "input"), int_param("axis", "the axis (negative: from the end)")}, like,
                 infer::along_axis, params_last<onnx_eval::softmax<onnx_eval::Softmax::soft>, 1>,
                 "ops::onnx_eval::softmax (reference loop)"));
  t.add(make_def("LogSoftmax", "ln of Softmax along one axis.", "Shifted by the maximum, in double.",
                 {data("x", fl, "input"), int_param("axis", "the axis (negative: from the end)")}, like,
                 infer::along_axis, params_last<onnx_eval::softmax<onnx_eval::Softmax::log>, 1>,
                 "ops::onnx_eval::softmax (reference loop)"));
  auto reduce = [&](std::string_view name, std::string_view summary, EvalFn e) {
    t.add(make_def(name, summary,
                   "The reduced axes keep extent 1, or are left out when the declared output has a lower rank (ONNX's "
                   "keepdims 0); empty axes reduce all. In double, rounded once.",
                   {data("x", fl, "input"), int_param("axes", "the axes (negative: from the end)")},
                   {"out", TypeRule::same_as_first, fl, "x's shape, the axes of extent 1 or left out"}, infer::reduce,
                   e, "ops::onnx_eval::reduce (reference loop)"));
  };
  reduce("ReduceMean", "Mean over axes (kept).", eval::reduce<onnx_eval::Reduce::mean>);
  reduce("ReduceSum", "Sum over axes (kept).", eval::reduce<onnx_eval::Reduce::sum>);
  reduce("ReduceMax", "Maximum over axes (kept).", eval::reduce<onnx_eval::Reduce::max>);
  reduce("ReduceMin", "Minimum over axes (kept).", eval::reduce<onnx_eval::Reduce::min>);
  t.add(make_def("Gather", "Entries of x along an axis at integer indices (embedding lookup).",
                 "`out[a..., i..., b...] = x[a..., indices[i...], b...]`; a negative index counts from the end.",
                 {data("x", dtypes::any, "table"), data("indices", dtypes::i32 | dtypes::i64, "indices"),
                  int_param("axis", "the axis")},
                 {"out", TypeRule::same_as_first, dtypes::any, "x's dims around axis, the indices' in its place"},
                 infer::gather, params_last<onnx_eval::gather, 1>, "ops::onnx_eval::gather (copies)"));
  t.add(make_def("LayerNorm", "Layer normalization over the dims from axis on.",
                 "Per run of the normalized dims: `(x - mean) / sqrt(var + epsilon) * gamma + beta`, var the biased "
                 "variance; gamma and beta hold one element per normalized position (or one in all; beta may be "
                 "empty). In double, rounded once.",
                 {data("x", fl, "input"), same("gamma", "scale"), same("beta", "offset (or none)"),
                  float_param("epsilon", "added to the variance"), int_param("axis", "the first normalized dim")},
                 like, infer::norm<true>, eval::norm<true>, "ops::layer::eval::norm (reference loop)"));
  t.add(make_def("RmsNorm", "Root-mean-square normalization over the dims from axis on.",
                 "Per run of the normalized dims: `x / sqrt(mean(x^2) + epsilon) * gamma` (no centring). In double, "
                 "rounded once.",
                 {data("x", fl, "input"), same("gamma", "scale"), float_param("epsilon", "added to the mean square"),
                  int_param("axis", "the first normalized dim")},
                 like, infer::norm<false>, eval::norm<false>, "ops::layer::eval::norm (reference loop)"));
  t.add(make_def(
      "GroupNorm", "Group normalization, channels last: statistics per batch entry and channel group.",
      "x is [N, ..., C]; group g holds channels [g*C/G, (g+1)*C/G). Per batch entry and group, the mean "
      "and biased variance over every position and the group's channels; `(x - mean) / sqrt(var + "
      "epsilon) * gamma[c] + beta[c]`. With G = C it is instance normalization. In double, rounded once.",
      {data("x", fl, "input [N, ..., C]"), same("gamma", "scale, C elements"), same("beta", "offset, C elements"),
       float_param("epsilon", "added to the variance"), int_param("groups", "G, dividing C")},
      like, infer::group_norm, eval::group_norm, "ops::layer::eval::group_norm (reference loop)"));
  t.add(make_def("Attention", "Scaled dot-product attention: softmax(q k^T scale + mask) v.",
                 "q [..., S, d], k [..., T, d], v [..., T, dv] with equal leading dims (batch, heads); `mask` "
                 "(additive, or no elements for none) broadcasts to the scores [..., S, T]; the softmax runs over T. "
                 "One op per head after the lowering splits multi-head attention (leading dim of heads 1). In double, "
                 "rounded once.",
                 {data("q", fl, "queries [..., S, d]"), same("k", "keys [..., T, d]"), same("v", "values [..., T, dv]"),
                  same("mask", "additive mask, broadcast to [..., S, T]; empty: none"),
                  float_param("scale", "the scores' factor")},
                 {"out", TypeRule::same_as_first, fl, "[..., S, dv]"}, infer::attention, eval::attention,
                 "ops::layer::eval::attention (reference loop)"));
  t.add(make_def(
      "Rope", "Rotary position embedding, rotate-half form: x cos + rotate_half(x) sin.",
      "x [..., d], d even; `rotate_half(x)` is the concatenation of -x[..., d/2:] and x[..., :d/2]; cos and "
      "sin broadcast to x. In double, rounded once.",
      {data("x", fl, "input [..., d]"), same("cos", "cosines, broadcast to x"), same("sin", "sines, broadcast to x")},
      like, infer::rope, eval::rope, "ops::layer::eval::rope (reference loop)"));
}

}  // namespace optgrammar::ops::layer
