// The lowering package (docs/htp_lowering.md): speech and detection networks. 1-d convolutions
// (wav2vec2's feature extractor, Conformer's depthwise convolutions) run as ConvLayer over
// [N, 1, T, C]; instance and group normalization (PyTorch's GroupNorm exports as Reshape,
// InstanceNormalization, Reshape, Mul, Add) become GroupNorm with channels last; Split's outputs,
// Pad, DepthToSpace and SpaceToDepth (YOLO-style heads and necks) become slices, pads and the NHWC
// moves; the channels-last transposes of [N, C, T] values move on and cancel as NCHW's do.
//
//   CLEANUP_GRAPH   the GroupNorm pattern
//   PRE_TRANSLATE   Split: StridedSlice per output; Pad: Pad
//   TRANSLATE       Conv of rank 3; InstanceNormalization; DepthToSpace, SpaceToDepth
//   EARLY           [N, C, T] <-> [N, T, C] transposes after elementwise ops and normalizations;
//                   a per-channel scale or offset folds into GroupNorm; zero padding into
//                   ConvLayer's and AvgPool2d's pads; Pad moves to NHWC
#include "htp_lowering.hpp"

#include <optgrammar/core/element.hpp>
#include <optgrammar/ops/onnx_eval.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using optgrammar::Constraint;
using optgrammar::OpRef;
using optgrammar::Replacement;

namespace {
namespace ops = optgrammar::ops;
/// The values of a constant, as doubles (none when it holds no data).
std::vector<double> const_values(const optgrammar::Graph& g, OpRef r) {
  const ops::ValueView v = ops::value_view(g, r);
  std::vector<double> out;
  if (!ops::eval::has_data(v)) return out;
  for (std::size_t i = 0; i < v.def->element_count(); ++i)
    out.push_back(optgrammar::element_value(v.def->dtype, v.data.data(), i));
  return out;
}
}  // namespace

// :::EXTERNAL_SHAPEFN::: { bool htp_all_equal(Constraint&, OpRef, float); }
// Whether every element of constant c equals v.
static bool htp_all_equal(Constraint& c, OpRef x, float v) {
  const auto vals = const_values(c.graph(), x);
  if (vals.empty()) return false;
  for (double e : vals)
    if (e != static_cast<double>(v)) return false;
  return true;
}

// :::EXTERNAL_SHAPEFN::: { bool htp_pads_fit(Constraint&, OpRef, OpRef, OpRef); }
// Whether HTP's Pad takes these pads of x in this mode: none negative (it grows, it does not
// crop), and with mode 1 (reflect) each below its dimension's extent (ONNX's Pad reflects again
// past the edge; HTP's does not).
static bool htp_pads_fit(Constraint& c, OpRef pads, OpRef x, OpRef mode) {
  const auto vals = const_values(c.graph(), pads);
  const auto m = const_values(c.graph(), mode);
  const optgrammar::OutputDef& d = c.graph().output(x);
  if (std::any_of(vals.begin(), vals.end(), [](double e) { return e < 0; })) return false;
  if (m.size() != 1 || m[0] != 1) return true;
  if (vals.size() != 2 * d.rank) return true;  // (Pad's definition rejects it)
  for (std::size_t k = 0; k < vals.size(); ++k)
    if (vals[k] >= static_cast<double>(d.dims[k % d.rank])) return false;
  return true;
}

