// Reference evaluation of the imported ONNX signal and detection ops (onnx.hpp's table): DFT,
// STFT, the Hann, Hamming and Blackman windows, MelWeightMatrix, TfIdfVectorizer (integer
// input), NonMaxSuppression, RoiAlign, MaxRoiPool and GridSample. Same conventions as
// onnx_eval.hpp: attributes first, then inputs; computed in double, stored in the output's dtype.
#pragma once

#include "optgrammar/ops/onnx_eval_tensor.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

namespace optgrammar::ops::onnx_eval {

// ---- spectra --------------------------------------------------------------------------------

/// The DFT of `n` complex samples re/im (zero beyond `len` of them), `bins` output bins.
inline void dft_line(const std::vector<double>& re, const std::vector<double>& im, std::size_t n, std::size_t bins,
                     bool inverse, std::vector<double>& ore, std::vector<double>& oim) {
  ore.assign(bins, 0.0);
  oim.assign(bins, 0.0);
  const double sign = inverse ? 1.0 : -1.0;
  for (std::size_t k = 0; k < bins; ++k)
    for (std::size_t t = 0; t < n && t < re.size(); ++t) {
      const double ang = sign * 2 * std::numbers::pi * static_cast<double>((k * t) % n) / static_cast<double>(n);
      ore[k] += re[t] * std::cos(ang) - im[t] * std::sin(ang);
      oim[k] += re[t] * std::sin(ang) + im[t] * std::cos(ang);
    }
  if (inverse)
    for (std::size_t k = 0; k < bins; ++k) {
      ore[k] /= static_cast<double>(n);
      oim[k] /= static_cast<double>(n);
    }
}

/// DFT(axis, inverse, onesided; input, dft_length): the discrete Fourier transform along axis
/// of input [batch, ..., 1 (real) or 2 (complex)], zero-padded or cut to dft_length; onesided
/// keeps the first n/2 + 1 bins; inverse divides by n.
inline bool dft(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  if (xd.size() < 3 || (xd.back() != 1 && xd.back() != 2)) return false;
  auto ax = axis_of(a.attr_int(0), xd.size() - 1);
  if (!ax || *ax == 0) return false;
  const bool inverse = a.attr_int(1) != 0, onesided = a.attr_int(2) != 0;
  const std::size_t len = xd[*ax], n = a.present(1) ? static_cast<std::size_t>(a.input_ints(1)[0]) : len;
  const std::size_t bins = onesided ? n / 2 + 1 : n, cx = xd.back();
  Dims od = xd;
  od.back() = 2;
  od[*ax] = bins;
  if (count(od) != v.declared->element_count() || n == 0) return false;
  const Dims line_dims(xd.begin(), xd.end() - 1);
  const AxisSplit s = split_at(line_dims, *ax);
  std::vector<double> re, im, ore, oim;
  for (std::size_t p = 0; p < s.outer; ++p)
    for (std::size_t q = 0; q < s.inner; ++q) {
      re.assign(std::min(len, n), 0.0);
      im.assign(re.size(), 0.0);
      for (std::size_t t = 0; t < re.size(); ++t) {
        const std::size_t at = ((p * s.len + t) * s.inner + q) * cx;
        re[t] = get(x.def->dtype, x.data.data(), at);
        if (cx == 2) im[t] = get(x.def->dtype, x.data.data(), at + 1);
      }
      dft_line(re, im, n, bins, inverse, ore, oim);
      for (std::size_t k = 0; k < bins; ++k) {
        const std::size_t at = ((p * bins + k) * s.inner + q) * 2;
        put(v.declared->dtype, out.data(), at, ore[k]);
        put(v.declared->dtype, out.data(), at + 1, oim[k]);
      }
    }
  return true;
}

/// STFT(onesided; signal, frame_step, window, frame_length): frames of the signal [batch,
/// length, 1 or 2] every frame_step samples, each times the window, transformed: [batch, frames,
/// bins, 2] (onesided: length / 2 + 1 bins).
inline bool stft(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  if (xd.size() != 3 || (xd[2] != 1 && xd[2] != 2)) return false;
  const bool onesided = a.attr_int(0) != 0;
  const auto step = static_cast<std::size_t>(a.input_ints(1).at(0));
  std::vector<double> window = a.present(2) ? values_of(a.in(2)) : std::vector<double>{};
  const std::size_t L = a.present(3) ? static_cast<std::size_t>(a.input_ints(3).at(0)) : window.size();
  if (window.empty()) window.assign(L, 1.0);
  if (L == 0 || window.size() != L || step == 0 || xd[1] < L) return false;
  const std::size_t frames = (xd[1] - L) / step + 1, bins = onesided ? L / 2 + 1 : L, cx = xd[2];
  if (xd[0] * frames * bins * 2 != v.declared->element_count()) return false;
  std::vector<double> re(L), im(L), ore, oim;
  for (std::size_t b = 0; b < xd[0]; ++b)
    for (std::size_t f = 0; f < frames; ++f) {
      for (std::size_t t = 0; t < L; ++t) {
        const std::size_t at = (b * xd[1] + f * step + t) * cx;
        re[t] = get(x.def->dtype, x.data.data(), at) * window[t];
        im[t] = cx == 2 ? get(x.def->dtype, x.data.data(), at + 1) * window[t] : 0.0;
      }
      dft_line(re, im, L, bins, false, ore, oim);
      for (std::size_t k = 0; k < bins; ++k) {
        const std::size_t at = ((b * frames + f) * bins + k) * 2;
        put(v.declared->dtype, out.data(), at, ore[k]);
        put(v.declared->dtype, out.data(), at + 1, oim[k]);
      }
    }
  return true;
}

/// The generalized cosine windows: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size
/// (periodic) or size - 1.
enum class Window_ { hann, hamming, blackman };
template <Window_ W>
bool cosine_window(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const std::size_t size = v.declared->element_count();
  const bool periodic = a.attr_int(1) != 0;
  const double N = static_cast<double>(periodic ? size : size - 1);
  const double a0 = W == Window_::hann ? 0.5 : W == Window_::hamming ? 25.0 / 46.0 : 0.42;
  const double a1 = W == Window_::hann ? 0.5 : W == Window_::hamming ? 21.0 / 46.0 : 0.5;
  const double a2 = W == Window_::blackman ? 0.08 : 0.0;
  for (std::size_t i = 0; i < size; ++i) {
    const double t = 2 * std::numbers::pi * static_cast<double>(i) / N;
    put(v.declared->dtype, out.data(), i, a0 - a1 * std::cos(t) + a2 * std::cos(2 * t));
  }
  return true;
}

/// MelWeightMatrix(output_datatype; num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
/// upper_edge_hertz): [dft_length / 2 + 1, num_mel_bins] triangular filters on the mel scale
/// mel(f) = 2595 log10(1 + f / 700), as ONNX's reference computes them: num_mel_bins + 2 edges
/// mel_step apart (mel_step = the mel range / (num_mel_bins + 2)), each edge the spectrogram bin
/// floor((dft_length + 1) * hertz / sample_rate), peaks of 1.
inline bool mel_weight_matrix(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const auto mels = static_cast<std::size_t>(a.input_ints(0).at(0));
  const std::int64_t dft_len = a.input_ints(1).at(0), rate = a.input_ints(2).at(0);
  const double lo = get(a.in(3).def->dtype, a.in(3).data.data(), 0),
               hi = get(a.in(4).def->dtype, a.in(4).data.data(), 0);
  const auto bins = static_cast<std::size_t>(dft_len / 2 + 1);
  if (bins * mels != v.declared->element_count() || rate == 0) return false;
  const double lo_mel = 2595 * std::log10(1 + lo / 700), hi_mel = 2595 * std::log10(1 + hi / 700);
  const double step = (hi_mel - lo_mel) / static_cast<double>(mels + 2);
  std::vector<std::int64_t> edge(mels + 2);
  for (std::size_t k = 0; k < mels + 2; ++k) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(k) * step + lo_mel) / 2595) - 1);
    edge[k] = static_cast<std::int64_t>(std::floor(static_cast<double>(dft_len + 1) * hz / static_cast<double>(rate)));
  }
  std::vector<double> m(bins * mels, 0.0);
  auto set = [&](std::int64_t j, std::size_t i, double w) {
    if (j >= 0 && static_cast<std::size_t>(j) < bins) m[static_cast<std::size_t>(j) * mels + i] = w;
  };
  for (std::size_t i = 0; i < mels; ++i) {
    const std::int64_t l = edge[i], c = edge[i + 1], h = edge[i + 2];
    if (c == l)
      set(c, i, 1.0);
    else
      for (std::int64_t j = l; j <= c; ++j) set(j, i, static_cast<double>(j - l) / static_cast<double>(c - l));
    for (std::int64_t j = c; j < h; ++j) set(j, i, static_cast<double>(h - j) / static_cast<double>(h - c));
  }
  for (std::size_t i = 0; i < m.size(); ++i) put(v.declared->dtype, out.data(), i, m[i]);
  return true;
}

