// An op-package source that uses the rest of the framework's rule surface as its SDK and public
// packages write it: the rule macros made of others (DEF_AUTOSPLIT and its forms,
// CONVERT_BINARY_OP_TO_FP16, DEF_INTERNAL_PACKAGE_OPTIMIZATION), the registrations that name a
// registry, the tiling declarations and the compile hook (accepted, no effect here), the
// constant-placement matches, the properties IS_OP, PRODUCER_FOR and DATA_SIZE, the threading
// tests, the conditional messages, the rearrangements through width 1, and one of the size
// heuristics of its tiling rules. Compiled as is and with PREPARE_DISABLED
// (tests/compat/CMakeLists.txt), its rules run in framework_surface_test.cpp, and og-parse reads it
// (compat.og-parse-reads-package-sources).
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "kernel_stand_ins.h"

BEGIN_PKG_OP_DEFINITION(PKG_Surface);

// The declarations the framework's headers make for a package's other files.
DECLARE_PACKAGE_OP_DEF()
DECLARE_PACKAGE_OPTIMIZATION_DEF()
DECLARE_PACKAGE_PARAM_ORDER_DEF()

template <typename T>
GraphStatus surfCopyImpl(T& out, const T& in) {
  for (std::size_t i = 0; i < in.n && i < out.n; ++i) out.data[i] = in.data[i];
  return GraphStatus::Success;
}
static float surfCost(const Op* op) { return op ? 1.0f : 0.0f; }

// Registrations in a named registry, as newer headers write them.
DEF_PACKAGE_OP_REG("core", surfCopyImpl<Tensor>, "SurfSrc")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS_REG("core", (surfCopyImpl<PlainFloatTensor>), "SurfSrc", FAST, Flags::RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS_REG("core", surfCopyImpl<Tensor>, "SurfSink", surfCost, Flags::RESOURCE_HVX)

// The device's compile step of an implementation, and the tiler's declarations: accepted, unused.
struct SurfCompileParams {
  int tile = 0;
};
int surf_compile(const void* op);
COMPILER_FOR(surfCopyImpl<Tensor>, surf_compile, SurfCompileParams)
TILE_SHAPE(Op("SurfTile", "x"), "x", 1, 8)
TILE_FLAGS(Op("SurfTile", "x"), 0)
TILE_COST(Op("SurfTile", "x"), 1.0f)
TILE_LIKE(Op("SurfTile", "x"), "x");
DEF_TILE_PROPERTIES(Op("SurfTile", "x"), Flat("*", "x"))

// ---- rules made of other rule macros ------------------------------------------------------------
// SurfTile: widths over 4 split into parts of 4.
DEF_AUTOSPLIT(TILING, Op("SurfTile", "x"), SHOULD_TILE(IS_FLOAT32("x"), GT(DIM_WIDTH("x"), MIN_WIDTH_OF("x"))), 2, "I",
              4, Op("SurfTile", TYPICAL_SLICE("x", "I")))
// SurfAdd: heights over 2 split into parts of 2, its first two inputs sliced, the third whole.
DEF_AUTOSPLIT_TYPICAL(TILING + 1, "SurfAdd", 2, 1, 2)
// SurfOrd: depths over 8 split in parts of 8, flagged as the framework flags ordered tilings.
DEF_AUTOSPLIT_ORDERED(TILING + 2, Op("SurfOrd", "x"), OK, 3, "I", 8, Op("SurfOrd", TYPICAL_SLICE("x", "I")))
DEF_AUTOSPLITIM(TILING + 3, explicit_autosplit_flag, Op("SurfIm", "x"), IS_FLOAT32("x"), 1, "I", 1,
                Op("SurfIm", TYPICAL_SLICE("x", "I")))
// SurfMul of float32 tensors computed in float16 under relaxed precision.
CONVERT_BINARY_OP_TO_FP16("SurfMul", "a", "b")

// ---- the properties with an op name, and the constant placements ----------------------------------
// A SurfWrap of a SurfSrc that feeds a SurfSink becomes SurfWrapped.
DEF_INTERNAL_PACKAGE_OPTIMIZATION(EARLY, Op("SurfWrap", "x"), AND(IS_OP("x", "SurfSrc"), PRODUCER_FOR("*", "SurfSink")),
                                  Op("SurfWrapped", "x"))
DEF_INTERNAL_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, cse_after_always, Op("SurfPeek", "x"),
                                             NOT(IS_OP(INPUT_OF("*", 0), "SurfSrc")), Op("SurfPeeked", "x"))
