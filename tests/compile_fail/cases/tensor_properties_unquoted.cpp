// EXPECT: DEF_TENSOR_PROPERTIES takes Op("op", "operand", ...) and then properties such as Flat("operand", ...), all of non-empty strings
// FAULT: properties_form
// A name without quotes: the declaration's operands are read as text, never evaluated, so this is
// the catalogue's message rather than the compiler's "not declared".
#include <optgrammar/package/tensor_properties.hpp>
#ifdef OG_FAIL
DEF_TENSOR_PROPERTIES(Op("Conv", in, "w"), Flat("*"))
#else
DEF_TENSOR_PROPERTIES(Op("Conv", "in", "w"), Flat("*"))
#endif