/// TfIdfVectorizer(max_gram_length, max_skip_count, min_gram_length, mode, ngram_counts,
/// ngram_indexes, pool_int64s, weights; X): per row of X, how often each n-gram of the pool
/// occurs (items skip + 1 apart, skip up to max_skip_count; a 1-gram counts once per position),
/// at its entry of ngram_indexes; mode TF gives the counts, IDF the weight (default 1) where the
/// count is not 0, TFIDF count times weight.
inline bool tfidf(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const auto max_n = static_cast<std::size_t>(a.attr_int(0)), min_n = static_cast<std::size_t>(a.attr_int(2));
  const auto max_skip = static_cast<std::size_t>(a.attr_int(1));
  const auto mode = a.attr_int(3);
  const auto counts = a.attr_ints(4), indexes = a.attr_ints(5), pool = a.attr_ints(6);
  const auto weights = a.attr_values(7);
  const Dims xd = dims_of(*x.def);
  if (xd.empty() || xd.size() > 2 || min_n < 1 || max_n < min_n) return false;
  const std::size_t rows = xd.size() == 2 ? xd[0] : 1, C = xd.back();
  std::int64_t width = 0;
  for (auto i : indexes) width = std::max(width, i + 1);
  if (rows * static_cast<std::size_t>(width) != v.declared->element_count()) return false;
  // The pool's n-grams as (items, output index), n = 1, 2, ...
  std::vector<std::pair<std::vector<std::int64_t>, std::int64_t>> grams;
  std::size_t g = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const auto begin = static_cast<std::size_t>(counts[k]);
    const std::size_t end = k + 1 < counts.size() ? static_cast<std::size_t>(counts[k + 1]) : pool.size();
    for (std::size_t at = begin; at + k + 1 <= end; at += k + 1, ++g) {
      if (g >= indexes.size()) return false;
      grams.emplace_back(std::vector<std::int64_t>(pool.begin() + static_cast<std::ptrdiff_t>(at),
                                                   pool.begin() + static_cast<std::ptrdiff_t>(at + k + 1)),
                         indexes[g]);
    }
  }
  std::vector<double> tf(rows * static_cast<std::size_t>(width), 0.0);
  std::vector<std::int64_t> items;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t s = 0; s < C; ++s)
      for (std::size_t n = min_n; n <= max_n; ++n)
        for (std::size_t skip = 0; skip <= (n == 1 ? 0 : max_skip); ++skip) {
          if (s + (n - 1) * (skip + 1) >= C) break;
          items.clear();
          for (std::size_t j = 0; j < n; ++j)
            items.push_back(get_int(x.def->dtype, x.data.data(), r * C + s + j * (skip + 1)));
          for (const auto& [gram, index] : grams)
            if (gram == items) tf[r * static_cast<std::size_t>(width) + static_cast<std::size_t>(index)] += 1;
        }
  for (std::size_t i = 0; i < tf.size(); ++i) {
    const std::size_t col = i % static_cast<std::size_t>(width);
    double w = 1.0;
    for (std::size_t j = 0; j < indexes.size(); ++j)
      if (static_cast<std::size_t>(indexes[j]) == col && j < weights.size()) w = weights[j];
    const double y = mode == 0 ? tf[i] : mode == 1 ? (tf[i] > 0 ? w : 0.0) : tf[i] * w;
    put(v.declared->dtype, out.data(), i, y);
  }
  return true;
}

