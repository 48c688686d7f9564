// The lowering package: imported ONNX ops (`onnx.*`, NCHW) to the library's HTP-style ops with
// NHWC layout (include/optgrammar/ops/layer.hpp). docs/htp_lowering.md describes its passes.
//
//   CLEANUP_GRAPH   hard-swish fusions (both ONNX spellings)
//   PRE_TRANSLATE   elementwise onnx ops to the library's (layout-free: same shapes)
//   TRANSLATE       onnx.Conv to Transpose(ConvLayer(Transpose(x), w in HWIO, bias)): transposes
//                   at the boundary of every convolution
//   EARLY           transposes sink through elementwise ops and cancel in pairs; BatchNormalization
//                   and per-channel scale and bias fold into the convolution's weights and bias
//                   (the constant folder does the arithmetic); Conv+Bias+Relu fusion; reshape
//                   cleanup
//   TILING          AUTOSPLIT of convolutions by rows when their output has more elements than
//                   the graph option htp_tile_elements
#include "htp_lowering.hpp"

#include <algorithm>
#include <cstdint>

using optgrammar::OpRef;
using optgrammar::QuickShape;
using optgrammar::Replacement;
using optgrammar::Split_Context;

// ---- CLEANUP_GRAPH: hard-swish ------------------------------------------------------------

// x * Clip(x + 3, 0, 6) / 6 (how PaddlePaddle exports hard-swish); a constant of more dims than x
// broadcasts the result beyond x's shape, which HardSwish does not (SAME_SHAPE).
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH,
                         Op("onnx.Div",
                            Op("onnx.Mul", "x",
                               Op("onnx.Clip", OPCONST("min_attr"), OPCONST("max_attr"),
                                  Op("onnx.Add", "x", OPCONST("three")), OPCONST("lo"), OPCONST("hi"))),
                            OPCONST("six")),
                         AND(IS_FLOAT32("x"), HTP_IS_SCALAR_F("three", 3.0f), HTP_IS_SCALAR_F("lo", 0.0f),
                             HTP_IS_SCALAR_F("hi", 6.0f), HTP_IS_SCALAR_F("six", 6.0f),
                             HTP_CLIP_ATTRS_UNBOUNDED("min_attr", "max_attr"), SAME_SHAPE("x", "*")),
                         Op("HardSwish", "x"))

// The same with Clip's bounds as attributes (opsets before 11).
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH,
                         Op("onnx.Div",
                            Op("onnx.Mul", "x",
                               Op("onnx.Clip", OPCONST("lo"), OPCONST("hi"), Op("onnx.Add", "x", OPCONST("three")),
                                  OPCONST("no_lo"), OPCONST("no_hi"))),
                            OPCONST("six")),
                         AND(IS_FLOAT32("x"), HTP_IS_SCALAR_F("three", 3.0f), HTP_IS_SCALAR_F("lo", 0.0f),
                             HTP_IS_SCALAR_F("hi", 6.0f), HTP_IS_SCALAR_F("six", 6.0f),
                             NOT(CONSTVAL_FLOAT_VALID("no_lo", 0)), NOT(CONSTVAL_FLOAT_VALID("no_hi", 0)),
                             SAME_SHAPE("x", "*")),
                         Op("HardSwish", "x"))

// x * HardSigmoid(x) with alpha 1/6 and beta 1/2, either operand order.
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH,
                         Op("onnx.Mul", "x", Op("onnx.HardSigmoid", OPCONST("alpha"), OPCONST("beta"), "x")),
                         AND(IS_FLOAT32("x"), LT(ABS(SUB(CONSTVAL_FLOAT("alpha", 0), DIV(1.0f, 6.0f))), 1e-6f),
                             HTP_IS_SCALAR_F("beta", 0.5f)),
                         Op("HardSwish", "x"))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH,
                         Op("onnx.Mul", Op("onnx.HardSigmoid", OPCONST("alpha"), OPCONST("beta"), "x"), "x"),
                         AND(IS_FLOAT32("x"), LT(ABS(SUB(CONSTVAL_FLOAT("alpha", 0), DIV(1.0f, 6.0f))), 1e-6f),
                             HTP_IS_SCALAR_F("beta", 0.5f)),
                         Op("HardSwish", "x"))

