// Included by pkg_helpers.h, relative to it.
#pragma once

#include "../pkg_helpers.h"  // a cycle: followed once

#define PKG_IS_QINT8(X) IS_QINT8(X)
// OPNAME is its own inverse: OPNAME(OPNAME(x)) is x.
#define PKG_INVOLUTION(OPNAME) DEF_PACKAGE_OPTIMIZATION(EARLY, Op(OPNAME, Op(OPNAME, "x")), OK, "x")
