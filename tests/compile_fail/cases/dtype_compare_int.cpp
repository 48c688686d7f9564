// EXPECT: EQ compares a dtype with int (a dtype can only be compared with a dtype)
// FAULT: dtype_compare
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(DTYPE_OF("x"), 3), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(DTYPE_OF("x"), DType::QUInt8), "x")
#endif
