// The original framework's macros that are made of the rule language's own words, for package
// sources compiled unchanged: rules defined through other rule macros (DEF_AUTOSPLIT, ...), the
// registrations of its newer headers that name a registry, and the tiling declarations this
// runtime accepts and ignores. `#define` lines only (each guarded, so that a package's own
// definition comes first), with no other preprocessor logic:
// - the C++ compiler reads them through optgrammar/htp_compat.hpp;
// - og-parse builds this file's text into itself (tools/og-parse/CMakeLists.txt) and knows these
//   macros in every source it reads, as it knows DEF_OPT.
// docs/htp-compat.md says what each does here.
#pragma once

// ---- rules -----------------------------------------------------------------------------------
// An AUTOSPLIT rule: the root's dimension DIM is split into parts of CHUNK under split tag TAG,
// each part built by REPLACEMENT, when the dimension is larger than CHUNK and CONSTRAINT holds.
#ifndef DEF_AUTOSPLIT
#define DEF_AUTOSPLIT(PRIORITY, MATCH, CONSTRAINT, DIM, TAG, CHUNK, REPLACEMENT)          \
  DEF_PACKAGE_OPTIMIZATION(PRIORITY, MATCH, AND(GT(DIM_OF("*", DIM), CHUNK), CONSTRAINT), \
                           AUTOSPLIT(DIM, TAG, CHUNK, REPLACEMENT))
#endif
// The same with rule flags.
#ifndef DEF_AUTOSPLITIM
#define DEF_AUTOSPLITIM(PRIORITY, FLAGS, MATCH, CONSTRAINT, DIM, TAG, CHUNK, REPLACEMENT)                   \
  DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(PRIORITY, FLAGS, MATCH, AND(GT(DIM_OF("*", DIM), CHUNK), CONSTRAINT), \
                                      AUTOSPLIT(DIM, TAG, CHUNK, REPLACEMENT))
#endif
// The same with the flag ordered_autosplit_flag (which changes nothing in this engine).
#ifndef DEF_AUTOSPLIT_ORDERED
#define DEF_AUTOSPLIT_ORDERED(PRIORITY, MATCH, CONSTRAINT, DIM, TAG, CHUNK, REPLACEMENT) \
  DEF_AUTOSPLITIM(PRIORITY, ordered_autosplit_flag, MATCH, CONSTRAINT, DIM, TAG, CHUNK, REPLACEMENT)
#endif
// An op named OPNAME, with any inputs, split on DIM into parts of CHUNK: its first ARITY inputs
// are sliced as the output is (TYPICAL_SLICE), the others passed whole.
#ifndef DEF_AUTOSPLIT_TYPICAL
#define DEF_AUTOSPLIT_TYPICAL(PRIORITY, OPNAME, ARITY, DIM, CHUNK)                                        \
  DEF_PACKAGE_OPTIMIZATION(PRIORITY, OpVarIn(OPNAME), GT(DIM_OF("*", DIM), CHUNK),                        \
                           AUTOSPLIT(DIM, "I", CHUNK,                                                     \
                                     OP_ITER(Op(OPNAME), "J", 0, INPUTS_OF("*"),                          \
                                             SELECT(GE(SPLIT_START("J"), ARITY), ITER_INPUT_OF("*", "J"), \
                                                    TYPICAL_SLICE(ITER_INPUT_OF("*", "J"), "I")))))
#endif
// A binary op OPNAME of three float32 tensors computed in float16 under relaxed precision: its
// inputs cast to float16, its result cast back.
#ifndef CONVERT_BINARY_OP_TO_FP16
#define CONVERT_BINARY_OP_TO_FP16(OPNAME, A, B)                                                      \
  DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(CLEANUP_GRAPH + 130, relaxed_precision_flag, Op(OPNAME, A, B), \
                                      IS_BINARY_FP32(A, B, "*"),                                     \
                                      MAKE_OP_FP16_AND_INSERT_CAST(Op(OPNAME, CAST_TO_FP16(A), CAST_TO_FP16(B))))
#endif
// The framework's rules of its own ops (which register elsewhere there): here package rules.
#ifndef DEF_INTERNAL_PACKAGE_OPTIMIZATION
#define DEF_INTERNAL_PACKAGE_OPTIMIZATION(PRIORITY, MATCH, CONSTRAINT, REPLACEMENT) \
  DEF_PACKAGE_OPTIMIZATION(PRIORITY, MATCH, CONSTRAINT, REPLACEMENT)
#endif
#ifndef DEF_INTERNAL_PACKAGE_OPTIMIZATION_WITH_FLAGS
#define DEF_INTERNAL_PACKAGE_OPTIMIZATION_WITH_FLAGS(PRIORITY, FLAGS, MATCH, CONSTRAINT, REPLACEMENT) \
  DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(PRIORITY, FLAGS, MATCH, CONSTRAINT, REPLACEMENT)
#endif

// ---- registrations that name a registry --------------------------------------------------------
// Newer headers register an op in a named registry ("core" for the plain forms). This runtime has
// one op registry: the name is not used, and the rest is the plain form's.
#ifndef DEF_PACKAGE_OP_REG
#define DEF_PACKAGE_OP_REG(REGISTRY, ...) DEF_PACKAGE_OP(__VA_ARGS__)
#endif
#ifndef DEF_PACKAGE_OP_AND_COST_AND_FLAGS_REG
#define DEF_PACKAGE_OP_AND_COST_AND_FLAGS_REG(REGISTRY, ...) DEF_PACKAGE_OP_AND_COST_AND_FLAGS(__VA_ARGS__)
#endif
#ifndef DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS_REG
#define DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS_REG(REGISTRY, ...) DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(__VA_ARGS__)
#endif

// ---- tiling declarations, accepted and ignored --------------------------------------------------
// The framework's placeholders for a tiler of its own (its headers define them as nothing) and
// its tile-property declaration: this runtime tiles by the AUTOSPLIT rules alone, so each expands
// to nothing, whatever its operands (a `;` written after one is an empty declaration).
#ifndef TILE_SHAPE
#define TILE_SHAPE(...)
#endif
#ifndef TILE_FLAGS
#define TILE_FLAGS(...)
#endif
#ifndef TILE_COST
#define TILE_COST(...)
#endif
#ifndef TILE_LIKE
#define TILE_LIKE(...)
#endif
#ifndef DEF_TILE_PROPERTIES
#define DEF_TILE_PROPERTIES(...)
#endif
