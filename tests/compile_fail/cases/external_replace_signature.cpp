// EXPECT: EXTERNAL_REPLACE(wrong): wrong must be OpRef wrong(Replacement&, OpDef const&)
#include <optgrammar/rules.hpp>
[[maybe_unused]] static optgrammar::OpRef wrong(optgrammar::Replacement& r, optgrammar::OpRef) { return r.root(); }
[[maybe_unused]] static optgrammar::OpRef right(optgrammar::Replacement& r, optgrammar::OpDef const&) { return r.root(); }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, EXTERNAL_REPLACE(wrong))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, EXTERNAL_REPLACE(right))
#endif
