// Test package "neg": one rule and one op registration.
#include <optgrammar/rules.hpp>

static int neg_impl() { return 0; }
DEF_PACKAGE_OP(neg_impl, "neg.Negate")

// -(-x) is x.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Neg", "x")), OK, "x")
