// EXPECT: DEF_TENSOR_PROPERTIES: Outputs("name", ...) comes once, right after the Op
// SITE: any (a static_assert in DEF_TENSOR_PROPERTIES: g++ points at the macro's definition)
#include <optgrammar/core/properties.hpp>
#ifdef OG_FAIL
DEF_TENSOR_PROPERTIES(Op("Split2", "in"), Flat("in"), Outputs("lo", "hi"), MainMemory("hi"))
#else
DEF_TENSOR_PROPERTIES(Op("Split2", "in"), Outputs("lo", "hi"), Flat("in"), MainMemory("hi"))
#endif
