// EXPECT: LET("r", ...) is the root of the match; LET may only wrap an inner Op
// FAULT: let_at_root
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, LET("r", Op("Relu", "x")), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
#endif
