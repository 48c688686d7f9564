// Test package "hidden", built with hidden visibility against optgrammar_add_op_package's
// settings: its registrations go to registries of its own, which og-opt detects.
#include <optgrammar/rules.hpp>

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Neg", "x")), OK, "x")
