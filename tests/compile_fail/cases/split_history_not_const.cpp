// EXPECT: WITH_SPLIT_HISTORY's second operand must be an integer constant, not RANK_OF
// FAULT: split_history_constant
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SPLIT_HISTORY("x", RANK_OF("x"), Op("B", "x")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SPLIT_HISTORY("x", 2, Op("B", "x")))
#endif
