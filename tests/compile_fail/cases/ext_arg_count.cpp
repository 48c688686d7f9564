// EXPECT: EXTERNAL_CONSTRAINT(deep, ...) passes 1 argument but deep takes 2 after its framework parameters
#include <optgrammar/rules.hpp>
[[maybe_unused]] static bool deep(optgrammar::Constraint&, optgrammar::OpRef, int) { return true; }
#ifdef OG_FAIL
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EXTERNAL_CONSTRAINT(deep, "x"), Op("B", "x"))
#else
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), EXTERNAL_CONSTRAINT(deep, "x", 3), Op("B", "x"))
#endif
