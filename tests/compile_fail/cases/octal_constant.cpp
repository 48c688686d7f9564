// EXPECT: a leading 0 makes an integer constant octal; write it in decimal
// The grammar asks for a warning; the harness compiles with -Werror, so it is the first error.
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(CONSTVAL_INT("x", 0), 010), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(CONSTVAL_INT("x", 0), 8), "x")
#endif
