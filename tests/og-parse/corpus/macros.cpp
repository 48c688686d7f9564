#define TWO(a, b) ADD(a, b)
#define R(OP) DEF_PACKAGE_OPTIMIZATION(LATE, Op(OP, "x"), GT(TWO(1, RANK_OF("x")), 3), Op(OP ".x", "x"))
R("A")
// :::EXTERNAL_SHAPEFN::: { QuickShape f(Replacement &, OpRef const &, int); }
DEF_PACKAGE_OPTIMIZATION(TILING, Op("B", "x"), OK, AUTOSPLIT(1, "I", 8, Op("B", TYPICAL_SLICE("x", "I"), SHAPEFN_APPLY(f, "x", 2))))
