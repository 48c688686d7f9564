// EXPECT: split tag "I" is used by two AUTOSPLIT/OP_ITER in one rule
// FAULT: split_tag_twice
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK,
    AUTOSPLIT(1, "I", 4, Op("A", OP_ITER(Op("C"), "I", 0, 2, TYPICAL_SLICE("x", "I")))))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK,
    AUTOSPLIT(1, "I", 4, Op("A", OP_ITER(Op("C"), "J", 0, 2, TYPICAL_SLICE("x", "I")))))
#endif
