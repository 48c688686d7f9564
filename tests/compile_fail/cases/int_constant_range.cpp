// EXPECT: integer constant 2147483648 does not fit in int (add a U suffix for a size)
// FAULT: integer_out_of_range
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), LT(CONSTVAL_INT("x", 0), 2147483648), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), LT(UINT(CONSTVAL_INT("x", 0)), 2147483648U), "x")
#endif
