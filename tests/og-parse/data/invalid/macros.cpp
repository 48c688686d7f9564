// Macro errors: wrong argument count, self-reference (kept as is, then unknown), runaway expansion.
#define TWO(a, b) ADD(a, b)
#define SELF SELF
#define R1 R2 R2
#define R2 R3 R3
#define R3 R4 R4
#define R4 R5 R5
#define R5 R6 R6
#define R6 R7 R7
#define R7 R8 R8
#define R8 R9 R9
#define R9 R10 R10
#define R10 R11 R11
#define R11 R12 R12
#define R12 R13 R13
#define R13 R14 R14
#define R14 R15 R15
#define R15 R16 R16
#define R16 R17 R17
#define R17 R18 R18
#define R18 R19 R19
#define R19 R20 R20
#define R20 R21 R21
#define R21 x x
#define BAD_RULE(x) DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", x), OK, x) (
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(TWO(1), 0), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(SELF, 0), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(R1, 0), "x")
BAD_RULE("y")

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 26:50: error: macro 'TWO' takes 2 arguments, 1 given
// EXPECT: 27:50: error: unknown name 'SELF'
// EXPECT: 28:50: error: macro expansion exceeds 32768 tokens
// EXPECT: 29:1: error: '(' may not follow the closing ')' of DEF_PACKAGE_OPTIMIZATION(...)
