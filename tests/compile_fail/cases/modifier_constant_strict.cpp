// EXPECT: WITH_SAME_OUTPUT's last operand is a constant construction: the grammar wants an Op construction (an error in strict mode)
// FAULT: modifier_constant_strict
#define OPTGRAMMAR_STRICT 1
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x", LET("b", Op("$Const"))), OK,
                         Op("B", "x", WITH_SAME_OUTPUT("b", gen_ConstScalar_f32(MUL(CONSTVAL_FLOAT("b", 0), 2.0f)))))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x", LET("b", Op("$Const"))), OK,
                         Op("B", "x", gen_ConstScalar_f32(MUL(CONSTVAL_FLOAT("b", 0), 2.0f))))
#endif
