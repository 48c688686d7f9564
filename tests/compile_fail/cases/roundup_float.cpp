// EXPECT: ROUNDUP takes int or size operands, but operand 1 is float
// FAULT: needs_integral
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(ROUNDUP(1.5f, 32), 0), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(ROUNDUP(15, 32), 0), "x")
#endif