// ---- PRE_TRANSLATE: elementwise ops ---------------------------------------------------------

DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.HardSwish", "x"), IS_FLOAT32("x"), Op("HardSwish", "x"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Relu", "x"), IS_FLOAT32("x"), Op("Relu", "x"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.HardSigmoid", OPCONST("alpha"), OPCONST("beta"), "x"), IS_FLOAT32("x"),
                         Op("HardSigmoid", "x", "alpha", "beta"))
// Clip with both bounds given as one-element inputs, lo <= hi: ReluMinMax (ONNX's Clip gives hi
// everywhere when lo > hi, ReluMinMax does not).
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE,
                         Op("onnx.Clip", OPCONST("min_attr"), OPCONST("max_attr"), "x", OPCONST("lo"), OPCONST("hi")),
                         AND(IS_FLOAT32("x"), CONSTVAL_FLOAT_VALID("lo", 0), NOT(CONSTVAL_FLOAT_VALID("lo", 1)),
                             CONSTVAL_FLOAT_VALID("hi", 0), NOT(CONSTVAL_FLOAT_VALID("hi", 1)),
                             LE(CONSTVAL_FLOAT("lo", 0), CONSTVAL_FLOAT("hi", 0)),
                             HTP_CLIP_ATTRS_UNBOUNDED("min_attr", "max_attr")),
                         Op("ReluMinMax", "x", "lo", "hi"))
// The same with the bounds as attributes (opsets before 11).
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE,
                         Op("onnx.Clip", OPCONST("lo"), OPCONST("hi"), "x", OPCONST("no_lo"), OPCONST("no_hi")),
                         AND(IS_FLOAT32("x"), NOT(CONSTVAL_FLOAT_VALID("no_lo", 0)),
                             NOT(CONSTVAL_FLOAT_VALID("no_hi", 0)),
                             LE(CONSTVAL_FLOAT("lo", 0), CONSTVAL_FLOAT("hi", 0))),
                         Op("ReluMinMax", "x", "lo", "hi"))
// Binary arithmetic.
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Add", "a", "b"), AND(IS_FLOAT32("a"), IS_FLOAT32("b"), OK),
                         Op("Add", "a", "b"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Mul", "a", "b"), AND(IS_FLOAT32("a"), IS_FLOAT32("b"), OK),
                         Op("Mul", "a", "b"))

// ---- TRANSLATE: convolutions --------------------------------------------------------------

#define HTP_CONV_OK AND(EQ(CONSTVAL_INT("auto_pad", 0), 0), EQ(RANK_OF("x"), 4U), IS_FLOAT32("x"), IS_FLOAT32("w"))
// The ONNX filter [Co, Ci/g, KH, KW] as HWIO [KH, KW, Ci/g, Co].
#define HTP_HWIO(W)                                                            \
  WITH_SIZE(gen_Shape(DIM_OF(W, 2), DIM_OF(W, 3), DIM_OF(W, 1), DIM_OF(W, 0)), \
            Op("Transpose", W, gen_ConstArr_vals_i32(2, 3, 1, 0)))
#define HTP_CONV(BIAS)                                                                                           \
  Op("Transpose",                                                                                                \
     WITH_SIZE(HTP_NHWC_SHAPE("*"),                                                                              \
               Op("ConvLayer", HTP_TO_NHWC("x"), HTP_HWIO("w"), BIAS, "dilations", "group", "pads", "strides")), \
     HTP_TO_NCHW_PERM)

