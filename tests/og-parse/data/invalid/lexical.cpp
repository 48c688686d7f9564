// Lexical and top-level errors. One rule per line; each has one error and the tool resyncs.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"), 12z), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"), 08), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"), 4294967296), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT((int)RANK_OF("x"), 2), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), (GT(RANK_OF("x"), 2)), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A b", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x\n"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(NOT_A_PASS, Op("A", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY + 1u, Op("A", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY + 0x1, Op("A", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY Op("A", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, "x", "y")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EQ(DTYPE_OF("x"), DType::Float128), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"), 1e99), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"), -2U), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"); 2), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, "x")(
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, "x") , 2
int x = 1; DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION
    (EARLY, Op("A", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"), - ), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"), "unterminated), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, "x")

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 2:64: error: invalid suffix 'z' on integer constant '12z'
// EXPECT: 3:64: error: invalid digit '8' in octal constant '08'
// EXPECT: 4:64: error: integer constant 4294967296 does not fit in int (add a U suffix for a size)
// EXPECT: 5:50: error: C-style cast '(int)' is not allowed in a rule; write a functional cast int(...) or INT(...)/UINT(...)/FLOAT(...)
// EXPECT: 6:47: error: unexpected '(': parentheses are only allowed around the arguments of a name
// EXPECT: 7:33: error: op name "A b" contains a space
// EXPECT: 8:33: error: empty string as op name
// EXPECT: 9:41: error: operand tag "x\n" contains an unprintable character
// EXPECT: 10:26: error: unknown pass name "NOT_A_PASS"
// EXPECT: 11:34: error: the pass offset '1u' must be a decimal constant with no sign or suffix
// EXPECT: 12:34: error: the pass offset '0x1' must be a decimal constant with no sign or suffix
// EXPECT: 13:32: error: expected ',' after the pass spec, found 'Op'
// EXPECT: 14:54: error: too many arguments to DEF_PACKAGE_OPTIMIZATION: expected ')' after the replacement
// EXPECT: 15:65: error: 'DType::Float128' is not a DType tag
// EXPECT: 16:64: error: floating constant '1e99' is out of range of float
// EXPECT: 17:64: error: negative size constant '-2U'
// EXPECT: 18:62: error: expected ',' or ')' in the arguments of 'GT', found ';'
// EXPECT: 19:55: error: '(' may not follow the closing ')' of DEF_PACKAGE_OPTIMIZATION(...)
// EXPECT: 20:56: error: ',' may not follow the closing ')' of DEF_PACKAGE_OPTIMIZATION(...)
// EXPECT: 21:12: error: 'DEF_PACKAGE_OPTIMIZATION' must be at the start of a line, followed by '(' on the same line
// EXPECT: 22:1: error: 'DEF_PACKAGE_OPTIMIZATION' must be at the start of a line, followed by '(' on the same line
// EXPECT: 24:64: error: unexpected '-': a sign is only allowed before a numeric constant
// EXPECT: 25:82: error: missing terminating '"' character
// EXPECT: 26:25: error: unbalanced parentheses: '(' of DEF_PACKAGE_OPTIMIZATION is not closed before 'DEF_PACKAGE_OPTIMIZATION' on line 27
