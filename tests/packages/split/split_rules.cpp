// Test package "split": rules that tile with AUTOSPLIT, written with <optgrammar/rules.hpp> alone.
// The split check they call lives in og-opt (its driver installs it): --verify-splits rolls the
// skewed split back and lets the right one through.
#include <optgrammar/rules.hpp>

// Rows in tiles of 4, each tile reading its own rows.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Relu", "x"), GT(DIM_OF("*", 1), 4),
                         AUTOSPLIT(1, "I", 4, Op("Relu", TYPICAL_SLICE("x", "I"))))
// The same with every slice one row late: the last tile reads past the input.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Neg", "x"), GT(DIM_OF("*", 1), 4),
                         AUTOSPLIT(1, "I", 4,
                                   Op("Neg", AUTOSPLIT_SLICE("x", gen_Shape(0, ADD(SPLIT_START("I"), 1), 0, 0),
                                                             gen_Shape(1, SPLIT_SIZE("I"), 4, 2)))))
