// EXPECT: ResizeDim's first operand must be int or size, not float
// FAULT: operand_type
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, ResizeDim(1.0f, 7, Op("B", "x")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, ResizeDim(1, 7, Op("B", "x")))
#endif
