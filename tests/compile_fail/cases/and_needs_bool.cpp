// EXPECT: AND needs bool operands, but operand 2 is int
// FAULT: needs_bool
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), AND(OK, 1), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), AND(OK, true), "x")
#endif
