// Rules R1-R6 of workload W1, written in the rule language.
#include <optgrammar/rules.hpp>

// R1: Relu(Relu(x)) → the inner Relu.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")

// R2: Add(x, c) → x when c is a one-element constant 0.0 and x has the output's shape.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "x", LET("c", Op("$Const"))),
                         AND(EQ(CONSTVAL_FLOAT("c", 0), 0.0f), NOT(CONSTVAL_FLOAT_VALID("c", 1)),
                             EQ(RANK_OF("x"), RANK_OF("*")), SAME_SHAPE("x", "*")),
                         "x")

// R3: Mul(x, c) → x when c is a one-element constant 1.0 and x has the output's shape.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Mul", "x", LET("c", Op("$Const"))),
                         AND(EQ(CONSTVAL_FLOAT("c", 0), 1.0f), NOT(CONSTVAL_FLOAT_VALID("c", 1)),
                             EQ(RANK_OF("x"), RANK_OF("*")), SAME_SHAPE("x", "*")),
                         "x")

// R4: Transpose(Transpose(x, p), q) → x when p∘q is the identity: p[q[d]] == d for d < 4.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Transpose", Op("Transpose", "x", LET("p", Op("$Const"))), LET("q", Op("$Const"))),
                         AND(NOT(CONSTVAL_INT_VALID("p", 4)), NOT(CONSTVAL_INT_VALID("q", 4)),
                             EQ(CONSTVAL_INT("p", CONSTVAL_INT("q", 0)), 0),
                             EQ(CONSTVAL_INT("p", CONSTVAL_INT("q", 1)), 1),
                             EQ(CONSTVAL_INT("p", CONSTVAL_INT("q", 2)), 2),
                             EQ(CONSTVAL_INT("p", CONSTVAL_INT("q", 3)), 3)),
                         "x")

// R5: Relu(BiasAdd(Conv2d(x, w), b)) → ConvBiasRelu(x, w, b).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("BiasAdd", Op("Conv2d", "x", "w"), "b")), OK,
                         Op("ConvBiasRelu", "x", "w", "b"))

// R6: Relu(ConvBiasRelu(x, w, b)) → the ConvBiasRelu.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("cbr", Op("ConvBiasRelu", "x", "w", "b"))), OK, "cbr")
