// Test package "relu": one rule, in the same pass as package "neg"'s.
#include <optgrammar/rules.hpp>

// Relu(Relu(x)) is Relu(x).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
