// The lowering package (docs/htp_lowering.md): what every domain needs. Shape computations become
// constants; layout-free ONNX ops become the library's one for one (elementwise ops of any rank,
// softmax, matrix products, fully-connected layers, concatenation, slices, transposes,
// reductions, gathers, casts); transposes compose, cancel and turn into reshapes where they only
// move dimensions of extent 1.
//
//   PRE_OPTIMIZATION  onnx.Shape of a known shape: a constant (the constant folder then folds the
//                     shape arithmetic after it: Gather, Concat, Slice, ...); casts to the same
//                     dtype and inference Dropout go
//   CLEANUP_GRAPH     MatMul + bias and Gemm: FullyConnected
//   PRE_TRANSLATE     one-to-one translations
//   EARLY             transposes composed, cancelled, or turned into reshapes
#include "htp_lowering.hpp"

#include <optgrammar/core/element.hpp>
#include <optgrammar/ops/onnx_eval.hpp>

#include <cstdint>
#include <vector>

using optgrammar::OpRef;
using optgrammar::Replacement;

namespace {
namespace ops = optgrammar::ops;

/// A new constant [n] of integer dtype t holding v.
OpRef int_constant(Replacement& rpx, const std::vector<std::int64_t>& v,
                   optgrammar::DType t = optgrammar::DType::Int32) {
  const auto d = optgrammar::OutputDef::make(t, {v.size()});
  std::vector<std::byte> bytes(d.byte_size());
  for (std::size_t i = 0; i < v.size(); ++i) optgrammar::store_value(t, bytes.data(), i, static_cast<double>(v[i]));
  return rpx.constant(d, std::span<const std::byte>(bytes));
}
}  // namespace

// :::EXTERNAL_SHAPEFN::: { OpRef htp_shape_value(Replacement&, OpRef); }
// The value of onnx.Shape(start, end; x): x's dims from start to end, as the op's Int32 constant.
static OpRef htp_shape_value(Replacement& rpx, OpRef shape_op) {
  const auto& g = rpx.graph();
  std::vector<ops::ValueView> buf;
  const ops::OpView v = ops::op_view(g, shape_op, buf);
  const ops::onnx_eval::Args a{v, 2};
  const auto& x = *a.in(0).def;
  const auto r = static_cast<std::int64_t>(x.rank);
  std::int64_t s = a.attr_int(0), e = a.attr_int(1);
  if (s < 0) s += r;
  if (e < 0) e += r;
  s = std::clamp<std::int64_t>(s, 0, r);
  e = std::clamp<std::int64_t>(e, 0, r);
  std::vector<std::int64_t> dims;
  for (std::int64_t k = s; k < e; ++k) dims.push_back(static_cast<std::int64_t>(x.dims[static_cast<std::size_t>(k)]));
  if (dims.size() != g.output(shape_op).element_count())
    throw optgrammar::engine::ReplacementFailed("htp_shape_value: dims");
  return int_constant(rpx, dims, g.output(shape_op).dtype);
}

// :::EXTERNAL_SHAPEFN::: { OpRef htp_slice_param(Replacement&, OpRef, int); }
// StridedSlice's begin (which 0), end (1) or steps (2) for onnx.Slice op `slice_op`: ONNX's
// clamped box (onnx_eval::slice_box), one entry per dimension; end is one past the last index
// taken (for a negative step, one below it).
static OpRef htp_slice_param(Replacement& rpx, OpRef slice_op, int which) {
  std::vector<ops::ValueView> buf;
  const ops::OpView v = ops::op_view(rpx.graph(), slice_op, buf);
  const auto box = ops::onnx_eval::slice_box(ops::onnx_eval::Args{v, 3});
  if (!box) throw optgrammar::engine::ReplacementFailed("htp_slice_param: the slice's parameters do not fit");
  std::vector<std::int64_t> out;
  for (std::size_t k = 0; k < box->first.size(); ++k) {
    const std::int64_t b = box->first[k], s = box->step[k], n = static_cast<std::int64_t>(box->extent[k]);
    out.push_back(which == 0 ? b : which == 2 ? s : n == 0 ? b : b + (n - 1) * s + (s > 0 ? 1 : -1));
  }
  return int_constant(rpx, out);
}

// ---- PRE_OPTIMIZATION: shapes ---------------------------------------------------------------

