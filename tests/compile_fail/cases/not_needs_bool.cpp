// EXPECT: NOT needs bool operands, but operand 1 is size
// FAULT: needs_bool
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), NOT(RANK_OF("x")), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), NOT(EQ(RANK_OF("x"), 0)), "x")
#endif
