// EXPECT: DEF_PACKAGE_PARAM_ORDER takes the op name, then one or more triples of ("param", mandatory, default)
// FAULT: param_order_form
// A triple without its default. The op name may be a variable, as the SDK's generated sources
// write it.
#include <optgrammar/package/properties.hpp>
static const char* sg_opNameLone = "Lone";
#ifdef OG_FAIL
DEF_PACKAGE_PARAM_ORDER(sg_opNameLone, "axis", false)
#else
DEF_PACKAGE_PARAM_ORDER(sg_opNameLone, "axis", false, nullptr)
#endif
