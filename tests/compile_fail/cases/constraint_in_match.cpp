// EXPECT: ADD cannot appear in a match (match operands are operand tags, Op, OpVarIn and LET)
// FAULT: not_in_match
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", ADD(1, 2)), OK, Op("Neg", "*"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", "*"))
#endif
