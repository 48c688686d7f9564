// example.Relu and example.Softmax: a Relu of something already rectified goes away; Softmax runs
// in fp16 between casts when the graph allows relaxed precision (the fp16 "sandwich").
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "kernels/example_kernels.h"
#include "example_helpers.h"

#include <algorithm>
#include <cmath>

BEGIN_PKG_OP_DEFINITION(PKG_ExampleActivations);

template <typename TensorType>
GraphStatus reluImpl(TensorType& out, const TensorType& in) {
  for (std::size_t i = 0; i < in.size(); ++i) out.data[i] = std::max(in.data[i], 0.0f);
  return GraphStatus::Success;
}

template <typename TensorType>
GraphStatus softmaxImpl(TensorType& out, const TensorType& in) {
  const std::size_t depth = in.dims[3];
  for (std::size_t row = 0; row + depth <= in.size(); row += depth) {
    float top = in.data[row], sum = 0;
    for (std::size_t d = 1; d < depth; ++d) top = std::max(top, in.data[row + d]);
    for (std::size_t d = 0; d < depth; ++d) sum += out.data[row + d] = std::exp(in.data[row + d] - top);
    for (std::size_t d = 0; d < depth; ++d) out.data[row + d] /= sum;
  }
  return GraphStatus::Success;
}

DEF_PACKAGE_OP(reluImpl<Tensor>, "example.Relu")
DEF_PACKAGE_OP(softmaxImpl<Tensor>, "example.Softmax")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(softmaxImpl<PlainFloat16Tensor>, "example.Softmax", SNAIL, Flags::RESOURCE_HVX)

DEF_TENSOR_PROPERTIES(Op("example.Relu", "x"), Flat("*", "x"))
DEF_TENSOR_PROPERTIES(Op("example.Softmax", "x"), Flat("*", "x"))

// Relu of a fused Conv+Relu is the fused op itself.
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("example.Relu", LET("fused", Op("example.ConvRelu", "act", "w"))), OK, "fused")
// Relu of Relu.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("example.Relu", LET("inner", Op("example.Relu", "x"))), OK, "inner")

// Softmax in fp16, only where the graph allows relaxed precision.
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(LATE, relaxed_precision_flag,
    Op("example.Softmax", "x"),
    EXAMPLE_IS_4D_FLOAT("x"),
    MAKE_OP_FP16_AND_INSERT_CAST(Op("example.Softmax", CAST_TO_FP16("x"))))

END_PKG_OP_DEFINITION(PKG_ExampleActivations);
