// A rule in a static library that nothing refers to by name: optgrammar_add_op_package links the
// library whole, so the rule registers.
#include <optgrammar/rules.hpp>

// -(-x) is x.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Neg", "x")), OK, "x")
