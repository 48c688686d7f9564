// The lowering package (docs/htp_lowering.md): the rest of classic CNNs after convolutions
// (htp_lowering.cpp). SiLU, channel shuffle and depth-to-space fused from their ONNX spellings;
// pools, resizes and depth/space moves wrapped in transposes as NHWC ops; concatenations, slices,
// reductions and elementwise ops moved across the layout transposes so that these cancel.
//
//   CLEANUP_GRAPH   x * Sigmoid(x): Silu; Reshape-Transpose-Reshape: ChannelShuffle, DepthToSpace
//   TRANSLATE       MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, Resize, DepthToSpace,
//                   SpaceToDepth (NCHW) to Transpose(NHWC op(Transpose(x)))
//   EARLY           the boundary transposes moved after elementwise ops, concatenations, slices
//                   and reductions; spatial means become GlobalAvgPool
#include "htp_lowering.hpp"

// ---- CLEANUP_GRAPH: fusions -----------------------------------------------------------------

// SiLU (swish), either operand order.
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", "x", Op("onnx.Sigmoid", "x")), IS_FLOAT32("x"), Op("Silu", "x"))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, Op("onnx.Mul", Op("onnx.Sigmoid", "x"), "x"), IS_FLOAT32("x"), Op("Silu", "x"))

// Reshape-Transpose-Reshape of an NCHW x through rank R and back to x's shape.
#define HTP_RTR \
  Op("onnx.Reshape", "az2", Op("onnx.Transpose", OPCONST("perm"), LET("r", Op("onnx.Reshape", "az1", "x", "s1"))), "s2")
#define HTP_RTR_OK(R)                                                                                      \
  AND(EQ(RANK_OF("x"), 4U), EQ(RANK_OF("r"), R), EQ(RANK_OF("*"), 4U), EQ(DIM_OF("r", 0), DIM_OF("x", 0)), \
      CONSTVAL_INT_VALID("perm", SUB(R, 1)), NOT(CONSTVAL_INT_VALID("perm", R)))
#define HTP_PERM_AT(I, V) EQ(CONSTVAL_INT("perm", I), V)

// Channel shuffle: [N, C, H, W] as [N, g, C/g, H, W], groups and channels swapped, back.
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_RTR,
                         AND(HTP_RTR_OK(5U), SAME_SHAPE("x", "*"),
                             EQ(MUL(DIM_OF("r", 1), DIM_OF("r", 2)), DIM_OF("x", 1)),
                             EQ(DIM_OF("r", 3), DIM_OF("x", 2)), EQ(DIM_OF("r", 4), DIM_OF("x", 3)), HTP_PERM_AT(0, 0),
                             HTP_PERM_AT(1, 2), HTP_PERM_AT(2, 1), HTP_PERM_AT(3, 3), HTP_PERM_AT(4, 4)),
                         HTP_NCHW_WRAP(Op("ChannelShuffle", HTP_TO_NHWC("x"), HTP_SCALAR_I(DIM_OF("r", 1)))))

// Depth-to-space, DCR: [N, C, H, W] as [N, b, b, C/b^2, H, W], permuted [0,3,4,1,5,2], to
// [N, C/b^2, H*b, W*b]; CRD: as [N, C/b^2, b, b, H, W], permuted [0,1,4,2,5,3].
#define HTP_D2S_OK(B, CO)                                                                                             \
  AND(HTP_RTR_OK(6U), EQ(DIM_OF("r", 4), DIM_OF("x", 2)), EQ(DIM_OF("r", 5), DIM_OF("x", 3)), EQ(DIM_OF("*", 1), CO), \
      EQ(DIM_OF("*", 2), MUL(DIM_OF("x", 2), B)), EQ(DIM_OF("*", 3), MUL(DIM_OF("x", 3), B)),                         \
      EQ(MUL(CO, B, B), DIM_OF("x", 1)))
DEF_PACKAGE_OPTIMIZATION(
    CLEANUP_GRAPH, HTP_RTR,
    AND(HTP_D2S_OK(DIM_OF("r", 1), DIM_OF("r", 3)), EQ(DIM_OF("r", 2), DIM_OF("r", 1)), HTP_PERM_AT(0, 0),
        HTP_PERM_AT(1, 3), HTP_PERM_AT(2, 4), HTP_PERM_AT(3, 1), HTP_PERM_AT(4, 5), HTP_PERM_AT(5, 2)),
    HTP_NCHW_WRAP(Op("DepthToSpace", HTP_TO_NHWC("x"), HTP_SCALAR_I(DIM_OF("r", 1)), HTP_SCALAR_I(0))))
DEF_PACKAGE_OPTIMIZATION(
    CLEANUP_GRAPH, HTP_RTR,
    AND(HTP_D2S_OK(DIM_OF("r", 2), DIM_OF("r", 1)), EQ(DIM_OF("r", 3), DIM_OF("r", 2)), HTP_PERM_AT(0, 0),
        HTP_PERM_AT(1, 1), HTP_PERM_AT(2, 4), HTP_PERM_AT(3, 2), HTP_PERM_AT(4, 5), HTP_PERM_AT(5, 3)),
    HTP_NCHW_WRAP(Op("DepthToSpace", HTP_TO_NHWC("x"), HTP_SCALAR_I(DIM_OF("r", 2)), HTP_SCALAR_I(1))))