// With a bias input.
DEF_PACKAGE_OPTIMIZATION(TRANSLATE,
                         Op("onnx.Conv", OPCONST("auto_pad"), "dilations", "group", "kernel_shape", "pads", "strides",
                            "x", "w", OPCONST("b")),
                         AND(HTP_CONV_OK, CONSTVAL_FLOAT_VALID("b", 0)), HTP_CONV("b"))
// Without: a zero bias.
DEF_PACKAGE_OPTIMIZATION(TRANSLATE,
                         Op("onnx.Conv", OPCONST("auto_pad"), "dilations", "group", "kernel_shape", "pads", "strides",
                            "x", "w", OPCONST("b")),
                         AND(HTP_CONV_OK, NOT(CONSTVAL_FLOAT_VALID("b", 0))),
                         HTP_CONV(gen_ConstArr_f32(0.0f, DIM_OF("w", 0))))

// ---- EARLY: layout, folding into convolutions, fusion, cleanup -------------------------------

// Transpose pairs that cancel: q after p is the identity.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Transpose", Op("Transpose", "x", OPCONST("p")), OPCONST("q")),
                         AND(CONSTVAL_INT_VALID("p", 3), NOT(CONSTVAL_INT_VALID("p", 4)),
                             NOT(CONSTVAL_INT_VALID("q", 4)), EQ(CONSTVAL_INT("p", CONSTVAL_INT("q", 0)), 0),
                             EQ(CONSTVAL_INT("p", CONSTVAL_INT("q", 1)), 1),
                             EQ(CONSTVAL_INT("p", CONSTVAL_INT("q", 2)), 2),
                             EQ(CONSTVAL_INT("p", CONSTVAL_INT("q", 3)), 3)),
                         "x")

// Elementwise unary ops move after the boundary transpose (towards the next one, to cancel).
#define HTP_SINK_UNARY(NAME)                                                                   \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("t", "x")), HTP_IS_TO_NCHW("t_perm"), \
                           Op("Transpose", WITH_SIZE("x", Op(NAME, "x")), "t_perm"))
HTP_SINK_UNARY("Relu")
HTP_SINK_UNARY("HardSwish")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReluMinMax", HTP_FROM_NHWC("t", "x"), "lo", "hi"), HTP_IS_TO_NCHW("t_perm"),
                         Op("Transpose", WITH_SIZE("x", Op("ReluMinMax", "x", "lo", "hi")), "t_perm"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("HardSigmoid", HTP_FROM_NHWC("t", "x"), "alpha", "beta"), HTP_IS_TO_NCHW("t_perm"),
                         Op("Transpose", WITH_SIZE("x", Op("HardSigmoid", "x", "alpha", "beta")), "t_perm"))

// Binary ops: both operands from NHWC (the larger one gives the shape), or one a constant (a
// rank-4 one transposed to NHWC, folded; one of a single element as it is).
#define HTP_SINK_BINARY(NAME)                                                                                \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("ta", "a"), HTP_FROM_NHWC("tb", "b")),              \
                           AND(HTP_IS_TO_NCHW("ta_perm"), HTP_IS_TO_NCHW("tb_perm"), SAME_SHAPE("ta", "*")), \
                           Op("Transpose", WITH_SIZE("a", Op(NAME, "a", "b")), "ta_perm"))                   \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("ta", "a"), HTP_FROM_NHWC("tb", "b")),              \
                           AND(HTP_IS_TO_NCHW("ta_perm"), HTP_IS_TO_NCHW("tb_perm"), SAME_SHAPE("tb", "*")), \
                           Op("Transpose", WITH_SIZE("b", Op(NAME, "a", "b")), "ta_perm"))                   \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("ta", "a"), OPCONST("c")),                          \
                           AND(HTP_IS_TO_NCHW("ta_perm"), SAME_SHAPE("ta", "*"), EQ(RANK_OF("c"), 4U)),      \
                           Op("Transpose", WITH_SIZE("a", Op(NAME, "a", HTP_TO_NHWC("c"))), "ta_perm"))      \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, OPCONST("c"), HTP_FROM_NHWC("ta", "a")),                          \
                           AND(HTP_IS_TO_NCHW("ta_perm"), SAME_SHAPE("ta", "*"), EQ(RANK_OF("c"), 4U)),      \
                           Op("Transpose", WITH_SIZE("a", Op(NAME, "a", HTP_TO_NHWC("c"))), "ta_perm"))      \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("ta", "a"), OPCONST("c")),                          \
                           AND(HTP_IS_TO_NCHW("ta_perm"), SAME_SHAPE("ta", "*"), HTP_ONE_ELEMENT("c")),      \
                           Op("Transpose", WITH_SIZE("a", Op(NAME, "a", "c")), "ta_perm"))                   \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, OPCONST("c"), HTP_FROM_NHWC("ta", "a")),                          \
                           AND(HTP_IS_TO_NCHW("ta_perm"), SAME_SHAPE("ta", "*"), HTP_ONE_ELEMENT("c")),      \
                           Op("Transpose", WITH_SIZE("a", Op(NAME, "a", "c")), "ta_perm"))
