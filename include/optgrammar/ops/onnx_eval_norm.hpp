// Reference evaluation of the imported ONNX normalizations, Dropout (inference) and the two
// losses (onnx.hpp's table). Same conventions as onnx_eval.hpp: attributes first, then
// inputs; computed in double, stored in the output's dtype.
#pragma once

#include "optgrammar/ops/onnx_eval_tensor.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace optgrammar::ops::onnx_eval {

/// The mean and the (population) variance of elements begin .. begin + n of x.
inline std::pair<double, double> mean_and_variance(const ValueView& x, std::size_t begin, std::size_t n) {
  double mean = 0, var = 0;
  for (std::size_t i = 0; i < n; ++i) mean += get(x.def->dtype, x.data.data(), begin + i);
  mean /= static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double d = get(x.def->dtype, x.data.data(), begin + i) - mean;
    var += d * d;
  }
  return {mean, var / static_cast<double>(n)};
}

/// LayerNormalization(axis, epsilon, stash_type, output; X, Scale, B): over the dims from axis
/// on, y = (x - mean) / sqrt(var + epsilon) * scale + B; output 1 the means, 2 the
/// 1 / sqrt(var + epsilon), both of X's shape with the normalized dims 1.
inline bool layer_norm(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() < 2 || !a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  auto ax = axis_of(a.attr_int(0), xd.size());
  if (!ax) return false;
  const double eps = a.attr_scalar(1);
  const auto which = a.attr_int(3);
  std::size_t outer = 1;
  for (std::size_t k = 0; k < *ax; ++k) outer *= xd[k];
  const std::size_t inner = outer ? x.def->element_count() / outer : 0;
  const OutputDef& o = *v.declared;
  if (o.element_count() != (which == 0 ? x.def->element_count() : outer)) return false;
  const Dims nd(xd.begin() + static_cast<std::ptrdiff_t>(*ax), xd.end());
  auto so = broadcast_offsets(dims_of(*a.in(1).def), nd);
  std::optional<std::vector<std::size_t>> bo;
  if (a.present(2)) bo = broadcast_offsets(dims_of(*a.in(2).def), nd);
  if (!so || (a.present(2) && !bo)) return false;
  for (std::size_t p = 0; p < outer; ++p) {
    const auto [mean, var] = mean_and_variance(x, p * inner, inner);
    const double inv = 1.0 / std::sqrt(var + eps);
    if (which == 1) put(o.dtype, out.data(), p, mean);
    if (which == 2) put(o.dtype, out.data(), p, inv);
    if (which != 0) continue;
    for (std::size_t i = 0; i < inner; ++i) {
      double y = (get(x.def->dtype, x.data.data(), p * inner + i) - mean) * inv *
                 get(a.in(1).def->dtype, a.in(1).data.data(), (*so)[i]);
      if (bo) y += get(a.in(2).def->dtype, a.in(2).data.data(), (*bo)[i]);
      put(o.dtype, out.data(), p * inner + i, y);
    }
  }
  return true;
}

/// InstanceNormalization(epsilon; input, scale, B): per (n, c) over the spatial dims,
/// (x - mean) / sqrt(var + epsilon) * scale[c] + B[c].
inline bool instance_norm(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 3 || !a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  if (xd.size() < 2 || !x.def->same_shape(*v.declared)) return false;
  const std::size_t N = xd[0], C = xd[1], sp = count(xd) / std::max<std::size_t>(1, N * C);
  if (a.in(1).def->element_count() != C || a.in(2).def->element_count() != C) return false;
  const double eps = a.attr_scalar(0);
  for (std::size_t nc = 0; nc < N * C; ++nc) {
    const auto [mean, var] = mean_and_variance(x, nc * sp, sp);
    const std::size_t c = nc % C;
    const double scale = get(a.in(1).def->dtype, a.in(1).data.data(), c) / std::sqrt(var + eps),
                 bias = get(a.in(2).def->dtype, a.in(2).data.data(), c);
    for (std::size_t i = 0; i < sp; ++i)
      put(v.declared->dtype, out.data(), nc * sp + i,
          (get(x.def->dtype, x.data.data(), nc * sp + i) - mean) * scale + bias);
  }
  return true;
}

