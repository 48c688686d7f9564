// Reference evaluation of the imported ONNX recurrent ops RNN, GRU and LSTM (onnx.hpp's table),
// with ONNX's equations: forward, reverse or bidirectional, sequence lengths per batch entry,
// initial states, peepholes, clipping, every activation function ONNX names, both layouts.
// Computed in double, stored in the output's dtype.
#pragma once

#include "optgrammar/ops/onnx_eval_tensor.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace optgrammar::ops::onnx_eval {

/// The activation functions, in the order of the attribute's choice list.
inline constexpr std::string_view rnn_activations =
    "Relu,Tanh,Sigmoid,Affine,LeakyRelu,ThresholdedRelu,ScaledTanh,HardSigmoid,Elu,Softsign,Softplus";
enum class Act : int {
  relu,
  tanh,
  sigmoid,
  affine,
  leaky_relu,
  thresholded_relu,
  scaled_tanh,
  hard_sigmoid,
  elu,
  softsign,
  softplus
};

struct Activation {
  Act f = Act::tanh;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    switch (f) {
      case Act::relu: return x > 0 ? x : 0;
      case Act::tanh: return std::tanh(x);
      case Act::sigmoid: return 1 / (1 + std::exp(-x));
      case Act::affine: return alpha * x + beta;
      case Act::leaky_relu: return x >= 0 ? x : alpha * x;
      case Act::thresholded_relu: return x > alpha ? x : 0;
      case Act::scaled_tanh: return alpha * std::tanh(beta * x);
      case Act::hard_sigmoid: return std::clamp(alpha * x + beta, 0.0, 1.0);
      case Act::elu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
      case Act::softsign: return x / (1 + std::fabs(x));
      case Act::softplus: return std::log1p(std::exp(x));
    }
    return x;
  }
};

/// The activation functions from the attributes (activation_alpha, activation_beta,
/// activations: operands 0 to 2), `per_dir` per direction, defaulting to `defaults`; alpha and
/// beta are taken in order by the functions that use them, else ONNX's defaults of the op of
/// that name.
inline std::vector<Activation> read_activations(const Args& a, std::size_t per_dir, std::size_t dirs,
                                                std::vector<Act> defaults) {
  const auto alphas = a.attr_values(0), betas = a.attr_values(1);
  const auto names = a.attr_ints(2);
  std::vector<Activation> acts;
  std::size_t ai = 0, bi = 0;
  for (std::size_t k = 0; k < per_dir * dirs; ++k) {
    Activation f;
    f.f = names.size() == per_dir * dirs ? static_cast<Act>(names[k]) : defaults[k % per_dir];
    double da = 0, db = 0;
    bool uses_a = true, uses_b = false;
    switch (f.f) {
      case Act::affine: da = 1, db = 0, uses_b = true; break;
      case Act::leaky_relu: da = 0.01; break;
      case Act::thresholded_relu: da = 1; break;
      case Act::scaled_tanh: da = 1, db = 1, uses_b = true; break;
      case Act::hard_sigmoid: da = 0.2, db = 0.5, uses_b = true; break;
      case Act::elu: da = 1; break;
      default: uses_a = false;
    }
    f.alpha = uses_a && ai < alphas.size() ? alphas[ai++] : da;
    f.beta = uses_b && bi < betas.size() ? betas[bi++] : db;
    acts.push_back(f);
  }
  return acts;
}

enum class Cell { rnn, gru, lstm };