HTP_SINK_BINARY("Add")
HTP_SINK_BINARY("Mul")

// BatchNormalization after a convolution: w * s and (b - mean) * s + B, s = scale / sqrt(var + eps).
// Both forms need eps > 0: with eps 0, a zero variance makes s infinite, and the folded form's
// inf - inf gives NaN where BatchNormalization gives an infinity.
#define HTP_BN_S              \
  WITH_SAME_OUTPUT(           \
      "scale",                \
      Op("onnx.Div", "scale", \
         WITH_SAME_OUTPUT("scale", Op("onnx.Sqrt", WITH_SAME_OUTPUT("scale", Op("onnx.Add", "var", "eps"))))))
DEF_PACKAGE_OPTIMIZATION(
    EARLY,
    Op("onnx.BatchNormalization", OPCONST("eps"), "momentum", OPCONST("training"),
       HTP_FROM_NHWC("t", LET("conv", Op("ConvLayer", "x", "w", "b", "dilations", "group", "pads", "strides"))),
       "scale", "bias", "mean", "var"),
    AND(HTP_IS_TO_NCHW("t_perm"), EQ(CONSTVAL_INT("training", 0), 0), GT(CONSTVAL_FLOAT("eps", 0), 0.0f),
        EQ(RANK_OF("scale"), 1U),
        OR(AND(EQ(RANK_OF("b"), 1U), EQ(DIM_OF("b", 0), DIM_OF("scale", 0))),
           AND(EQ(RANK_OF("b"), 4U), EQ(DIM_OF("b", 3), DIM_OF("scale", 0))))),
    Op("Transpose",
       WITH_SAME_OUTPUT(
           "conv",
           Op("ConvLayer", "x", WITH_SAME_OUTPUT("w", Op("Mul", "w", HTP_BN_S)),
              WITH_SAME_OUTPUT("b", Op("Add",
                                       WITH_SAME_OUTPUT("b", Op("Mul", WITH_SAME_OUTPUT("b", Op("Sub", "b", "mean")),
                                                                HTP_BN_S)),
                                       "bias")),
              "dilations", "group", "pads", "strides")),
       "t_perm"))

