// EXPECT: gen_Shape needs at least one operand
// FAULT: needs_operand
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SIZE(gen_Shape(), Op("B", "x")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SIZE(gen_Shape(1, 1, 1, 4), Op("B", "x")))
#endif
