// Random semantic checks of the lowering package's domain rules (examples/htp_lowering/: common.cpp,
// cnn.cpp, transformer.cpp, quantized.cpp, speech.cpp): graphs of imported ONNX ops (`onnx.*`,
// operands as the importer makes them: the attributes as constants, then the inputs;
// include/optgrammar/ops/onnx.hpp) in the spellings exporters write, lowered by the whole package,
// checked by the interpreter before and after. Each motif has variants (operand orders, optional
// parts) and near misses (a constant off, another axis) that must stay correct without firing.
//
// Tolerance: the fused ops compute in double and round once where the ONNX ops round after each
// step (1e-4 relative plus 1e-4 absolute: values stay within about 50). The quantized package's
// integer kernels requantize with fixed-point multipliers where ONNX's QDQ form computes in float,
// so its outputs may differ by a few quantization steps (its own tolerance below).
#include "motifs.hpp"
#include "package_test.hpp"
#include "why_not_check.hpp"

#include <limits>

using namespace semantic;

namespace {

// ---- building blocks ----------------------------------------------------------------------------

OutputDef f32_of(const std::vector<std::size_t>& dims) {
  OutputDef d = OutputDef::make(DType::Float32, {});
  d.rank = static_cast<std::uint32_t>(dims.size());
  std::copy(dims.begin(), dims.end(), d.dims.begin());
  return d;
}
std::vector<std::size_t> dims_of(const OutputDef& d) { return {d.dims.begin(), d.dims.begin() + d.rank}; }
OpRef i32s(Graph& g, const std::vector<std::int32_t>& v) {
  return g.add_const(OutputDef::make(DType::Int32, {v.size()}), std::span<const std::int32_t>(v));
}
OpRef i64s(Graph& g, const std::vector<std::int64_t>& v) {
  return g.add_const(OutputDef::make(DType::Int64, {v.size()}), std::span<const std::int64_t>(v));
}
OpRef f32c(Graph& g, const std::vector<float>& v, std::vector<std::size_t> dims = {}) {
  if (dims.empty()) dims = {v.size()};
  return g.add_const(f32_of(dims), std::span<const float>(v));
}
OpRef scalar_f(Graph& g, float x) { return f32c(g, {x}); }
OpRef scalar_i(Graph& g, std::int32_t x) { return i32s(g, {x}); }
OpRef none(Graph& g) { return f32c(g, {}, {0}); }
/// An absent index input (axes, split, pads: Int64 in ONNX).
OpRef no_index(Graph& g) { return i64s(g, {}); }
OpRef op_of(Graph& g, std::string_view name, const std::vector<OpRef>& operands, const OutputDef& d) {
  return g.add_op(intern_op_name(name), std::span<const OpRef>(operands), d);
}
/// A binary ONNX op, its operands in the given order or swapped.
OpRef bin(Graph& g, std::string_view name, OpRef a, OpRef b, bool swap, const OutputDef& d) {
  return op_of(g, name, swap ? std::vector<OpRef>{b, a} : std::vector<OpRef>{a, b}, d);
}
OpRef unary(Graph& g, std::string_view name, OpRef x) { return g.add_op(name, {x}, g.output(x)); }
/// onnx.Reshape of x to d, its shape input the dims (Int64).
OpRef reshape(Graph& g, OpRef x, const OutputDef& d) {
  std::vector<std::int64_t> s(d.dims.begin(), d.dims.begin() + d.rank);
  return g.add_op("onnx.Reshape", {scalar_i(g, 0), x, i64s(g, s)}, d);
}
/// Values within [lo, hi).
std::vector<float> uniform(std::mt19937_64& rng, std::size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (float& x : v) x = lo + (hi - lo) * static_cast<float>(rng() % 4096) / 4096.0f;
  return v;
}
/// onnx.ReduceMean over the given axes, dims kept (axes as the attribute).
OpRef reduce_mean(Graph& g, OpRef x, std::vector<std::int32_t> axes, bool keep = true) {
  auto d = dims_of(g.output(x));
  const auto r = static_cast<std::int32_t>(d.size());
  std::vector<std::size_t> o;
  for (std::int32_t k = 0; k < r; ++k) {
    const bool red = std::find(axes.begin(), axes.end(), k) != axes.end() ||
                     std::find(axes.begin(), axes.end(), k - r) != axes.end();
    if (!red)
      o.push_back(d[static_cast<std::size_t>(k)]);
    else if (keep)
      o.push_back(1);
  }
  return g.add_op("onnx.ReduceMean", {i32s(g, axes), scalar_i(g, keep), scalar_i(g, 0), x, no_index(g)}, f32_of(o));
}
/// onnx.Slice of x along `axis` from b to e (Int64 inputs, as opset 10 and later).
OpRef slice(Graph& g, OpRef x, std::int64_t b, std::int64_t e, std::int64_t axis) {
  auto d = dims_of(g.output(x));
  const std::size_t ax = static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(d.size()) : axis);
  const auto n = static_cast<std::int64_t>(d[ax]);
  const std::int64_t s = std::clamp<std::int64_t>(b < 0 ? b + n : b, 0, n),
                     t = std::clamp<std::int64_t>(e < 0 ? e + n : e, 0, n);
  d[ax] = static_cast<std::size_t>(std::max<std::int64_t>(0, t - s));
  return g.add_op("onnx.Slice",
                  {i32s(g, {}), i32s(g, {}), i32s(g, {}), x, i64s(g, {b}), i64s(g, {e}), i64s(g, {axis}), i64s(g, {1})},
                  f32_of(d));
}

// ---- transformers ---------------------------------------------------------------------------------

enum TfKind { tf_layer_norm, tf_layer_norm_op, tf_rms_norm, tf_gelu, tf_attention, tf_rope, tf_n_kinds };

/// LayerNorm's ReduceMean/Sub/Pow/Sqrt/Div form (variant bits: 1 square by Mul, 2 gamma, 4 beta,
/// 8 operands swapped; near miss: the second mean over another axis).
OpRef layer_norm_decomposed(Graph& g, OpRef x, int variant, bool miss, std::mt19937_64& rng) {
  const OutputDef d = g.output(x);
  const std::size_t D = d.dims[d.rank - 1];
  OpRef d0 = g.add_op("onnx.Sub", {x, reduce_mean(g, x, {-1})}, d);
  OpRef sq = variant & 1 ? g.add_op("onnx.Mul", {d0, d0}, d) : g.add_op("onnx.Pow", {d0, scalar_f(g, 2.0f)}, d);
  OpRef var = reduce_mean(g, sq, {miss && d.rank > 1 ? 0 : -1});
  OutputDef vd = g.output(var);
  OpRef s = unary(g, "onnx.Sqrt", g.add_op("onnx.Add", {var, scalar_f(g, 1e-5f)}, vd));
  OpRef y = g.add_op("onnx.Div", {d0, s}, d);
  const bool swap = variant & 8;
  if (variant & 2) y = bin(g, "onnx.Mul", y, f32c(g, uniform(rng, D, 0.5f, 1.5f)), swap, d);
  if (variant & 4) y = bin(g, "onnx.Add", y, f32c(g, uniform(rng, D, -0.5f, 0.5f)), !swap, d);
  return y;
}

