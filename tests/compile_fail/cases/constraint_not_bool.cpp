// EXPECT: the constraint must be bool, but RANK_OF gives size
// FAULT: constraint_not_bool
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), RANK_OF("x"), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(RANK_OF("x"), 2U), "x")
#endif
