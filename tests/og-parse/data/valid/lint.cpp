// Lint: duplicate rules, rules shadowed by an earlier more general rule, tags never used.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Relu.opt", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Relu.opt", "x"))
// more specific match, earlier rule has no constraint: shadowed
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("Neg", "y")), OK, Op("Abs", "y"))
// same constraint on the same tag, more specific match: shadowed
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, OpVarIn("Concat", "a"), IS_FLOAT("a"), Op("C1", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Concat", LET("a", Op("Neg", "z")), "b"), IS_FLOAT("a"), Op("C2", "a", "b", "z"))
// not shadowed: the earlier rule needs both operands to be the same node
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("Mul", "p", "p"), OK, Op("Square", "p"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("Mul", "p", "q"), OK, Op("Mul.opt", "p", "q"))
// shadowed: the same node in both
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("Mul", "r", "r"), OK, Op("Square2", "r"))
// not shadowed: the earlier rule may leave the op in place
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("Sub", "*", "*"), OK, EXTERNAL_REPLACE(maybe))
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("Sub", "a", "b"), OK, Op("Sub.opt", "a", "b"))
// not shadowed: different constraints; another pass; another root op
DEF_PACKAGE_OPTIMIZATION(EARLY + 4, Op("Add", "a", "b"), IS_FLOAT("a"), Op("A1", "a", "b"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 4, Op("Add", "a", "b"), IS_FLOAT("b"), Op("A2", "a", "b"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 5, Op("Add", "a", "b"), OK, Op("A3", "a", "b"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 5, Op("AddN", "a", "b"), OK, Op("A4", "a", "b"))
// the earlier rule's Op has a different arity
DEF_PACKAGE_OPTIMIZATION(EARLY + 5, Op("Add", "a", "b", "c"), OK, Op("A5", "a", "b", "c"))
// tags never used
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Gather", "data", "indices"), OK, Op("Gather.opt", "data", "*"))

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 3:1: warning: duplicate rule: the same rule is at lint.cpp:2
// EXPECT: 5:1: warning: rule can never fire: the earlier rule at lint.cpp:3 (same pass, same root op) has a match and constraint at least as general
// EXPECT: 8:1: warning: rule can never fire: the earlier rule at lint.cpp:7 (same pass, same root op) has a match and constraint at least as general
// EXPECT: 13:1: warning: rule can never fire: the earlier rule at lint.cpp:11 (same pass, same root op) has a match and constraint at least as general
// EXPECT: 25:53: warning: tag "indices" is bound by the match but never used
