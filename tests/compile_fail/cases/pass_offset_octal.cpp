// EXPECT: the pass offset '010' must be a decimal constant, not octal
// FAULT: pass_offset_octal
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY + 010, Op("Relu", "x"), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY + 10, Op("Relu", "x"), OK, "x")
#endif