// BatchNormalization elsewhere (before a convolution, after a pool): a per-channel scale and
// offset, [1, C, 1, 1] constants the folder computes: x * s + (B - mean * s).
#define HTP_BN_S4 WITH_SIZE(gen_Shape(1, DIM_OF("scale", 0), 1, 1), Op("Reshape", HTP_BN_S))
DEF_PACKAGE_OPTIMIZATION(
    EARLY,
    Op("onnx.BatchNormalization", OPCONST("eps"), "momentum", OPCONST("training"), "x", "scale", "bias", "mean", "var"),
    AND(EQ(CONSTVAL_INT("training", 0), 0), GT(CONSTVAL_FLOAT("eps", 0), 0.0f), EQ(RANK_OF("scale"), 1U),
        EQ(RANK_OF("x"), 4U), IS_FLOAT32("x"), EQ(DIM_OF("scale", 0), DIM_OF("x", 1))),
    Op("Add", Op("Mul", "x", HTP_BN_S4),
       WITH_SIZE(gen_Shape(1, DIM_OF("scale", 0), 1, 1),
                 Op("Reshape",
                    WITH_SAME_OUTPUT("scale", Op("onnx.Sub", "bias",
                                                 WITH_SAME_OUTPUT("scale", Op("onnx.Mul", "mean", HTP_BN_S))))))))

// A per-channel constant scale or offset after a convolution: into the weights and the bias.
#define HTP_PER_CHANNEL(C)                                                                  \
  AND(EQ(RANK_OF(C), 4U), EQ(DIM_OF(C, 0), 1U), EQ(DIM_OF(C, 1), 1U), EQ(DIM_OF(C, 2), 1U), \
      EQ(DIM_OF(C, 3), DIM_OF("*", 3)), IS_FLOAT32(C))
DEF_PACKAGE_OPTIMIZATION(EARLY,
                         Op("Mul", LET("conv", Op("ConvLayer", "x", "w", "b", "dilations", "group", "pads", "strides")),
                            OPCONST("c")),
                         HTP_PER_CHANNEL("c"),
                         Op("ConvLayer", "x", WITH_SAME_OUTPUT("w", Op("Mul", "w", "c")),
                            WITH_SAME_OUTPUT("c", Op("Mul", "b", "c")), "dilations", "group", "pads", "strides"))
DEF_PACKAGE_OPTIMIZATION(EARLY,
                         Op("Add", LET("conv", Op("ConvLayer", "x", "w", "b", "dilations", "group", "pads", "strides")),
                            OPCONST("c")),
                         HTP_PER_CHANNEL("c"),
                         Op("ConvLayer", "x", "w", WITH_SAME_OUTPUT("c", Op("Add", "b", "c")), "dilations", "group",
                            "pads", "strides"))

// The same with a single-element constant (a learnable affine scale or offset). The bias takes it
// as one element of rank 1: one of rank 4 would broadcast a rank-1 bias to rank 4.
#define HTP_AS_RANK1(C) WITH_SIZE(gen_Shape(1), Op("Reshape", C))
DEF_PACKAGE_OPTIMIZATION(
    EARLY, Op("Mul", Op("ConvLayer", "x", "w", "b", "dilations", "group", "pads", "strides"), OPCONST("c")),
    HTP_ONE_ELEMENT("c"),
    Op("ConvLayer", "x", WITH_SAME_OUTPUT("w", Op("Mul", "w", "c")),
       WITH_SAME_OUTPUT("b", Op("Mul", "b", HTP_AS_RANK1("c"))), "dilations", "group", "pads", "strides"))
DEF_PACKAGE_OPTIMIZATION(EARLY,
                         Op("Add", Op("ConvLayer", "x", "w", "b", "dilations", "group", "pads", "strides"),
                            OPCONST("c")),
                         HTP_ONE_ELEMENT("c"),
                         Op("ConvLayer", "x", "w", WITH_SAME_OUTPUT("b", Op("Add", "b", HTP_AS_RANK1("c"))),
                            "dilations", "group", "pads", "strides"))

// Conv + Bias + Relu as one op.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("ConvLayer", "x", "w", "b", "dilations", "group", "pads", "strides")), OK,
                         Op("ConvLayerRelu", "x", "w", "b", "dilations", "group", "pads", "strides"))

