// Test package "parallel b": refused while a graph is being optimized, loaded after.
#include <optgrammar/rules.hpp>

static int abs_twice_impl() { return 0; }
DEF_PACKAGE_OP(abs_twice_impl, "parallel_b.AbsTwice")

// Abs(Abs(x)) is Abs(x).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Abs", LET("a", Op("Abs", "x"))), OK, "a")