// ---- TRANSLATE: NCHW ops as NHWC ops ----------------------------------------------------------

#define HTP_NCHW_OK(X)                                                                         \
  AND(EQ(CONSTVAL_INT("auto_pad", 0), 0), EQ(RANK_OF(X), 4U), CONSTVAL_INT_VALID("kernel", 1), \
      NOT(CONSTVAL_INT_VALID("kernel", 2)))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE,
                         Op("onnx.MaxPool", OPCONST("auto_pad"), "ceil_mode", "dilations", OPCONST("kernel"), "pads",
                            "storage_order", "strides", OPCONST("output"), "x"),
                         AND(HTP_NCHW_OK("x"), EQ(CONSTVAL_INT("output", 0), 0)),
                         HTP_NCHW_WRAP(Op("MaxPool2d", HTP_TO_NHWC("x"), "kernel", "pads", "strides", "dilations")))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE,
                         Op("onnx.AveragePool", OPCONST("auto_pad"), "ceil_mode", "count_include_pad",
                            OPCONST("kernel"), "pads", "strides", "x"),
                         AND(HTP_NCHW_OK("x"), IS_FLOAT32("x")),
                         HTP_NCHW_WRAP(Op("AvgPool2d", HTP_TO_NHWC("x"), "kernel", "pads", "strides",
                                          "count_include_pad")))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE, Op("onnx.GlobalAveragePool", "x"), AND(EQ(RANK_OF("x"), 4U), IS_FLOAT32("x")),
                         HTP_NCHW_WRAP(Op("GlobalAvgPool", HTP_TO_NHWC("x"))))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE, Op("onnx.GlobalMaxPool", "x"), AND(EQ(RANK_OF("x"), 4U), IS_FLOAT32("x")),
                         HTP_NCHW_WRAP(Op("ReduceMax", HTP_TO_NHWC("x"), gen_ConstArr_vals_i32(1, 2))))
// Resize of H and W: the scales permuted to NHWC (a Gather the constant folder evaluates), or
// none (sizes given).
#define HTP_RESIZE(SCALES) \
  HTP_NCHW_WRAP(           \
      Op("Resize", HTP_TO_NHWC("x"), SCALES, "coord", "cubic_a", "exclude", "extrapolation", "mode", "nearest"))
#define HTP_RESIZE_OK AND(EQ(RANK_OF("x"), 4U), IS_FLOAT32("x"), NE(CONSTVAL_INT("coord", 0), 5))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE,
                         Op("onnx.Resize", OPCONST("coord"), "cubic_a", "exclude", "extrapolation", "mode", "nearest",
                            "x", "roi", OPCONST("scales"), "sizes"),
                         AND(HTP_RESIZE_OK, CONSTVAL_FLOAT_VALID("scales", 3)),
                         HTP_RESIZE(WITH_SIZE(gen_Shape(1, 1, 1, 4),
                                              Op("Gather", "scales", gen_ConstArr_vals_i32(0, 2, 3, 1),
                                                 HTP_SCALAR_I(0)))))
DEF_PACKAGE_OPTIMIZATION(TRANSLATE,
                         Op("onnx.Resize", OPCONST("coord"), "cubic_a", "exclude", "extrapolation", "mode", "nearest",
                            "x", "roi", OPCONST("scales"), "sizes"),
                         AND(HTP_RESIZE_OK, HTP_EMPTY("scales")), HTP_RESIZE("scales"))

// ---- EARLY: the layout transposes moved on ----------------------------------------------------

// Elementwise unary ops (and those with scalar parameters) move after the transpose back to NCHW.
HTP_SINK("Sigmoid")
HTP_SINK("Silu")
HTP_SINK("Tanh")
HTP_SINK("Neg")
HTP_SINK("Abs")
HTP_SINK1("Gelu")
HTP_SINK1("LeakyRelu")
HTP_SINK1("Elu")

// Binary ops with a rank-4 operand that does not come from NHWC: it goes to NHWC itself (a
// constant is folded; a value of extent 1 in C or in H and W is a reshape).
HTP_SINK_OTHER("Add")
HTP_SINK_OTHER("Mul")
HTP_SINK_OTHER("Sub")
HTP_SINK_OTHER("Div")
HTP_SINK_OTHER("Max")
HTP_SINK_OTHER("Min")

// A rank-4 concatenation whose first part comes from NHWC: joined in NHWC (the other parts
// transposed there: their transposes cancel or fold).
DEF_PACKAGE_OPTIMIZATION(EARLY, OpVarIn("Concat", OPCONST("axis"), HTP_FROM_NHWC("t", "a")),
                         AND(HTP_IS_TO_NCHW("t_perm"), EQ(RANK_OF("*"), 4U), CONSTVAL_INT_VALID("axis", 0),
                             NOT(CONSTVAL_INT_VALID("axis", 1))),
                         Op("Transpose",
                            OP_ITER(WITH_SIZE(HTP_NHWC_SHAPE("*"),
                                              Op("Concat", HTP_SCALAR_I(HTP_NHWC_AXIS(CONSTVAL_INT("axis", 0))))),
                                    "I", 1, INPUTS_OF("*"), HTP_TO_NHWC(ITER_INPUT_OF("*", "I"))),
                            "t_perm"))

