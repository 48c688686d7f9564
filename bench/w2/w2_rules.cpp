// Rules F1 and F2 of workload W2 (bench/w2/README.md), the two that fire. The decoys
// D_0 ... D_1021 are generated (gen_w2_rules.py).
#include <optgrammar/rules.hpp>

// F1: Top(Bottom(x)) → Fused(x).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Top", Op("Bottom", "x")), OK, Op("Fused", "x"))

// F2: Scale(x, c) → x when c is a constant of exactly one element whose value is 1.0.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Scale", "x", LET("c", Op("$Const"))),
                         AND(CONSTVAL_FLOAT_VALID("c", 0), NOT(CONSTVAL_FLOAT_VALID("c", 1)),
                             EQ(CONSTVAL_FLOAT("c", 0), 1.0f)),
                         "x")