DEF_PACKAGE_OPTIMIZATION(PRE_OPTIMIZATION, Op("onnx.Shape", OPCONST("start"), OPCONST("end"), "x"),
                         OR(IS_INT32("*"), EQ(DTYPE_OF("*"), DType::Int64)), SHAPEFN_APPLY(htp_shape_value, "*"))

// Ops that pass their data on (a cast to the dtype it has, Dropout at inference) go before the
// fusions look for the patterns around them.
DEF_PACKAGE_OPTIMIZATION(PRE_OPTIMIZATION, Op("onnx.Cast", "to", "x"), EQ(DTYPE_OF("x"), DTYPE_OF("*")), "x")
DEF_PACKAGE_OPTIMIZATION(PRE_OPTIMIZATION,
                         Op("onnx.Dropout", "seed", "ratio_attr", OPCONST("output"), "x", "ratio", "training"),
                         EQ(CONSTVAL_INT("output", 0), 0), "x")

// ---- CLEANUP_GRAPH: fully-connected layers ----------------------------------------------------

// W [K, N] as FullyConnected's [N, K] (folded).
#define HTP_WT(W) WITH_SIZE(gen_Shape(DIM_OF(W, 1), DIM_OF(W, 0)), Op("Transpose", W, gen_ConstArr_vals_i32(1, 0)))
// B is an f32 vector of N elements.
#define HTP_BIAS_OF(B, N) AND(IS_FLOAT32(B), EQ(RANK_OF(B), 1U), EQ(DIM_OF(B, 0), N))
#define HTP_MATMUL_BIAS_OK AND(IS_FLOAT32("x"), IS_FLOAT32("w"), EQ(RANK_OF("w"), 2U), HTP_BIAS_OF("b", DIM_OF("w", 1)))
// MatMul by a constant matrix plus a bias vector (PyTorch's Linear on more than two dims).
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Add", Op("onnx.MatMul", "x", OPCONST("w")), OPCONST("b")),
                         HTP_MATMUL_BIAS_OK, Op("FullyConnected", "x", HTP_WT("w"), "b"))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Add", OPCONST("b"), Op("onnx.MatMul", "x", OPCONST("w"))),
                         HTP_MATMUL_BIAS_OK, Op("FullyConnected", "x", HTP_WT("w"), "b"))

// Gemm(alpha 1, beta 1, transA 0, transB; A, B, C of N elements or none).
// (B a constant: weights. A quantized one, a DequantizeLinear, is the QDQ group's: quantized.cpp.)
#define HTP_GEMM(C) \
  Op("onnx.Gemm", OPCONST("alpha"), OPCONST("beta"), OPCONST("ta"), OPCONST("tb"), "a", OPCONST("b"), C)
#define HTP_GEMM_OK                                                                                   \
  AND(IS_FLOAT32("a"), IS_FLOAT32("b"), HTP_IS_SCALAR_F("alpha", 1.0f), EQ(CONSTVAL_INT("ta", 0), 0), \
      EQ(RANK_OF("b"), 2U))
// N, from B as stored.
#define HTP_GEMM_N SELECT(EQ(CONSTVAL_INT("tb", 0), 0), DIM_OF("b", 1), DIM_OF("b", 0))
#define HTP_GEMM_BIAS_OK(C)                                                       \
  AND(HTP_IS_SCALAR_F("beta", 1.0f), CONSTVAL_FLOAT_VALID(C, SUB(HTP_GEMM_N, 1)), \
      NOT(CONSTVAL_FLOAT_VALID(C, HTP_GEMM_N)))
// In CLEANUP_GRAPH, before the fusions that read FullyConnected; again in PRE_TRANSLATE for a QDQ
// Gemm that quantized.cpp's groups leave (a float bias): its weights' DequantizeLinear is a
// constant by then.
#define HTP_GEMM_RULES(PASS)                                                                       \
  DEF_PACKAGE_OPTIMIZATION(PASS, HTP_GEMM(OPCONST("c")),                                           \
                           AND(HTP_GEMM_OK, NE(CONSTVAL_INT("tb", 0), 0), HTP_GEMM_BIAS_OK("c")),  \
                           Op("FullyConnected", "a", "b", "c"))                                    \
  DEF_PACKAGE_OPTIMIZATION(PASS, HTP_GEMM(OPCONST("c")),                                           \
                           AND(HTP_GEMM_OK, EQ(CONSTVAL_INT("tb", 0), 0), HTP_GEMM_BIAS_OK("c")),  \
                           Op("FullyConnected", "a", HTP_WT("b"), "c"))                            \
  DEF_PACKAGE_OPTIMIZATION(PASS, HTP_GEMM(OPCONST("c")),                                           \
                           AND(HTP_GEMM_OK, NE(CONSTVAL_INT("tb", 0), 0), HTP_EMPTY("c")),         \
                           Op("FullyConnected", "a", "b", gen_ConstArr_f32(0.0f, DIM_OF("b", 0)))) \
  DEF_PACKAGE_OPTIMIZATION(PASS, HTP_GEMM(OPCONST("c")),                                           \
                           AND(HTP_GEMM_OK, EQ(CONSTVAL_INT("tb", 0), 0), HTP_EMPTY("c")),         \
                           Op("FullyConnected", "a", HTP_WT("b"), gen_ConstArr_f32(0.0f, DIM_OF("b", 1))))