// A slice of an NHWC value: its parameters permuted to NHWC.
#define HTP_NHWC_VALS(P) \
  gen_ConstArr_vals_i32(CONSTVAL_INT(P, 0), CONSTVAL_INT(P, 2), CONSTVAL_INT(P, 3), CONSTVAL_INT(P, 1))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("StridedSlice", HTP_FROM_NHWC("t", "x"), OPCONST("b"), OPCONST("e"), OPCONST("s")),
                         AND(HTP_IS_TO_NCHW("t_perm"), CONSTVAL_INT_VALID("b", 3)),
                         Op("Transpose",
                            WITH_SIZE(HTP_NHWC_SHAPE("*"), Op("StridedSlice", "x", HTP_NHWC_VALS("b"),
                                                              HTP_NHWC_VALS("e"), HTP_NHWC_VALS("s"))),
                            "t_perm"))

// Means over H and W of an NHWC f32 value (axes [2, 3] of NCHW, in any order or from the end): a
// GlobalAvgPool, dims kept (transposed back) or dropped (a reshape).
#define HTP_IS_AXIS(A, K) OR(EQ(A, K), EQ(A, SUB(K, 4)))
#define HTP_HW_AXES(AX)                                                                 \
  AND(CONSTVAL_INT_VALID(AX, 1), NOT(CONSTVAL_INT_VALID(AX, 2)),                        \
      OR(AND(HTP_IS_AXIS(CONSTVAL_INT(AX, 0), 2), HTP_IS_AXIS(CONSTVAL_INT(AX, 1), 3)), \
         AND(HTP_IS_AXIS(CONSTVAL_INT(AX, 0), 3), HTP_IS_AXIS(CONSTVAL_INT(AX, 1), 2))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReduceMean", HTP_FROM_NHWC("t", "x"), OPCONST("axes")),
                         AND(HTP_IS_TO_NCHW("t_perm"), HTP_HW_AXES("axes"), EQ(RANK_OF("*"), 4U), IS_FLOAT32("x")),
                         Op("Transpose", WITH_SIZE(HTP_NHWC_SHAPE("*"), Op("GlobalAvgPool", "x")), "t_perm"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReduceMean", HTP_FROM_NHWC("t", "x"), OPCONST("axes")),
                         AND(HTP_IS_TO_NCHW("t_perm"), HTP_HW_AXES("axes"), EQ(RANK_OF("*"), 2U), IS_FLOAT32("x")),
                         Op("Reshape",
                            WITH_SIZE(gen_Shape(DIM_OF("x", 0), 1, 1, DIM_OF("x", 3)), Op("GlobalAvgPool", "x"))))
// Reductions over C: over NHWC's last axis.
#define HTP_C_AXIS(AX) AND(NOT(CONSTVAL_INT_VALID(AX, 1)), HTP_IS_AXIS(CONSTVAL_INT(AX, 0), 1))
#define HTP_SINK_REDUCE_C(NAME)                                                                           \
  DEF_PACKAGE_OPTIMIZATION(                                                                               \
      EARLY, Op(NAME, HTP_FROM_NHWC("t", "x"), OPCONST("axes")),                                          \
      AND(HTP_IS_TO_NCHW("t_perm"), HTP_C_AXIS("axes"), EQ(RANK_OF("*"), 4U)),                            \
      Op("Transpose", WITH_SIZE(HTP_NHWC_SHAPE("*"), Op(NAME, "x", gen_ConstArr_vals_i32(3))), "t_perm")) \
  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(NAME, HTP_FROM_NHWC("t", "x"), OPCONST("axes")),                     \
                           AND(HTP_IS_TO_NCHW("t_perm"), HTP_C_AXIS("axes"), EQ(RANK_OF("*"), 3U)),       \
                           Op(NAME, "x", gen_ConstArr_vals_i32(3)))
HTP_SINK_REDUCE_C("ReduceMean")
HTP_SINK_REDUCE_C("ReduceMax")
// A mean over H and W of an NHWC f32 value (GlobalAvgPool computes in f32 only).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReduceMean", "x", OPCONST("axes")),
                         AND(EQ(RANK_OF("x"), 4U), EQ(RANK_OF("*"), 4U), IS_FLOAT32("x"), CONSTVAL_INT_VALID("axes", 1),
                             NOT(CONSTVAL_INT_VALID("axes", 2)),
                             OR(AND(HTP_IS_AXIS(CONSTVAL_INT("axes", 0), 1), HTP_IS_AXIS(CONSTVAL_INT("axes", 1), 2)),
                                AND(HTP_IS_AXIS(CONSTVAL_INT("axes", 0), 2), HTP_IS_AXIS(CONSTVAL_INT("axes", 1), 1)))),
                         Op("GlobalAvgPool", "x"))