// :::EXTERNAL_SHAPEFN::: { OpRef htp_split_param(Replacement&, OpRef, int); }
// StridedSlice's begin (which 0), end (1) or steps (2) for the output an onnx.Split op computes
// (its `output` operand): the parts' lengths from the split input or attribute, else equal.
static OpRef htp_split_param(Replacement& rpx, OpRef split_op, int which) {
  const auto& g = rpx.graph();
  std::vector<ops::ValueView> buf;
  const ops::OpView v = ops::op_view(g, split_op, buf);
  const ops::onnx_eval::Args a{v, 3};
  const auto& x = *a.in(0).def;
  const auto ax = ops::onnx_eval::axis_of(a.attr_int(0), x.rank);
  if (!ax) throw optgrammar::engine::ReplacementFailed("htp_split_param: axis");
  const auto k = static_cast<std::size_t>(a.attr_int(2));
  const auto parts = a.present(1) ? a.input_ints(1) : a.attr_ints(1);
  const std::size_t len = g.output(split_op).dims[*ax];
  std::size_t start = k * len;
  if (!parts.empty()) {
    start = 0;
    for (std::size_t j = 0; j < k && j < parts.size(); ++j) start += static_cast<std::size_t>(parts[j]);
  }
  std::vector<std::int32_t> out(x.rank);
  for (std::uint32_t d = 0; d < x.rank; ++d) {
    const bool on = d == *ax;
    out[d] = static_cast<std::int32_t>(which == 2 ? 1 : which == 0 ? (on ? start : 0) : (on ? start + len : x.dims[d]));
  }
  return rpx.constant(optgrammar::OutputDef::make(optgrammar::DType::Int32, {out.size()}),
                      std::span<const std::int32_t>(out));
}

// ---- PRE_TRANSLATE: splits and pads ---------------------------------------------------------------

DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Split", "axis", "split_attr", "output", "x", OPCONST("split")), OK,
                         Op("StridedSlice", "x", SHAPEFN_APPLY(htp_split_param, "*", 0),
                            SHAPEFN_APPLY(htp_split_param, "*", 1), SHAPEFN_APPLY(htp_split_param, "*", 2)))
// Pad with its pads as an input (opset 11 on; the fill value an input, or none: an absent input
// imports as an empty Float32 constant, which Pad reads as 0) or as an attribute; negative pads
// (ONNX's crops) and reflect pads beyond an extent stay.
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE,
                         Op("onnx.Pad", "mode", "pads_attr", "value_attr", "x", OPCONST("pads"), OPCONST("value")),
                         AND(CONSTVAL_INT_VALID("pads", 0), EXTERNAL_CONSTRAINT(htp_pads_fit, "pads", "x", "mode"),
                             NOT(CONSTVAL_FLOAT_VALID("value", 1)), EQ(DTYPE_OF("value"), DTYPE_OF("x"))),
                         Op("Pad", "x", "pads", "value", "mode"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE,
                         Op("onnx.Pad", "mode", OPCONST("pads_attr"), "value_attr", "x", OPCONST("pads"), "value"),
                         AND(HTP_EMPTY("pads"), CONSTVAL_INT_VALID("pads_attr", 0),
                             EXTERNAL_CONSTRAINT(htp_pads_fit, "pads_attr", "x", "mode"), IS_FLOAT32("x")),
                         Op("Pad", "x", "pads_attr", "value_attr", "mode"))

// ---- TRANSLATE: 1-d convolutions, normalizations, depth/space moves --------------------------------

// [N, C, T] <-> [N, T, C].
#define HTP_SWAP12 gen_ConstArr_vals_i32(0, 2, 1)
#define HTP_TO_NTC(X) \
  WITH_TYPE(X, WITH_SIZE(gen_Shape(DIM_OF(X, 0), DIM_OF(X, 2), DIM_OF(X, 1)), Op("Transpose", X, HTP_SWAP12)))
#define HTP_NTC_SHAPE(X) gen_Shape(DIM_OF(X, 0), DIM_OF(X, 2), DIM_OF(X, 1))
// A list parameter of one entry as the 2-d [1, v] (empty: empty, ONNX's default).
#define HTP_1D_LIST(L, UNIT) SELECT(CONSTVAL_INT_VALID(L, 0), gen_ConstArr_vals_i32(UNIT, CONSTVAL_INT(L, 0)), L)
#define HTP_1D_PADS                                                                                                    \
  SELECT(CONSTVAL_INT_VALID("pads", 0), gen_ConstArr_vals_i32(0, CONSTVAL_INT("pads", 0), 0, CONSTVAL_INT("pads", 1)), \
         "pads")