/// RMSNorm: x / sqrt(mean(x^2) + eps) in its spellings (variant % 5), squared by Pow or Mul
/// (bit 8), scaled by a weight or not (bit 16).
OpRef rms_norm(Graph& g, OpRef x, int variant, bool miss, std::mt19937_64& rng) {
  const OutputDef d = g.output(x);
  const std::size_t D = d.dims[d.rank - 1];
  OpRef sq =
      variant & 8 ? g.add_op("onnx.Mul", {x, x}, d) : g.add_op("onnx.Pow", {x, scalar_f(g, miss ? 3.0f : 2.0f)}, d);
  OpRef ms = reduce_mean(g, sq, {-1});
  const OutputDef md = g.output(ms);
  OpRef s = unary(g, "onnx.Sqrt", g.add_op("onnx.Add", {ms, scalar_f(g, 1e-6f)}, md));
  OpRef y;
  switch (variant % 5) {
    case 0: y = g.add_op("onnx.Div", {x, s}, d); break;
    case 1: y = g.add_op("onnx.Mul", {x, g.add_op("onnx.Div", {scalar_f(g, 1.0f), s}, md)}, d); break;
    case 2: y = g.add_op("onnx.Mul", {g.add_op("onnx.Div", {scalar_f(g, 1.0f), s}, md), x}, d); break;
    case 3: y = g.add_op("onnx.Mul", {x, unary(g, "onnx.Reciprocal", s)}, d); break;
    default: y = g.add_op("onnx.Mul", {unary(g, "onnx.Reciprocal", s), x}, d); break;
  }
  if (variant & 16) y = bin(g, "onnx.Mul", y, f32c(g, uniform(rng, D, 0.5f, 1.5f)), variant & 32, d);
  return y;
}

/// GELU: the erf form in its three groupings (variant % 3; 1 + erf either order: bit 4) or the
/// tanh form (bit 8: PyTorch's x * (x * x); bit 16 with it: Pow(x, 3) as HuggingFace writes it).
OpRef gelu(Graph& g, OpRef x, int variant, bool miss) {
  const OutputDef d = g.output(x);
  if (variant & 8) {
    const bool hf = variant & 16;
    OpRef cube = hf ? g.add_op("onnx.Pow", {x, scalar_f(g, 3.0f)}, d)
                    : g.add_op("onnx.Mul", {x, g.add_op("onnx.Mul", {x, x}, d)}, d);
    OpRef inner = g.add_op("onnx.Mul",
                           {scalar_f(g, 0.7978845608f),
                            g.add_op("onnx.Add", {x, g.add_op("onnx.Mul", {scalar_f(g, 0.044715f), cube}, d)}, d)},
                           d);
    OpRef t = g.add_op("onnx.Add", {scalar_f(g, 1.0f), unary(g, "onnx.Tanh", inner)}, d);
    if (hf) return g.add_op("onnx.Mul", {g.add_op("onnx.Mul", {scalar_f(g, miss ? 0.4f : 0.5f), x}, d), t}, d);
    return g.add_op("onnx.Mul", {scalar_f(g, miss ? 0.4f : 0.5f), g.add_op("onnx.Mul", {x, t}, d)}, d);
  }
  OpRef e = unary(g, "onnx.Erf", g.add_op("onnx.Div", {x, scalar_f(g, miss ? 1.5f : 1.4142135f)}, d));
  OpRef one_e = bin(g, "onnx.Add", e, scalar_f(g, 1.0f), variant & 4, d);
  OpRef half = scalar_f(g, 0.5f);
  switch (variant % 3) {
    case 0: return g.add_op("onnx.Mul", {g.add_op("onnx.Mul", {x, one_e}, d), half}, d);
    case 1: return g.add_op("onnx.Mul", {g.add_op("onnx.Mul", {x, half}, d), one_e}, d);
    default: return g.add_op("onnx.Mul", {half, g.add_op("onnx.Mul", {x, one_e}, d)}, d);
  }
}

/// Softmax(Q K^T (scaled) (+ mask)) V with Q [B, H, S, d] (or [B*H, S, d]: bit 64), K^T made by a
/// transpose of K; scale by Div, Mul or Mul swapped (variant % 4: 0 none), mask added (bit 4,
/// swapped: bit 8; per head: bit 16); near miss: the softmax over another axis.
OpRef attention(Graph& g, const Motif& m, Builder& b, std::mt19937_64& rng) {
  const bool rank3 = m.variant & 64, miss = m.dims[3] % 5 == 0;
  const std::size_t B = 1 + m.dims[0] % 2, H = 1 + m.dims[1] % 3, S = 1 + m.dims[2] % 5, D = 1 + m.dims[3] % 4, T = S;
  auto shape = [&](std::size_t x, std::size_t y) { return rank3 ? f32_of({B * H, x, y}) : f32_of({B, H, x, y}); };
  OpRef q = b.value(shape(S, D), m.share, rng()), k = b.value(shape(T, D), false, 0),
        v = b.value(shape(T, D), false, 0);
  OpRef kt = g.add_op("onnx.Transpose", {rank3 ? i32s(g, {0, 2, 1}) : i32s(g, {0, 1, 3, 2}), k}, shape(D, T));
  OpRef s = g.add_op("onnx.MatMul", {q, kt}, shape(S, T));
  const OutputDef sd = g.output(s);
  switch (m.variant % 4) {
    case 1: s = g.add_op("onnx.Div", {s, scalar_f(g, 2.0f)}, sd); break;
    case 2: s = g.add_op("onnx.Mul", {s, scalar_f(g, 0.5f)}, sd); break;
    case 3: s = g.add_op("onnx.Mul", {scalar_f(g, 0.5f), s}, sd); break;
    default: break;
  }
  if (m.variant & 4) {
    std::vector<std::size_t> md = rank3 ? std::vector<std::size_t>{S, T} : std::vector<std::size_t>{1, 1, S, T};
    if (m.variant & 16) md = dims_of(sd);
    std::vector<float> mask(std::accumulate(md.begin(), md.end(), std::size_t{1}, std::multiplies<>()));
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = (i % T) > (i / T) % S ? -1e4f : 0.0f;
    s = bin(g, "onnx.Add", s, f32c(g, mask, md), m.variant & 8, sd);
  }
  OpRef p = g.add_op("onnx.Softmax", {scalar_i(g, miss ? -2 : -1), s}, sd);
  return g.add_op("onnx.MatMul", {p, v}, shape(S, D));
}

/// x cos + rotate_half(x) sin over the last axis of x [B, H, S, d] (d even), the products and the
/// sum in either order (variant bits 1, 2), the first half's start counted from the end (bit 4);
/// near miss: the halves swapped in the concatenation.
OpRef rope(Graph& g, OpRef x, int variant, bool miss, std::mt19937_64& rng) {
  const OutputDef d = g.output(x);
  const std::int64_t D = static_cast<std::int64_t>(d.dims[d.rank - 1]), h = D / 2;
  const std::vector<std::size_t> cd{1, 1, d.dims[2], d.dims[3]};
  OpRef cosv = f32c(g, uniform(rng, cd[2] * cd[3], -1.0f, 1.0f), cd),
        sinv = f32c(g, uniform(rng, cd[2] * cd[3], -1.0f, 1.0f), cd);
  OpRef hi = slice(g, x, variant & 4 ? -h : h, std::numeric_limits<std::int64_t>::max(), 3), lo = slice(g, x, 0, h, 3);
  OpRef neg = unary(g, "onnx.Neg", hi);
  OpRef cat =
      op_of(g, "onnx.Concat",
            miss ? std::vector<OpRef>{scalar_i(g, -1), lo, neg} : std::vector<OpRef>{scalar_i(g, -1), neg, lo}, d);
  OpRef a = bin(g, "onnx.Mul", x, cosv, variant & 1, d), r = bin(g, "onnx.Mul", cat, sinv, variant & 1, d);
  return bin(g, "onnx.Add", a, r, variant & 2, d);
}

