// EXPECT: DEF_TENSOR_PROPERTIES: a property names what is neither an operand of its Op
// SITE: any (a static_assert in DEF_TENSOR_PROPERTIES: g++ points at the macro's definition)
#include <optgrammar/core/properties.hpp>
#ifdef OG_FAIL
DEF_TENSOR_PROPERTIES(Op("Conv", "in", "w"), Flat("*"), MainMemory("bias"))
#else
DEF_TENSOR_PROPERTIES(Op("Conv", "in", "w"), Flat("*"), MainMemory("w"))
#endif
