// EXPECT: unknown rule flag 'relaxed_precison_flag'
// FAULT: unknown_rule_flag
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precison_flag, Op("Relu", "x"), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precision_flag, Op("Relu", "x"), OK, "x")
#endif
