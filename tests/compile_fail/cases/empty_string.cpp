// EXPECT: empty string as operand tag
// FAULT: empty_string
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", ""), OK, Op("Neg", "*"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", "*"))
#endif
