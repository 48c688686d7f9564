// EXPECT: the replacement may not be "*"
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "*")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "x")
#endif
