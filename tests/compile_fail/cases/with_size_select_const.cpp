// EXPECT: WITH_SIZE's first operand must be an existing opref or a shape construction, not a SELECT that can yield a constant
// FAULT: with_size_select_const
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SIZE(SELECT(IS_FLOAT("x"), gen_ConstScalar_f32(1.0f), "x"), Op("B", "x")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SIZE(SELECT(IS_FLOAT("x"), gen_Shape(1, 1, 1, 4), "x"), Op("B", "x")))
#endif