// Reshapes: ONNX's become the library's (the shape is the output's); chains collapse; a reshape
// to the same shape goes.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("onnx.Reshape", "allowzero", "x", "shape"), OK, Op("Reshape", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("onnx.Flatten", "axis", "x"), OK, Op("Reshape", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("onnx.Squeeze", "axes_attr", "x", "axes"), OK, Op("Reshape", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("onnx.Unsqueeze", "axes_attr", "x", "axes"), OK, Op("Reshape", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Reshape", Op("Reshape", "x")), OK, Op("Reshape", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Reshape", "x"), AND(EQ(RANK_OF("x"), RANK_OF("*")), SAME_SHAPE("x", "*")), "x")

// ---- TILING ---------------------------------------------------------------------------------

// :::EXTERNAL_SHAPEFN::: { QuickShape htp_tile_pads(Replacement&, Split_Context const&, OpRef, OpRef, OpRef, OpRef); }
// The pads of one row tile of a convolution: the rows its window reads beyond the input, above
// and below; left and right as the whole convolution's.
static QuickShape htp_tile_pads(Replacement& rpx, Split_Context const& sc, OpRef x, OpRef w, OpRef pads,
                                OpRef strides) {
  namespace ops = optgrammar::ops;
  const auto& g = rpx.graph();
  auto p = ops::eval::int_values(ops::value_view(g, pads));
  auto s = ops::eval::int_values(ops::value_view(g, strides));
  if (!p || p->size() != 4 || !s || s->size() != 2)
    throw optgrammar::engine::ReplacementFailed("htp_tile_pads: pads or strides");
  const std::int64_t h = static_cast<std::int64_t>(g.output(x).dims[1]),
                     kh = static_cast<std::int64_t>(g.output(w).dims[0]);
  const std::int64_t start = static_cast<std::int64_t>(sc.start), size = static_cast<std::int64_t>(sc.size);
  const std::int64_t lo = start * (*s)[0] - (*p)[0], hi = (size + start - 1) * (*s)[0] - (*p)[0] + kh - 1;
  QuickShape q;
  q.rank = 4;
  q.dims = {static_cast<std::size_t>(std::max<std::int64_t>(0, -lo)), static_cast<std::size_t>((*p)[1]),
            static_cast<std::size_t>(std::max<std::int64_t>(0, hi - (h - 1))), static_cast<std::size_t>((*p)[3])};
  return q;
}

// Rows per tile: as many as keep a tile's output within htp_tile_elements, at least one.
#define HTP_TILE_ROWS MAX(1U, DIV(OPTION_UINT("htp_tile_elements"), MUL(DIM_OF("*", 2), DIM_OF("*", 3))))
#define HTP_TILE_OK                                                                                               \
  AND(GT(OPTION_UINT("htp_tile_elements"), 0U), GT(DIM_OF("*", 1), HTP_TILE_ROWS), CONSTVAL_INT_VALID("pads", 3), \
      CONSTVAL_INT_VALID("strides", 1),                                                                           \
      OR(NOT(CONSTVAL_INT_VALID("dilations", 0)),                                                                 \
         AND(EQ(CONSTVAL_INT("dilations", 0), 1), EQ(CONSTVAL_INT("dilations", 1), 1))))
#define HTP_TILE(NAME)                                                                                                 \
  DEF_PACKAGE_OPTIMIZATION(                                                                                            \
      TILING, Op(NAME, "x", "w", "b", "dilations", "group", "pads", "strides"), HTP_TILE_OK,                           \
      AUTOSPLIT(                                                                                                       \
          1, "I", HTP_TILE_ROWS,                                                                                       \
          Op(NAME, TYPICAL_CONV_SLICE("x", "I", CONSTVAL_INT("strides", 0), DIM_OF("w", 0), CONSTVAL_INT("pads", 0)),  \
             "w", "b", "dilations", "group", AUTOSPLIT_SHAPEFN_APPLY(htp_tile_pads, "I", "x", "w", "pads", "strides"), \
             "strides")))
HTP_TILE("ConvLayer")
HTP_TILE("ConvLayerRelu")
