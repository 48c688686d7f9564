// OPTIONS: --strict
// Under --strict the "should" restrictions that shipped packages break are errors.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("R", AUTOSPLIT(1, "I", 8, Op("B", TYPICAL_SLICE("x", "I")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, OP_ITER(gen_Shape(1), "J", 0, 2, Op("B", ITER_INPUT_OF("x", "J"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 8, AUTOSPLIT_SLICE("x", Op("S", "x"), gen_Shape(SPLIT_SIZE("I")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 8, Op("B", TYPICAL_SLICE(CAST_TO_FP16("x"), "I"))))

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 3:59: error: AUTOSPLIT nested inside an Op operand: the grammar wants it at the root of the replacement or in a root SELECT (an error in strict mode)
// EXPECT: 4:59: error: OP_ITER's first operand is shape construction: the grammar wants Op(...) or an existing opref (an error in strict mode)
// EXPECT: 5:93: error: AUTOSPLIT_SLICE's second operand is Op construction: the grammar wants an existing opref or a shape construction (an error in strict mode)
// EXPECT: 6:94: error: TYPICAL_SLICE's first operand is an Op construction: the grammar wants an existing opref (an error in strict mode)