/// RNN / GRU / LSTM. Attributes: activation_alpha, activation_beta, activations, clip, direction,
/// hidden_size, then input_forget (LSTM) or linear_before_reset (GRU), layout, output. Inputs: X,
/// W, R, B, sequence_lens, initial_h, and for LSTM initial_c and P. Output 0 Y, 1 Y_h, 2 Y_c.
template <Cell K>
bool recurrent(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() < 3 || !a.inputs_have_data()) return false;
  constexpr std::size_t gates = K == Cell::rnn ? 1 : K == Cell::gru ? 3 : 4;
  constexpr std::size_t extra = K == Cell::rnn ? 0 : 1;  // input_forget / linear_before_reset
  const double clip = a.has_attr(3) ? a.attr_scalar(3) : 0;
  const auto direction = a.attr_int(4);
  const std::size_t dirs = direction == 2 ? 2 : 1;
  const bool option = extra && a.attr_int(6) != 0, batch_first = a.attr_int(6 + extra) != 0;
  const auto which = a.attr_int(7 + extra);
  const ValueView &X = a.in(0), &W = a.in(1), &R = a.in(2);
  if (X.def->rank != 3 || W.def->rank != 3 || R.def->rank != 3 || W.def->dims[0] != dirs) return false;
  const std::size_t T = X.def->dims[batch_first ? 1 : 0], Bn = X.def->dims[batch_first ? 0 : 1], I = X.def->dims[2];
  const std::size_t H = R.def->dims[2];
  if (W.def->dims[1] != gates * H || W.def->dims[2] != I || R.def->dims[1] != gates * H) return false;
  const std::vector<double> x = values_of(X), w = values_of(W), r = values_of(R);
  const std::vector<double> b = a.present(3) ? values_of(a.in(3)) : std::vector<double>(dirs * 2 * gates * H, 0.0);
  if (b.size() != dirs * 2 * gates * H) return false;
  std::vector<std::int64_t> lens =
      a.present(4) ? a.input_ints(4) : std::vector<std::int64_t>(Bn, static_cast<std::int64_t>(T));
  if (lens.size() != Bn) return false;
  // States are [dirs][batch][H] here; layout 1 stores them [batch][dirs][H].
  auto state_at = [&](std::size_t d, std::size_t n, std::size_t h) {
    return batch_first ? (n * dirs + d) * H + h : (d * Bn + n) * H + h;
  };
  std::vector<double> h0(dirs * Bn * H, 0.0), c0(dirs * Bn * H, 0.0), peep(dirs * 3 * H, 0.0);
  if (a.present(5)) {
    const auto v5 = values_of(a.in(5));
    if (v5.size() != h0.size()) return false;
    for (std::size_t d = 0; d < dirs; ++d)
      for (std::size_t n = 0; n < Bn; ++n)
        for (std::size_t h = 0; h < H; ++h) h0[(d * Bn + n) * H + h] = v5[state_at(d, n, h)];
  }
  if (K == Cell::lstm && a.present(6)) {
    const auto v6 = values_of(a.in(6));
    if (v6.size() != c0.size()) return false;
    for (std::size_t d = 0; d < dirs; ++d)
      for (std::size_t n = 0; n < Bn; ++n)
        for (std::size_t h = 0; h < H; ++h) c0[(d * Bn + n) * H + h] = v6[state_at(d, n, h)];
  }
  if (K == Cell::lstm && a.present(7)) {
    peep = values_of(a.in(7));
    if (peep.size() != dirs * 3 * H) return false;
  }
  const std::size_t per_dir = K == Cell::rnn ? 1 : K == Cell::gru ? 2 : 3;
  const auto acts = read_activations(a, per_dir, dirs,
                                     K == Cell::rnn   ? std::vector<Act>{Act::tanh}
                                     : K == Cell::gru ? std::vector<Act>{Act::sigmoid, Act::tanh}
                                                      : std::vector<Act>{Act::sigmoid, Act::tanh, Act::tanh});
  auto clipped = [&](double z) { return clip > 0 ? std::clamp(z, -clip, clip) : z; };
  std::vector<double> Y(T * dirs * Bn * H, 0.0), Yh = h0, Yc = c0;
  std::vector<double> pre(gates * H);
  for (std::size_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == 1 || d == 1;
    const double* wd = w.data() + d * gates * H * I;
    const double* rd = r.data() + d * gates * H * H;
    const double* wb = b.data() + d * 2 * gates * H;
    const double* rb = wb + gates * H;
    const Activation *f = &acts[d * per_dir], *g = per_dir > 1 ? &acts[d * per_dir + 1] : f,
                     *hh = per_dir > 2 ? &acts[d * per_dir + 2] : f;
    for (std::size_t n = 0; n < Bn; ++n) {
      const auto len = static_cast<std::size_t>(std::clamp<std::int64_t>(lens[n], 0, static_cast<std::int64_t>(T)));
      double* hs = Yh.data() + (d * Bn + n) * H;
      double* cs = Yc.data() + (d * Bn + n) * H;
      std::vector<double> hprev(hs, hs + H), hnew(H);
      for (std::size_t s = 0; s < len; ++s) {
        const std::size_t t = reverse ? len - 1 - s : s;
        const double* xt = x.data() + (batch_first ? n * T + t : t * Bn + n) * I;
        // x W^T + W bias, and for all but GRU's candidate h R^T + R bias.
        for (std::size_t j = 0; j < gates * H; ++j) {
          double z = wb[j];
          for (std::size_t k = 0; k < I; ++k) z += xt[k] * wd[j * I + k];
          pre[j] = z;
        }
        auto rec = [&](std::size_t j, const double* hv) {
          double z = 0;
          for (std::size_t k = 0; k < H; ++k) z += hv[k] * rd[j * H + k];
          return z;
        };
        if constexpr (K == Cell::rnn) {
          for (std::size_t j = 0; j < H; ++j) hnew[j] = (*f)(clipped(pre[j] + rec(j, hprev.data()) + rb[j]));
        } else if constexpr (K == Cell::gru) {
          std::vector<double> zg(H), rg(H), rh(H);
          for (std::size_t j = 0; j < H; ++j) {
            zg[j] = (*f)(clipped(pre[j] + rec(j, hprev.data()) + rb[j]));
            rg[j] = (*f)(clipped(pre[H + j] + rec(H + j, hprev.data()) + rb[H + j]));
          }
          for (std::size_t j = 0; j < H; ++j) rh[j] = rg[j] * hprev[j];
          for (std::size_t j = 0; j < H; ++j) {
            const double cand = option ? pre[2 * H + j] + rg[j] * (rec(2 * H + j, hprev.data()) + rb[2 * H + j])
                                       : pre[2 * H + j] + rec(2 * H + j, rh.data()) + rb[2 * H + j];
            const double ht = (*g)(clipped(cand));
            hnew[j] = (1 - zg[j]) * ht + zg[j] * hprev[j];
          }
        } else {
          const double* p = peep.data() + d * 3 * H;
          for (std::size_t j = 0; j < H; ++j) {
            const double it = (*f)(clipped(pre[j] + rec(j, hprev.data()) + rb[j] + p[j] * cs[j]));
            const double ft = option ? 1 - it
                                     : (*f)(clipped(pre[2 * H + j] + rec(2 * H + j, hprev.data()) + rb[2 * H + j] +
                                                    p[2 * H + j] * cs[j]));
            const double ct = (*g)(clipped(pre[3 * H + j] + rec(3 * H + j, hprev.data()) + rb[3 * H + j]));
            const double c = ft * cs[j] + it * ct;
            const double ot = (*f)(clipped(pre[H + j] + rec(H + j, hprev.data()) + rb[H + j] + p[H + j] * c));
            cs[j] = c;
            hnew[j] = ot * (*hh)(c);
          }
        }
        hprev = hnew;
        // Y is [T, dirs, batch, H], with layout 1 [batch, T, dirs, H].
        const std::size_t row = batch_first ? (n * T + t) * dirs + d : (t * dirs + d) * Bn + n;
        std::copy(hnew.begin(), hnew.end(), Y.begin() + static_cast<std::ptrdiff_t>(row * H));
      }
      std::copy(hprev.begin(), hprev.end(), hs);
    }
  }
  const OutputDef& o = *v.declared;
  if (which == 0) {
    if (o.element_count() != Y.size()) return false;
    for (std::size_t i = 0; i < Y.size(); ++i) put(o.dtype, out.data(), i, Y[i]);
    return true;
  }
  const std::vector<double>& s = which == 1 ? Yh : Yc;
  if (o.element_count() != s.size() || (which == 2 && K != Cell::lstm)) return false;
  for (std::size_t d = 0; d < dirs; ++d)
    for (std::size_t n = 0; n < Bn; ++n)
      for (std::size_t h = 0; h < H; ++h) put(o.dtype, out.data(), state_at(d, n, h), s[(d * Bn + n) * H + h]);
  return true;
}

}  // namespace optgrammar::ops::onnx_eval
