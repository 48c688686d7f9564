// Test package "parallel a", loaded before the threads start: its rules run on graphs of their own
// on several threads at once.
#include <optgrammar/rules.hpp>

// -(-x) is x.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Neg", "x")), OK, "x")
// Relu(Relu(x)) is Relu(x).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
