// EXPECT: AUTOSPLIT may only be the root of a replacement or inside a SELECT at the root
// FAULT: autosplit_place
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SAME_ID("*", AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I")))))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, SELECT(OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I"))), "x"))
#endif