// ---- detection ------------------------------------------------------------------------------

/// NonMaxSuppression(center_point_box; boxes, scores, max_output_boxes_per_class,
/// iou_threshold, score_threshold): per batch and class, the boxes by descending score (equal
/// scores: the lower index first) above score_threshold, each kept unless its IoU with one kept
/// before exceeds iou_threshold, at most max_output_boxes_per_class of them; Int64 [n, 3] rows
/// (batch, class, box).
inline bool non_max_suppression(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() < 2 || !a.inputs_have_data()) return false;
  const ValueView &boxes = a.in(0), &scores = a.in(1);
  if (boxes.def->rank != 3 || scores.def->rank != 3 || boxes.def->dims[2] != 4) return false;
  const std::size_t B = boxes.def->dims[0], S = boxes.def->dims[1], K = scores.def->dims[1];
  if (scores.def->dims[0] != B || scores.def->dims[2] != S) return false;
  const std::int64_t max_out = a.present(2) ? a.input_ints(2).at(0) : 0;
  const double iou_t = a.present(3) ? get(a.in(3).def->dtype, a.in(3).data.data(), 0) : 0.0;
  const bool has_score_t = a.present(4);
  const double score_t = has_score_t ? get(a.in(4).def->dtype, a.in(4).data.data(), 0) : 0.0;
  const bool center = a.attr_int(0) != 0;
  struct Box {
    double y1, x1, y2, x2;
  };
  auto box = [&](std::size_t b, std::size_t i) {
    double c[4];
    for (std::size_t k = 0; k < 4; ++k) c[k] = get(boxes.def->dtype, boxes.data.data(), (b * S + i) * 4 + k);
    if (center) return Box{c[1] - c[3] / 2, c[0] - c[2] / 2, c[1] + c[3] / 2, c[0] + c[2] / 2};
    return Box{std::min(c[0], c[2]), std::min(c[1], c[3]), std::max(c[0], c[2]), std::max(c[1], c[3])};
  };
  auto iou = [](const Box& p, const Box& q) {
    const double ap = (p.y2 - p.y1) * (p.x2 - p.x1), aq = (q.y2 - q.y1) * (q.x2 - q.x1);
    if (ap <= 0 || aq <= 0) return 0.0;
    const double ih = std::max(0.0, std::min(p.y2, q.y2) - std::max(p.y1, q.y1)),
                 iw = std::max(0.0, std::min(p.x2, q.x2) - std::max(p.x1, q.x1));
    const double inter = ih * iw;
    return inter / (ap + aq - inter);
  };
  std::vector<std::int64_t> rows;
  for (std::size_t b = 0; b < B && max_out > 0; ++b)
    for (std::size_t k = 0; k < K; ++k) {
      std::vector<std::pair<double, std::size_t>> cand;
      for (std::size_t i = 0; i < S; ++i) {
        const double sc = get(scores.def->dtype, scores.data.data(), (b * K + k) * S + i);
        if (!has_score_t || sc > score_t) cand.emplace_back(sc, i);
      }
      std::stable_sort(cand.begin(), cand.end(), [](const auto& l, const auto& r) { return l.first > r.first; });
      std::vector<std::size_t> kept;
      for (const auto& [sc, i] : cand) {
        if (static_cast<std::int64_t>(kept.size()) >= max_out) break;
        const Box bi = box(b, i);
        bool keep = true;
        for (std::size_t j : kept)
          if (iou(bi, box(b, j)) > iou_t) keep = false;
        if (!keep) continue;
        kept.push_back(i);
        rows.insert(rows.end(),
                    {static_cast<std::int64_t>(b), static_cast<std::int64_t>(k), static_cast<std::int64_t>(i)});
      }
    }
  if (rows.size() != v.declared->element_count()) return false;
  for (std::size_t i = 0; i < rows.size(); ++i) store_int(v.declared->dtype, out.data(), i, rows[i]);
  return true;
}

