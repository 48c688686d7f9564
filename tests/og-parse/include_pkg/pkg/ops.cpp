// A package whose rules use macros of its own headers: one next to it (which includes another),
// one found through an include folder (-I include_pkg/inc for og-parse and for the compiler).
#include <optgrammar/rules.hpp>

#include "pkg_helpers.h"
#include "shared.h"

// Quantized Relu becomes the package's Relu (helper constraint macros of both headers).
DEF_PACKAGE_OPTIMIZATION(EARLY + 1,
    Op("Relu", "x"),
    AND(PKG_IS_Q8("x"), PKG_SAME_Q("x", "*")),
    WITH_SAME_OUTPUT("*", Op("pkg.Relu", "x")))

// A macro whose body is a whole rule.
PKG_INVOLUTION("Neg")
