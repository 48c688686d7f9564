// EXPECT: tag "a" appears inside its own LET
// FAULT: tag_inside_own_let
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", LET("a", Op("Relu", "a")), "b"), OK, "b")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", LET("a", Op("Relu", "c")), "b"), OK, "b")
#endif
