// The lowering package (docs/htp_lowering.md): transformers. Normalizations, GELU, scaled
// dot-product attention and rotary embeddings are fused from the ONNX ops exporters spell them
// with; multi-head attention is split into single-head attentions.
//
//   CLEANUP_GRAPH   LayerNormalization and its ReduceMean/Sub/Pow/Sqrt/Div/Mul/Add form: LayerNorm;
//                   x / sqrt(mean(x^2) + eps) (* gamma): RmsNorm; GELU's erf and tanh forms: Gelu;
//                   Softmax(Q K^T (/ or * c) (+ mask)) V: Attention; x cos + rotate_half(x) sin: Rope
//   PRE_TILING      Attention over several heads: one Attention per head (AUTOSPLIT), joined
#include "htp_lowering.hpp"

// ---- CLEANUP_GRAPH: normalizations ---------------------------------------------------------------

// X is the last axis of a value of rank R: -1 or R-1, as a one-element Int32 constant.
#define HTP_LAST_AXIS(A, R) \
  AND(NOT(CONSTVAL_INT_VALID(A, 1)), OR(EQ(CONSTVAL_INT(A, 0), -1), EQ(CONSTVAL_INT(A, 0), SUB(INT(R), 1))))
// ReduceMean over the last axis, dims kept (the axes as an attribute, as opsets up to 17 have it).
#define HTP_MEAN_LAST(AX, K, X, AI) Op("onnx.ReduceMean", OPCONST(AX), OPCONST(K), "*", X, OPCONST(AI))
#define HTP_MEAN_LAST_OK(AX, K, AI, R) AND(HTP_LAST_AXIS(AX, R), EQ(CONSTVAL_INT(K, 0), 1), HTP_EMPTY(AI))
// D squared: Pow(D, 2) or D * D.
#define HTP_SQUARE_POW(D) Op("onnx.Pow", D, OPCONST("two"))
#define HTP_SQUARE_MUL(D) Op("onnx.Mul", D, D)
#define HTP_SQUARE_POW_OK HTP_IS_SCALAR_F("two", 2.0f)
#define HTP_SQUARE_MUL_OK OK
// A constant C that scales or offsets the last axis (of extent N) alone: one element, or N along
// the last axis.
#define HTP_ALONG_LAST(C, N)                                                         \
  AND(IS_FLOAT32(C), CONSTVAL_FLOAT_VALID(C, 0),                                     \
      OR(NOT(CONSTVAL_FLOAT_VALID(C, 1)), AND(EQ(DIM_OF(C, SUB(RANK_OF(C), 1U)), N), \
                                              CONSTVAL_FLOAT_VALID(C, SUB(N, 1U)), NOT(CONSTVAL_FLOAT_VALID(C, N)))))
#define HTP_LAST_DIM(X) DIM_OF(X, SUB(RANK_OF(X), 1U))

// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps), normalized over the last axis: LayerNorm
// with a unit scale and no offset (the Mul and Add after it fold in below).
#define HTP_LN_CORE(SQUARE, SQUARE_OK)                                                                     \
  DEF_PACKAGE_OPTIMIZATION(                                                                                \
      CLEANUP_GRAPH,                                                                                       \
      Op("onnx.Div", LET("d", Op("onnx.Sub", "x", HTP_MEAN_LAST("ax1", "k1", "x", "ai1"))),                \
         Op("onnx.Sqrt", Op("onnx.Add", HTP_MEAN_LAST("ax2", "k2", SQUARE("d"), "ai2"), OPCONST("eps")))), \
      AND(IS_FLOAT32("x"), HTP_MEAN_LAST_OK("ax1", "k1", "ai1", RANK_OF("x")),                             \
          HTP_MEAN_LAST_OK("ax2", "k2", "ai2", RANK_OF("x")), SQUARE_OK, HTP_ONE_ELEMENT("eps"),           \
          EQ(RANK_OF("*"), RANK_OF("x"))),                                                                 \
      Op("LayerNorm", "x", HTP_SCALAR_F(1.0f), HTP_SCALAR_F(0.0f), "eps", HTP_SCALAR_I(-1)))
