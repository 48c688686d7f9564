// Every constraint construct of the grammar, with the expansions of the spec's macros.
// The expected canonical lines are in constraints.canonical.
#include "HTP/core/optimize.h"

// :::EXTERNAL_SHAPEFN::: { bool big_enough(Constraint &, OpRef const &, int, float); }

// constants
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("C1", "x"),
    AND(OK, true, NOT(false), LT(NEG_INF, INF), EQ(0x10, 16), EQ(07, 7), EQ(12u, 12UL), EQ(7L, +7),
        GT(-3, -4), LT(-1.331e-2, 0.5f), GT(1.f, .25), NE(DType::QUInt8, DType::Float16),
        EQ(LAYOUT_CHUNKSIZE(Crouton, 2048), 2048u)),
    Op("D1", "x"))

// options and casts
DEF_PACKAGE_OPTIMIZATION(EARLY + 1,
    Op("C2", "x"),
    OR(EQ(OPTION_INT("a"), 1), EQ(OPTION_UINT("b"), 2u), OPTION_BOOL("c"), GT(OPTION_FLOAT("d"), 0.5),
       EQ(INT(DTYPE_OF("x")), 3), EQ(UINT(RANK_OF("x")), 4u), EQ(FLOAT(1), 1.0), EQ(DTYPE(2), DType::QUInt8)),
    Op("D2", "x"))

// arithmetic, reductions and comparisons
DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("C3", "x", "y"),
    XOR(IS_POW2(DIM_OF("x", 3)), EQ(NEG(ABS(CONSTVAL_INT("y", 0))), SELECT(EQ(RANK_OF("x"), 4), 1, 2)),
        LE(ROUNDUP(DIM_OF("x", 2), 32), ADD(1, 2, 3)), GE(MUL(2, 3.5), MIN(1, 2)), EQ(MAX(1u, 2), SUB(3, 1)),
        NE(DIV(6, 2), REM(7, 4)), EQ(MOD(-7, 4), 1)),
    Op("D3", "x", "y"))

// properties of operands
DEF_PACKAGE_OPTIMIZATION(LATE,
    Op("C4", "x", Op("In", "y")),
    AND(EQ(RANK_OF(INPUT_OF("*", 0)), 4), EQ(DIM_OF(OUTPUT_OF("x", 0), 1), 8), GT(STEPSIZE_OF("x"), 0.0),
        EQ(DTYPE_OF("x"), DType::QInt8), EQ(ELEMENTSIZE_OF("x"), 1), EQ(INPUTS_OF("*"), 2), LT(OUTPUTS_OF("*"), 2),
        EQ(ZERO_OFFSET_OF("y"), 0), SAME_ENCODING("x", "y"), NOT(SAME_OP("x", SELECT(true, "y", "x"))),
        CONSTVAL_INT_VALID("y", 0), CONSTVAL_FLOAT_VALID("y", 1), GT(CONSTVAL_FLOAT("y", 1), 0.0)),
    Op("D4", "x", "y"))

// the spec's macros
DEF_PACKAGE_OPTIMIZATION(QNN,
    Op("C5", "x", "y"),
    OR(IS_QUINT8("x"), IS_QINT8("x"), IS_QUINT16("x"), IS_QINT16("x"), IS_QINT32("x"), IS_INT32("x"),
       IS_FLOAT16("x"), IS_FLOAT32("x"), IS_FLOAT("y")),
    Op("D5", "x", "y"))

DEF_PACKAGE_OPTIMIZATION(QNN,
    Op("C6", "x", "y"),
    AND(EQ(DIM_BATCHES("x"), DIM_FILTHEIGHT("y")), EQ(DIM_HEIGHT("x"), DIM_FILTWIDTH("y")),
        EQ(DIM_WIDTH("x"), DIM_FILTDEPTH("y")), EQ(DIM_DEPTH("x"), DIM_NFILTS("y")), SAME_SHAPE("x", "*")),
    Op("D6", "x", "y"))

// external constraints and messages (C escapes allowed in MESSAGE)
DEF_PACKAGE_OPTIMIZATION(HARD_OPS,
    Op("C7", "x"),
    AND(EXTERNAL_CONSTRAINT(big_enough, "x", 3, 1.5f), EXTERNAL_CONSTRAINT(unannotated, "*"),
        MESSAGE("hello \"world\"\n\tx\\y\x7f")),
    Op("D7", "x"))
