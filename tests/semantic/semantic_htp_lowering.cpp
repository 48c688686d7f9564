// Random semantic check of the lowering package (examples/htp_lowering/htp_lowering.cpp): graphs
// of imported ONNX ops (`onnx.*`, NCHW, f32, operands as the importer makes them: the attributes
// as constants, then the inputs; include/optgrammar/ops/onnx.hpp) lowered to the NHWC layer ops.
// Every op involved has a definition with an evaluation, so the interpreter runs the graph before
// and after as it is.
//
// Motifs: the two hard-swish spellings (and near misses: another constant), the elementwise ops
// the package translates, on rank 4 or not, and convolutions (grouped, strided, dilated, padded,
// with or without bias, constant or input weights, kernel_shape given or not, near misses: auto_pad
// VALID, an input bias) followed by what the package folds or moves: BatchNormalization, Relu,
// HardSwish (either spelling), Clip, HardSigmoid, a constant scale or offset of each shape,
// GlobalAveragePool (left to cnn.cpp's rules), another convolution's output, reshapes; half the
// graphs set a small htp_tile_elements, so that convolutions are tiled.
//
// Tolerance: the lowering reorders float arithmetic (BatchNormalization and affine constants
// folded into the weights, the NHWC convolution summing in double where onnx.Conv sums in f32),
// so float outputs must agree within 1e-4 relative plus 1e-3 absolute (values reach about 100:
// sums of up to 36 products of inputs and weights within 4, scaled by up to 8 by a folded
// BatchNormalization).
#include "../og-parse/source_rules.hpp"
#include "motifs.hpp"
#include "package_test.hpp"

using namespace semantic;

