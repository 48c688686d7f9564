// EXPECT: IS_POW2 takes int or size operands, but operand 1 is float
// FAULT: needs_integral
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_POW2(STEPSIZE_OF("x")), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_POW2(DIM_OF("x", 3)), "x")
#endif
