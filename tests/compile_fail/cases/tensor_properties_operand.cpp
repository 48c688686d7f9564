// EXPECT: "bias" is neither an operand of Op("Conv", ...), an output named by Outputs(...), nor "*"
// FAULT: properties_unknown_name
#include <optgrammar/package/tensor_properties.hpp>
#ifdef OG_FAIL
DEF_TENSOR_PROPERTIES(Op("Conv", "in", "w"), Flat("*"), MainMemory("bias"))
#else
DEF_TENSOR_PROPERTIES(Op("Conv", "in", "w"), Flat("*"), MainMemory("w"))
#endif
