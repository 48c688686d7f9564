// EXPECT: SELECT's second and third operands have incompatible types int and bool
// FAULT: select_branches
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(SELECT(IS_FLOAT("x"), 4, GT(RANK_OF("x"), 2)), 1), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(SELECT(IS_FLOAT("x"), 4, RANK_OF("x")), 1), "x")
#endif
