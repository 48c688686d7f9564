// EXPECT: EXTERNAL_REPLACE(wrong): wrong must be OpRef wrong(Replacement&, OpDef const&)
// FAULT: external_replace_signature
#include <optgrammar/rules.hpp>
// The annotation the grammar asks for, so that og-parse can check the same signature.
// :::EXTERNAL_SHAPEFN::: { OpRef wrong(Replacement &, OpRef); OpRef right(Replacement &, OpDef const &); }
[[maybe_unused]] static optgrammar::OpRef wrong(optgrammar::Replacement& r, optgrammar::OpRef) { return r.root(); }
[[maybe_unused]] static optgrammar::OpRef right(optgrammar::Replacement& r, optgrammar::OpDef const&) { return r.root(); }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, EXTERNAL_REPLACE(wrong))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, EXTERNAL_REPLACE(right))
#endif
