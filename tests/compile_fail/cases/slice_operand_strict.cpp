// EXPECT: TYPICAL_SLICE's first operand is an Op construction: the grammar wants an existing opref (an error in strict mode)
// FAULT: slice_operand_strict
#define OPTGRAMMAR_STRICT 1
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE(CAST_TO_FP16("x"), "I"))))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", CAST_TO_DTYPE(TYPICAL_SLICE("x", "I"), DType::Float16))))
#endif
