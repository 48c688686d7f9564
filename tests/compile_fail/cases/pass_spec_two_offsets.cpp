// EXPECT: the pass spec must be a pass name or NAME + N, not "EARLY + 1 + 2"
// FAULT: pass_spec_form
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY + 1 + 2, Op("Relu", "x"), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("Relu", "x"), OK, "x")
#endif
