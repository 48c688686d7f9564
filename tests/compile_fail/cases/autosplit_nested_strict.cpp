// EXPECT: AUTOSPLIT nested inside an Op operand: the grammar wants it at the root of the replacement or in a root SELECT (an error in strict mode)
// FAULT: autosplit_nested_strict
#define OPTGRAMMAR_STRICT 1
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("R", AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I")))))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I"))))
#endif
