// A rule file with only <optgrammar/rules.hpp>: rules that split (AUTOSPLIT with each slice),
// iterate (OP_ITER) and call shape functions compile here, and the header brings nothing of the
// split check (tests/headers/check_rules_hpp.cmake reads the include list).
#include <optgrammar/rules.hpp>

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("WL_Conv", "x", "w"), GT(DIM_HEIGHT("*"), 8),
                         AUTOSPLIT(1, "I", 8, Op("WL_Conv", TYPICAL_SLICE("x", "I"), "w")))
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("WL_Add", "a", "b"), OK,
                         AUTOSPLIT(3, "I", 32,
                                   Op("WL_Add", CHANGEDIM_SLICE("a", "I", 3),
                                      AUTOSPLIT_SLICE("b", AUTOSPLIT_SHAPEFN_APPLY(simple_split_start, "I", "b"),
                                                      AUTOSPLIT_SHAPEFN_APPLY(simple_split_size, "I", "b")))))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("WL_Concat", "x", "y"), OK,
                         OP_ITER(Op("WL_Cat", "x"), "J", 0, 2, ITER_INPUT_OF("*", "J")))
DEF_PACKAGE_OPTIMIZATION(LATE + 1, Op("WL_Pad", "x"), OK,
                         SELECT(GT(DIM_WIDTH("x"), 64), AUTOSPLIT(2, "K", 16, Op("WL_Pad", TYPICAL_SLICE("x", "K"))),
                                "x"))