// Conv of [N, C, T] as ConvLayer of [N, 1, T, C] with the filter [Co, Ci/g, K] as HWIO [1, K, Ci/g, Co].
#define HTP_CONV1D(BIAS)                                                                                              \
  Op("Transpose",                                                                                                     \
     WITH_SIZE(                                                                                                       \
         HTP_NTC_SHAPE("*"),                                                                                          \
         Op("Reshape",                                                                                                \
            WITH_SIZE(gen_Shape(DIM_OF("*", 0), 1, DIM_OF("*", 2), DIM_OF("*", 1)),                                   \
                      Op("ConvLayer",                                                                                 \
                         WITH_SIZE(gen_Shape(DIM_OF("x", 0), 1, DIM_OF("x", 2), DIM_OF("x", 1)),                      \
                                   Op("Reshape", HTP_TO_NTC("x"))),                                                   \
                         WITH_SIZE(gen_Shape(1, DIM_OF("w", 2), DIM_OF("w", 1), DIM_OF("w", 0)),                      \
                                   Op("Reshape", WITH_SIZE(gen_Shape(DIM_OF("w", 2), DIM_OF("w", 1), DIM_OF("w", 0)), \
                                                           Op("Transpose", "w", gen_ConstArr_vals_i32(2, 1, 0))))),   \
                         BIAS, HTP_1D_LIST("dilations", 1), "group", HTP_1D_PADS, HTP_1D_LIST("strides", 1))))),      \
     HTP_SWAP12)
#define HTP_CONV1D_OK AND(EQ(CONSTVAL_INT("auto_pad", 0), 0), EQ(RANK_OF("x"), 3U), IS_FLOAT32("x"), IS_FLOAT32("w"))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE,
                         Op("onnx.Conv", OPCONST("auto_pad"), OPCONST("dilations"), "group", "kernel_shape",
                            OPCONST("pads"), OPCONST("strides"), "x", "w", OPCONST("b")),
                         AND(HTP_CONV1D_OK, CONSTVAL_FLOAT_VALID("b", 0)), HTP_CONV1D("b"))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE,
                         Op("onnx.Conv", OPCONST("auto_pad"), OPCONST("dilations"), "group", "kernel_shape",
                            OPCONST("pads"), OPCONST("strides"), "x", "w", OPCONST("b")),
                         AND(HTP_CONV1D_OK, NOT(CONSTVAL_FLOAT_VALID("b", 0))),
                         HTP_CONV1D(gen_ConstArr_f32(0.0f, DIM_OF("w", 0))))

// InstanceNormalization of [N, C, T] or [N, C, H, W]: GroupNorm with a group per channel,
// channels last.
#define HTP_GN(X, G, GAMMA, BETA, EPS) Op("GroupNorm", X, GAMMA, BETA, EPS, HTP_SCALAR_I(G))
DEF_PACKAGE_OPTIMIZATION(
    TRANSLATE, Op("onnx.InstanceNormalization", "eps", "x", "scale", "bias"),
    AND(EQ(RANK_OF("x"), 3U), IS_FLOAT32("x")),
    Op("Transpose", WITH_SIZE(HTP_NTC_SHAPE("*"), HTP_GN(HTP_TO_NTC("x"), DIM_OF("x", 1), "scale", "bias", "eps")),
       HTP_SWAP12))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE, Op("onnx.InstanceNormalization", "eps", "x", "scale", "bias"),
                         AND(EQ(RANK_OF("x"), 4U), IS_FLOAT32("x")),
                         HTP_NCHW_WRAP(HTP_GN(HTP_TO_NHWC("x"), DIM_OF("x", 1), "scale", "bias", "eps")))
