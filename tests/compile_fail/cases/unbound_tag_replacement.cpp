// EXPECT: tag "z" is used in the replacement but never bound by the match
// FAULT: tag_not_bound
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", "z"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", "x"))
#endif
