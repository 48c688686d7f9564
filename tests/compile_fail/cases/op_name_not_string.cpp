// EXPECT: Op's first operand must be the op name as a string constant ("Relu"), not a C++ variable or expression
// FAULT: op_name_not_string
// An op name held in a variable, as packages for the framework's older headers write it in their
// registrations: a rule cannot take it (the rule is checked when it compiles).
#include <optgrammar/rules.hpp>
inline const char* op_name_relu = "Relu";
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op(op_name_relu, "x")), OK, "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Relu", "x")), OK, "x")
#endif
