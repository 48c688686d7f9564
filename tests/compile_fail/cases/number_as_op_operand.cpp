// EXPECT: Op's operand 2 is a int expression, but an operand must be an operand tag, an opref or a construction
// FAULT: op_operand_kind
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", 3))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Neg", gen_ConstScalar_i32(3)))
#endif