// PyTorch's GroupNorm: x [N, C, T] reshaped to [N, G, C/G * T], instance-normalized with unit scale
// and zero offset, reshaped back (its affine Mul and Add after it fold in below). In CLEANUP_GRAPH,
// on the ONNX spelling: in TRANSLATE the InstanceNormalization inside (visited first) would already
// be a GroupNorm of its own.
DEF_PACKAGE_OPTIMIZATION(
    CLEANUP_GRAPH,
    Op("onnx.Reshape", "az2",
       Op("onnx.InstanceNormalization", "eps", LET("r", Op("onnx.Reshape", "az1", "x", "s1")), OPCONST("one"),
          OPCONST("zero")),
       "s2"),
    AND(EQ(RANK_OF("x"), 3U), EQ(RANK_OF("*"), 3U), EQ(RANK_OF("r"), 3U), EQ(DIM_OF("r", 0), DIM_OF("x", 0)),
        EQ(MOD(DIM_OF("x", 1), DIM_OF("r", 1)), 0U), SAME_SHAPE("x", "*"), IS_FLOAT32("x"),
        EXTERNAL_CONSTRAINT(htp_all_equal, "one", 1.0f), EXTERNAL_CONSTRAINT(htp_all_equal, "zero", 0.0f)),
    Op("Transpose",
       WITH_SIZE(HTP_NTC_SHAPE("*"), HTP_GN(HTP_TO_NTC("x"), DIM_OF("r", 1), gen_ConstArr_f32(1.0f, DIM_OF("x", 1)),
                                            gen_ConstArr_f32(0.0f, DIM_OF("x", 1)), "eps")),
       HTP_SWAP12))

// DepthToSpace and SpaceToDepth (NCHW) as the NHWC ops.
DEF_PACKAGE_OPTIMIZATION(TRANSLATE, Op("onnx.DepthToSpace", "block", "mode", "x"), EQ(RANK_OF("x"), 4U),
                         HTP_NCHW_WRAP(Op("DepthToSpace", HTP_TO_NHWC("x"), "block", "mode")))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE, Op("onnx.SpaceToDepth", "block", "x"), EQ(RANK_OF("x"), 4U),
                         HTP_NCHW_WRAP(Op("SpaceToDepth", HTP_TO_NHWC("x"), "block")))

// ---- EARLY: the [N, C, T] transposes moved on; folds -------------------------------------------------

#define HTP_IS_SWAP12(P)                                                                                             \
  AND(CONSTVAL_INT_VALID(P, 2), NOT(CONSTVAL_INT_VALID(P, 3)), EQ(CONSTVAL_INT(P, 0), 0), EQ(CONSTVAL_INT(P, 1), 2), \
      EQ(CONSTVAL_INT(P, 2), 1))
#define HTP_SINK3(NAME) HTP_SINK_WHEN(NAME, HTP_IS_SWAP12("t_perm"))
#define HTP_SINK3_1(NAME) HTP_SINK1_WHEN(NAME, HTP_IS_SWAP12("t_perm"))
HTP_SINK3("Relu")
HTP_SINK3("Silu")
HTP_SINK3("Sigmoid")
HTP_SINK3("HardSwish")
HTP_SINK3_1("Gelu")
// Binary ops of [N, C, T] values that come from [N, T, C] (both: the swap is its own inverse, so
// a value of another origin would be swapped back and forth) or with a constant of rank 3 (a
// per-channel [1, C, 1] among them; swapped, folded).
#define HTP_SINK3_BINARY(NAME)                                                                            \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("ta", "a"), HTP_FROM_NHWC("tb", "b")),           \
                           AND(HTP_IS_SWAP12("ta_perm"), HTP_IS_SWAP12("tb_perm"), EQ(RANK_OF("*"), 3U),  \
                               EQ(RANK_OF("ta"), 3U), EQ(RANK_OF("tb"), 3U)),                             \
                           Op("Transpose", WITH_SIZE(HTP_NTC_SHAPE("*"), Op(NAME, "a", "b")), "ta_perm")) \
  DEF_PACKAGE_OPTIMIZATION(                                                                               \
      EARLY, Op(NAME, HTP_FROM_NHWC("ta", "a"), OPCONST("c")),                                            \
      AND(HTP_IS_SWAP12("ta_perm"), EQ(RANK_OF("*"), 3U), EQ(RANK_OF("c"), 3U), SAME_SHAPE("ta", "*")),   \
      Op("Transpose", WITH_SIZE("a", Op(NAME, "a", HTP_TO_NTC("c"))), "ta_perm"))                         \
  DEF_PACKAGE_OPTIMIZATION(                                                                               \
      EARLY, Op(NAME, OPCONST("c"), HTP_FROM_NHWC("ta", "a")),                                            \
      AND(HTP_IS_SWAP12("ta_perm"), EQ(RANK_OF("*"), 3U), EQ(RANK_OF("c"), 3U), SAME_SHAPE("ta", "*")),   \
      Op("Transpose", WITH_SIZE("a", Op(NAME, HTP_TO_NTC("c"), "a")), "ta_perm"))