void build_transformer(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  const bool miss = m.dims[0] % 7 == 6;
  const std::size_t D = 2 * (1 + m.dims[3] % 4);
  const OutputDef d3 = f32_of({1 + m.dims[0] % 2, 1 + m.dims[1] % 4, D});
  switch (m.kind) {
    case tf_layer_norm: b.output(layer_norm_decomposed(g, b.value(d3, m.share, rng()), m.variant, miss, rng)); break;
    case tf_layer_norm_op: {
      OpRef x = b.value(d3, m.share, rng());
      OpRef bias = m.variant & 1 ? f32c(g, uniform(rng, D, -0.5f, 0.5f)) : none(g);
      OpRef y = g.add_op("onnx.LayerNormalization",
                         {scalar_i(g, -1), scalar_f(g, 1e-5f), scalar_i(g, 1), scalar_i(g, 0), x,
                          f32c(g, uniform(rng, D, 0.5f, 1.5f)), bias},
                         d3);
      if (m.variant & 2) y = bin(g, "onnx.Mul", y, f32c(g, uniform(rng, D, 0.5f, 1.5f)), m.variant & 4, d3);
      if (m.variant & 8) y = bin(g, "onnx.Add", y, f32c(g, uniform(rng, D, -0.5f, 0.5f)), m.variant & 4, d3);
      b.output(y);
      break;
    }
    case tf_rms_norm: b.output(rms_norm(g, b.value(d3, m.share, rng()), m.variant, miss, rng)); break;
    case tf_gelu: b.output(gelu(g, b.value(d3, m.share, rng()), m.variant, miss)); break;
    case tf_attention: b.output(attention(g, m, b, rng)); break;
    default: {
      const OutputDef d4 = f32_of({1, 1 + m.dims[1] % 2, 1 + m.dims[2] % 4, D});
      b.output(rope(g, b.value(d4, m.share, rng()), m.variant, miss, rng));
      break;
    }
  }
}

Motif draw_transformer(std::mt19937_64& rng, int kind) {
  Motif m = random_motif(rng, kind, 7);
  m.variant = static_cast<int>(rng() % 128);
  return m;
}

// ---- CNNs and the one-for-one translations ----------------------------------------------------------

enum CnnKind {
  cnn_pool,
  cnn_resize,
  cnn_concat,
  cnn_slice,
  cnn_shuffle,
  cnn_d2s,
  cnn_silu,
  cnn_fc,
  cnn_reduce,
  cnn_eltwise,
  cnn_transpose,
  cnn_batch_norm,
  cnn_shape,
  cnn_n_kinds
};

OutputDef nchw(std::size_t n, std::size_t c, std::size_t h, std::size_t w) { return f32_of({n, c, h, w}); }

/// A 1x1 onnx.Conv to M channels (its output comes in NHWC once lowered, so what follows it meets
/// the layout transposes).
OpRef conv1x1(Graph& g, OpRef x, std::size_t M, std::mt19937_64& rng) {
  const OutputDef d = g.output(x);
  return g.add_op(
      "onnx.Conv",
      {scalar_i(g, 0), i32s(g, {}), scalar_i(g, 1), i32s(g, {}), i32s(g, {}), i32s(g, {}), x,
       f32c(g, uniform(rng, M * d.dims[1], -1.0f, 1.0f), {M, d.dims[1], 1, 1}), f32c(g, uniform(rng, M, -1.0f, 1.0f))},
      nchw(d.dims[0], M, d.dims[2], d.dims[3]));
}

