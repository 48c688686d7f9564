// EXPECT: ADD's operand 1 is an opref where a value is expected
// FAULT: opref_as_value
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(ADD("x", 1), 0), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(ADD(RANK_OF("x"), 1), 0), "x")
#endif
