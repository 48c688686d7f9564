// EXPECT: a rule with AUTOSPLIT needs #include <optgrammar/autosplit.hpp> before it (the split check is not part of rules.hpp)
// FAULT: autosplit_header
// C++ ONLY: which headers a translation unit includes is the C++ library's concern, not the grammar's
#include <optgrammar/rules.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I"))))
#else
#include <optgrammar/autosplit.hpp>
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I"))))
#endif