HTP_LN_CORE(HTP_SQUARE_POW, HTP_SQUARE_POW_OK)
HTP_LN_CORE(HTP_SQUARE_MUL, HTP_SQUARE_MUL_OK)
// The LayerNormalization op (opset 17): its first output (without B: a zero offset), over the
// last axis with a Scale (and B) of its length: LayerNorm takes no broadcast Scale.
#define HTP_LN_OP                                                                                          \
  Op("onnx.LayerNormalization", OPCONST("axis"), "epsilon", "stash_type", OPCONST("output"), "x", "scale", \
     OPCONST("bias"))
#define HTP_LN_LAST_AXIS(T)                                                                                            \
  AND(GE(RANK_OF("x"), 1U),                                                                                            \
      OR(EQ(CONSTVAL_INT("axis", 0), -1), EQ(CONSTVAL_INT("axis", 0), SUB(INT(RANK_OF("x")), 1))), EQ(RANK_OF(T), 1U), \
      EQ(DIM_OF(T, 0), DIM_OF("x", SUB(RANK_OF("x"), 1U))))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_LN_OP,
                         AND(EQ(CONSTVAL_INT("output", 0), 0), IS_FLOAT32("x"), CONSTVAL_FLOAT_VALID("bias", 0),
                             HTP_LN_LAST_AXIS("scale"), HTP_LN_LAST_AXIS("bias")),
                         Op("LayerNorm", "x", "scale", "bias", "epsilon", "axis"))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_LN_OP,
                         AND(EQ(CONSTVAL_INT("output", 0), 0), IS_FLOAT32("x"), HTP_EMPTY("bias"),
                             HTP_LN_LAST_AXIS("scale")),
                         Op("LayerNorm", "x", "scale", HTP_SCALAR_F(0.0f), "epsilon", "axis"))

// x / sqrt(mean(x^2) + eps) over the last axis: RmsNorm with a unit scale (the Mul after it folds in).
#define HTP_RMS_S(SQUARE) Op("onnx.Sqrt", Op("onnx.Add", HTP_MEAN_LAST("ax", "k", SQUARE("x"), "ai"), OPCONST("eps")))
#define HTP_RMS_OK(SQUARE_OK)                                                                              \
  AND(IS_FLOAT32("x"), HTP_MEAN_LAST_OK("ax", "k", "ai", RANK_OF("x")), SQUARE_OK, HTP_ONE_ELEMENT("eps"), \
      EQ(RANK_OF("*"), RANK_OF("x")))
#define HTP_RMS_OUT Op("RmsNorm", "x", HTP_SCALAR_F(1.0f), "eps", HTP_SCALAR_I(-1))
#define HTP_RMS_CORE(SQUARE, SQUARE_OK)                                                                               \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Div", "x", HTP_RMS_S(SQUARE)), HTP_RMS_OK(SQUARE_OK), HTP_RMS_OUT) \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", "x", Op("onnx.Div", OPCONST("one"), HTP_RMS_S(SQUARE))),     \
                           AND(HTP_RMS_OK(SQUARE_OK), HTP_IS_SCALAR_F("one", 1.0f)), HTP_RMS_OUT)                     \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", Op("onnx.Div", OPCONST("one"), HTP_RMS_S(SQUARE)), "x"),     \
                           AND(HTP_RMS_OK(SQUARE_OK), HTP_IS_SCALAR_F("one", 1.0f)), HTP_RMS_OUT)                     \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", "x", Op("onnx.Reciprocal", HTP_RMS_S(SQUARE))),              \
                           HTP_RMS_OK(SQUARE_OK), HTP_RMS_OUT)                                                        \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", Op("onnx.Reciprocal", HTP_RMS_S(SQUARE)), "x"),              \
                           HTP_RMS_OK(SQUARE_OK), HTP_RMS_OUT)
