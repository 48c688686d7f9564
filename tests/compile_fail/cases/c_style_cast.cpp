// EXPECT: C-style cast '(int)' is not allowed in a rule; write a functional cast int(...) or INT(...)/UINT(...)/FLOAT(...)
// FAULT: c_style_cast
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(DIM_OF("x", (int)3), 1), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(DIM_OF("x", 3), 1), "x")
#endif
