// EXPECT: the pass offset '0x10' must be a decimal constant with no sign or suffix
// FAULT: pass_offset_form
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY + 0x10, Op("Relu", "x"), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY + 16, Op("Relu", "x"), OK, "x")
#endif