/// RoiAlign(coordinate_transformation_mode, mode, output_height, output_width, sampling_ratio,
/// spatial_scale; X, rois, batch_indices): per region (x1, y1, x2, y2 times spatial_scale, less
/// 0.5 in mode half_pixel; at least 1 x 1 in output_half_pixel) an output_height x output_width
/// grid of bins, each the average (mode avg) or maximum (max: of each sample's largest weighted
/// corner, as ONNX Runtime) of sampling_ratio^2 bilinear samples (0: ceil(bin size) per axis).
inline bool roi_align(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 3 || !a.inputs_have_data()) return false;
  const ValueView &X = a.in(0), &rois = a.in(1);
  if (X.def->rank != 4 || rois.def->rank != 2 || rois.def->dims[1] != 4) return false;
  const bool half_pixel = a.attr_int(0) == 0, is_max = a.attr_int(1) == 1;
  const auto PH = static_cast<std::size_t>(a.attr_int(2)), PW = static_cast<std::size_t>(a.attr_int(3));
  const std::int64_t ratio = a.attr_int(4);
  const double scale = a.attr_scalar(5);
  const std::size_t C = X.def->dims[1], H = X.def->dims[2], W = X.def->dims[3], R = rois.def->dims[0];
  if (R * C * PH * PW != v.declared->element_count()) return false;
  const auto batch = a.input_ints(2);
  if (batch.size() != R) return false;
  const double off = half_pixel ? 0.5 : 0.0;
  for (std::size_t r = 0; r < R; ++r) {
    auto roi = [&](std::size_t k) { return get(rois.def->dtype, rois.data.data(), r * 4 + k) * scale - off; };
    const double x1 = roi(0), y1 = roi(1);
    double rw = roi(2) - x1, rh = roi(3) - y1;
    if (!half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bh = rh / static_cast<double>(PH), bw = rw / static_cast<double>(PW);
    const auto gh = static_cast<std::size_t>(
        ratio > 0 ? ratio : static_cast<std::int64_t>(std::ceil(rh / static_cast<double>(PH))));
    const auto gw = static_cast<std::size_t>(
        ratio > 0 ? ratio : static_cast<std::int64_t>(std::ceil(rw / static_cast<double>(PW))));
    const double cnt = static_cast<double>(std::max<std::size_t>(gh * gw, 1));
    if (batch[r] < 0 || static_cast<std::size_t>(batch[r]) >= X.def->dims[0]) return false;
    const std::size_t n = static_cast<std::size_t>(batch[r]);
    for (std::size_t c = 0; c < C; ++c) {
      const std::size_t plane = (n * C + c) * H * W;
      auto px = [&](std::size_t yy, std::size_t xx) { return get(X.def->dtype, X.data.data(), plane + yy * W + xx); };
      for (std::size_t ph = 0; ph < PH; ++ph)
        for (std::size_t pw = 0; pw < PW; ++pw) {
          double acc = 0;
          bool first = true;
          for (std::size_t iy = 0; iy < gh; ++iy)
            for (std::size_t ix = 0; ix < gw; ++ix) {
              double y =
                  y1 + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
              double x =
                  x1 + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
              double w1 = 0, w2 = 0, w3 = 0, w4 = 0;
              std::size_t yl = 0, yh = 0, xl = 0, xh = 0;
              const bool outside = y < -1.0 || y > static_cast<double>(H) || x < -1.0 || x > static_cast<double>(W);
              if (!outside) {
                y = std::max(y, 0.0);
                x = std::max(x, 0.0);
                yl = static_cast<std::size_t>(y);
                xl = static_cast<std::size_t>(x);
                if (yl >= H - 1)
                  yh = yl = H - 1, y = static_cast<double>(yl);
                else
                  yh = yl + 1;
                if (xl >= W - 1)
                  xh = xl = W - 1, x = static_cast<double>(xl);
                else
                  xh = xl + 1;
                const double ly = y - static_cast<double>(yl), lx = x - static_cast<double>(xl), hy = 1 - ly,
                             hx = 1 - lx;
                w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
              }
              const double v1 = w1 * px(yl, xl), v2 = w2 * px(yl, xh), v3 = w3 * px(yh, xl), v4 = w4 * px(yh, xh);
              if (is_max) {
                const double m = std::max(std::max(v1, v2), std::max(v3, v4));
                acc = first ? m : std::max(acc, m);
                first = false;
              } else {
                acc += v1 + v2 + v3 + v4;
              }
            }
          put(v.declared->dtype, out.data(), ((r * C + c) * PH + ph) * PW + pw, is_max ? acc : acc / cnt);
        }
    }
  }
  return true;
}