HTP_GEMM_RULES(CLEANUP_GRAPH)
HTP_GEMM_RULES(PRE_TRANSLATE)

// ---- PRE_TRANSLATE: one for one ---------------------------------------------------------------

// A constant matrix without a bias: a zero bias.
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.MatMul", "x", OPCONST("w")),
                         AND(IS_FLOAT32("x"), IS_FLOAT32("w"), EQ(RANK_OF("w"), 2U), GE(RANK_OF("x"), 1U)),
                         Op("FullyConnected", "x", HTP_WT("w"), gen_ConstArr_f32(0.0f, DIM_OF("w", 1))))
// Products of two computed values (attention's scores, for instance).
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.MatMul", "a", "b"),
                         AND(IS_FLOAT32("a"), IS_FLOAT32("b"), GE(RANK_OF("a"), 2U), GE(RANK_OF("b"), 2U)),
                         Op("MatMul", "a", "b"))

// Elementwise ops of any rank.
#define HTP_UNARY(ONNX, LIB) DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op(ONNX, "x"), IS_FLOAT32("x"), Op(LIB, "x"))
HTP_UNARY("onnx.Sigmoid", "Sigmoid")
HTP_UNARY("onnx.Tanh", "Tanh")
HTP_UNARY("onnx.Exp", "Exp")
HTP_UNARY("onnx.Log", "Log")
HTP_UNARY("onnx.Sqrt", "Sqrt")
HTP_UNARY("onnx.Reciprocal", "Reciprocal")
HTP_UNARY("onnx.Erf", "Erf")
HTP_UNARY("onnx.Sin", "Sin")
HTP_UNARY("onnx.Cos", "Cos")
HTP_UNARY("onnx.Softplus", "Softplus")
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Neg", "x"), IS_FLOAT32("x"), Op("Neg", "x"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Abs", "x"), IS_FLOAT32("x"), Op("Abs", "x"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.LeakyRelu", "alpha", "x"), IS_FLOAT32("x"),
                         Op("LeakyRelu", "x", "alpha"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Elu", "alpha", "x"), IS_FLOAT32("x"), Op("Elu", "x", "alpha"))
// Binary ops (Add and Mul: htp_lowering.cpp).
#define HTP_BINARY(ONNX, LIB, RANK_OK)                                                                        \
  DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op(ONNX, "a", "b"), AND(IS_FLOAT32("a"), IS_FLOAT32("b"), RANK_OK), \
                           Op(LIB, "a", "b"))
HTP_BINARY("onnx.Sub", "Sub", OK)
HTP_BINARY("onnx.Div", "Div", OK)
HTP_BINARY("onnx.Pow", "Pow", OK)
HTP_BINARY("onnx.PRelu", "PRelu", OK)
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Max", "a", "b"), AND(IS_FLOAT32("a"), IS_FLOAT32("b")),
                         Op("Max", "a", "b"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Min", "a", "b"), AND(IS_FLOAT32("a"), IS_FLOAT32("b")),
                         Op("Min", "a", "b"))
// Clip with one bound: Max or Min with it (a bound of x's rank or lower: it broadcasts to x).
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE,
                         Op("onnx.Clip", OPCONST("min_attr"), OPCONST("max_attr"), "x", OPCONST("lo"), OPCONST("hi")),
                         AND(IS_FLOAT32("x"), HTP_ONE_ELEMENT("lo"), HTP_EMPTY("hi"), LE(RANK_OF("lo"), RANK_OF("x")),
                             HTP_CLIP_ATTRS_UNBOUNDED("min_attr", "max_attr")),
                         Op("Max", "x", "lo"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE,
                         Op("onnx.Clip", OPCONST("min_attr"), OPCONST("max_attr"), "x", OPCONST("lo"), OPCONST("hi")),
                         AND(IS_FLOAT32("x"), HTP_EMPTY("lo"), HTP_ONE_ELEMENT("hi"), LE(RANK_OF("hi"), RANK_OF("x")),
                             HTP_CLIP_ATTRS_UNBOUNDED("min_attr", "max_attr")),
                         Op("Min", "x", "hi"))

DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Softmax", "axis", "x"), IS_FLOAT32("x"), Op("Softmax", "x", "axis"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.LogSoftmax", "axis", "x"), IS_FLOAT32("x"),
                         Op("LogSoftmax", "x", "axis"))

