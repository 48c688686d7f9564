// EXPECT: Outputs(...) names the op's outputs right after Op(...), before any tensor property
// FAULT: outputs_place
#include <optgrammar/package/tensor_properties.hpp>
#ifdef OG_FAIL
DEF_TENSOR_PROPERTIES(Op("Split2", "in"), Flat("in"), Outputs("lo", "hi"), MainMemory("hi"))
#else
DEF_TENSOR_PROPERTIES(Op("Split2", "in"), Outputs("lo", "hi"), Flat("in"), MainMemory("hi"))
#endif
