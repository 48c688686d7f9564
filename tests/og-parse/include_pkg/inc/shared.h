// Found through the include folder given on the command line.
#pragma once

#define PKG_SAME_Q(X, Y) AND(EQ(DTYPE_OF(X), DTYPE_OF(Y)), SAME_QUANT(X, Y))
