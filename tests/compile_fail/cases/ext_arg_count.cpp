// EXPECT: EXTERNAL_CONSTRAINT(deep, ...) passes 1 argument but deep takes 2 after its framework parameters
// FAULT: external_arg_count
#include <optgrammar/rules.hpp>
// The annotation the grammar asks for, so that og-parse can check the same signature.
// :::EXTERNAL_SHAPEFN::: { bool deep(Constraint &, OpRef, int); }
[[maybe_unused]] static bool deep(optgrammar::Constraint&, optgrammar::OpRef, int) { return true; }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EXTERNAL_CONSTRAINT(deep, "x"), Op("B", "x"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EXTERNAL_CONSTRAINT(deep, "x", 3), Op("B", "x"))
#endif
