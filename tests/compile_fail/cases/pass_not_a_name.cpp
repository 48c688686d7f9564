// EXPECT: the pass spec must be a pass name or NAME + N, not "3050"
// FAULT: pass_spec_form
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(3050, Op("Relu", "x"), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "x")
#endif