/// MaxRoiPool(pooled_shape, spatial_scale; X, rois): per region (batch, x1, y1, x2, y2, rounded
/// after spatial_scale) the maximum over each of pooled_shape's bins (empty bins: 0).
inline bool max_roi_pool(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 2 || !a.inputs_have_data()) return false;
  const ValueView &X = a.in(0), &rois = a.in(1);
  const auto pooled = a.attr_ints(0);
  if (X.def->rank != 4 || rois.def->rank != 2 || rois.def->dims[1] != 5 || pooled.size() != 2) return false;
  const double scale = a.attr_scalar(1);
  const std::size_t C = X.def->dims[1], H = X.def->dims[2], W = X.def->dims[3], R = rois.def->dims[0];
  const auto PH = static_cast<std::size_t>(pooled[0]), PW = static_cast<std::size_t>(pooled[1]);
  if (R * C * PH * PW != v.declared->element_count()) return false;
  for (std::size_t r = 0; r < R; ++r) {
    auto roi = [&](std::size_t k) { return get(rois.def->dtype, rois.data.data(), r * 5 + k); };
    const auto n = static_cast<std::size_t>(roi(0));
    const auto x1 = static_cast<std::int64_t>(std::round(roi(1) * scale)),
               y1 = static_cast<std::int64_t>(std::round(roi(2) * scale));
    const auto x2 = static_cast<std::int64_t>(std::round(roi(3) * scale)),
               y2 = static_cast<std::int64_t>(std::round(roi(4) * scale));
    const double rh = static_cast<double>(std::max<std::int64_t>(y2 - y1 + 1, 1)),
                 rw = static_cast<double>(std::max<std::int64_t>(x2 - x1 + 1, 1));
    if (n >= X.def->dims[0]) return false;
    for (std::size_t c = 0; c < C; ++c)
      for (std::size_t ph = 0; ph < PH; ++ph)
        for (std::size_t pw = 0; pw < PW; ++pw) {
          auto lo = [](double v, std::int64_t o, std::size_t lim) {
            return static_cast<std::size_t>(std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(v)) + o, 0,
                                                                     static_cast<std::int64_t>(lim)));
          };
          auto hi = [](double v, std::int64_t o, std::size_t lim) {
            return static_cast<std::size_t>(std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(v)) + o, 0,
                                                                     static_cast<std::int64_t>(lim)));
          };
          const std::size_t hs = lo(static_cast<double>(ph) * rh / static_cast<double>(PH), y1, H),
                            he = hi(static_cast<double>(ph + 1) * rh / static_cast<double>(PH), y1, H);
          const std::size_t ws = lo(static_cast<double>(pw) * rw / static_cast<double>(PW), x1, W),
                            we = hi(static_cast<double>(pw + 1) * rw / static_cast<double>(PW), x1, W);
          double m = he <= hs || we <= ws ? 0.0 : -std::numeric_limits<double>::infinity();
          for (std::size_t yy = hs; yy < he; ++yy)
            for (std::size_t xx = ws; xx < we; ++xx)
              m = std::max(m, get(X.def->dtype, X.data.data(), ((n * C + c) * H + yy) * W + xx));
          put(v.declared->dtype, out.data(), ((r * C + c) * PH + ph) * PW + pw, m);
        }
  }
  return true;
}

