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
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", TYPICAL_SLICE(gen_Shape(1), "I")))
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

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 3:51: error: the replacement may not be "*" (or a SELECT that can yield it): the rule would replace the op by itself
// EXPECT: 4:51: error: the replacement may not be "*" (or a SELECT that can yield it): the rule would replace the op by itself
// EXPECT: 5:64: error: Op's operand 3 is of type int, but an operand must be an operand tag, an opref or a construction (gen_ConstScalar_i32/_f32 make a constant)
// EXPECT: 6:59: error: Op's operand 2 is of type size, but an operand must be an operand tag, an opref or a construction (gen_ConstScalar_i32/_f32 make a constant)
// EXPECT: 7:61: error: WITH_SIZE's first operand must be an existing opref or a shape construction, not an Op construction
// EXPECT: 8:66: error: WITH_TYPE's last operand must be an Op or constant construction, not opref
// EXPECT: 9:61: error: WITH_TYPE's first operand must be an existing opref, not shape construction
// EXPECT: 10:68: error: WITH_OUTPUT_TYPE's first operand must be a dtype, not int
// EXPECT: 11:83: error: WITH_OUTPUT_TYPE's second operand must be int (the zero offset), not float
// EXPECT: 12:75: error: WITH_SPLIT_HISTORY's second operand must be an integer constant, not RANK_OF
// EXPECT: 13:51: error: AUTOSPLIT with split tag "I" never refers to it in its last operand
// EXPECT: 14:118: error: split tag "I" is used by two AUTOSPLIT/OP_ITER in one rule
// EXPECT: 15:69: error: SPLIT_SIZE("I") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag "I"
// EXPECT: 16:80: error: TYPICAL_SLICE("J") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag "J"
// EXPECT: 17:59: error: ITER_INPUT_OF("I") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag "I"
// EXPECT: 18:59: error: EXTERNAL_REPLACE(fn) may only be the root of a replacement or inside a SELECT at the root
// EXPECT: 19:66: error: AUTOSPLIT may only be the root of a replacement or inside a SELECT at the root
// EXPECT: 20:73: error: TYPICAL_SLICE's first operand must be an existing opref, not shape construction
// EXPECT: 21:51: error: LET can only appear in a match, not in the replacement
// EXPECT: 22:59: error: SHAPEFN_APPLY(one_arg, ...) passes 2 arguments but one_arg takes 1 after its framework parameters
// EXPECT: 23:82: error: SHAPEFN_APPLY(one_arg, ...): argument 1 is int but parameter 2 of one_arg is OpRef
// EXPECT: 24:71: error: gen_ShapeOf's operand 1 must be an operand tag or opref, not Op construction
// EXPECT: 25:51: error: unknown function 'NOT_A_THING'
// EXPECT: 26:59: error: tag "y" is used in the replacement but never bound by the match
// EXPECT: 27:66: error: WITH_SIZE's last operand must be an Op or constant construction, not shape construction
// EXPECT: 28:59: error: OpVarIn can only appear in a match, not in the replacement
// EXPECT: 29:69: error: WITH_MULTI_OUT's last operand must be an Op construction, not opref
// EXPECT: 30:61: error: SPLIT_DIM("I") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag "I"