// The weights where the device keeps them; here any constant.
DEF_OPT(EARLY + 1, Op("SurfScale", "x", OPCONST_TCM("w")), OK, Op("SurfScaled", "x", "w"))
DEF_OPT(EARLY + 1, Op("SurfScaleDdr", "x", OPCONST_DDR("w")), OK, Op("SurfScaled", "x", "w"))
DEF_OPT(EARLY + 1, Op("SurfScaleFlat", OPCONST_FLAT_TCM("v"), OPCONST_FLAT_DDR("w")), OK, Op("SurfScaled", "v", "w"))

// ---- threading ------------------------------------------------------------------------------------
// SurfThread over autothread_size_kb is split over autothread_hvx_ntiles threads.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("SurfThread", "x"), AND(SHOULD_AUTOTHREAD1("x"), NE(AUTOTHREAD_ENABLED, 0)),
                         AUTOTHREAD_HVX(1, "I", Op("SurfThread", TYPICAL_SLICE("x", "I"))))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("SurfThread2", "a", "b"), OR(SHOULD_AUTOTHREAD, SHOULD_AUTOTHREAD2("a", "b")),
                         AUTOTHREAD_HMX(1, "I", Op("SurfThread2", TYPICAL_SLICE("a", "I"), TYPICAL_SLICE("b", "I"))))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("SurfThread3", "a", "b", "c"),
                         OR(SHOULD_AUTOTHREAD3("a", "b", "c"), SHOULD_AUTOTHREAD_UNARY, SHOULD_AUTOTHREAD_UNARY1("a")),
                         AUTOTHREAD_HVX(1, "I", Op("SurfThread3", TYPICAL_SLICE("a", "I"), "b", "c")))

// ---- constraints: the dtype and shape tests, the conditional messages -----------------------------
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("SurfMsg", "x"),
                         AND(MESSAGE_IF(IS_FLOAT32("x"), "x is float32"),
                             MESSAGE_IFNOT(GT(MESSAGE_VALUE(RANK_OF("x"), "rank"), 0), "x has no dimensions")),
                         Op("SurfMsgDone", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("SurfQuant", "x", "w", "b"),
                         AND(OR(IS_QUANT_SIGNED("x"), IS_SIGNED_SYMM("x"), IS_QINT16_SYMM("x"), IS_QINT32_SYMM("b")),
                             IS_FULLY_CONNECT_WEIGHT("w"), NOT(IS_QINT8_SYMM("x")), NOT(IS_EMPTY("x")),
                             NOT(IS_EMPTY_DIM("w", 3)), EQ(DIM_CHANNEL("x"), 0), LE(RANK_OF("x"), MAX_DIMENSIONS)),
                         Op("SurfQuantDone", "x", "w", "b"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("SurfHalf", "a", "b"), IS_FLOAT16_BOTH("a", "b"), Op("SurfHalfDone", "a", "b"))

// ---- replacements through width 1 and height 8 -------------------------------------------------------
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("SurfW1", "x"), AND(IS_QUINT8("x"), EQ(DIM_WIDTH("x"), 1)),
                         REARRANGE_TO_W1(Op("SurfW1Tiled", REARRANGE_FROM_W1("x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("SurfH1", "x"), AND(IS_QUINT16("x"), EQ(DIM_HEIGHT("x"), 1)),
                         REARRANGE_TO_H1(Op("SurfH1Tiled", REARRANGE_FROM_H1("x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("SurfW1Op", "x"), EQ(DIM_WIDTH("x"), 1),
                         Op("SurfW1OpTiled", REARRANGE_FROM_W1_OP("x")))
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("SurfHx", "x"), WIDTH_TO_HEIGHTX_CONSTRAINT("x"),
                         Op("SurfHxDone", WITH_SIZE(HEIGHTX_SHAPE("x"), Op("Reshape", "x", HEIGHTX_SHAPE("x")))))
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("SurfH84", "x"), OK,
                         Op("SurfH84Done", WITH_SIZE(HEIGHT84_SHAPE("x"), Op("Reshape", "x", HEIGHT84_SHAPE("x")))))

// ---- the size heuristics of the framework's tiling rules --------------------------------------------
// As its own tiling rules use them: the widest part of a convolution that fits. (Each such name
// in a rule costs the compiler seconds, so the others are compiled as words by
// tests/dsl/grammar_test.cpp and read as rules by og-parse's tests, not here.)
DEF_AUTOSPLIT(TILING + 4, Op("SurfConv", "act", "w", "stride"), SHOULD_TILE(IS_FLOAT32("act")), 2, "I",
              MAX_GOOD_WIDTH("act", "w", "*", TCM_MAXTENSOR_SIZE),
              Op("SurfConv", TYPICAL_SLICE("act", "I"), "w", "stride"))

END_PKG_OP_DEFINITION(PKG_Surface);