HTP_RMS_CORE(HTP_SQUARE_POW, HTP_SQUARE_POW_OK)
HTP_RMS_CORE(HTP_SQUARE_MUL, HTP_SQUARE_MUL_OK)

// A scale or offset of the last axis after a last-axis normalization folds into its parameters
// (the constant folder multiplies or adds them). Here and in the fusions around, the result has
// x's rank: a constant of one element (or of the last axis) broadcasts x no further.
// The normalization's parameters are vectors of one or N elements; C, reshaped to a vector,
// combines with them.
#define HTP_NORM_LAST(AX) OR(EQ(CONSTVAL_INT(AX, 0), -1), EQ(CONSTVAL_INT(AX, 0), SUB(INT(RANK_OF("x")), 1)))
#define HTP_C_LEN(C) SELECT(CONSTVAL_FLOAT_VALID(C, 1), HTP_LAST_DIM("x"), 1U)
#define HTP_PARAM(P, OP, C) \
  WITH_SIZE(gen_Shape(MAX(DIM_OF(P, 0), HTP_C_LEN(C))), Op(OP, P, WITH_SIZE(gen_Shape(HTP_C_LEN(C)), Op("Reshape", C))))
#define HTP_LN_AFFINE_OK                                                                                       \
  AND(HTP_NORM_LAST("ax"), HTP_ALONG_LAST("c", HTP_LAST_DIM("x")), EQ(RANK_OF("g"), 1U), EQ(RANK_OF("b"), 1U), \
      IS_FLOAT32("b"), EQ(RANK_OF("*"), RANK_OF("x")))
#define HTP_NORM_AFFINE(A, B)                                                                                         \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", A, B), HTP_LN_AFFINE_OK,                                     \
                           Op("LayerNorm", "x", HTP_PARAM("g", "Mul", "c"), HTP_PARAM("b", "Mul", "c"), "eps", "ax")) \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Add", A, B), HTP_LN_AFFINE_OK,                                     \
                           Op("LayerNorm", "x", "g", HTP_PARAM("b", "Add", "c"), "eps", "ax"))
#define HTP_LN_MATCH Op("LayerNorm", "x", OPCONST("g"), OPCONST("b"), OPCONST("eps"), OPCONST("ax"))
HTP_NORM_AFFINE(HTP_LN_MATCH, OPCONST("c"))
HTP_NORM_AFFINE(OPCONST("c"), HTP_LN_MATCH)
#define HTP_RMS_MATCH Op("RmsNorm", "x", OPCONST("g"), OPCONST("eps"), OPCONST("ax"))
#define HTP_RMS_AFFINE(A, B)                                                                                      \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", A, B),                                                   \
                           AND(HTP_NORM_LAST("ax"), HTP_ALONG_LAST("c", HTP_LAST_DIM("x")), EQ(RANK_OF("g"), 1U), \
                               EQ(RANK_OF("*"), RANK_OF("x"))),                                                   \
                           Op("RmsNorm", "x", HTP_PARAM("g", "Mul", "c"), "eps", "ax"))
HTP_RMS_AFFINE(HTP_RMS_MATCH, OPCONST("c"))
HTP_RMS_AFFINE(OPCONST("c"), HTP_RMS_MATCH)

// ---- CLEANUP_GRAPH: GELU --------------------------------------------------------------------------

// 1 + erf(x / sqrt 2), either order of the sum.
#define HTP_ERF_ARG Op("onnx.Div", "x", OPCONST("s2"))
#define HTP_ERF1(A, B) Op("onnx.Add", A, B)
#define HTP_GELU_OK                                                                                                \
  AND(IS_FLOAT32("x"), HTP_NEAR_F("s2", 1.41421356f), HTP_IS_SCALAR_F("one", 1.0f), HTP_IS_SCALAR_F("half", 0.5f), \
      EQ(RANK_OF("*"), RANK_OF("x")))
