// EXPECT: SHAPEFN_APPLY(count, ...): count must return OpRef or QuickShape
// FAULT: external_result
#include <optgrammar/rules.hpp>
// The annotation the grammar asks for, so that og-parse can check the same signature.
// :::EXTERNAL_SHAPEFN::: { int count(Replacement &, OpRef); QuickShape shape(Replacement &, OpRef); }
[[maybe_unused]] static int count(optgrammar::Replacement&, optgrammar::OpRef) { return 1; }
[[maybe_unused]] static optgrammar::QuickShape shape(optgrammar::Replacement&, optgrammar::OpRef) { return {}; }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", SHAPEFN_APPLY(count, "x")))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", SHAPEFN_APPLY(shape, "x")))
#endif
