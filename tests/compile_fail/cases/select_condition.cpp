// EXPECT: SELECT's condition must be bool, not int
// FAULT: select_condition
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(SELECT(1, 2, 3), 2), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(SELECT(true, 2, 3), 2), "x")
#endif
