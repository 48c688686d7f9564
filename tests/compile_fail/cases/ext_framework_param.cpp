// EXPECT: AUTOSPLIT_SHAPEFN_APPLY(start_of, ...): the second parameter of start_of must be Split_Context const&
// FAULT: external_framework_param
#include <optgrammar/rules.hpp>
// The annotation the grammar asks for, so that og-parse can check the same signature.
// :::EXTERNAL_SHAPEFN::: { QuickShape start_of(Replacement &, OpRef); QuickShape start_ok(Replacement &, Split_Context const &, OpRef); }
using namespace optgrammar;
[[maybe_unused]] static QuickShape start_of(Replacement&, OpRef) { return {}; }
[[maybe_unused]] static QuickShape start_ok(Replacement&, Split_Context const&, OpRef) { return {}; }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK,
    AUTOSPLIT(1, "I", 4, Op("A", AUTOSPLIT_SLICE("x", AUTOSPLIT_SHAPEFN_APPLY(start_of, "I", "x"), gen_Shape(1, 4, 1, 1)))))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK,
    AUTOSPLIT(1, "I", 4, Op("A", AUTOSPLIT_SLICE("x", AUTOSPLIT_SHAPEFN_APPLY(start_ok, "I", "x"), gen_Shape(1, 4, 1, 1)))))
#endif
