// EXPECT: ADD cannot take a dtype (operand 1): a dtype can only be used with EQ, NE, SELECT, INT and DTYPE_OF
// FAULT: dtype_use
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(ADD(DTYPE_OF("x"), 1), 2), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(ADD(INT(DTYPE_OF("x")), 1), 2), "x")
#endif
