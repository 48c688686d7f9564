// EXPECT: 'DIM_WIDTH' takes 1 operand, 2 given
// FAULT: operand_count
// A name defined by expansion written with too many operands: the catalogue's message on the
// rule's line (not an overload error), under the name as written.
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(DIM_WIDTH("x", "x"), 1), "x")
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(DIM_WIDTH("x"), 1), "x")
#endif
