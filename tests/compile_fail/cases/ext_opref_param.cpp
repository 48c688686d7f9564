// EXPECT: SHAPEFN_APPLY(shape_of, ...): argument 1 is int but parameter 2 of shape_of is OpRef
// FAULT: external_arg_type
#include <optgrammar/rules.hpp>
// The annotation the grammar asks for, so that og-parse can check the same signature.
// :::EXTERNAL_SHAPEFN::: { OpRef shape_of(Replacement &, OpRef); }
[[maybe_unused]] static optgrammar::OpRef shape_of(optgrammar::Replacement&, optgrammar::OpRef x) { return x; }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", SHAPEFN_APPLY(shape_of, 3)))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", SHAPEFN_APPLY(shape_of, "x")))
#endif
