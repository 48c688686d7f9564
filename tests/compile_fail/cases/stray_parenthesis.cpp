// EXPECT: unexpected '(': parentheses are only allowed around the arguments of a name
// FAULT: stray_parenthesis
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT((RANK_OF("x")), 1), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(RANK_OF("x"), 1), "x")
#endif