#define HTP_GELU_ERF(E)                                                                                         \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", Op("onnx.Mul", "x", E), OPCONST("half")), HTP_GELU_OK, \
                           Op("Gelu", "x", HTP_SCALAR_I(0)))                                                    \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", Op("onnx.Mul", "x", OPCONST("half")), E), HTP_GELU_OK, \
                           Op("Gelu", "x", HTP_SCALAR_I(0)))                                                    \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", OPCONST("half"), Op("onnx.Mul", "x", E)), HTP_GELU_OK, \
                           Op("Gelu", "x", HTP_SCALAR_I(0)))
HTP_GELU_ERF(HTP_ERF1(Op("onnx.Erf", HTP_ERF_ARG), OPCONST("one")))
HTP_GELU_ERF(HTP_ERF1(OPCONST("one"), Op("onnx.Erf", HTP_ERF_ARG)))

// The tanh form: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), x^3 as x * (x * x) (PyTorch) or
// Pow(x, 3).
#define HTP_TANH_ARG(CUBE) Op("onnx.Mul", OPCONST("k"), Op("onnx.Add", "x", Op("onnx.Mul", OPCONST("c3"), CUBE)))
#define HTP_GELU_TANH_OK                                                                                          \
  AND(IS_FLOAT32("x"), HTP_NEAR_F("k", 0.7978845608f), HTP_NEAR_F("c3", 0.044715f), HTP_IS_SCALAR_F("one", 1.0f), \
      HTP_IS_SCALAR_F("half", 0.5f), EQ(RANK_OF("*"), RANK_OF("x")))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH,
                         Op("onnx.Mul", OPCONST("half"),
                            Op("onnx.Mul", "x",
                               Op("onnx.Add", OPCONST("one"),
                                  Op("onnx.Tanh", HTP_TANH_ARG(Op("onnx.Mul", "x", Op("onnx.Mul", "x", "x"))))))),
                         HTP_GELU_TANH_OK, Op("Gelu", "x", HTP_SCALAR_I(1)))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH,
                         Op("onnx.Mul", Op("onnx.Mul", OPCONST("half"), "x"),
                            Op("onnx.Add", OPCONST("one"),
                               Op("onnx.Tanh", HTP_TANH_ARG(Op("onnx.Pow", "x", OPCONST("three")))))),
                         AND(HTP_GELU_TANH_OK, HTP_IS_SCALAR_F("three", 3.0f)), Op("Gelu", "x", HTP_SCALAR_I(1)))

// ---- CLEANUP_GRAPH: attention ---------------------------------------------------------------------

// Softmax(S) V over the last axis, S the scores Q K^T, optionally scaled by a constant (divided or
// multiplied) and offset by a mask: one Attention. K^T arrives as [..., d, T]; Attention takes K
// as [..., T, d] (a transpose, which cancels or composes with the one that made K^T).
#define HTP_QK LET("qk", Op("onnx.MatMul", "q", "kt"))
#define HTP_SWAP_LAST(R) SELECT(EQ(R, 4U), gen_ConstArr_vals_i32(0, 1, 3, 2), gen_ConstArr_vals_i32(0, 2, 1))
#define HTP_K                                                                                                      \
  WITH_SIZE(                                                                                                       \
      SELECT(EQ(RANK_OF("kt"), 4U), gen_Shape(DIM_OF("kt", 0), DIM_OF("kt", 1), DIM_OF("kt", 3), DIM_OF("kt", 2)), \
             gen_Shape(DIM_OF("kt", 0), DIM_OF("kt", 2), DIM_OF("kt", 1))),                                        \
      Op("Transpose", "kt", HTP_SWAP_LAST(RANK_OF("kt"))))