std::size_t pooled(std::size_t in, std::size_t pb, std::size_t pe, std::size_t k, std::size_t s, bool ceil_mode) {
  const std::size_t span = in + pb + pe - k;
  return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

OpRef pool(Graph& g, OpRef x, int variant) {
  const OutputDef d = g.output(x);
  const std::size_t N = d.dims[0], C = d.dims[1], H = d.dims[2], W = d.dims[3];
  if (variant % 4 == 2) return g.add_op("onnx.GlobalAveragePool", {x}, nchw(N, C, 1, 1));
  if (variant % 4 == 3) return g.add_op("onnx.GlobalMaxPool", {x}, nchw(N, C, 1, 1));
  const std::size_t k = std::min<std::size_t>(1 + variant / 4 % 3, std::min(H, W)), s = 1 + variant / 12 % 2;
  const std::size_t p = k > 1 && variant & 64 ? 1 : 0;
  const bool ceil_mode = variant & 32;
  const OutputDef o = nchw(N, C, pooled(H, p, p, k, s, ceil_mode), pooled(W, p, p, k, s, ceil_mode));
  const auto ki = static_cast<std::int32_t>(k), si = static_cast<std::int32_t>(s), pi = static_cast<std::int32_t>(p);
  if (variant % 4 == 0)
    return g.add_op("onnx.MaxPool",
                    {scalar_i(g, 0), scalar_i(g, ceil_mode), i32s(g, {}), i32s(g, {ki, ki}), i32s(g, {pi, pi, pi, pi}),
                     scalar_i(g, 0), i32s(g, {si, si}), scalar_i(g, 0), x},
                    o);
  return g.add_op("onnx.AveragePool",
                  {scalar_i(g, 0), scalar_i(g, ceil_mode), scalar_i(g, variant & 16 ? 1 : 0), i32s(g, {ki, ki}),
                   i32s(g, {pi, pi, pi, pi}), i32s(g, {si, si}), x},
                  o);
}

void build_cnn(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  const std::size_t N = 1 + m.dims[0] % 2, C = 1 + m.dims[1] % 4, H = 1 + m.dims[2] % 5, W = 1 + m.dims[3] % 5;
  const OutputDef d4 = nchw(N, C, H, W);
  const bool through_conv = m.variant & 1;  // the value comes out of a convolution (NHWC inside)
  auto value = [&](const OutputDef& d) {
    return through_conv && d.rank == 4 ? conv1x1(g, b.value(d, m.share, rng()), d.dims[1], rng)
                                       : b.value(d, m.share, rng());
  };
  switch (m.kind) {
    case cnn_pool: {
      OpRef y = pool(g, value(d4), static_cast<int>(rng() % 128));
      if (m.variant & 2) y = conv1x1(g, y, 2, rng);
      b.output(y);
      break;
    }
    case cnn_resize: {
      OpRef x = value(d4);
      const bool sizes = m.variant & 2, linear = m.variant & 4;
      const float sh = m.variant & 8 ? 2.0f : 1.5f;
      const OutputDef o = nchw(N, C, static_cast<std::size_t>(H * sh), static_cast<std::size_t>(W * 2));
      OpRef sc = sizes ? none(g) : f32c(g, {1.0f, 1.0f, sh, 2.0f});
      OpRef sz = sizes ? i64s(g, {static_cast<std::int64_t>(N), static_cast<std::int64_t>(C),
                                  static_cast<std::int64_t>(o.dims[2]), static_cast<std::int64_t>(o.dims[3])})
                       : g.add_const(OutputDef::make(DType::Int64, {0}), std::span<const std::int64_t>());
      b.output(
          g.add_op("onnx.Resize",
                   {scalar_i(g, static_cast<std::int32_t>(m.variant / 16 % 4)), scalar_f(g, -0.75f), scalar_i(g, 0),
                    scalar_f(g, 0.0f), scalar_i(g, linear ? 1 : 0), scalar_i(g, 0), x, none(g), sc, sz},
                   o));
      break;
    }
    case cnn_concat: {
      const std::int32_t axis = static_cast<std::int32_t>(m.variant / 2 % 4) - (m.variant & 16 ? 4 : 0);
      std::vector<OpRef> parts{scalar_i(g, axis)};
      OutputDef o = d4;
      const std::size_t ax = static_cast<std::size_t>(axis < 0 ? axis + 4 : axis);
      o.dims[ax] = 0;
      for (int k = 0; k < 2 + m.variant / 32 % 2; ++k) {
        OutputDef pd = d4;
        pd.dims[ax] = 1 + (rng() % 3);
        parts.push_back(k == 1 && m.variant & 64 ? b.value(pd, false, 0) : value(pd));
        o.dims[ax] += pd.dims[ax];
      }
      b.output(conv1x1(g, op_of(g, "onnx.Concat", parts, o), 2, rng));
      break;
    }
    case cnn_slice: {
      OpRef x = value(d4);
      const std::int64_t ax = static_cast<std::int64_t>(m.variant / 2 % 4);
      const auto n = static_cast<std::int64_t>(d4.dims[static_cast<std::size_t>(ax)]);
      const std::int64_t step = m.variant & 8 ? 2 : 1, first = n > 1 ? 1 : 0;
      OutputDef o = d4;
      o.dims[static_cast<std::size_t>(ax)] = static_cast<std::size_t>((n - first + step - 1) / step);
      b.output(g.add_op("onnx.Slice",
                        {i32s(g, {}), i32s(g, {}), i32s(g, {}), x, i64s(g, {first}),
                         i64s(g, {std::numeric_limits<std::int64_t>::max()}), i64s(g, {ax}), i64s(g, {step})},
                        o));
      break;
    }
    case cnn_shuffle: {
      const std::size_t grp = 2, k = 1 + m.dims[1] % 3;
      const OutputDef d = nchw(N, grp * k, H, W);
      OpRef x = value(d);
      const bool miss = m.variant & 2;
      OpRef r = reshape(g, x, f32_of({N, grp, k, H, W}));
      OpRef t = g.add_op("onnx.Transpose", {miss ? i32s(g, {0, 1, 2, 4, 3}) : i32s(g, {0, 2, 1, 3, 4}), r},
                         miss ? f32_of({N, grp, k, W, H}) : f32_of({N, k, grp, H, W}));
      b.output(conv1x1(g, reshape(g, t, d), 2, rng));
      break;
    }
    case cnn_d2s: {
      const std::size_t bs = 2, co = 1 + m.dims[1] % 2;
      const bool crd = m.variant & 2;
      const OutputDef d = nchw(N, co * bs * bs, H, W);
      OpRef x = value(d);
      OpRef r = reshape(g, x, crd ? f32_of({N, co, bs, bs, H, W}) : f32_of({N, bs, bs, co, H, W}));
      OpRef t = g.add_op("onnx.Transpose", {crd ? i32s(g, {0, 1, 4, 2, 5, 3}) : i32s(g, {0, 3, 4, 1, 5, 2}), r},
                         f32_of({N, co, H, bs, W, bs}));
      b.output(reshape(g, t, nchw(N, co, H * bs, W * bs)));
      break;
    }
    case cnn_silu: {
      OpRef x = value(m.variant & 4 ? f32_of({N, C * H}) : d4);
      OpRef other = m.variant & 8 ? b.value(g.output(x), false, 0) : x;  // near miss: another value's sigmoid
      b.output(bin(g, "onnx.Mul", x, unary(g, "onnx.Sigmoid", other), m.variant & 2, g.output(x)));
      break;
    }
    case cnn_fc: {
      const std::size_t K = C + 1, M = 1 + m.dims[2] % 4;
      const int form = m.variant / 2 % 5;
      if (form < 2) {  // Gemm, transB = form, with or without C
        OpRef a = b.value(f32_of({N, K}), m.share, rng());
        OpRef w = f32c(g, uniform(rng, K * M, -1.0f, 1.0f),
                       form ? std::vector<std::size_t>{M, K} : std::vector<std::size_t>{K, M});
        OpRef c = m.variant & 16 ? f32c(g, uniform(rng, M, -1.0f, 1.0f),
                                        m.variant & 32 ? std::vector<std::size_t>{1, M} : std::vector<std::size_t>{M})
                                 : none(g);
        b.output(g.add_op("onnx.Gemm",
                          {scalar_f(g, 1.0f), scalar_f(g, 1.0f), scalar_i(g, 0), scalar_i(g, form), a, w, c},
                          f32_of({N, M})));
      } else {  // MatMul of rank 3 by a constant (+ a bias, either order), or of two values
        const OutputDef xd = f32_of({N, H, K}), od = f32_of({N, H, M});
        OpRef x = b.value(xd, m.share, rng());
        OpRef w = form == 4 ? b.value(f32_of({K, M}), false, 0) : f32c(g, uniform(rng, K * M, -1.0f, 1.0f), {K, M});
        OpRef y = g.add_op("onnx.MatMul", {x, w}, od);
        if (form == 3) y = bin(g, "onnx.Add", y, f32c(g, uniform(rng, M, -1.0f, 1.0f)), m.variant & 16, od);
        b.output(y);
      }
      break;
    }
    case cnn_reduce: {
      OpRef x = value(d4);
      const bool keep = m.variant & 2;
      if (m.variant & 4)
        b.output(reduce_mean(g, x, m.variant & 8 ? std::vector<std::int32_t>{-1, -2} : std::vector<std::int32_t>{2, 3},
                             keep));
      else if (m.variant & 8 && m.variant & 16)
        b.output(g.add_op("onnx.ReduceMax", {i32s(g, {1}), scalar_i(g, keep), scalar_i(g, 0), x, no_index(g)},
                          keep ? nchw(N, 1, H, W) : f32_of({N, H, W})));
      else if (m.variant & 8)
        b.output(reduce_mean(g, x, {1}, keep));
      else if (m.variant & 64)
        b.output(reduce_mean(g, x, m.variant & 32 ? std::vector<std::int32_t>{1, 2} : std::vector<std::int32_t>{2, 1},
                             keep));
      else {
        OutputDef o = keep ? nchw(N, C, 1, W) : f32_of({N, C, W});
        // ReduceMax/Min: axes attribute; ReduceSum: axes input (opset 13) or attribute (before)
        const char* name = m.variant & 16 ? (m.variant & 32 ? "onnx.ReduceMin" : "onnx.ReduceMax") : "onnx.ReduceSum";
        const bool attr = m.variant & 16 || m.variant & 32;
        b.output(op_of(g, name,
                       {i32s(g, attr ? std::vector<std::int32_t>{2} : std::vector<std::int32_t>{}), scalar_i(g, keep),
                        scalar_i(g, 0), x, attr ? no_index(g) : i64s(g, {2})},
                       o));
      }
      break;
    }
    case cnn_eltwise: {
      const OutputDef d = m.variant & 2 ? f32_of({N, C, H}) : d4;
      OpRef x = m.variant & 2 ? b.value(d, m.share, rng()) : value(d), y = b.value(d, false, 0);
      // The binary ops take the value from a convolution second half the time (a draw of its own:
      // the variant's bits also choose the case).
      const bool conv_second = rng() % 2;
      if (m.variant & 64) std::swap(x, y);  // the value from a convolution second
      OpRef pos = g.add_op("onnx.Add", {unary(g, "onnx.Abs", x), scalar_f(g, 0.5f)}, d);
      switch (m.variant / 4 % 26) {  // 25: the default
        case 0: x = g.add_op("onnx.Sub", {x, y}, d); break;
        case 24: x = bin(g, "onnx.Add", x, y, conv_second, d); break;
        case 22:
          x = gelu(g, m.variant & 64 ? y : x, 0, false);
          break;  // (its variants all swap: the value from a convolution)
        case 23:
          x = g.add_op("onnx.Div", {x, g.add_op("onnx.Add", {unary(g, "onnx.Abs", y), scalar_f(g, 0.5f)}, d)}, d);
          break;
        case 1: x = g.add_op("onnx.Div", {x, pos}, d); break;
        case 2: x = g.add_op("onnx.Pow", {pos, scalar_f(g, 1.5f)}, d); break;
        case 3: x = g.add_op("onnx.Max", {x, y}, d); break;
        case 4: x = unary(g, "onnx.Sigmoid", unary(g, "onnx.Tanh", x)); break;
        case 5: x = unary(g, "onnx.Log", unary(g, "onnx.Sqrt", pos)); break;
        case 6: x = unary(g, "onnx.Erf", unary(g, "onnx.Exp", unary(g, "onnx.Neg", pos))); break;
        case 7: x = g.add_op("onnx.Softmax", {scalar_i(g, static_cast<std::int32_t>(rng() % d.rank)), x}, d); break;
        case 8: x = g.add_op("onnx.LeakyRelu", {scalar_f(g, 0.1f), x}, d); break;
        case 9:
          x = g.add_op("onnx.Clip",
                       {scalar_f(g, -std::numeric_limits<float>::infinity()),
                        scalar_f(g, std::numeric_limits<float>::infinity()), x, scalar_f(g, -0.5f), none(g)},
                       d);
          break;
        case 10: x = bin(g, "onnx.Min", x, y, conv_second, d); break;
        case 11: x = unary(g, "onnx.Sin", unary(g, "onnx.Cos", x)); break;
        case 12: x = unary(g, "onnx.Softplus", x); break;
        case 13: x = g.add_op("onnx.Elu", {scalar_f(g, 0.5f), x}, d); break;
        case 14: x = g.add_op("onnx.PRelu", {x, f32c(g, {0.25f})}, d); break;
        case 15:
          x = g.add_op("onnx.Clip",
                       {scalar_f(g, -std::numeric_limits<float>::infinity()),
                        scalar_f(g, std::numeric_limits<float>::infinity()), x, none(g), scalar_f(g, 0.5f)},
                       d);
          break;
        case 16: x = g.add_op("onnx.LogSoftmax", {scalar_i(g, -1), x}, d); break;
        case 17: x = g.add_op("onnx.Cast", {scalar_i(g, 1), x}, d); break;  // to float: as it is
        case 18: {                                                          // to Int32 and back
          OutputDef id = d;
          id.dtype = DType::Int32;
          x = g.add_op("onnx.Cast", {scalar_i(g, 1), g.add_op("onnx.Cast", {scalar_i(g, 6), x}, id)}, d);
          break;
        }
        case 19:
          x = g.add_op("onnx.Dropout",
                       {i32s(g, {}), scalar_f(g, 0.5f), scalar_i(g, 0), x, none(g),
                        g.add_const(OutputDef::make(DType::Bool, {0}), std::span<const std::uint8_t>())},
                       d);
          break;
        case 20: {  // expanded along a dim of extent 1
          OutputDef sd = d;
          sd.dims[0] = 1;
          OutputDef od = d;
          od.dims[0] = d.dims[0] * 2;
          x = g.add_op("onnx.Expand", {b.value(sd, false, 0), i64s(g, std::vector<std::int64_t>(d.rank, 1))}, od);
          break;
        }
        case 21: {  // an embedding: rows of a [4, D] table at indices
          const std::size_t D = d.dims[d.rank - 1];
          x = g.add_op("onnx.Gather", {scalar_i(g, 0), b.value(f32_of({4, D}), false, 0), i64s(g, {3, 0, 2})},
                       f32_of({3, D}));
          break;
        }
        default: x = unary(g, "onnx.Reciprocal", pos); break;
      }
      b.output(x);
      break;
    }
    case cnn_transpose: {
      OpRef x = m.variant & 16 ? b.value(f32_of({N, C, m.variant & 2 ? 1 : H}), m.share, rng())
                               : value(m.variant & 2 ? nchw(N, C, 1, 1) : d4);
      for (int k = 0; k < 1 + m.variant / 4 % 3; ++k) {
        const OutputDef xd = g.output(x);
        const auto perm = random_perm(rng, xd.rank);
        OutputDef o = xd;
        for (std::size_t i = 0; i < xd.rank; ++i) o.dims[i] = xd.dims[static_cast<std::size_t>(perm[i])];
        x = g.add_op("onnx.Transpose", {i32s(g, perm), x}, o);
      }
      b.output(x);
      break;
    }
    case cnn_batch_norm: {
      OpRef x = m.variant & 2 ? unary(g, "onnx.Relu", value(d4)) : b.value(d4, m.share, rng());
      std::vector<float> var = uniform(rng, C, 0.25f, 2.0f);
      OpRef y =
          g.add_op("onnx.BatchNormalization",
                   {scalar_f(g, 1e-5f), scalar_f(g, 0.9f), scalar_i(g, 0), x, f32c(g, uniform(rng, C, 0.5f, 1.5f)),
                    f32c(g, uniform(rng, C, -1.0f, 1.0f)), f32c(g, uniform(rng, C, -1.0f, 1.0f)), f32c(g, var)},
                   d4);
      b.output(conv1x1(g, y, 2, rng));
      break;
    }
    default: {  // shape arithmetic: Reshape(x, Concat(Shape(x)[0], -1))
      OpRef x = value(d4);
      OpRef shp =
          g.add_op("onnx.Shape", {scalar_i(g, 0), scalar_i(g, 2147483647), x}, OutputDef::make(DType::Int64, {4}));
      OpRef n0 = g.add_op("onnx.Gather", {scalar_i(g, 0), shp, i64s(g, {0})}, OutputDef::make(DType::Int64, {1}));
      OpRef tgt = g.add_op("onnx.Concat", {scalar_i(g, 0), n0, i64s(g, {-1})}, OutputDef::make(DType::Int64, {2}));
      b.output(g.add_op("onnx.Reshape", {scalar_i(g, 0), x, tgt}, f32_of({N, C * H * W})));
      break;
    }
  }
}

Motif draw_cnn(std::mt19937_64& rng, int kind) {
  Motif m = random_motif(rng, kind, 7);
  m.variant = static_cast<int>(rng() % 128);
  return m;
}

// ---- quantized networks (QDQ) --------------------------------------------------------------------

enum QKind { q_conv, q_fc, q_binary, q_matmul, q_float, q_n_kinds };

/// The step of the last QuantizeLinear of every motif: outputs may differ by a few of these.
constexpr float q_out_step = 1.0f / 16;

/// QuantizeLinear then DequantizeLinear of x, uint8 (int8: `signed_`) with the given step and a
/// zero point in the middle of the range.
OpRef qdq(Graph& g, OpRef x, float step, bool signed_ = false) {
  const OutputDef d = g.output(x);
  OutputDef qd = d;
  qd.dtype = signed_ ? DType::Int8 : DType::UInt8;
  OpRef zp = signed_ ? g.add_const(OutputDef::make(DType::Int8, {1}),
                                   std::span<const std::int8_t>(std::vector<std::int8_t>{3}))
                     : g.add_const(OutputDef::make(DType::UInt8, {1}),
                                   std::span<const std::uint8_t>(std::vector<std::uint8_t>{128}));
  OpRef sc = scalar_f(g, step);
  OpRef q = g.add_op("onnx.QuantizeLinear", {scalar_i(g, 1), x, sc, zp}, qd);
  return g.add_op("onnx.DequantizeLinear", {scalar_i(g, 1), q, sc, zp}, d);
}

/// Int8 weights of `shape` read through a DequantizeLinear, one scale per entry of `axis` (or one).
OpRef weights(Graph& g, std::vector<std::size_t> shape, std::size_t axis, bool per_channel, std::mt19937_64& rng,
              std::vector<float>* scales = nullptr) {
  const std::size_t n = std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
  std::vector<std::int8_t> q(n);
  for (auto& v : q) v = static_cast<std::int8_t>(static_cast<int>(rng() % 255) - 127);
  OutputDef wd = OutputDef::make(DType::Int8, {});
  wd.rank = static_cast<std::uint32_t>(shape.size());
  std::copy(shape.begin(), shape.end(), wd.dims.begin());
  const std::size_t c = per_channel ? shape[axis] : 1;
  std::vector<float> s = uniform(rng, c, 0.002f, 0.02f);
  if (scales) *scales = s;
  OpRef w = g.add_const(wd, std::span<const std::int8_t>(q));
  std::vector<std::int8_t> zp(c, 0);
  OpRef z = g.add_const(OutputDef::make(DType::Int8, {c}), std::span<const std::int8_t>(zp));
  return g.add_op("onnx.DequantizeLinear", {scalar_i(g, static_cast<std::int32_t>(axis)), w, f32c(g, s), z},
                  f32_of(shape));
}

/// Int32 bias of n elements at the scale x_step * w_scale[c], through a DequantizeLinear.
OpRef bias(Graph& g, std::size_t n, float x_step, const std::vector<float>& w_scale, std::mt19937_64& rng) {
  std::vector<std::int32_t> q(n);
  for (auto& v : q) v = static_cast<std::int32_t>(rng() % 2001) - 1000;
  std::vector<float> s(n);
  for (std::size_t c = 0; c < n; ++c)
    s[c] = static_cast<float>(static_cast<double>(x_step) * w_scale[w_scale.size() == 1 ? 0 : c]);
  std::vector<std::int32_t> zp(n, 0);
  return g.add_op("onnx.DequantizeLinear",
                  {scalar_i(g, 0), g.add_const(OutputDef::make(DType::Int32, {n}), std::span<const std::int32_t>(q)),
                   f32c(g, s), g.add_const(OutputDef::make(DType::Int32, {n}), std::span<const std::int32_t>(zp))},
                  f32_of({n}));
}

/// A quantized 1x1 convolution of the dequantized value x (step xs) to M channels, its output
/// quantized (its output comes in NHWC once lowered).
OpRef qconv1x1(Graph& g, OpRef x, std::size_t M, float xs, std::mt19937_64& rng) {
  const OutputDef d = g.output(x);
  std::vector<float> ws;
  OpRef w = weights(g, {M, d.dims[1], 1, 1}, 0, false, rng, &ws);
  return qdq(g,
             g.add_op("onnx.Conv",
                      {scalar_i(g, 0), i32s(g, {}), scalar_i(g, 1), i32s(g, {}), i32s(g, {}), i32s(g, {}), x, w,
                       bias(g, M, xs, ws, rng)},
                      nchw(d.dims[0], M, d.dims[2], d.dims[3])),
             xs);
}

void build_quantized(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  const std::size_t N = 1 + m.dims[0] % 2, C = 1 + m.dims[1] % 4, H = 1 + m.dims[2] % 4, W = 1 + m.dims[3] % 4;
  const float xs = 8.0f / 255.0f;  // inputs within [-4, 4)
  const bool per_channel = m.variant & 1, with_bias = m.variant & 2;
  switch (m.kind) {
    case q_conv: {
      const std::size_t M = 1 + m.dims[1] % 3;
      OpRef x = qdq(g, b.value(nchw(N, C, H, W), m.share, rng()), xs);
      std::vector<float> ws;
      OpRef w =
          weights(g, {M, C, 1 + (m.variant & 4 ? 2u : 0u), 1 + (m.variant & 4 ? 2u : 0u)}, 0, per_channel, rng, &ws);
      const std::int32_t p = m.variant & 4 ? 1 : 0;
      OpRef y = g.add_op("onnx.Conv",
                         {scalar_i(g, 0), i32s(g, {}), scalar_i(g, 1), i32s(g, {}), i32s(g, {p, p, p, p}), i32s(g, {}),
                          x, w, with_bias ? bias(g, M, xs, ws, rng) : none(g)},
                         nchw(N, M, H, W));
      y = qdq(g, y, m.variant & 8 ? q_out_step : q_out_step / 2);
      if (m.variant & 16) y = qdq(g, unary(g, "onnx.Relu", y), q_out_step);
      if (m.variant & 32)
        y = qdq(g,
                g.add_op("onnx.MaxPool",
                         {scalar_i(g, 0), scalar_i(g, 1), i32s(g, {}), i32s(g, {2, 2}), i32s(g, {}), scalar_i(g, 0),
                          i32s(g, {2, 2}), scalar_i(g, 0), y},
                         nchw(N, M, (H + 1) / 2, (W + 1) / 2)),
                q_out_step);
      b.output(qdq(g, y, q_out_step));
      break;
    }
    case q_fc: {
      const std::size_t K = C + 1, M = 1 + m.dims[2] % 4;
      OpRef x = b.value(f32_of({N, K}), m.share, rng());
      if (!(m.variant & 64)) x = qdq(g, x, xs);  // else only the weights are quantized: no group takes them
      std::vector<float> ws;
      OpRef y;
      if (m.variant & 4) {  // MatMul by [K, M], per column
        y = g.add_op("onnx.MatMul", {x, weights(g, {K, M}, 1, per_channel, rng, &ws)}, f32_of({N, M}));
      } else {
        const bool tb = m.variant & 8;
        OpRef w = weights(g, tb ? std::vector<std::size_t>{M, K} : std::vector<std::size_t>{K, M}, tb ? 0 : 1,
                          per_channel, rng, &ws);
        y = g.add_op("onnx.Gemm",
                     {scalar_f(g, 1.0f), scalar_f(g, 1.0f), scalar_i(g, 0), scalar_i(g, tb), x, w,
                      with_bias ? bias(g, M, xs, ws, rng) : none(g)},
                     f32_of({N, M}));
      }
      b.output(qdq(g, y, q_out_step));
      break;
    }
    case q_binary: {
      const OutputDef d = nchw(N, C, H, W);
      OpRef a = qdq(g, b.value(d, m.share, rng()), xs),
            c = qdq(g, b.value(m.variant & 4 ? nchw(1, C, 1, 1) : d, false, 0), xs / 2, m.variant & 8);
      if (m.variant & 16) a = qconv1x1(g, a, C, xs, rng);  // from a quantized convolution (NHWC inside), either operand
      b.output(qdq(g, bin(g, m.variant & 2 ? "onnx.Mul" : "onnx.Add", a, c, m.variant & 32, d), q_out_step));
      break;
    }
    case q_matmul: {
      const std::size_t K = C + 1, M = 1 + m.dims[2] % 4, L = 1 + m.dims[3] % 3;
      OpRef a = qdq(g, b.value(f32_of({N, M, K}), m.share, rng()), xs / 4),
            c = qdq(g, b.value(f32_of({N, K, L}), false, 0), xs / 4);
      b.output(qdq(g, g.add_op("onnx.MatMul", {a, c}, f32_of({N, M, L})), q_out_step));
      break;
    }
    default: {  // no quantized kernel: float between the two; and requantization pairs
      OpRef x = b.value(nchw(N, C, H, W), m.share, rng());
      x = qdq(g, m.variant & 64 ? conv1x1(g, x, C, rng) : x, xs);  // a float convolution's output quantized
      if (m.variant & 2) x = qdq(g, unary(g, "onnx.Sigmoid", x), q_out_step / 4);
      if (m.variant & 4) x = qdq(g, x, xs * 2);  // a second pair: Requantize
      if (m.variant & 16) {                      // a slice of the channels between two pairs
        OpRef sl =
            g.add_op("onnx.Slice",
                     {i32s(g, {}), i32s(g, {}), i32s(g, {}), x, i64s(g, {0}), i64s(g, {1}), i64s(g, {1}), i64s(g, {1})},
                     nchw(N, 1, H, W));
        x = qdq(g, sl, xs);
      }
      if (m.variant & 8) x = qdq(g, reshape(g, x, f32_of({N, g.output(x).dims[1] * H * W})), xs * 2);
      b.output(qdq(g, x, q_out_step));
      break;
    }
  }
}

Motif draw_quantized(std::mt19937_64& rng, int kind) {
  Motif m = random_motif(rng, kind, 7);
  m.variant = static_cast<int>(rng() % 128);
  return m;
}

// ---- speech and detection ---------------------------------------------------------------------

enum SpKind { sp_conv1d, sp_instance_norm, sp_group_norm, sp_split, sp_pad, sp_depth_space, sp_n_kinds };

/// onnx.Conv of x [N, C, T] (rank 3) with a random window, M output channels.
OpRef conv1d(Graph& g, OpRef x, std::size_t M, int variant, std::mt19937_64& rng) {
  const OutputDef d = g.output(x);
  const std::size_t C = d.dims[1], T = d.dims[2];
  const std::size_t grp = variant & 1 && C % 2 == 0 && M % 2 == 0 ? 2 : 1;
  std::size_t k = 1 + rng() % 3, dil = variant & 2 ? 2 : 1, s = variant & 4 ? 2 : 1, pb = rng() % k, pe = rng() % k;
  if (T + pb + pe < (k - 1) * dil + 1) k = 1, dil = 1;
  const std::size_t To = (T + pb + pe - (k - 1) * dil - 1) / s + 1;
  const auto i = [](std::size_t v) { return static_cast<std::int32_t>(v); };
  return g.add_op("onnx.Conv",
                  {scalar_i(g, 0), i32s(g, {i(dil)}), scalar_i(g, i(grp)), i32s(g, {i(k)}), i32s(g, {i(pb), i(pe)}),
                   i32s(g, {i(s)}), x, f32c(g, uniform(rng, M * C / grp * k, -1.0f, 1.0f), {M, C / grp, k}),
                   variant & 8 ? none(g) : f32c(g, uniform(rng, M, -1.0f, 1.0f))},
                  f32_of({d.dims[0], M, To}));
}

void build_speech(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  const std::size_t N = 1 + m.dims[0] % 2, C = 2 * (1 + m.dims[1] % 3), T = 2 + m.dims[2] % 6, W = 1 + m.dims[3] % 4;
  const OutputDef d3 = f32_of({N, C, T});
  switch (m.kind) {
    case sp_conv1d: {
      OpRef y = conv1d(g, b.value(d3, m.share, rng()), 2 + 2 * (m.dims[3] % 2), m.variant, rng);
      if (m.variant & 16) y = gelu(g, y, 0, false);
      if (m.variant & 32) y = conv1d(g, y, 2, m.variant >> 1, rng);
      if (m.variant & 64) {  // an activation of the [N, C, T] value, or a binary op of it
        const OutputDef yd = g.output(y);
        const char* binary = rng() % 2 ? "onnx.Mul" : "onnx.Add";
        switch (rng() % 6) {
          case 0: y = unary(g, "onnx.Relu", y); break;
          case 1: y = unary(g, "onnx.Sigmoid", y); break;
          case 2: y = bin(g, "onnx.Mul", y, unary(g, "onnx.Sigmoid", y), rng() % 2, yd); break;  // SiLU
          case 3: y = unary(g, "onnx.HardSwish", y); break;
          case 4: y = bin(g, binary, y, unary(g, "onnx.Relu", y), false, yd); break;  // both from [N, T, C]
          default:
            y = bin(g, binary, y, f32c(g, uniform(rng, yd.dims[1], 0.5f, 1.5f), {1, yd.dims[1], 1}), true, yd);
            break;  // per channel, first
        }
      }
      b.output(y);
      break;
    }
    case sp_instance_norm: {
      const OutputDef d = m.variant & 2 ? nchw(N, C, T, W) : d3;
      OpRef x =
          m.variant & 4 && d.rank == 3 ? conv1d(g, b.value(d, m.share, rng()), C, 0, rng) : b.value(d, m.share, rng());
      b.output(
          g.add_op("onnx.InstanceNormalization",
                   {scalar_f(g, 1e-5f), x, f32c(g, uniform(rng, C, 0.5f, 1.5f)), f32c(g, uniform(rng, C, -0.5f, 0.5f))},
                   g.output(x)));  // a convolution's T may differ from d's
      break;
    }
    case sp_group_norm: {  // PyTorch's GroupNorm: Reshape, InstanceNormalization (unit), Reshape, Mul, Add
      OpRef x = m.variant & 4 ? conv1d(g, b.value(d3, m.share, rng()), C, 0, rng) : b.value(d3, m.share, rng());
      const OutputDef dx = g.output(x);  // a convolution's T may differ from d3's
      const std::size_t G = m.variant & 2 ? C / 2 : C;
      OpRef r = reshape(g, x, f32_of({N, G, C / G * dx.dims[2]}));
      const bool miss = m.variant & 32;  // a scale other than 1: stays
      OpRef in = g.add_op("onnx.InstanceNormalization",
                          {scalar_f(g, 1e-5f), r, f32c(g, std::vector<float>(G, miss ? 1.5f : 1.0f)),
                           f32c(g, std::vector<float>(G, 0.0f))},
                          g.output(r));
      OpRef y = reshape(g, in, dx);
      if (m.variant & 8) y = g.add_op("onnx.Mul", {y, f32c(g, uniform(rng, C, 0.5f, 1.5f), {C, 1})}, dx);
      if (m.variant & 16) y = g.add_op("onnx.Add", {y, f32c(g, uniform(rng, C, -0.5f, 0.5f), {C, 1})}, dx);
      b.output(m.variant & 1 ? gelu(g, y, 0, false) : y);
      break;
    }
    case sp_split: {  // Split's outputs (equal, or the lengths as an input), each used
      const OutputDef d = nchw(N, C, T, W);
      OpRef x = b.value(d, m.share, rng());
      const bool lengths = m.variant & 2;
      const std::vector<std::int64_t> parts =
          lengths ? std::vector<std::int64_t>{1, static_cast<std::int64_t>(C) - 1}
                  : std::vector<std::int64_t>{static_cast<std::int64_t>(C / 2), static_cast<std::int64_t>(C / 2)};
      for (std::int32_t k = 0; k < 2; ++k) {
        OutputDef o = d;
        o.dims[1] = static_cast<std::size_t>(parts[static_cast<std::size_t>(k)]);
        b.output(g.add_op("onnx.Split",
                          {scalar_i(g, 1), i32s(g, {}), scalar_i(g, k), x, lengths ? i64s(g, parts) : no_index(g)}, o));
      }
      break;
    }
    case sp_pad: {  // Pad (constant, reflect, edge), then a convolution or an average pool
      const OutputDef d = nchw(N, C, T, W);
      OpRef x = m.variant & 8 ? conv1x1(g, b.value(d, m.share, rng()), C, rng) : b.value(d, m.share, rng());
      const std::int64_t mode = m.variant % 3, p = 1;
      const bool hw_only = m.variant & 4;
      const std::int64_t pc = hw_only ? 0 : (mode == 0 ? 1 : 0);
      std::vector<std::int64_t> pads{0, pc, p, p, 0, 0, p, mode == 1 && W < 2 ? 0 : p};
      if (mode == 1) pads = {0, 0, T > 1 ? 1 : 0, W > 1 ? 1 : 0, 0, 0, T > 1 ? 1 : 0, W > 1 ? 1 : 0};
      const OutputDef o =
          nchw(N, C + static_cast<std::size_t>(pads[1] + pads[5]), T + static_cast<std::size_t>(pads[2] + pads[6]),
               W + static_cast<std::size_t>(pads[3] + pads[7]));
      // The pads as an input (opset 11 on) or as the attribute (before: the inputs absent).
      std::vector<std::int32_t> pads32(pads.begin(), pads.end());
      const bool attr = m.variant & 64;
      OpRef y = g.add_op(
          "onnx.Pad",
          {scalar_i(g, static_cast<std::int32_t>(mode)), attr ? i32s(g, pads32) : i32s(g, {}), scalar_f(g, 0.0f), x,
           attr ? no_index(g) : i64s(g, pads), m.variant & 16 && !attr ? scalar_f(g, 0.0f) : none(g)},
          o);
      if (m.variant & 32)
        y = pool(g, y, 1 + 4 * static_cast<int>(rng() % 3));  // an AveragePool, no pads of its own
      else {
        y = conv1x1(g, y, 2, rng);
        if (rng() % 2) y = unary(g, "onnx.Relu", y);
      }
      b.output(y);
      break;
    }
    default: {  // DepthToSpace (DCR, CRD) and SpaceToDepth
      const std::size_t bs = 2;
      if (m.variant & 2) {
        const OutputDef d = nchw(N, C, 2 * (1 + T % 3), 2 * W);
        OpRef x = b.value(d, m.share, rng());
        b.output(g.add_op("onnx.SpaceToDepth", {scalar_i(g, 2), x}, nchw(N, C * 4, d.dims[2] / 2, W)));
      } else {
        const OutputDef d = nchw(N, 4 * (1 + C % 2), T, W);
        OpRef x = m.variant & 8 ? conv1x1(g, b.value(d, m.share, rng()), d.dims[1], rng) : b.value(d, m.share, rng());
        b.output(g.add_op("onnx.DepthToSpace", {scalar_i(g, 2), scalar_i(g, m.variant & 4 ? 1 : 0), x},
                          nchw(N, d.dims[1] / 4, T * bs, W * bs)));
      }
      break;
    }
  }
}

/// Every rule of the package outside `files` is exempt from the firing check: it runs as it does
/// on a model (translations after the fusions) and another domain's test holds it to firing.
std::vector<Exempt> others_exempt(const Package& p, std::initializer_list<std::string_view> files,
                                  std::vector<Exempt> out = {}) {
  for (const RuleInfo* r : p.rules.rules()) {
    const auto base = optgrammar::dsl::file_base_name(r->file);
    if (std::find(files.begin(), files.end(), base) == files.end())
      out.push_back({r->canonical, "another domain's rule"});
  }
  return out;
}

}  // namespace

