// External functions against their EXTERNAL_SHAPEFN annotations: the signature checks the C++
// library makes on the function itself, made here on the annotation.
// :::EXTERNAL_SHAPEFN::: { QuickShape by_int(Replacement &, OpRef const &, int); QuickShape by_float(Replacement &, float); }
// :::EXTERNAL_SHAPEFN::: { QuickShape by_bool(Replacement &, bool); QuickShape by_dtype(Replacement &, DType); }
// :::EXTERNAL_SHAPEFN::: { int not_a_shape(Replacement &, OpRef const &); OpRef split_fn(Replacement &, OpRef const &); }
// :::EXTERNAL_SHAPEFN::: { QuickShape split_ok(Replacement &, Split_Context const &, OpRef const &); }
// :::EXTERNAL_SHAPEFN::: { bool wrong_first(Replacement &, OpRef const &); }
// :::EXTERNAL_SHAPEFN::: { OpRef replace_ok(Replacement &, OpDef const &); OpRef replace_bad(Replacement &, OpRef const &, int); }
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A1", "x"), OK, Op("B", SHAPEFN_APPLY(by_int, "x", 1.5f)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A2", "x"), OK, Op("B", SHAPEFN_APPLY(by_int, "x", 2U), SHAPEFN_APPLY(by_float, 2)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A3", "x"), OK, Op("B", "x", SHAPEFN_APPLY(by_bool, 1)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A4", "x"), OK, Op("B", "x", SHAPEFN_APPLY(by_dtype, 1)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A5", "x"), OK, Op("B", "x", SHAPEFN_APPLY(by_dtype, DTYPE_OF("x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A6", "x"), OK, Op("B", SHAPEFN_APPLY(not_a_shape, "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A7", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", AUTOSPLIT_SLICE("x", AUTOSPLIT_SHAPEFN_APPLY(split_fn, "I", "x"), gen_Shape(1, 4, 1, 1)))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A8", "x"), OK, Op("B", SHAPEFN_APPLY(split_ok, "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A9", "x"), EXTERNAL_CONSTRAINT(wrong_first, "x"), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A10", "*"), OK, EXTERNAL_REPLACE(replace_bad))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A11", "*"), OK, EXTERNAL_REPLACE(replace_ok))

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp.
// Lines 10, 13 and 19 are well-formed (an int for a size or float parameter, a dtype for DType).
// EXPECT: 9:87: error: SHAPEFN_APPLY(by_int, ...): argument 2 is float but parameter 3 of by_int is an integer
// EXPECT: 11:88: error: SHAPEFN_APPLY(by_bool, ...): argument 1 is int but parameter 2 of by_bool is bool
// EXPECT: 12:89: error: SHAPEFN_APPLY(by_dtype, ...): argument 1 is int but parameter 2 of by_dtype is DType
// EXPECT: 14:60: error: SHAPEFN_APPLY(not_a_shape, ...): not_a_shape must return OpRef or QuickShape
// EXPECT: 15:102: error: AUTOSPLIT_SHAPEFN_APPLY(split_fn, ...): the second parameter of split_fn must be Split_Context const&
// EXPECT: 16:60: error: SHAPEFN_APPLY(split_ok, ...) passes 1 argument but split_ok takes 2 after its framework parameters
// EXPECT: 17:48: error: EXTERNAL_CONSTRAINT(wrong_first, ...): the first parameter of wrong_first must be Constraint&
// EXPECT: 18:53: error: EXTERNAL_REPLACE(replace_bad): replace_bad must be OpRef replace_bad(Replacement&, OpDef const&)