namespace {

enum Kind { hswish_clip, hswish_sigmoid, unary, binary, conv, conv_pair, reshape, n_kinds };

OpRef i32s(Graph& g, const std::vector<std::int32_t>& v) {
  return g.add_const(OutputDef::make(DType::Int32, {v.size()}), std::span<const std::int32_t>(v));
}
OpRef i64s(Graph& g, const std::vector<std::int64_t>& v) {
  return g.add_const(OutputDef::make(DType::Int64, {v.size()}), std::span<const std::int64_t>(v));
}
OpRef f32s(Graph& g, const std::vector<float>& v, std::initializer_list<std::size_t> dims = {}) {
  const auto d = dims.size() ? OutputDef::make(DType::Float32, dims) : OutputDef::make(DType::Float32, {v.size()});
  return g.add_const(d, std::span<const float>(v));
}
OpRef scalar_f(Graph& g, float x) { return f32s(g, {x}); }
OpRef scalar_i(Graph& g, std::int32_t x) { return i32s(g, {x}); }
OpRef no_input(Graph& g) { return f32s(g, {}); }

/// An op with operands held in a vector.
OpRef op_of(Graph& g, std::string_view name, const std::vector<OpRef>& operands, const OutputDef& d) {
  return g.add_op(intern_op_name(name), std::span<const OpRef>(operands), d);
}

OutputDef f32_of(const std::vector<std::size_t>& dims) {
  OutputDef d = OutputDef::make(DType::Float32, {});
  d.rank = static_cast<std::uint32_t>(dims.size());
  std::copy(dims.begin(), dims.end(), d.dims.begin());
  return d;
}

OutputDef nchw(std::size_t n, std::size_t c, std::size_t h, std::size_t w) {
  return OutputDef::make(DType::Float32, {n, c, h, w});
}

/// x * Clip(x + 3, 0, 6) / 6; `miss`: 2 instead of 3 (not hard-swish); `attrs`: the bounds as Clip's
/// attributes (opsets before 11).
OpRef hswish_by_clip(Graph& g, OpRef x, bool attrs, bool miss) {
  const OutputDef d = g.output(x);
  const float inf = std::numeric_limits<float>::infinity();
  OpRef sum = g.add_op("onnx.Add", {x, scalar_f(g, miss ? 2.0f : 3.0f)}, d);
  OpRef clip =
      attrs ? g.add_op("onnx.Clip", {scalar_f(g, 0), scalar_f(g, 6), sum, no_input(g), no_input(g)}, d)
            : g.add_op("onnx.Clip", {scalar_f(g, -inf), scalar_f(g, inf), sum, scalar_f(g, 0), scalar_f(g, 6)}, d);
  return g.add_op("onnx.Div", {g.add_op("onnx.Mul", {x, clip}, d), scalar_f(g, 6)}, d);
}

/// x * HardSigmoid(x) with alpha 1/6 (`miss`: 0.2, ONNX's default) and beta 1/2, in either order.
OpRef hswish_by_sigmoid(Graph& g, OpRef x, bool swap, bool miss) {
  const OutputDef d = g.output(x);
  OpRef hs = g.add_op("onnx.HardSigmoid", {scalar_f(g, miss ? 0.2f : 1.0f / 6.0f), scalar_f(g, 0.5f), x}, d);
  return op_of(g, "onnx.Mul", swap ? std::vector<OpRef>{hs, x} : std::vector<OpRef>{x, hs}, d);
}

/// One of the elementwise ops the package translates (or moves after a convolution).
OpRef unary_op(Graph& g, OpRef x, int which, std::mt19937_64& rng) {
  const OutputDef d = g.output(x);
  const float inf = std::numeric_limits<float>::infinity();
  const float lo = static_cast<float>(rng() % 3) - 1.0f, hi = lo + 1.0f + static_cast<float>(rng() % 6);
  switch (which % 7) {
    case 0: return g.add_op("onnx.Relu", {x}, d);
    case 1: return g.add_op("onnx.HardSwish", {x}, d);
    case 2: return g.add_op("onnx.HardSigmoid", {scalar_f(g, 0.25f), scalar_f(g, 0.5f), x}, d);
    case 3: return g.add_op("onnx.Clip", {scalar_f(g, -inf), scalar_f(g, inf), x, scalar_f(g, lo), scalar_f(g, hi)}, d);
    case 4: return g.add_op("onnx.Clip", {scalar_f(g, lo), scalar_f(g, hi), x, no_input(g), no_input(g)}, d);
    case 5:
      return g.add_op("onnx.Clip", {scalar_f(g, -inf), scalar_f(g, inf), x, no_input(g), scalar_f(g, hi)},
                      d);  // max only: stays
    default: return hswish_by_clip(g, x, rng() % 2, false);
  }
}

/// A constant operand for an elementwise op on d ([N,C,H,W]): one element of rank 1 or 4, one
/// per channel, or one per element.
OpRef broadcast_const(Graph& g, const OutputDef& d, std::mt19937_64& rng) {
  const std::size_t n = d.dims[0], c = d.dims[1], h = d.dims[2], w = d.dims[3];
  switch (rng() % 4) {
    case 0: return f32s(g, random_floats(rng, 1));
    case 1: return f32s(g, random_floats(rng, 1), {1, 1, 1, 1});
    case 2: return g.add_const(nchw(1, c, 1, 1), std::span<const float>(random_floats(rng, c)));
    default: return g.add_const(d, std::span<const float>(random_floats(rng, n * c * h * w)));
  }
}

/// onnx.Conv of x ([N,C,H,W]) with a random grouped, strided, dilated, padded window, M output
/// channels (0: chosen here); `miss` != 0 makes one the package does not lower. The window comes
/// from `rw`, the values from `rng`.
OpRef onnx_conv(Graph& g, OpRef x, std::size_t m_out, std::mt19937_64 rw, std::mt19937_64& rng, int miss) {
  const OutputDef xd = g.output(x);
  const std::size_t N = xd.dims[0], C = xd.dims[1], H = xd.dims[2], W = xd.dims[3];
  std::size_t group = 1;
  if (rw() % 3 == 0)
    group = C;  // depthwise
  else if (C % 2 == 0 && rw() % 3 == 0)
    group = 2;
  const std::size_t k = 1 + rw() % 3;  // drawn always: the same rw gives the same window
  std::size_t M = m_out ? m_out : group * k;
  if (M % group) group = 1;
  M = m_out ? m_out : M;
  std::size_t kh = 1 + rw() % 3, kw = 1 + rw() % 3, dh = rw() % 4 ? 1 : 2, dw = rw() % 4 ? 1 : 2;
  std::size_t sh = rw() % 3 ? 1 : 2, sw = rw() % 3 ? 1 : 2;
  std::size_t pt = rw() % kh, pl = rw() % kw, pb = rw() % kh, pr = rw() % kw;
  const bool valid = miss == 1;  // auto_pad VALID: no pads
  if (valid) pt = pl = pb = pr = 0;
  if (H + pt + pb < (kh - 1) * dh + 1) kh = 1, dh = 1;
  if (W + pl + pr < (kw - 1) * dw + 1) kw = 1, dw = 1;
  const std::size_t OH = (H + pt + pb - (kh - 1) * dh - 1) / sh + 1, OW = (W + pl + pr - (kw - 1) * dw - 1) / sw + 1;
  const auto wd = nchw(M, C / group, kh, kw);
  const auto i = [](std::size_t v) { return static_cast<std::int32_t>(v); };
  OpRef w =
      rng() % 5 ? g.add_const(wd, std::span<const float>(random_floats(rng, wd.element_count()))) : g.add_input(wd);
  OpRef b;
  if (miss == 2)
    b = g.add_input(OutputDef::make(DType::Float32, {M}));
  else if (rng() % 3)
    b = f32s(g, random_floats(rng, M));
  else
    b = no_input(g);
  const bool all = rw() % 4 != 0;  // every attribute written out, or ONNX's defaults left empty where they hold
  auto list = [&](std::vector<std::int32_t> v, bool is_default) {
    return i32s(g, all || !is_default ? v : std::vector<std::int32_t>{});
  };
  std::vector<OpRef> operands{scalar_i(g, valid ? 3 : 0),
                              list({i(dh), i(dw)}, dh == 1 && dw == 1),
                              scalar_i(g, i(group)),
                              list({i(kh), i(kw)}, true),
                              valid ? i32s(g, {}) : list({i(pt), i(pl), i(pb), i(pr)}, pt + pl + pb + pr == 0),
                              list({i(sh), i(sw)}, sh == 1 && sw == 1),
                              x,
                              w,
                              b};
  return op_of(g, "onnx.Conv", operands, nchw(N, M, OH, OW));
}

/// onnx.BatchNormalization (inference) of x with random parameters, the variance positive.
OpRef batch_norm(Graph& g, OpRef x, std::mt19937_64& rng) {
  const OutputDef d = g.output(x);  // a copy: adding the constants may move the graph's definitions
  const std::size_t c = d.dims[1];
  std::vector<float> var = random_floats(rng, c);
  for (float& v : var) v = 0.25f + std::fabs(v);
  return g.add_op("onnx.BatchNormalization",
                  {scalar_f(g, 1e-5f), scalar_f(g, 0.9f), scalar_i(g, 0), x, f32s(g, random_floats(rng, c)),
                   f32s(g, random_floats(rng, c)), f32s(g, random_floats(rng, c)), f32s(g, var)},
                  d);
}

/// What follows a convolution y (kinds 0 to 11).
OpRef after_conv(Graph& g, OpRef y, int which, std::mt19937_64& rng) {
  const OutputDef d = g.output(y);
  switch (which) {
    case 0: return y;
    case 1: return batch_norm(g, y, rng);
    case 2: return g.add_op("onnx.Relu", {batch_norm(g, y, rng)}, d);
    case 3: return unary_op(g, y, static_cast<int>(rng() % 7), rng);
    case 4: return hswish_by_sigmoid(g, y, rng() % 2, false);
    case 5:
    case 6: {  // a constant scale or offset, on either side
      OpRef c = broadcast_const(g, d, rng);
      const bool swap = rng() % 2;
      return op_of(g, which == 5 ? "onnx.Mul" : "onnx.Add", swap ? std::vector<OpRef>{c, y} : std::vector<OpRef>{y, c},
                   d);
    }
    case 7: return g.add_op("onnx.GlobalAveragePool", {y}, nchw(d.dims[0], d.dims[1], 1, 1));
    case 8: {  // squeeze-and-excitation: y times (or plus) its channel means
      OpRef s = g.add_op("onnx.GlobalAveragePool", {y}, nchw(d.dims[0], d.dims[1], 1, 1));
      const bool swap = rng() % 2;
      return op_of(g, rng() % 2 ? "onnx.Mul" : "onnx.Add", swap ? std::vector<OpRef>{s, y} : std::vector<OpRef>{y, s},
                   d);
    }
    case 9: {  // Relu, then a constant scale (not folded into a ConvLayerRelu)
      OpRef r = g.add_op("onnx.Relu", {y}, d);
      return g.add_op("onnx.Mul", {r, broadcast_const(g, d, rng)}, d);
    }
    default: {  // flattened
      const std::size_t rest = d.dims[1] * d.dims[2] * d.dims[3];
      return g.add_op("onnx.Flatten", {scalar_i(g, 1), y}, OutputDef::make(DType::Float32, {d.dims[0], rest}));
    }
  }
}

void build(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  const std::size_t N = 1 + m.dims[0] % 2, C = m.dims[1], H = m.dims[2], W = m.dims[3];
  const auto d4 = nchw(N, C, H, W);
  // Half the graphs tile their convolutions: a tile's output holds at most 4 to 35 elements.
  if (m.kind == conv || m.kind == conv_pair)
    if (rng() % 2) g.set_option("htp_tile_elements", std::uint64_t{4 + rng() % 32});
  switch (m.kind) {
    case hswish_clip:
    case hswish_sigmoid: {
      const auto d = m.variant % 3 == 2 ? OutputDef::make(DType::Float32, {N, C * H * W}) : d4;
      OpRef x = b.value(d, m.share, rng());
      const bool miss = m.variant % 4 == 3;
      b.output(m.kind == hswish_clip ? hswish_by_clip(g, x, m.variant % 2, miss)
                                     : hswish_by_sigmoid(g, x, m.variant % 2, miss));
      break;
    }
    case unary: {
      const auto d = m.variant % 3 == 2 ? OutputDef::make(DType::Float32, {N * C, H, W}) : d4;
      OpRef v = unary_op(g, b.value(d, m.share, rng()), static_cast<int>(rng() % 7), rng);
      if (m.fan_out) b.output(v);
      b.output(unary_op(g, v, static_cast<int>(rng() % 7), rng));
      break;
    }
    case binary: {  // rank 4 (translated) or 3 (not); the other operand an input or a constant
      const auto d = m.variant % 3 == 2 ? OutputDef::make(DType::Float32, {N * C, H, W}) : d4;
      OpRef x = b.value(d, m.share, rng());
      OpRef y = m.variant % 2 || d.rank != 4 ? b.value(d, false, 0) : broadcast_const(g, d, rng);
      b.output(g.add_op(rng() % 2 ? "onnx.Add" : "onnx.Mul", {x, y}, d));
      break;
    }
    case conv: {  // a convolution, what follows it, perhaps another convolution
      const int miss = m.variant == 5 ? 1 + static_cast<int>(rng() % 2) : 0;
      OpRef y = onnx_conv(g, b.value(d4, m.share, rng()), 0, std::mt19937_64(rng()), rng, miss);
      if (m.fan_out) b.output(y);
      y = after_conv(g, y, static_cast<int>(rng() % 11), rng);
      if (g.output(y).rank == 4 && rng() % 2) y = onnx_conv(g, y, 0, std::mt19937_64(rng()), rng, 0);
      b.output(y);
      break;
    }
    case conv_pair: {  // two convolutions of one input joined by Add or Mul
      OpRef x = b.value(d4, m.share, rng());
      const std::mt19937_64 window(rng());
      OpRef y1 = onnx_conv(g, x, 0, window, rng, 0);
      const auto yd = g.output(y1);
      OpRef y2 = onnx_conv(g, x, yd.dims[1], window, rng, 0);  // the same window, other weights
      y1 = after_conv(g, y1, static_cast<int>(rng() % 4), rng);
      b.output(g.add_op(rng() % 2 ? "onnx.Add" : "onnx.Mul", {y1, y2}, yd));
      break;
    }
    case reshape: {  // a chain of one to three reshapes
      OpRef v = b.value(d4, m.share, rng());
      const int n = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) {
        const OutputDef d = g.output(v);
        const std::size_t count = d.element_count();
        switch (rng() % 4) {
          case 0: {  // to [count / last, last] or to the same shape
            std::vector<std::size_t> to(d.dims.begin(), d.dims.begin() + d.rank);
            if (rng() % 2) to = {count / d.dims[d.rank - 1], d.dims[d.rank - 1]};
            std::vector<std::int64_t> s(to.begin(), to.end());
            v = g.add_op("onnx.Reshape", {scalar_i(g, 0), v, i64s(g, s)}, f32_of(to));
            break;
          }
          case 1:
            v = g.add_op("onnx.Flatten", {scalar_i(g, 1), v},
                         OutputDef::make(DType::Float32, {d.dims[0], count / d.dims[0]}));
            break;
          case 2: {
            if (d.rank >= 6) break;
            std::vector<std::size_t> to(d.dims.begin(), d.dims.begin() + d.rank);
            to.insert(to.begin(), 1);
            const OutputDef od = f32_of(to);
            v = g.add_op("onnx.Unsqueeze", {i32s(g, {}), v, i64s(g, {0})}, od);
            break;
          }
          default: {
            std::uint32_t axis = 0;
            while (axis < d.rank && d.dims[axis] != 1) ++axis;
            if (axis == d.rank || d.rank == 1) break;
            std::vector<std::size_t> to(d.dims.begin(), d.dims.begin() + d.rank);
            to.erase(to.begin() + axis);
            const OutputDef od = f32_of(to);
            v = g.add_op("onnx.Squeeze", {i32s(g, {}), v, i64s(g, {static_cast<std::int64_t>(axis)})}, od);
            break;
          }
        }
        if (m.fan_out && k == 0) b.output(v);
      }
      b.output(v);
      break;
    }
    default: break;
  }
}

