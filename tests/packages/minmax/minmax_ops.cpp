// Test package "minmax": its own ReluMinMax, which takes its limits as one operand (the built-in
// ReluMinMax takes lo and hi), and a rule that makes it.
#include <optgrammar/rules.hpp>

static int relu_minmax_impl() { return 0; }
DEF_PACKAGE_OP(relu_minmax_impl, "ReluMinMax")
DEF_TENSOR_PROPERTIES(Op("ReluMinMax", "x", "limits"), Flat("*", "x"))

// Relu(x) becomes the package's ReluMinMax(x, 6) (a scalar limit: [0, 6]).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("ReluMinMax", "x", gen_ConstScalar_f32(6.0f)))
