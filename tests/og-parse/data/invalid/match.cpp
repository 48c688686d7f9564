// Errors in the match.
DEF_PACKAGE_OPTIMIZATION(EARLY, LET("r", Op("A", "x")), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, "x", OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", LET("t", Op("B", "t"))), OK, "t")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", LET("t", Op("B")), LET("t", Op("C"))), OK, "t")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", LET("*", Op("B"))), OK, Op("C"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", 3), OK, Op("C"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", WITH_SIZE("x", "y")), OK, Op("C"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", LET("t", "x")), OK, Op("C"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op(), OK, Op("C"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op(A, "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, OPCONST("c"), OK, Op("C"))

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 2:33: error: LET("r", ...) is the root of the match; LET may only wrap an inner Op
// EXPECT: 3:33: error: the match must be Op(...) or OpVarIn(...), not operand tag
// EXPECT: 4:58: error: tag "t" appears inside its own LET
// EXPECT: 5:60: error: tag "t" is the first operand of two LETs
// EXPECT: 6:41: error: LET cannot bind the tag "*", which names the matched op
// EXPECT: 7:41: error: int constant cannot appear in a match (match operands are operand tags, Op, OpVarIn and LET)
// EXPECT: 8:41: error: WITH_SIZE cannot appear in a match (match operands are operand tags, Op, OpVarIn and LET)
// EXPECT: 9:50: error: LET("t", ...) must wrap Op(...) or OpVarIn(...), not operand tag
// EXPECT: 10:33: error: 'Op' needs an op name
// EXPECT: 11:33: error: Op's first operand must be the op name as a string constant ("Relu"), not a C++ variable or expression
// EXPECT: 12:33: error: LET("c", ...) is the root of the match; LET may only wrap an inner Op