Motif draw(std::mt19937_64& rng, int kind) {
  Motif m = random_motif(rng, kind, 7);
  m.dims[1] = 1 + rng() % 4;  // channels
  return m;
}

Package htp_lowering() {
  return {.name = "htp_lowering",
          .rules = rules_from("htp_lowering.cpp"),
          .kinds = n_kinds,
          .draw = draw,
          .build = build,
          .tolerance = 1e-4,
          .abs_tolerance = 1e-3};
}
}  // namespace

TEST_CASE("the lowering package's rules preserve results on random graphs") {
  const Package p = htp_lowering();
  // Every rule of htp_lowering.cpp registered: as many as og-parse reads there.
  const auto in_source = og_test::rules_in_source(OG_HTP_LOWERING_SOURCE);
  REQUIRE(in_source);
  REQUIRE(*in_source > 0);
  REQUIRE(p.rules.size() == *in_source);
  // The second form of the binary ops' sinking (the second operand gives the shape) met a
  // GlobalAvgPool's [N,1,1,C] transpose; GlobalAveragePool is now lowered by cnn.cpp's rules,
  // which this test does not run (the whole package: semantic_htp_domains.cpp).
  const std::string why = "its broadcast operand comes from cnn.cpp's GlobalAvgPool";
  check_package(p, 10, {{R"(WITH_SIZE("b",Op("Add","a","b")))", why}, {R"(WITH_SIZE("b",Op("Mul","a","b")))", why}});
}

