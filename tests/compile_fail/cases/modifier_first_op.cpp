// EXPECT: WITH_TYPE's first operand must be an existing opref, not an Op construction
// FAULT: operand_type
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, WITH_TYPE(Op("Abs", "x"), Op("Neg", "x")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, WITH_TYPE("x", Op("Neg", "x")))
#endif
