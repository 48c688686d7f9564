// An op package built against the installed library with optgrammar_add_op_package and run by
// the installed og-opt --package.
#include <optgrammar/rules.hpp>

// -(-x) is x.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Neg", "x")), OK, "x")