/// GridSample(align_corners, mode, padding_mode; X, grid): output [N, C, Ho, Wo] sampled from
/// X [N, C, H, W] at grid [N, Ho, Wo, (x, y)] in [-1, 1] (align_corners: -1 and 1 are the corner
/// pixels' centres, else their outer edges): bilinear, nearest (halves to even) or bicubic (A =
/// -0.75); outside pixels are 0 (zeros), the nearest edge pixel (border) or mirrored (reflection).
inline bool grid_sample(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 2 || !a.inputs_have_data()) return false;
  const ValueView &X = a.in(0), &grid = a.in(1);
  if (X.def->rank != 4 || grid.def->rank != 4 || grid.def->dims[3] != 2 || grid.def->dims[0] != X.def->dims[0])
    return false;
  const bool align = a.attr_int(0) != 0;
  const auto mode = a.attr_int(1), padding = a.attr_int(2);  // bilinear, nearest, bicubic; zeros, border, reflection
  const std::size_t N = X.def->dims[0], C = X.def->dims[1], H = X.def->dims[2], W = X.def->dims[3];
  const std::size_t Ho = grid.def->dims[1], Wo = grid.def->dims[2];
  if (N * C * Ho * Wo != v.declared->element_count()) return false;
  auto unnormalize = [&](double c, std::size_t size) {
    return align ? (c + 1) / 2 * static_cast<double>(size - 1) : ((c + 1) * static_cast<double>(size) - 1) / 2;
  };
  auto reflect = [](double c, double twice_lo, double twice_hi) {
    if (twice_lo == twice_hi) return 0.0;
    const double lo = twice_lo / 2, span = (twice_hi - twice_lo) / 2;
    c = std::fabs(c - lo);
    const double extra = std::fmod(c, span);
    const auto flips = static_cast<std::int64_t>(std::floor(c / span));
    return flips % 2 == 0 ? extra + lo : span - extra + lo;
  };
  // A coordinate moved inside by the padding mode (border, reflection); zeros leaves it.
  auto pad_coord = [&](double c, std::size_t size) {
    const double hi = static_cast<double>(size - 1);
    if (padding == 1) return std::clamp(c, 0.0, hi);
    if (padding == 2) {
      c = align ? reflect(c, 0, 2 * hi) : reflect(c, -1, 2 * static_cast<double>(size) - 1);
      return std::clamp(c, 0.0, hi);
    }
    return c;
  };
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t c = 0; c < C; ++c) {
      const std::size_t plane = (n * C + c) * H * W;
      auto px = [&](std::int64_t yy, std::int64_t xx) {
        if (yy < 0 || xx < 0 || yy >= static_cast<std::int64_t>(H) || xx >= static_cast<std::int64_t>(W)) return 0.0;
        return get(X.def->dtype, X.data.data(),
                   plane + static_cast<std::size_t>(yy) * W + static_cast<std::size_t>(xx));
      };
      for (std::size_t i = 0; i < Ho * Wo; ++i) {
        const std::size_t g = (n * Ho * Wo + i) * 2;
        double x = unnormalize(get(grid.def->dtype, grid.data.data(), g), W),
               y = unnormalize(get(grid.def->dtype, grid.data.data(), g + 1), H);
        double r = 0;
        if (mode == 2) {  // bicubic: each of the 16 taps moved inside by the padding mode
          const double fx = std::floor(x), fy = std::floor(y), tx = x - fx, ty = y - fy;
          auto cubic = [](double t) {
            constexpr double A = -0.75;
            auto near = [](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };
            auto far = [](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };
            return std::array<double, 4>{far(t + 1), near(t), near(1 - t), far(2 - t)};
          };
          const auto wx = cubic(tx), wy = cubic(ty);
          for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 4; ++k) {
              double yy = fy - 1 + j, xx = fx - 1 + k;
              if (padding != 0) {
                yy = pad_coord(yy, H);
                xx = pad_coord(xx, W);
              }
              r += wy[static_cast<std::size_t>(j)] * wx[static_cast<std::size_t>(k)] *
                   px(static_cast<std::int64_t>(yy), static_cast<std::int64_t>(xx));
            }
        } else {
          x = pad_coord(x, W);
          y = pad_coord(y, H);
          if (mode == 1) {
            r = px(static_cast<std::int64_t>(std::nearbyint(y)), static_cast<std::int64_t>(std::nearbyint(x)));
          } else {
            const double fx = std::floor(x), fy = std::floor(y), tx = x - fx, ty = y - fy;
            const auto x0 = static_cast<std::int64_t>(fx), y0 = static_cast<std::int64_t>(fy);
            r = (1 - ty) * ((1 - tx) * px(y0, x0) + tx * px(y0, x0 + 1)) +
                ty * ((1 - tx) * px(y0 + 1, x0) + tx * px(y0 + 1, x0 + 1));
          }
        }
        put(v.declared->dtype, out.data(), (n * C + c) * Ho * Wo + i, r);
      }
    }
  return true;
}

}  // namespace optgrammar::ops::onnx_eval
