// Match constructs: Op, OpVarIn, LET, repeated tags, "*" wildcards, OPCONST, FROM_DEFAULT_PACKAGE.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", LET("inner", Op("Relu", "x"))),
    OK,
    "inner")

DEF_PACKAGE_OPTIMIZATION(EARLY,
    OpVarIn("Concat", "a", "a"),
    OK,
    Op("Concat.same", "a"))

DEF_PACKAGE_OPTIMIZATION(EARLY + 1,
    Op("Add", "x", "*", OPCONST("c")),
    EQ(CONSTVAL_FLOAT("c", 0), 0.0f),
    "x")

DEF_PACKAGE_OPTIMIZATION(PRE_TRANSLATE,
    Op(FROM_DEFAULT_PACKAGE("Mul.fp16"), LET("l", OpVarIn("Q.nt", "p")), "p"),
    SAME_OP(INPUT_OF("l", 0), "p"),
    Op(FROM_DEFAULT_PACKAGE("Mul"), "l", "p"))

DEF_PACKAGE_OPTIMIZATION(BEGIN,
    Op("Nothing"),
    OK,
    Op("Also.nothing"))

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 3:40: warning: tag "x" is bound by the match but never used
