// EXPECT: EXTERNAL_REPLACE(whole) may only be the root of a replacement or inside a SELECT at the root
// FAULT: external_replace_place
#include <optgrammar/rules.hpp>
[[maybe_unused]] static optgrammar::OpRef whole(optgrammar::Replacement& r, optgrammar::OpDef const&) { return r.root(); }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", EXTERNAL_REPLACE(whole)))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, SELECT(IS_FLOAT("x"), EXTERNAL_REPLACE(whole), Op("B", "x")))
#endif
