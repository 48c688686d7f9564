// Helpers of the package, next to its sources.
#pragma once

#include "more/nested.h"

#define PKG_IS_Q8(X) OR(IS_QUINT8(X), PKG_IS_QINT8(X))
