// EXPECT: the replacement may not be "*" (or a SELECT that can yield it): the rule would replace the op by itself
// FAULT: star_replacement
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(LATE + 2, Op("Relu", "x"), OK, SELECT(GT(RANK_OF("x"), 2), "x", "*"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, SELECT(GT(RANK_OF("x"), 2), "x", INPUT_OF("*", 0)))
#endif
