// EXPECT: TYPICAL_SLICE's first operand must be an existing opref, not an Op construction
// FAULT: operand_type
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE(Op("C", "x"), "I"))))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE(INPUT_OF("*", 0), "I"))))
#endif
