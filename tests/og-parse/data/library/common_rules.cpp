// Rules that both the C++ library (compiled into og_parse_crosscheck) and og-parse read; the
// cross-check test requires the same canonical text from both for every rule.
#include <optgrammar/rules.hpp>

DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")

DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("C1", "x"),
    AND(OK, true, NOT(false), EQ(0x10, 16), EQ(07, 7), EQ(12u, 12UL), EQ(7L, +7),
        GT(-3, -4), LT(-1.331e-2, 0.5f), GT(1.f, .25), NE(DType::QUInt8, DType::Float16)),
    Op("D1", "x"))

DEF_PACKAGE_OPTIMIZATION(EARLY + 1,
    Op("C2", "x"),
    OR(EQ(OPTION_INT("a"), 1), EQ(OPTION_UINT("b"), 2u), OPTION_BOOL("c"), GT(OPTION_FLOAT("d"), 0.5),
       EQ(INT(DTYPE_OF("x")), 3), EQ(UINT(RANK_OF("x")), 4u), EQ(FLOAT(1), 1.0), EQ(DTYPE(2), DType::QUInt8)),
    Op("D2", "x"))

DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("C3", "x", "y"),
    XOR(IS_POW2(DIM_OF("x", 3)), EQ(NEG(ABS(CONSTVAL_INT("y", 0))), SELECT(EQ(RANK_OF("x"), 4), 1, 2)),
        LE(ROUNDUP(DIM_OF("x", 2), 32), ADD(1, 2, 3)), GE(MUL(2, 3), MIN(1, 2)), EQ(MAX(1u, 2), SUB(3, 1)),
        NE(DIV(6, 2), REM(7, 4)), EQ(MOD(-7, 4), 1)),
    Op("D3", "x", "y"))

DEF_PACKAGE_OPTIMIZATION(LATE,
    Op("C4", "x", Op("In", "y")),
    AND(EQ(RANK_OF(INPUT_OF("*", 0)), 4), EQ(DIM_OF(OUTPUT_OF("x", 0), 1), 8), GT(STEPSIZE_OF("x"), 0.0),
        EQ(DTYPE_OF("x"), DType::QInt8), EQ(ELEMENTSIZE_OF("x"), 1), EQ(INPUTS_OF("*"), 2), LT(OUTPUTS_OF("*"), 2),
        EQ(ZERO_OFFSET_OF("y"), 0), SAME_ENCODING("x", "y"), NOT(SAME_OP("x", SELECT(true, "y", "x"))),
        CONSTVAL_INT_VALID("y", 0), CONSTVAL_FLOAT_VALID("y", 1), GT(CONSTVAL_FLOAT("y", 1), 0.0)),
    Op("D4", "x", "y"))

DEF_PACKAGE_OPTIMIZATION(QNN,
    Op("C5", "x", "y"),
    OR(IS_QUINT8("x"), IS_QINT8("x"), IS_QUINT16("x"), IS_QINT16("x"), IS_QINT32("x"), IS_INT32("x"),
       IS_FLOAT16("x"), IS_FLOAT32("x"), IS_FLOAT("y"), IS_QUANT_TYPE("x"), IS_SCALAR("y"), SAME_QUANT("x", "y")),
    Op("D5", "x", "y"))

DEF_PACKAGE_OPTIMIZATION(QNN,
    Op("C6", "x", "y"),
    AND(EQ(DIM_BATCHES("x"), DIM_FILTHEIGHT("y")), EQ(DIM_HEIGHT("x"), DIM_FILTWIDTH("y")),
        EQ(DIM_WIDTH("x"), DIM_FILTDEPTH("y")), EQ(DIM_DEPTH("x"), DIM_NFILTS("y")), SAME_SHAPE("x", "*"),
        LT(CEILDIV(DIM_OF("x", 1), 8), CHANNEL_SPLIT_SIZE)),
    Op("D6", "x", "y"))

DEF_PACKAGE_OPTIMIZATION(EARLY,
    OpVarIn("Concat", "a", "a"),
    OK,
    Op("Concat.same", "a"))

DEF_PACKAGE_OPTIMIZATION(EARLY + 1,
    Op("Add", "x", "*", OPCONST("c")),
    EQ(CONSTVAL_FLOAT("c", 0), 0.0f),
    "x")

DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("R1", "x", "y"),
    OK,
    Op("N1", Operand("x"), INPUT_OF("*", 1), OUTPUT_OF("y", 0), SELECT(GT(RANK_OF("x"), 2), "x", "y"),
       WrapOp("Cast", "x"), WrapOpAlways("Cast", "y"), gen_Shape(1, 2, 3, 4), gen_ShapeOf("x"),
       gen_ConstScalar_f32(0.5), gen_ConstScalar_i32(-1), gen_ConstArr_f32(1.0f, 4), gen_ConstArr_i32(7, DIM_OF("x", 3))))

DEF_PACKAGE_OPTIMIZATION(EARLY + 2,
    Op("R2", "x", "y"),
    OK,
    SELECT(IS_FLOAT("x"), INPUT_OF("y", 0), "x"))

DEF_PACKAGE_OPTIMIZATION(EARLY + 3,
    Op("R3", "x"),
    OK,
    WITH_SIZE(gen_Shape(1, 1, 1, 8), WITH_TYPE("x", WITH_SAME_OUTPUT("*", WITH_SAME_ID("*",
        WITH_OUTPUT_TYPE(DType::QUInt8, 0, 0.25f, WITH_MULTI_OUT(2, ResizeDim(3, 8,
        WITH_SPLIT_HISTORY("x", 2, WITH_SPLIT_HISTORY("*", Op("N3", "x")))))))))))

// (AUTOSPLIT and OP_ITER rules join once the library runs them; float arithmetic likewise.)

DEF_PACKAGE_OPTIMIZATION(TILING + 3,
    Op("R7", "x"),
    OK,
    Op("R7.out", OpMultiOut(2, 1, "Split", "x", gen_Shape(1, 1, 1, 2))))

// Flags combined with '|', one of them in the framework's scoped spelling.
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(LATE, relaxed_precision_flag | hnnx::OptimFlags::fold_relu_flag,
    Op("R8", "x"),
    OK,
    Op("R8.fp16", "x"))
