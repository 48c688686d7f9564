// EXPECT: DEF_PACKAGE_PARAM_ORDER takes the op name, then one or more triples of ("param", mandatory, default)
// FAULT: param_order_form
// An op name alone, or a triple cut short: the framework's macro wants at least one whole triple
// (og-parse says the same).
#include <optgrammar/package/tensor_properties.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_PARAM_ORDER("Lone")
#else
DEF_PACKAGE_PARAM_ORDER("Lone", "axis", false, nullptr)
#endif
