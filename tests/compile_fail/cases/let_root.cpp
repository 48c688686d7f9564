// EXPECT: LET("r", ...) is the root of the match
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, LET("r", Op("Relu", "x")), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
#endif