// Reductions: the axes as an attribute (ReduceMean, ReduceMax, ReduceMin; ReduceSum before
// opset 13) or as an input (ReduceSum from opset 13); keepdims is the output's rank.
#define HTP_REDUCE(ONNX, LIB)                                                                             \
  DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op(ONNX, OPCONST("axes"), "keep", "noop", "x", OPCONST("ain")), \
                           AND(IS_FLOAT32("x"), CONSTVAL_INT_VALID("axes", 0), HTP_EMPTY("ain")),         \
                           Op(LIB, "x", "axes"))                                                          \
  DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op(ONNX, "axes", "keep", "noop", "x", OPCONST("ain")),          \
                           AND(IS_FLOAT32("x"), CONSTVAL_INT_VALID("ain", 0)), Op(LIB, "x", "ain"))
HTP_REDUCE("onnx.ReduceMean", "ReduceMean")
HTP_REDUCE("onnx.ReduceSum", "ReduceSum")
HTP_REDUCE("onnx.ReduceMax", "ReduceMax")
HTP_REDUCE("onnx.ReduceMin", "ReduceMin")

// Data movement.
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, OpVarIn("onnx.Concat", OPCONST("axis"), "first"), OK,
                         OP_ITER(Op("Concat", HTP_SCALAR_I(SELECT(LT(CONSTVAL_INT("axis", 0), 0),
                                                                  ADD(CONSTVAL_INT("axis", 0), INT(RANK_OF("*"))),
                                                                  CONSTVAL_INT("axis", 0)))),
                                 "I", 1, INPUTS_OF("*"), ITER_INPUT_OF("*", "I")))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE,
                         Op("onnx.Slice", OPCONST("sa"), OPCONST("ea"), OPCONST("aa"), "x", OPCONST("st"),
                            OPCONST("en"), OPCONST("ax"), OPCONST("sp")),
                         OK,
                         Op("StridedSlice", "x", SHAPEFN_APPLY(htp_slice_param, "*", 0),
                            SHAPEFN_APPLY(htp_slice_param, "*", 1), SHAPEFN_APPLY(htp_slice_param, "*", 2)))
// Transposes with their permutation given.
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Transpose", OPCONST("perm"), "x"), CONSTVAL_INT_VALID("perm", 0),
                         Op("Transpose", "x", "perm"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Expand", "x", "shape"), OK, Op("Expand", "x"))
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Gather", "axis", "x", "indices"),
                         OR(IS_INT32("indices"), EQ(DTYPE_OF("indices"), DType::Int64)),
                         Op("Gather", "x", "indices", "axis"))
// Casts between f32 and i32: the library's Cast.
DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE, Op("onnx.Cast", "to", "x"),
                         AND(OR(IS_FLOAT32("x"), IS_INT32("x")), OR(IS_FLOAT32("*"), IS_INT32("*"))), Op("Cast", "x"))

// ---- EARLY: transposes ------------------------------------------------------------------------

