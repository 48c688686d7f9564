// EXPECT: RANK_OF's operand 1 must be an operand tag or opref, not int
// FAULT: needs_opref
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(RANK_OF(3), 0), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(RANK_OF(INPUT_OF("*", 0)), 0), "x")
#endif
