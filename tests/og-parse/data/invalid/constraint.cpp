// Errors in constraints: tags, types, arities, scoping.
// :::EXTERNAL_SHAPEFN::: { bool two_ints(Constraint &, OpRef const &, int, int); }
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("y"), 2), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), RANK_OF("x"), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), DIM_OF("x"), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), NOT(RANK_OF("x")), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), AND(OK, 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(ADD(DTYPE_OF("x"), 1), 2), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EQ(DTYPE_OF("x"), 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), IS_POW2(STEPSIZE_OF("x")), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(ROUNDUP(RANK_OF("x"), 3), 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(SELECT(1, 2, 3), 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EQ(SELECT(OK, DType::QInt8, 3), 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(SPLIT_START("I"), 0), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), FOO("x"), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), gen_Shape(1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(size_t(RANK_OF("x")), 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(DIM_OF(3, 0), 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EXTERNAL_CONSTRAINT(two_ints, "x", 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EXTERNAL_CONSTRAINT(two_ints, "x", 1, "x"), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(RANK_OF("x"), BIG), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), LT(DTYPE_OF("x"), 2), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OPTION_INT("has space"), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EQ(LAYOUT_CHUNKSIZE("Crouton", 2), 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), MESSAGE("bad \q escape"), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), AND(), "x")

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 3:58: error: tag "y" is used in the constraint but never bound by the match
// EXPECT: 4:47: error: the constraint must be bool, but RANK_OF gives size
// EXPECT: 5:47: error: 'DIM_OF' takes 2 operands, 1 given
// EXPECT: 6:51: error: NOT needs bool operands, but operand 1 is size
// EXPECT: 7:55: error: AND needs bool operands, but operand 2 is int
// EXPECT: 8:54: error: ADD cannot take a dtype (operand 1): a dtype can only be used with EQ, NE, SELECT, INT and DTYPE_OF
// EXPECT: 9:47: error: EQ compares a dtype with int (a dtype can only be compared with a dtype)
// EXPECT: 10:55: error: IS_POW2 takes int or size operands, but operand 1 is float
// EXPECT: 11:72: error: ROUNDUP's second operand must be a power of two, not 3
// EXPECT: 12:57: error: SELECT's condition must be bool, not int
// EXPECT: 13:50: error: SELECT's second and third operands have incompatible types dtype and int
// EXPECT: 14:50: error: SPLIT_START("I") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag "I"
// EXPECT: 15:47: error: unknown function 'FOO'
// EXPECT: 16:47: error: gen_Shape cannot appear in a constraint (it is a replacement construct)
// EXPECT: 17:50: error: functional cast 'size_t(...)' of a non-constant is outside the grammar; use UINT(...)
// EXPECT: 18:57: error: DIM_OF's operand 1 must be an operand tag or opref, not int
// EXPECT: 19:47: error: EXTERNAL_CONSTRAINT(two_ints, ...) passes 2 arguments but two_ints takes 3 after its framework parameters
// EXPECT: 20:85: error: EXTERNAL_CONSTRAINT(two_ints, ...): argument 3 is an opref but parameter 4 of two_ints is an integer
// EXPECT: 21:64: error: unknown name 'BIG'
// EXPECT: 22:50: error: LT cannot take a dtype (operand 1): a dtype can only be used with EQ, NE, SELECT, INT and DTYPE_OF
// EXPECT: 23:47: error: option name "has space" contains a space
// EXPECT: 24:50: error: tensor class name ""Crouton"" contains a quote
// EXPECT: 25:55: error: unknown escape sequence '\q' in a MESSAGE string
// EXPECT: 26:47: error: AND needs at least one operand