/// LRN(alpha, beta, bias, size; X): x / (bias + alpha / size * sum of x^2 over the channels
/// c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2))^beta.
inline bool lrn(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  if (xd.size() < 2 || x.def->element_count() != v.declared->element_count()) return false;
  const double alpha = a.attr_scalar(0), beta = a.attr_scalar(1), bias = a.attr_scalar(2);
  const std::int64_t size = a.attr_int(3);
  if (size < 1) return false;
  const auto C = static_cast<std::int64_t>(xd[1]);
  const std::size_t sp = count(xd) / std::max<std::size_t>(1, xd[0] * xd[1]);
  const std::int64_t before = (size - 1) / 2, after = size - 1 - before;
  for (std::size_t i = 0; i < x.def->element_count(); ++i) {
    const auto c = static_cast<std::int64_t>((i / sp) % xd[1]);
    const std::size_t base = i - static_cast<std::size_t>(c) * sp;
    double sq = 0;
    for (std::int64_t j = std::max<std::int64_t>(0, c - before); j <= std::min(C - 1, c + after); ++j) {
      const double e = get(x.def->dtype, x.data.data(), base + static_cast<std::size_t>(j) * sp);
      sq += e * e;
    }
    put(v.declared->dtype, out.data(), i,
        get(x.def->dtype, x.data.data(), i) / std::pow(bias + alpha / static_cast<double>(size) * sq, beta));
  }
  return true;
}

/// Visits the groups of elements that a reduction over `axes` (of dims xd) combines: f(list of
/// offsets) once per group.
template <class F>
bool for_each_group(const Dims& xd, const std::vector<std::int64_t>& axes, F&& f) {
  std::vector<bool> red(xd.size(), false);
  for (auto ax : axes) {
    auto k = axis_of(ax, xd.size());
    if (!k) return false;
    red[*k] = true;
  }
  Dims kept(xd.size());
  for (std::size_t k = 0; k < xd.size(); ++k) kept[k] = red[k] ? 1 : xd[k];
  const Dims ks = strides_of(kept);
  std::vector<std::vector<std::size_t>> groups(count(kept));
  for (std::size_t i = 0; i < count(xd); ++i) {
    const Dims idx = unravel(i, xd);
    std::size_t g = 0;
    for (std::size_t k = 0; k < xd.size(); ++k)
      if (!red[k]) g += idx[k] * ks[k];
    groups[g].push_back(i);
  }
  for (const auto& grp : groups) f(grp);
  return true;
}

/// MeanVarianceNormalization(axes; X): (x - mean) / (sqrt(var) + 1e-9) over axes (default
/// [0, 2, 3]), as ONNX's function of the op computes it.
inline bool mean_variance_norm(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  auto axes = a.attr_ints(0);
  if (axes.empty()) axes = {0, 2, 3};
  if (x.def->element_count() != v.declared->element_count()) return false;
  return for_each_group(dims_of(*x.def), axes, [&](const std::vector<std::size_t>& grp) {
    double mean = 0, sq = 0;
    for (std::size_t i : grp) {
      const double e = get(x.def->dtype, x.data.data(), i);
      mean += e;
      sq += e * e;
    }
    mean /= static_cast<double>(grp.size());
    const double var = sq / static_cast<double>(grp.size()) - mean * mean;
    for (std::size_t i : grp)
      put(v.declared->dtype, out.data(), i, (get(x.def->dtype, x.data.data(), i) - mean) / (std::sqrt(var) + 1e-9));
  });
}

/// LpNormalization(axis, p; input): x divided by the p-norm (p 1 or 2) of its line along axis.
inline bool lp_norm(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  auto ax = axis_of(a.attr_int(0), xd.size());
  const std::int64_t p = a.attr_int(1);
  if (!ax || (p != 1 && p != 2) || x.def->element_count() != v.declared->element_count()) return false;
  return for_each_group(xd, {static_cast<std::int64_t>(*ax)}, [&](const std::vector<std::size_t>& grp) {
    double norm = 0;
    for (std::size_t i : grp) {
      const double e = get(x.def->dtype, x.data.data(), i);
      norm += p == 1 ? std::fabs(e) : e * e;
    }
    if (p == 2) norm = std::sqrt(norm);
    for (std::size_t i : grp)
      put(v.declared->dtype, out.data(), i, norm == 0 ? 0.0 : get(x.def->dtype, x.data.data(), i) / norm);
  });
}

