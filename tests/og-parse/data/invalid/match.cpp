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

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/test_data_files.cpp:
// EXPECT: 2:33: error: 'LET' may not be the root of the match (it tags an inner Op)
// EXPECT: 3:33: error: the root of the match must be Op(...) or OpVarIn(...), found "x"
// EXPECT: 4:58: error: tag "t" is used inside the LET that binds it
// EXPECT: 5:64: error: tag "t" is bound by more than one LET
// EXPECT: 6:45: error: "*" may not be bound by LET (it names the matched root)
// EXPECT: 7:41: error: '3' is not allowed in a match (expected an operand tag, Op, OpVarIn or LET)
// EXPECT: 8:41: error: 'WITH_SIZE(...)' is not allowed in a match (expected an operand tag, Op, OpVarIn or LET)
// EXPECT: 9:50: error: the second operand of LET must be Op(...) or OpVarIn(...), found "x"
// EXPECT: 10:33: error: 'Op' needs an op name
// EXPECT: 11:36: error: expected an op name (a string constant), found 'A'
// EXPECT: 12:33: error: 'OPCONST' may not be the root of the match (it tags an inner Op)