// Found by the check: a one-element offset of rank 4 after a convolution was added to its rank-1
// bias as it was, so the new bias broadcast to [1,1,1,M] where [M] was declared (the rewritten
// graph did not verify). The constant now becomes rank 1 first; the same for a scale.
TEST_CASE("lowering: a rank-4 one-element offset or scale folds into a rank-1 bias") {
  Package p = htp_lowering();
  for (const char* op : {"onnx.Add", "onnx.Mul"}) {
    INFO(op);
    const auto [problem, tally] = check_graph(p, [op = op](Builder& b) {
      Graph& g = b.graph();
      OpRef x = g.add_input(nchw(1, 1, 2, 2));
      OpRef w = g.add_const(nchw(3, 1, 1, 1), {0.5f, -1.0f, 2.0f});
      OpRef conv = op_of(g, "onnx.Conv",
                         {scalar_i(g, 0), i32s(g, {}), scalar_i(g, 1), i32s(g, {}), i32s(g, {}), i32s(g, {}), x, w,
                          f32s(g, {1.0f, 2.0f, 3.0f})},
                         nchw(1, 3, 2, 2));
      b.output(g.add_op(op, {conv, f32s(g, {1.5f}, {1, 1, 1, 1})}, nchw(1, 3, 2, 2)));
    });
    CHECK(!problem);
    if (problem) WARN(*problem);
    CHECK(fired(tally, std::string(R"(EARLY,Op(")") + (std::string(op) == "onnx.Add" ? "Add" : "Mul") +
                           R"(",Op("ConvLayer")") == 1);
  }
}
