// EXPECT: ROUNDUP's second operand must be a power of two, not 24
// FAULT: roundup_pow2
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(ROUNDUP(DIM_DEPTH("x"), 24), 0), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(ROUNDUP(DIM_DEPTH("x"), 32), 0), "x")
#endif
