// EXPECT: AUTOSPLIT_SHAPEFN_APPLY("I") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag "I"
// FAULT: split_var_scope
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", TYPICAL_SLICE("x", "I")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I"))))
#endif
