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

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/test_data_files.cpp:
// EXPECT: 3:58: error: tag "y" is used in the constraint but never bound by the match
// EXPECT: 4:47: error: the constraint must be a bool expression, found 'RANK_OF(...)' of type size
// EXPECT: 5:47: error: 'DIM_OF' takes 2 operands, 1 given
// EXPECT: 6:51: error: operand 1 of 'NOT' must be bool, found 'RANK_OF(...)' of type size
// EXPECT: 7:55: error: operand 2 of 'AND' must be bool, found '1' of type int
// EXPECT: 8:54: error: operand 1 of 'ADD' must be int, size or float, found 'DTYPE_OF(...)' of type dtype
// EXPECT: 9:47: error: 'EQ' compares 'DTYPE_OF(...)' of type dtype with '1' of type int
// EXPECT: 10:55: error: operand 1 of 'IS_POW2' must be int or size, found 'STEPSIZE_OF(...)' of type float
// EXPECT: 11:72: error: the second operand of 'ROUNDUP' must be a power of 2, found '3'
// EXPECT: 12:57: error: operand 1 of 'SELECT' must be bool, found '1' of type int
// EXPECT: 13:50: error: the two branches of 'SELECT' have different types: 'DType::QInt8' of type dtype and '3' of type int
// EXPECT: 14:62: error: 'SPLIT_START' refers to split tag "I" outside the last operand of an AUTOSPLIT or OP_ITER with that tag
// EXPECT: 15:47: error: unknown function 'FOO'
// EXPECT: 16:47: error: 'gen_Shape' is a replacement construct, not allowed in a constraint expression
// EXPECT: 17:50: error: functional cast 'size_t(...)' of a non-constant is outside the grammar; use UINT(...)
// EXPECT: 18:57: error: operand 1 of 'DIM_OF' must be an operand (a tag, INPUT_OF, OUTPUT_OF or a SELECT of those), found '3' of type int
// EXPECT: 19:47: error: 'EXTERNAL_CONSTRAINT' of 'two_ints' passes 1 argument, but its EXTERNAL_SHAPEFN annotation (constraint.cpp:2) declares 2
// EXPECT: 20:85: error: operand 4 of 'EXTERNAL_CONSTRAINT' must be a scalar (int, size, float or bool), found "x" of type opref
// EXPECT: 21:64: error: unknown name 'BIG' in a constraint expression
// EXPECT: 22:50: error: operand 1 of 'LT' must be bool, int, size or float, found 'DTYPE_OF(...)' of type dtype
// EXPECT: 23:58: error: an option name "has space" may not contain spaces, quotes, escapes or unprintable characters
// EXPECT: 24:67: error: the first operand of 'LAYOUT_CHUNKSIZE' must be a tensor class name, found "Crouton"
// EXPECT: 25:55: error: unknown escape sequence '\q' in a MESSAGE string
// EXPECT: 26:47: error: 'AND' takes at least 1 operand, 0 given
