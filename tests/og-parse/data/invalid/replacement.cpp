// Errors in replacements: the restrictions of the spec.
// :::EXTERNAL_SHAPEFN::: { QuickShape one_arg(Replacement &, OpRef const &); }
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, "*")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, SELECT(IS_FLOAT("x"), "x", SELECT(OK, "x", "*")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", "x", 3))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", DIM_OF("x", 0)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SIZE(Op("C", "x"), Op("B", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_TYPE("x", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_TYPE(gen_ShapeOf("x"), Op("B", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_OUTPUT_TYPE(3, 0, 1.0f, Op("B", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_OUTPUT_TYPE(DType::QUInt8, 0.5f, 1.0f, Op("B", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SPLIT_HISTORY("x", RANK_OF("x"), Op("B", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 8, Op("B", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, SELECT(OK, AUTOSPLIT(1, "I", 8, Op("B", TYPICAL_SLICE("x", "I"))), AUTOSPLIT(1, "I", 8, Op("B", TYPICAL_SLICE("x", "I")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", SPLIT_SIZE("I"), Op("B", TYPICAL_SLICE("x", "I"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 8, Op("B", TYPICAL_SLICE("x", "J"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", ITER_INPUT_OF("x", "I")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", EXTERNAL_REPLACE(fn)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_TYPE("x", AUTOSPLIT(1, "I", 8, Op("B", TYPICAL_SLICE("x", "I")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", TYPICAL_SLICE(Op("C", "x"), "I")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, LET("y", Op("B", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", SHAPEFN_APPLY(one_arg, "x", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", SHAPEFN_APPLY(one_arg, 3)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", gen_ShapeOf(Op("C", "x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, NOT_A_THING("x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", "y"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_SIZE("x", gen_Shape(1, 2)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", OpVarIn("C", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, WITH_MULTI_OUT(2, "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, gen_Shape(SPLIT_DIM("I")))

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/test_data_files.cpp:
// EXPECT: 3:51: error: the whole replacement may not be "*" (the rule would replace the op by itself)
// EXPECT: 4:51: error: the whole replacement may not be a SELECT that can evaluate to "*"
// EXPECT: 5:64: error: constant '3' is not a replacement operand; use gen_ConstScalar_i32(3)
// EXPECT: 6:59: error: 'DIM_OF(...)' of type size is a scalar expression, not a replacement operand
// EXPECT: 7:61: error: the first operand of 'WITH_SIZE' must not be an Op construction ('Op(...)'); use an existing opref or a shape construction
// EXPECT: 8:66: error: the last operand of 'WITH_TYPE' must be an Op construction, found "x" of type opref
// EXPECT: 9:61: error: operand 1 of 'WITH_TYPE' must be an existing opref, found 'gen_ShapeOf(...)' of type shape
// EXPECT: 10:68: error: operand 1 of 'WITH_OUTPUT_TYPE' must be a dtype, found '3' of type int
// EXPECT: 11:83: error: operand 2 of 'WITH_OUTPUT_TYPE' must be int or size, found '0.5f' of type float
// EXPECT: 12:75: error: the second operand of the 3-operand 'WITH_SPLIT_HISTORY' must be an integer constant, found 'RANK_OF(...)'
// EXPECT: 13:51: error: AUTOSPLIT with split tag "I" does not use its tag in its last operand (e.g. TYPICAL_SLICE(x, "I"))
// EXPECT: 14:131: error: split tag "I" is already used by another AUTOSPLIT or OP_ITER of this rule
// EXPECT: 15:80: error: 'SPLIT_SIZE' refers to split tag "I" outside the last operand of an AUTOSPLIT or OP_ITER with that tag
// EXPECT: 16:99: error: 'TYPICAL_SLICE' refers to split tag "J" outside the last operand of an AUTOSPLIT or OP_ITER with that tag
// EXPECT: 17:78: error: 'ITER_INPUT_OF' refers to split tag "I" outside the last operand of an AUTOSPLIT or OP_ITER with that tag
// EXPECT: 18:59: error: EXTERNAL_REPLACE may only be the root of the replacement or inside a root SELECT
// EXPECT: 19:66: error: AUTOSPLIT may only be the root of the replacement or inside a root SELECT (not inside a modifier)
// EXPECT: 20:73: error: the first operand of 'TYPICAL_SLICE' must not be an Op construction ('Op(...)'); use an existing opref
// EXPECT: 21:51: error: 'LET' is only allowed in a match
// EXPECT: 22:59: error: 'SHAPEFN_APPLY' of 'one_arg' passes 2 arguments, but its EXTERNAL_SHAPEFN annotation (replacement.cpp:2) declares 1
// EXPECT: 23:82: error: argument 1 of 'one_arg' is '3' of type int, but parameter 1 of 'one_arg' is 'OpRef const &'
// EXPECT: 24:71: error: the operand of 'gen_ShapeOf' must be an existing opref, found 'Op(...)' of type op
// EXPECT: 25:51: error: unknown replacement construct 'NOT_A_THING'
// EXPECT: 26:59: error: tag "y" is used in the replacement but never bound by the match
// EXPECT: 27:66: error: the last operand of 'WITH_SIZE' must be an Op construction, found 'gen_Shape(...)' of type shape
// EXPECT: 28:59: error: 'OpVarIn' is only allowed in a match
// EXPECT: 29:69: error: the last operand of 'WITH_MULTI_OUT' must be an Op construction, found "x" of type opref
// EXPECT: 30:71: error: 'SPLIT_DIM' refers to split tag "I" outside the last operand of an AUTOSPLIT or OP_ITER with that tag