/// Dropout(seed, ratio, output; data, ratio, training_mode), inference: output 0 the data as it
/// is, output 1 (mask) all true. Training mode (a true training_mode input) is refused.
inline bool dropout(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  if (a.present(2) && get(a.in(2).def->dtype, a.in(2).data.data(), 0) != 0) return false;
  const ValueView& x = a.in(0);
  if (x.def->element_count() != v.declared->element_count()) return false;
  if (a.attr_int(2) == 1) {
    for (std::size_t i = 0; i < v.declared->element_count(); ++i) store_int(v.declared->dtype, out.data(), i, 1);
    return true;
  }
  return same_elements(v, out, na);
}

// ---- losses ---------------------------------------------------------------------------------

/// The negative log-likelihood loss of log-probabilities lp [N, C, d...] (values lv) at labels
/// [N, d...]: -lp[n, label, d] * weight[label] per element, 0 where the label is ignore_index;
/// reduction none keeps them, sum adds them, mean divides the sum by the sum of the weights used.
inline bool nll_loss(const Args& a, const Dims& ld, const std::vector<double>& lv, const ValueView& labels,
                     const ValueView* weight, int reduction, const OpView& v, std::span<std::byte> out) {
  if (ld.size() < 2) return false;
  const std::size_t N = ld[0], C = ld[1], D = count(ld) / std::max<std::size_t>(1, N * C);
  if (labels.def->element_count() != N * D) return false;
  const bool ignoring = a.has_attr(0);
  const std::int64_t ignore = ignoring ? a.attr_int(0) : 0;
  std::vector<double> loss(N * D);
  double total = 0, weights = 0;
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t d = 0; d < D; ++d) {
      const std::int64_t t = get_int(labels.def->dtype, labels.data.data(), n * D + d);
      if (ignoring && t == ignore) continue;
      if (t < 0 || t >= static_cast<std::int64_t>(C)) return false;
      const double w = weight ? get(weight->def->dtype, weight->data.data(), static_cast<std::size_t>(t)) : 1.0;
      loss[n * D + d] = -lv[(n * C + static_cast<std::size_t>(t)) * D + d] * w;
      total += loss[n * D + d];
      weights += w;
    }
  const OutputDef& o = *v.declared;
  if (reduction == 1) {  // none
    if (o.element_count() != loss.size()) return false;
    for (std::size_t i = 0; i < loss.size(); ++i) put(o.dtype, out.data(), i, loss[i]);
    return true;
  }
  if (o.element_count() != 1) return false;
  put(o.dtype, out.data(), 0, reduction == 2 ? total : weights == 0 ? 0.0 : total / weights);
  return true;
}

/// NegativeLogLikelihoodLoss(ignore_index, reduction; input, target, weight).
inline bool nll_loss_op(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  return nll_loss(a, dims_of(*a.in(0).def), values_of(a.in(0)), a.in(1), a.present(2) ? &a.in(2) : nullptr,
                  static_cast<int>(a.attr_int(1)), v, out);
}

/// SoftmaxCrossEntropyLoss(ignore_index, reduction, output; scores, labels, weights): output 1
/// the log-softmax of scores along dim 1, output 0 the negative log-likelihood loss of it.
inline bool softmax_cross_entropy(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  if (xd.size() < 2) return false;
  const std::size_t N = xd[0], C = xd[1], D = count(xd) / std::max<std::size_t>(1, N * C);
  std::vector<double> lp = values_of(x);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t d = 0; d < D; ++d) {
      double m = -std::numeric_limits<double>::infinity(), s = 0;
      for (std::size_t c = 0; c < C; ++c) m = std::max(m, lp[(n * C + c) * D + d]);
      for (std::size_t c = 0; c < C; ++c) s += std::exp(lp[(n * C + c) * D + d] - m);
      for (std::size_t c = 0; c < C; ++c) lp[(n * C + c) * D + d] -= m + std::log(s);
    }
  if (a.attr_int(2) == 1) {
    if (v.declared->element_count() != lp.size()) return false;
    for (std::size_t i = 0; i < lp.size(); ++i) put(v.declared->dtype, out.data(), i, lp[i]);
    return true;
  }
  return nll_loss(a, xd, lp, a.in(1), a.present(2) ? &a.in(2) : nullptr, static_cast<int>(a.attr_int(1)), v, out);
}

}  // namespace optgrammar::ops::onnx_eval
