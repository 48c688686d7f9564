// EXPECT: AUTOSPLIT with split tag "I" never refers to it in its last operand
// FAULT: split_tag_unused
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", "x")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I"))))
#endif
