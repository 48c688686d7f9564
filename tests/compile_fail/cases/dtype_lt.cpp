// EXPECT: a dtype can only be used with EQ, NE, SELECT, INT and DTYPE_OF, not as operand 1 of LT
// FAULT: dtype_use
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), LT(DTYPE_OF("x"), DType::QUInt8), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), NE(DTYPE_OF("x"), DType::QUInt8), "x")
#endif