// Q after P: one transpose by P[Q[i]] (pairs that give the identity cancel: htp_lowering.cpp).
DEF_PACKAGE_OPTIMIZATION(
    EARLY, Op("Transpose", Op("Transpose", "x", OPCONST("p")), OPCONST("q")),
    AND(EQ(RANK_OF("x"), 4U), CONSTVAL_INT_VALID("q", 3)),
    Op("Transpose", "x",
       gen_ConstArr_vals_i32(CONSTVAL_INT("p", CONSTVAL_INT("q", 0)), CONSTVAL_INT("p", CONSTVAL_INT("q", 1)),
                             CONSTVAL_INT("p", CONSTVAL_INT("q", 2)), CONSTVAL_INT("p", CONSTVAL_INT("q", 3)))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Transpose", Op("Transpose", "x", OPCONST("p")), OPCONST("q")),
                         AND(EQ(RANK_OF("x"), 3U), CONSTVAL_INT_VALID("q", 2)),
                         Op("Transpose", "x",
                            gen_ConstArr_vals_i32(CONSTVAL_INT("p", CONSTVAL_INT("q", 0)),
                                                  CONSTVAL_INT("p", CONSTVAL_INT("q", 1)),
                                                  CONSTVAL_INT("p", CONSTVAL_INT("q", 2)))))
// A transpose that keeps the order of the dims of extent > 1 moves no data: a reshape.
#define HTP_KEEPS_ORDER(I, J)                                                              \
  OR(LE(DIM_OF("x", CONSTVAL_INT("p", I)), 1U), LE(DIM_OF("x", CONSTVAL_INT("p", J)), 1U), \
     LT(CONSTVAL_INT("p", I), CONSTVAL_INT("p", J)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Transpose", "x", OPCONST("p")),
                         AND(EQ(RANK_OF("x"), 4U), HTP_KEEPS_ORDER(0, 1), HTP_KEEPS_ORDER(0, 2), HTP_KEEPS_ORDER(0, 3),
                             HTP_KEEPS_ORDER(1, 2), HTP_KEEPS_ORDER(1, 3), HTP_KEEPS_ORDER(2, 3)),
                         Op("Reshape", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Transpose", "x", OPCONST("p")),
                         AND(EQ(RANK_OF("x"), 3U), HTP_KEEPS_ORDER(0, 1), HTP_KEEPS_ORDER(0, 2), HTP_KEEPS_ORDER(1, 2)),
                         Op("Reshape", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Transpose", "x", OPCONST("p")),
                         AND(EQ(RANK_OF("x"), 5U), HTP_KEEPS_ORDER(0, 1), HTP_KEEPS_ORDER(0, 2), HTP_KEEPS_ORDER(0, 3),
                             HTP_KEEPS_ORDER(0, 4), HTP_KEEPS_ORDER(1, 2), HTP_KEEPS_ORDER(1, 3), HTP_KEEPS_ORDER(1, 4),
                             HTP_KEEPS_ORDER(2, 3), HTP_KEEPS_ORDER(2, 4), HTP_KEEPS_ORDER(3, 4)),
                         Op("Reshape", "x"))
// A detection head's view of NCHW channels as [N, A, K, H, W], permuted: of NHWC [N, H, W, C] it is
// the reshape to [N, H, W, A, K] permuted by r[p[i]], r = [0, 3, 4, 1, 2] ([N, A, K, H, W] from
// [N, H, W, A, K]); SSD's permutation [0, 3, 4, 1, 2] makes it the identity.
#define HTP_R5(K) SELECT(EQ(K, 0), 0, SELECT(EQ(K, 1), 3, SELECT(EQ(K, 2), 4, SELECT(EQ(K, 3), 1, 2))))
DEF_PACKAGE_OPTIMIZATION(
    EARLY, Op("Transpose", LET("y", Op("Reshape", LET("t", Op("Transpose", "x", OPCONST("tp"))))), OPCONST("p")),
    AND(HTP_IS_PERM("tp", 0, 3, 1, 2), EQ(RANK_OF("y"), 5U), CONSTVAL_INT_VALID("p", 4),
        EQ(DIM_OF("y", 0), DIM_OF("x", 0)), EQ(MUL(DIM_OF("y", 1), DIM_OF("y", 2)), DIM_OF("x", 3)),
        EQ(DIM_OF("y", 3), DIM_OF("x", 1)), EQ(DIM_OF("y", 4), DIM_OF("x", 2))),
    Op("Transpose",
       WITH_SIZE(gen_Shape(DIM_OF("x", 0), DIM_OF("x", 1), DIM_OF("x", 2), DIM_OF("y", 1), DIM_OF("y", 2)),
                 Op("Reshape", "x")),
       gen_ConstArr_vals_i32(HTP_R5(CONSTVAL_INT("p", 0)), HTP_R5(CONSTVAL_INT("p", 1)), HTP_R5(CONSTVAL_INT("p", 2)),
                             HTP_R5(CONSTVAL_INT("p", 3)), HTP_R5(CONSTVAL_INT("p", 4)))))
