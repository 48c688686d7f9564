// EXPECT: operand tag "x\y" contains a backslash
// FAULT: bad_string
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x\\y"), OK, Op("Neg", "*"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "xy"), OK, Op("Neg", "*"))
#endif
