// Every replacement construct, with the expansions of the spec's macros.
// :::EXTERNAL_SHAPEFN::: { QuickShape my_shape(Replacement &, OpRef const &, int); OpRef my_split(Replacement &, Split_Context const &, OpRef const &); }

DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("R1", "x", "y"),
    OK,
    Op("N1", Operand("x"), INPUT_OF("*", 1), OUTPUT_OF("y", 0), SELECT(GT(RANK_OF("x"), 2), "x", "y"),
       WrapOp("Cast", "x"), WrapOpAlways("Cast", "y"), gen_Shape(1, 2, 3, 4), gen_ShapeOf("x"),
       gen_ConstScalar_f32(0.5), gen_ConstScalar_i32(-1), gen_ConstArr_f32(1.0f, 4), gen_ConstArr_i32(7, DIM_OF("x", 3)),
       gen_ConstArr_vals_i32(1, 2, 3)))

// bypass: an existing opref, or a SELECT of oprefs other than "*"
DEF_PACKAGE_OPTIMIZATION(EARLY + 2,
    Op("R2", "x", "y"),
    OK,
    SELECT(IS_FLOAT("x"), INPUT_OF("y", 0), "x"))

DEF_PACKAGE_OPTIMIZATION(EARLY + 3,
    Op("R3", "x"),
    OK,
    WITH_SIZE(gen_Shape(1, 1, 1, 8), WITH_TYPE("x", WITH_SAME_OUTPUT("*", WITH_SAME_ID("*",
        WITH_OUTPUT_TYPE(DType::QUInt8, 0, 0.25f, WITH_MULTI_OUT(2, ResizeDim(3, 8,
        WITH_SPLIT_HISTORY("x", 2, WITH_SPLIT_HISTORY("*", Op("N3", "x")))))))))))

DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("R4", "x", "w"),
    GT(DIM_DEPTH("*"), 64),
    AUTOSPLIT(3, "I", 64,
        Op("R4", TYPICAL_SLICE("x", "I"), CHANGEDIM_SLICE("w", "I", 0),
           AUTOSPLIT_SLICE("x", gen_Shape(0, 0, 0, SPLIT_START("I")), gen_Shape(1, 1, 1, SPLIT_SIZE("I"))),
           gen_ConstScalar_i32(SPLIT_DIM("I")), AUTOSPLIT_SHAPEFN_APPLY(my_split, "I", "x"))))

DEF_PACKAGE_OPTIMIZATION(TILING + 1,
    Op("R5", "x", "w"),
    OK,
    OP_ITER(Op("Concat"), "J", 0, DIM_OF("w", 0), Op("Part", ITER_INPUT_OF("w", "J"), INPUT_OF("w", ITER_VAR("J")))))

DEF_PACKAGE_OPTIMIZATION(TILING + 2,
    Op("R6", "x"),
    OK,
    SELECT(IS_FLOAT("x"), EXTERNAL_REPLACE(replace_fp), SELECT(IS_QUINT8("x"), AUTOSPLIT(1, "K", 8,
        Op("R6", TYPICAL_SLICE("x", "K"))), Op("R6.ref", "x"))))

DEF_PACKAGE_OPTIMIZATION(TILING + 3,
    Op("R7", "x"),
    OK,
    Op("R7.out", SHAPEFN_APPLY(my_shape, "x", 3), SHAPEFN_APPLY(other_fn, "x", RANK_OF("x"), 1.5f, true),
       OpMultiOut(2, 1, "Split", "x", gen_Shape(1, 1, 1, 2))))

DEF_PACKAGE_OPTIMIZATION(TILING + 4,
    Op("R8", "Act", "W", "S"),
    OK,
    AUTOSPLIT(1, "I", 8, Op("R8.tmp", TYPICAL_CONV_SLICE("Act", "I", "S", DIM_HEIGHT("W")), "W", "S")))

DEF_PACKAGE_OPTIMIZATION(LATE, Op("R9", "x"), OK, EXTERNAL_REPLACE(whole_rule))

// Expected diagnostics (line:col: severity: message), checked by tests/og-parse/data_files_test.cpp:
// EXPECT: 34:14: warning: tag "x" is bound by the match but never used
// EXPECT: 55:41: warning: tag "x" is bound by the match but never used
