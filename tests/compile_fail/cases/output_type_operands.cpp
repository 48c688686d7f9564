// EXPECT: WITH_OUTPUT_TYPE's first operand must be a dtype, not int
// FAULT: operand_type
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, WITH_OUTPUT_TYPE(1, 0, 1.0f, Op("Neg", "x")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, WITH_OUTPUT_TYPE(DType::QUInt8, 0, 1.0f, Op("Neg", "x")))
#endif
