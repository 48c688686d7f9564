// EXPECT: op name "Conv 2d" contains a space
// FAULT: bad_string
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv 2d", "x", "w"), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), OK, "x")
#endif
