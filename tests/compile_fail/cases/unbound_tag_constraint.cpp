// EXPECT: tag "y" is used in the constraint but never bound by the match
// FAULT: tag_not_bound
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(RANK_OF("y"), 4), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(RANK_OF("x"), 4), "x")
#endif
