// EXPECT: SPLIT_START("I") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag "I"
// FAULT: split_var_scope
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(SPLIT_START("I"), 0), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(DIM_OF("x", 0), 0), "x")
#endif
