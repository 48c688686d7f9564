// Test package "static": its only rule is in a static library (static_rules.cpp).
#include <optgrammar/rules.hpp>

static int st_impl() { return 0; }
DEF_PACKAGE_OP(st_impl, "static.Op")