TEST_CASE("the lowering package's transformer rules preserve results on random graphs") {
  const Package p{.name = "htp_lowering (transformers)",
                  .rules = rules_from("htp_lowering/"),
                  .kinds = tf_n_kinds,
                  .draw = draw_transformer,
                  .build = build_transformer,
                  .tolerance = 1e-4,
                  .abs_tolerance = 1e-4};
  check_package(p, 10, others_exempt(p, {"transformer.cpp"}));
}

TEST_CASE("the lowering package's CNN and translation rules preserve results on random graphs") {
  const Package p{.name = "htp_lowering (CNNs)",
                  .rules = rules_from("htp_lowering/"),
                  .kinds = cnn_n_kinds,
                  .draw = draw_cnn,
                  .build = build_cnn,
                  .tolerance = 1e-4,
                  .abs_tolerance = 1e-4};
  // The reductions' axes as an input come with opset 18 (ReduceSum's with 13), past what the
  // importer reads.
  // The second Gemm rules (PRE_TRANSLATE) take a QDQ Gemm that quantized.cpp's groups leave (a
  // float bias), whose weights are a constant only after CLEANUP_GRAPH: no float graph reaches them.
  const std::string why = "the axes as an input: opset 18", qdq = "a QDQ Gemm left by the quantized groups";
  check_package(p, 10,
                others_exempt(p, {"cnn.cpp", "common.cpp"},
                              {{R"(Op("onnx.ReduceMean","axes")", why},
                               {R"(Op("onnx.ReduceMax","axes")", why},
                               {R"(Op("onnx.ReduceMin","axes")", why},
                               {R"(PRE_TRANSLATE,Op("onnx.Gemm")", qdq}}));
}

