// EXPECT: the match must be Op(...) or OpVarIn(...), not operand tag
// FAULT: match_root
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, "x", OK, Op("Neg", "x"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", "x"))
#endif
