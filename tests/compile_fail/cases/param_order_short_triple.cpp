// EXPECT: DEF_PACKAGE_PARAM_ORDER takes the op name, then one or more triples of ("param", mandatory, default)
// FAULT: param_order_form
// A triple without its default.
#include <optgrammar/package/tensor_properties.hpp>
#ifdef OG_FAIL
DEF_PACKAGE_PARAM_ORDER("Lone", "axis", false)
#else
DEF_PACKAGE_PARAM_ORDER("Lone", "axis", false, nullptr)
#endif