#define HTP_ATTN_OK                                                                                         \
  AND(IS_FLOAT32("q"), IS_FLOAT32("kt"), IS_FLOAT32("v"), OR(EQ(RANK_OF("q"), 3U), EQ(RANK_OF("q"), 4U)),   \
      EQ(RANK_OF("kt"), RANK_OF("q")), EQ(RANK_OF("v"), RANK_OF("q")), HTP_LAST_AXIS("axis", RANK_OF("q")), \
      EQ(DIM_OF("kt", 0), DIM_OF("q", 0)), EQ(DIM_OF("v", 0), DIM_OF("q", 0)),                              \
      OR(EQ(RANK_OF("q"), 3U), AND(EQ(DIM_OF("kt", 1), DIM_OF("q", 1)), EQ(DIM_OF("v", 1), DIM_OF("q", 1)))))
#define HTP_ATTN(SCORES, OK_MORE, SCALE, MASK)                                                                 \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.MatMul", Op("onnx.Softmax", OPCONST("axis"), SCORES), "v"), \
                           AND(HTP_ATTN_OK, OK_MORE), Op("Attention", "q", HTP_K, "v", MASK, HTP_SCALAR_F(SCALE)))
#define HTP_BY_DIV Op("onnx.Div", HTP_QK, OPCONST("c"))
#define HTP_BY_MUL Op("onnx.Mul", HTP_QK, OPCONST("c"))
#define HTP_BY_MUL2 Op("onnx.Mul", OPCONST("c"), HTP_QK)
#define HTP_SCALAR_C HTP_ONE_ELEMENT("c")
// The mask's sum has the scores' shape (the mask does not broadcast them larger).
#define HTP_MASK_OK AND(IS_FLOAT32("mask"), EQ(RANK_OF("s"), RANK_OF("qk")), SAME_SHAPE("s", "qk"))
#define HTP_NO_MASK HTP_SCALAR_F(0.0f)
HTP_ATTN(HTP_QK, OK, 1.0f, HTP_NO_MASK)
HTP_ATTN(HTP_BY_DIV, HTP_SCALAR_C, DIV(1.0f, CONSTVAL_FLOAT("c", 0)), HTP_NO_MASK)
HTP_ATTN(HTP_BY_MUL, HTP_SCALAR_C, CONSTVAL_FLOAT("c", 0), HTP_NO_MASK)
HTP_ATTN(HTP_BY_MUL2, HTP_SCALAR_C, CONSTVAL_FLOAT("c", 0), HTP_NO_MASK)
#define HTP_ATTN_MASKED(SCORES, OK_MORE, SCALE)                                                \
  HTP_ATTN(LET("s", Op("onnx.Add", SCORES, "mask")), AND(HTP_MASK_OK, OK_MORE), SCALE, "mask") \
  HTP_ATTN(LET("s", Op("onnx.Add", "mask", SCORES)), AND(HTP_MASK_OK, OK_MORE), SCALE, "mask")
HTP_ATTN_MASKED(HTP_QK, OK, 1.0f)
HTP_ATTN_MASKED(HTP_BY_DIV, HTP_SCALAR_C, DIV(1.0f, CONSTVAL_FLOAT("c", 0)))
HTP_ATTN_MASKED(HTP_BY_MUL, HTP_SCALAR_C, CONSTVAL_FLOAT("c", 0))
HTP_ATTN_MASKED(HTP_BY_MUL2, HTP_SCALAR_C, CONSTVAL_FLOAT("c", 0))

// ---- CLEANUP_GRAPH: rotary embedding ------------------------------------------------------------

// rotate_half(x) = Concat(-x[..., d/2:], x[..., :d/2]) along the last axis, the halves sliced on
// the last axis alone with step 1.
#define HTP_HALF(S, B, E, A, ST) LET(S, Op("onnx.Slice", "*", "*", "*", "x", OPCONST(B), E, OPCONST(A), OPCONST(ST)))
#define HTP_ROT                                                                                   \
  Op("onnx.Concat", OPCONST("cat_axis"), Op("onnx.Neg", HTP_HALF("s1", "b1", "e1", "a1", "st1")), \
     HTP_HALF("s2", "b2", "e2", "a2", "st2"))
