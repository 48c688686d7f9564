// EXPECT: SHAPEFN_APPLY(grow, ...): argument 2 is float but parameter 3 of grow is an integer
// FAULT: external_arg_type
#include <optgrammar/rules.hpp>
// The annotation the grammar asks for, so that og-parse can check the same signature.
// :::EXTERNAL_SHAPEFN::: { QuickShape grow(Replacement &, OpRef, int); }
[[maybe_unused]] static optgrammar::QuickShape grow(optgrammar::Replacement&, optgrammar::OpRef, int) { return {}; }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", "x", SHAPEFN_APPLY(grow, "x", 1.5f)))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", "x", SHAPEFN_APPLY(grow, "x", 2)))
#endif
