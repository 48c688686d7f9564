// EXPECT: WITH_SIZE's last operand must be an Op construction, not opref
// FAULT: operand_type
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, WITH_SIZE("x", "x"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, WITH_SIZE("x", Op("Neg", "x")))
#endif
