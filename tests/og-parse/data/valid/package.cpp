//=============================================================================
// An op package in the style of the shipped ones: helper macros, compatibility names,
// declarations of ops, tensor properties and parameter orders, and rules.
//=============================================================================
#include "HTP/core/constraints.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"

BEGIN_PKG_OP_DEFINITION(PKG_Example);

template <typename T> int poolImpl(T &out, const T &in);
static float poolCost(const Op *op);

DEF_PACKAGE_OP((poolImpl<Tensor>), "Pool.ref")
DEF_PACKAGE_OP(reluImpl, "Relu")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((poolImpl<QUint8CroutonTensor>), "Pool", FAST, Flags::RESOURCE_HVX, IS_CONST)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(reluImpl, "Relu.slow", GLACIAL)
DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS((poolImpl<PlainFloatTensor>), "Pool.fp", poolCost, Flags::RESOURCE_HMX,
                                    Flags::INHIBIT_CONST_PROP)
DEF_TENSOR_PROPERTIES(Op("Pool", "in0", "in1"), Flat("in1"), Crouton("*", "in0"), MainMemory("in1"), Tcm("*"))
DEF_PACKAGE_PARAM_ORDER("Pool", "window", true, nullptr, "stride", false, nullptr)

// :::EXTERNAL_SHAPEFN::: { QuickShape pad_total(Replacement &, OpRef const &, OpRef const &); }
/* :::EXTERNAL_SHAPEFN::: { int depth_of(Constraint &, OpRef const &); } */

#define MIN_DEPTH 32
#define DEEP(X) GT(DIM_DEPTH(X), MIN_DEPTH)
#define JOIN(a, b) a##b
#define OPT_NAME(base) base ".opt"
#define SAME_DTYPE(a, b) EQ(DTYPE_OF(a), DTYPE_OF(b))
#define WRAP_RULE(OPNAME, NEW)                                  \
  DEF_PACKAGE_OPTIMIZATION(EARLY + 7, Op(OPNAME, "x"), DEEP("x"), \
                           Op(NEW, "x"))

const char* not_a_rule = "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\"), OK, \"*\")";
// DEF_PACKAGE_OPTIMIZATION(EARLY, this is a comment, not a rule)

DEF_PACKAGE_OPTIMIZATION(QNN,
    Op("PoolMax2d", "Act", "window", "stride", "pad"),
    AND(NOT(IS_FLOAT16("Act")), DEEP("Act"), SAME_DTYPE("Act", "*")),
    Op("Pool",
       WITH_SIZE(SHAPEFN_APPLY(pad_total, "Act", "pad"),
                 WITH_TYPE("Act", Op(FROM_DEFAULT_PACKAGE("SlicePad_shape"), "Act", gen_Shape(0, 0, 0, 0),
                                     SHAPEFN_APPLY(pad_total, "Act", "pad"), gen_ConstScalar_i32(0)))),
       "window", "stride"));  // trailing text after a rule is ignored

WRAP_RULE("Relu", "Relu.opt")
WRAP_RULE("Relu6", OPT_NAME("Relu6"))

DEF_PACKAGE_OPTIMIZATION(EARLY - 2,
    Op("Pool", "Act", "W", "S"),
    AND(GT(DIM_DEPTH("*"), size_t(CHANNEL_SPLIT_SIZE)), GE(DIM_DEPTH("*"), MIN_CHANNEL_SPLIT_SIZE), LE(JOIN(MIN_, DEPTH), 64),
        IS_QUANT_TYPE("Act"), SAME_QUANT("Act", "*"), NOT(IS_SCALAR("W")), EQ(EXTERNAL_CONSTRAINT(depth_of, "Act"), 010),
        LT(CEILDIV(DIM_HEIGHT("*"), 8), 100)),
    AUTOSPLIT(3, "I", CHANNEL_SPLIT_SIZE, Op("Pool", TYPICAL_SLICE("Act", "I"), "W", "S")))

DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Pool", "Act", "W", "S"),
    GT(DIM_HEIGHT("*"), TILE_HEIGHT),
    Op("Requantize", AUTOSPLIT(1, "I", TILE_HEIGHT, Op("Pool", TYPICAL_SLICE("Act", "I"), "W", "S"))))

DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(LATE + 10, relaxed_precision_flag,
    Op("Pool", "In", "W", "S"),
    IS_FLOAT("In"),
    Op("Pool.fp", "In", "W", "S"))


// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 50:32: warning: 'EARLY - 2' is outside the grammar (a pass spec is NAME or NAME + N); accepted
// EXPECT: 52:28: warning: functional cast 'size_t(...)' is outside the grammar; accepted as the constant 256U
// EXPECT: 53:117: warning: octal constant 010 has the value 8 (a leading 0 means octal)
// EXPECT: 60:22: warning: AUTOSPLIT nested inside an Op operand: the grammar wants it at the root of the replacement or in a root SELECT (an error in strict mode)
