// EXPECT: Op("Relu", ...) cannot appear in a constraint
// FAULT: op_in_constraint
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), SAME_OP(Op("Relu", "x"), "x"), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), SAME_OP(INPUT_OF("*", 0), "x"), "x")
#endif
