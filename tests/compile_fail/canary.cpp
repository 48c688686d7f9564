// Compiles with and without OG_FAIL: the harness must report "compiled, but must fail".
#include <optgrammar/rules.hpp>
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Relu6", "x"))
