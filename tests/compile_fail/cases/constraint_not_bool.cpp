// EXPECT: the constraint must be bool, but it is size
// FAULT: constraint_not_bool
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), RANK_OF("x"), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(RANK_OF("x"), 0), "x")
#endif
