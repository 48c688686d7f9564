// What the lowering package's sources share: the includes and the macros that spell layout
// transposes, constant checks and recurring operand lists (docs/htp_lowering.md).
//
// The package is one rule package (`og-opt --rules htp_lowering`) in several translation units, one
// per domain: htp_lowering.cpp (convolutions, BatchNormalization, hard-swish, layout, tiling),
// cnn.cpp (the rest of classic CNNs), transformer.cpp, quantized.cpp and speech.cpp. Passes order the
// work across them: fusions on `onnx.*` patterns first (CLEANUP_GRAPH), then one-to-one
// translations (PRE_TRANSLATE, layout-free), NCHW ops wrapped in transposes (TRANSLATE), transposes
// sunk and cancelled and library ops fused (EARLY), tiling and multi-head splits last.
#pragma once

#include <optgrammar/core/context.hpp>
#include <optgrammar/ops/builtin_eval.hpp>
#include <optgrammar/ops/definition_verify.hpp>
#include <optgrammar/rules.hpp>  // AUTOSPLIT included: tiling and head splits use it

// ---- layout ---------------------------------------------------------------------------------

#define HTP_TO_NHWC_PERM gen_ConstArr_vals_i32(0, 2, 3, 1)
#define HTP_TO_NCHW_PERM gen_ConstArr_vals_i32(0, 3, 1, 2)
// x (NCHW) transposed to NHWC.
#define HTP_TO_NHWC(X)                                                                      \
  WITH_TYPE(X, WITH_SIZE(gen_Shape(DIM_OF(X, 0), DIM_OF(X, 2), DIM_OF(X, 3), DIM_OF(X, 1)), \
                         Op("Transpose", X, HTP_TO_NHWC_PERM)))
// The NHWC shape of the NCHW value X.
#define HTP_NHWC_SHAPE(X) gen_Shape(DIM_OF(X, 0), DIM_OF(X, 2), DIM_OF(X, 3), DIM_OF(X, 1))
// An NHWC op in place of the NCHW op matched ("*"): OP computed on NHWC operands, its result
// transposed back.
#define HTP_NCHW_WRAP(OP) Op("Transpose", WITH_SIZE(HTP_NHWC_SHAPE("*"), OP), HTP_TO_NCHW_PERM)
// P is the constant permutation [a, b, c, d].
#define HTP_IS_PERM(P, A, B, C, D)                                                                                   \
  AND(CONSTVAL_INT_VALID(P, 3), NOT(CONSTVAL_INT_VALID(P, 4)), EQ(CONSTVAL_INT(P, 0), A), EQ(CONSTVAL_INT(P, 1), B), \
      EQ(CONSTVAL_INT(P, 2), C), EQ(CONSTVAL_INT(P, 3), D))
#define HTP_IS_TO_NCHW(P) HTP_IS_PERM(P, 0, 3, 1, 2)
// The boundary transpose back to NCHW, bound as T with input X.
#define HTP_FROM_NHWC(T, X) LET(T, Op("Transpose", X, OPCONST(T "_perm")))
// NCHW axis A (0..3, or negative from the end) as its NHWC axis.
#define HTP_NHWC_AXIS(A) \
  SELECT(EQ(MOD(ADD(A, 4), 4), 1), 3, SELECT(EQ(MOD(ADD(A, 4), 4), 0), 0, SUB(MOD(ADD(A, 4), 4), 1)))

// Elementwise ops (unary, or with scalar parameters) move after the transpose back to NCHW.
// HTP_SINK_WHEN moves the op after the transpose "t_perm" when GUARD holds of it; HTP_SINK1_WHEN
// the same for an op with one more operand, a parameter.
#define HTP_SINK_WHEN(NAME, GUARD)                                          \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("t", "x")), GUARD, \
                           Op("Transpose", WITH_SIZE("x", Op(NAME, "x")), "t_perm"))
#define HTP_SINK1_WHEN(NAME, GUARD)                                              \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("t", "x"), "p"), GUARD, \
                           Op("Transpose", WITH_SIZE("x", Op(NAME, "x", "p")), "t_perm"))
#define HTP_SINK(NAME) HTP_SINK_WHEN(NAME, HTP_IS_TO_NCHW("t_perm"))
#define HTP_SINK1(NAME) HTP_SINK1_WHEN(NAME, HTP_IS_TO_NCHW("t_perm"))
// Binary ops with a rank-4 operand that does not come from NHWC: it goes to NHWC itself (a
// constant is folded; a value of extent 1 in C or in H and W is a reshape).
#define HTP_SINK_OTHER(NAME)                                                                            \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("ta", "a"), "b"),                              \
                           AND(HTP_IS_TO_NCHW("ta_perm"), SAME_SHAPE("ta", "*"), EQ(RANK_OF("b"), 4U)), \
                           Op("Transpose", WITH_SIZE("a", Op(NAME, "a", HTP_TO_NHWC("b"))), "ta_perm")) \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, "b", HTP_FROM_NHWC("ta", "a")),                              \
                           AND(HTP_IS_TO_NCHW("ta_perm"), SAME_SHAPE("ta", "*"), EQ(RANK_OF("b"), 4U)), \
                           Op("Transpose", WITH_SIZE("a", Op(NAME, HTP_TO_NHWC("b"), "a")), "ta_perm"))

// ---- constants ------------------------------------------------------------------------------

// C is a one-element f32 constant equal to V.
#define HTP_IS_SCALAR_F(C, V) AND(EQ(CONSTVAL_FLOAT(C, 0), V), NOT(CONSTVAL_FLOAT_VALID(C, 1)))
// C is a one-element f32 constant within 1e-6 relative of V.
#define HTP_NEAR_F(C, V)                                           \
  AND(CONSTVAL_FLOAT_VALID(C, 0), NOT(CONSTVAL_FLOAT_VALID(C, 1)), \
      LE(ABS(SUB(CONSTVAL_FLOAT(C, 0), V)), MUL(1e-6f, ABS(V))))
// Clip's attribute bounds MIN and MAX unbounded (their defaults: the bounds are inputs from opset
// 11 on, and the reference applies both).
#define HTP_CLIP_ATTRS_UNBOUNDED(MIN, MAX) \
  AND(LE(CONSTVAL_FLOAT(MIN, 0), -3.0e38f), GE(CONSTVAL_FLOAT(MAX, 0), 3.0e38f))
// C holds no elements (an absent ONNX input or an empty list attribute).
#define HTP_EMPTY(C) NOT(CONSTVAL_FLOAT_VALID(C, 0))
// An f32 constant of one element and rank <= 4 (it broadcasts to any rank-4 shape).
#define HTP_ONE_ELEMENT(C) \
  AND(IS_FLOAT32(C), CONSTVAL_FLOAT_VALID(C, 0), NOT(CONSTVAL_FLOAT_VALID(C, 1)), LE(RANK_OF(C), 4U))
// A new one-element f32 constant of rank 1 (gen_ConstScalar_f32 is [1,1,1,1], which would raise
// the rank of what it broadcasts against).
#define HTP_SCALAR_F(V) WITH_SIZE(gen_Shape(1), gen_ConstScalar_f32(V))
#define HTP_SCALAR_I(V) WITH_SIZE(gen_Shape(1), gen_ConstScalar_i32(V))
