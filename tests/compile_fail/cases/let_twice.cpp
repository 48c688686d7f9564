// EXPECT: tag "a" is the first operand of two LETs
// FAULT: let_twice
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", LET("a", Op("Relu", "x")), LET("a", Op("Neg", "y"))), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", LET("a", Op("Relu", "x")), LET("b", Op("Neg", "y"))), OK, "x")
#endif