TEST_CASE("the lowering package's quantized rules keep results within a few quantization steps") {
  const Package p{.name = "htp_lowering (QDQ)",
                  .rules = rules_from("htp_lowering/"),
                  .kinds = q_n_kinds,
                  .draw = draw_quantized,
                  .build = build_quantized,
                  .tolerance = 0,
                  .abs_tolerance = 2.01 * q_out_step};
  check_package(p, 10, others_exempt(p, {"quantized.cpp"}));
}

TEST_CASE("the lowering package's speech and detection rules preserve results on random graphs") {
  const Package p{.name = "htp_lowering (speech, detection)",
                  .rules = rules_from("htp_lowering/"),
                  .kinds = sp_n_kinds,
                  .draw = draw_cnn,
                  .build = build_speech,
                  .tolerance = 1e-4,
                  .abs_tolerance = 1e-4};
  check_package(p, 10, others_exempt(p, {"speech.cpp"}));
}

// og-opt --why-not's target: on the domains' graphs, every near miss of a rule (an op named as its
// root, left at the end of its pass) is explained in the rule's words, with the values a failing
// constraint term read, and the explanation's verdict is the rule's own (why_not_check.hpp).
TEST_CASE("why-not explains every near miss of the lowering package on the domains' graphs") {
  const Package domains[] = {{.name = "transformers",
                              .rules = rules_from("htp_lowering/"),
                              .kinds = tf_n_kinds,
                              .draw = draw_transformer,
                              .build = build_transformer},
                             {.name = "CNNs",
                              .rules = rules_from("htp_lowering/"),
                              .kinds = cnn_n_kinds,
                              .draw = draw_cnn,
                              .build = build_cnn},
                             {.name = "QDQ",
                              .rules = rules_from("htp_lowering/"),
                              .kinds = q_n_kinds,
                              .draw = draw_quantized,
                              .build = build_quantized},
                             {.name = "speech",
                              .rules = rules_from("htp_lowering/"),
                              .kinds = sp_n_kinds,
                              .draw = draw_cnn,
                              .build = build_speech}};
  const std::uint64_t graphs = std::max<std::uint64_t>(1, options().graphs / 10);
  NearMisses total;
  for (const Package& p : domains) {
    const NearMisses m = explain_near_misses(p, graphs, options().first_seed);
    INFO(p.name);
    for (const std::string& problem : m.problems) FAIL_CHECK(problem);
    CHECK(m.explained > 0);
    total.graphs += m.graphs;
    total.explained += m.explained;
    total.match += m.match;
    total.constraint += m.constraint;
    total.replacement += m.replacement;
  }
  WARN(str("why-not: ", total.explained, " near misses explained on ", total.graphs, " graphs (the match fails on ",
           total.match, ", the constraint on ", total.constraint, ", both hold on ", total.replacement, ")"));
}