#define HTP_STEP1(ST) OR(HTP_EMPTY(ST), AND(EQ(CONSTVAL_INT(ST, 0), 1), NOT(CONSTVAL_INT_VALID(ST, 1))))
#define HTP_HALF_D DIV(HTP_LAST_DIM("x"), 2U)
#define HTP_ROPE_OK                                                                                             \
  AND(IS_FLOAT32("x"), EQ(MOD(HTP_LAST_DIM("x"), 2U), 0U), HTP_LAST_AXIS("cat_axis", RANK_OF("x")),             \
      HTP_LAST_AXIS("a1", RANK_OF("x")), HTP_LAST_AXIS("a2", RANK_OF("x")), HTP_STEP1("st1"), HTP_STEP1("st2"), \
      OR(EQ(CONSTVAL_INT("b1", 0), INT(HTP_HALF_D)), EQ(CONSTVAL_INT("b1", 0), NEG(INT(HTP_HALF_D)))),          \
      EQ(CONSTVAL_INT("b2", 0), 0), EQ(HTP_LAST_DIM("s1"), HTP_HALF_D), EQ(HTP_LAST_DIM("s2"), HTP_HALF_D),     \
      IS_FLOAT32("cos"), IS_FLOAT32("sin"), EQ(RANK_OF("*"), RANK_OF("x")), SAME_SHAPE("*", "x"))
#define HTP_ROPE(XC, RS)                                                                                      \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Add", XC, RS), HTP_ROPE_OK, Op("Rope", "x", "cos", "sin")) \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Add", RS, XC), HTP_ROPE_OK, Op("Rope", "x", "cos", "sin"))
HTP_ROPE(Op("onnx.Mul", "x", "cos"), Op("onnx.Mul", HTP_ROT, "sin"))
HTP_ROPE(Op("onnx.Mul", "cos", "x"), Op("onnx.Mul", "sin", HTP_ROT))

// ---- PRE_TILING: multi-head attention to single-head attentions ----------------------------------

// One Attention per head (dim 1 of [B, H, S, d]), each on its head's slices of Q, K and V (and
// of the mask when it has one per head), joined along the heads. A mask with no heads' dim (of
// rank 2 or less, or whose heads' dim is 1: dim 0 of rank 3, dim 1 of rank 4) goes to each head
// whole.
DEF_PACKAGE_OPTIMIZATION(PRE_TILING, Op("Attention", "q", "k", "v", "mask", "scale"),
                         AND(EQ(RANK_OF("q"), 4U), GT(DIM_OF("q", 1), 1U),
                             OR(LT(RANK_OF("mask"), 3U), EQ(DIM_OF("mask", SUB(RANK_OF("mask"), 3U)), 1U))),
                         AUTOSPLIT(1, "H", 1,
                                   Op("Attention", TYPICAL_SLICE("q", "H"), TYPICAL_SLICE("k", "H"),
                                      TYPICAL_SLICE("v", "H"), "mask", "scale")))
DEF_PACKAGE_OPTIMIZATION(PRE_TILING, Op("Attention", "q", "k", "v", "mask", "scale"),
                         AND(EQ(RANK_OF("q"), 4U), GT(DIM_OF("q", 1), 1U), EQ(RANK_OF("mask"), 4U),
                             EQ(DIM_OF("mask", 1), DIM_OF("q", 1))),
                         AUTOSPLIT(1, "H", 1,
                                   Op("Attention", TYPICAL_SLICE("q", "H"), TYPICAL_SLICE("k", "H"),
                                      TYPICAL_SLICE("v", "H"), TYPICAL_SLICE("mask", "H"), "scale")))
