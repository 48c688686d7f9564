// EXPECT: LET can only appear in a match, not in the replacement
// FAULT: match_only
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", LET("y", Op("Abs", "x"))))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", Op("Abs", "x")))
#endif