HTP_SINK3_BINARY("Add")
HTP_SINK3_BINARY("Mul")
// A per-channel constant of rank 2 ([C, 1], as PyTorch's GroupNorm affine) becomes rank 3.
#define HTP_RANK2_C(NAME)                                                                                 \
  DEF_PACKAGE_OPTIMIZATION(                                                                               \
      EARLY, Op(NAME, HTP_FROM_NHWC("ta", "a"), OPCONST("c")),                                            \
      AND(HTP_IS_SWAP12("ta_perm"), EQ(RANK_OF("c"), 2U), EQ(DIM_OF("c", 1), 1U), SAME_SHAPE("ta", "*")), \
      Op(NAME, "ta", WITH_SIZE(gen_Shape(1, DIM_OF("c", 0), 1), Op("Reshape", "c"))))
HTP_RANK2_C("Add")
HTP_RANK2_C("Mul")

// A per-channel scale or offset of a GroupNorm folds into its gamma and beta: C elements along
// the last axis of x (of C channels), which broadcast x no further.
#define HTP_PER_C(C)                                                                       \
  AND(IS_FLOAT32(C), CONSTVAL_FLOAT_VALID(C, SUB(DIM_OF("x", SUB(RANK_OF("x"), 1U)), 1U)), \
      NOT(CONSTVAL_FLOAT_VALID(C, DIM_OF("x", SUB(RANK_OF("x"), 1U)))),                    \
      EQ(DIM_OF(C, SUB(RANK_OF(C), 1U)), DIM_OF("x", SUB(RANK_OF("x"), 1U))), EQ(RANK_OF("*"), RANK_OF("x")))
#define HTP_AS_C(C) WITH_SIZE(gen_ShapeOf("g"), Op("Reshape", C))
DEF_PACKAGE_OPTIMIZATION(EARLY,
                         Op("Mul", Op("GroupNorm", "x", OPCONST("g"), OPCONST("b"), "eps", "groups"), OPCONST("c")),
                         AND(HTP_PER_C("c"), EQ(RANK_OF("g"), 1U), EQ(RANK_OF("b"), 1U)),
                         Op("GroupNorm", "x", WITH_SAME_OUTPUT("g", Op("Mul", "g", HTP_AS_C("c"))),
                            WITH_SAME_OUTPUT("b", Op("Mul", "b", HTP_AS_C("c"))), "eps", "groups"))
DEF_PACKAGE_OPTIMIZATION(EARLY,
                         Op("Add", Op("GroupNorm", "x", OPCONST("g"), OPCONST("b"), "eps", "groups"), OPCONST("c")),
                         AND(HTP_PER_C("c"), EQ(RANK_OF("g"), 1U), EQ(RANK_OF("b"), 1U)),
                         Op("GroupNorm", "x", "g", WITH_SAME_OUTPUT("b", Op("Add", "b", HTP_AS_C("c"))), "eps",
                            "groups"))

// Pad of an NHWC value: its pads permuted to NHWC.
#define HTP_NHWC_PADS(P)                                                                                \
  gen_ConstArr_vals_i32(CONSTVAL_INT(P, 0), CONSTVAL_INT(P, 2), CONSTVAL_INT(P, 3), CONSTVAL_INT(P, 1), \
                        CONSTVAL_INT(P, 4), CONSTVAL_INT(P, 6), CONSTVAL_INT(P, 7), CONSTVAL_INT(P, 5))
