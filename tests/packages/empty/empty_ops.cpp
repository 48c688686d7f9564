// Test package "empty": op registrations, no rule (og-opt warns).
#include <optgrammar/rules.hpp>

static int thing_impl() { return 0; }
DEF_PACKAGE_OP(thing_impl, "empty.Thing")
