// Test package "verify" for og-opt --verify: one correct rule and three subtly wrong ones, each
// with its own root op, so that a graph drawn for one rule is rewritten by that rule only.
#include <optgrammar/rules.hpp>

// Correct: Mul(x, c) is x when c is a one-element constant 1.0 and x has the output's shape.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Mul", "x", LET("c", Op("$Const"))),
                         AND(EQ(CONSTVAL_FLOAT("c", 0), 1.0f), NOT(CONSTVAL_FLOAT_VALID("c", 1)), SAME_SHAPE("x", "*")),
                         "x")

// Wrong (an operand swapped): -(a - b) is b - a, not a - b.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Sub", "a", "b")), OK, Op("Sub", "a", "b"))

// Wrong (a constant off by one): Add(x, c) is x when c is 0.0, not 1.0.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "x", LET("c", Op("$Const"))),
                         AND(EQ(CONSTVAL_FLOAT("c", 0), 1.0f), NOT(CONSTVAL_FLOAT_VALID("c", 1)), SAME_SHAPE("x", "*")),
                         "x")

// Wrong (a constraint missing): Div(x, c) is x only when c has one element, 1.0; this rule
// reads only c's first element.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Div", "x", LET("c", Op("$Const"))),
                         AND(EQ(CONSTVAL_FLOAT("c", 0), 1.0f), SAME_SHAPE("x", "*")), "x")