DEF_PACKAGE_OPTIMIZATION(
    EARLY, Op("Pad", HTP_FROM_NHWC("t", "x"), OPCONST("pads"), "value", "mode"),
    AND(HTP_IS_TO_NCHW("t_perm"), CONSTVAL_INT_VALID("pads", 7), NOT(CONSTVAL_INT_VALID("pads", 8))),
    Op("Transpose", WITH_SIZE(HTP_NHWC_SHAPE("*"), Op("Pad", "x", HTP_NHWC_PADS("pads"), "value", "mode")), "t_perm"))
// A Pad of an NCHW value that goes to NHWC next pads in NHWC.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Transpose", Op("Pad", "x", OPCONST("pads"), "value", "mode"), OPCONST("p")),
                         AND(HTP_IS_PERM("p", 0, 2, 3, 1), CONSTVAL_INT_VALID("pads", 7),
                             NOT(CONSTVAL_INT_VALID("pads", 8))),
                         Op("Pad", HTP_TO_NHWC("x"), HTP_NHWC_PADS("pads"), "value", "mode"))
// Zero padding of H and W only (NHWC pads [0, t, l, 0, 0, b, r, 0]) into a convolution's or an
// average pool's own pads.
#define HTP_HW_ZERO_PAD                                                                             \
  AND(EQ(CONSTVAL_INT("mode", 0), 0), OR(HTP_EMPTY("value"), EQ(CONSTVAL_FLOAT("value", 0), 0.0f)), \
      CONSTVAL_INT_VALID("pp", 7), NOT(CONSTVAL_INT_VALID("pp", 8)), EQ(CONSTVAL_INT("pp", 0), 0),  \
      EQ(CONSTVAL_INT("pp", 3), 0), EQ(CONSTVAL_INT("pp", 4), 0), EQ(CONSTVAL_INT("pp", 7), 0))
#define HTP_OWN_PAD(I, J) ADD(CONSTVAL_INT("pp", J), SELECT(CONSTVAL_INT_VALID("pads", 3), CONSTVAL_INT("pads", I), 0))
#define HTP_SUM_PADS gen_ConstArr_vals_i32(HTP_OWN_PAD(0, 1), HTP_OWN_PAD(1, 2), HTP_OWN_PAD(2, 5), HTP_OWN_PAD(3, 6))
#define HTP_PAD_INTO(NAME)                                                                                      \
  DEF_PACKAGE_OPTIMIZATION(EARLY,                                                                               \
                           Op(NAME, Op("Pad", "x", OPCONST("pp"), OPCONST("value"), OPCONST("mode")), "w", "b", \
                              "dilations", "group", OPCONST("pads"), "strides"),                                \
                           HTP_HW_ZERO_PAD, Op(NAME, "x", "w", "b", "dilations", "group", HTP_SUM_PADS, "strides"))
HTP_PAD_INTO("ConvLayer")
HTP_PAD_INTO("ConvLayerRelu")
DEF_PACKAGE_OPTIMIZATION(EARLY,
                         Op("AvgPool2d", Op("Pad", "x", OPCONST("pp"), OPCONST("value"), OPCONST("mode")), "kernel",
                            OPCONST("pads"), "strides", "count_pad"),
                         AND(HTP_HW_ZERO_PAD, IS_FLOAT32("x"),
                             OR(NOT(CONSTVAL_INT_VALID("pads", 0)),
                                AND(EQ(CONSTVAL_INT("pads", 0), 0), EQ(CONSTVAL_INT("pads", 1), 0),
                                    EQ(CONSTVAL_INT("pads", 2), 0), EQ(CONSTVAL_INT("pads", 3), 0)))),
                         Op("AvgPool2d", "x", "kernel", HTP_SUM_PADS, "strides", HTP_SCALAR_I(1)))
