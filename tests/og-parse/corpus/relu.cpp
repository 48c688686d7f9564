DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")
