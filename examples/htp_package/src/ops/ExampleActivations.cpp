// example.Relu and example.Softmax: a Relu of something already rectified goes away; Softmax runs
// in fp16 between casts when the graph allows relaxed precision (the fp16 "sandwich"). Each op also
// has a reference implementation for og-opt's interpreter (--check, --verify): a definition whose
// eval runs the op's kernel, added to the program's op definitions (docs/packages.md, "Reference
// implementations"; example_reference.h).
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "example_helpers.h"
#include "example_reference.h"
#include "kernels/example_kernels.h"

#include <algorithm>
#include <cmath>

BEGIN_PKG_OP_DEFINITION(PKG_ExampleActivations);

template <typename TensorType>
GraphStatus reluImpl(TensorType& out, const TensorType& in) {
  if (out.size() != in.size()) return GraphStatus::ErrorFatal;
  for (std::size_t i = 0; i < in.size(); ++i) out.data[i] = std::max(in.data[i], 0.0f);
  return GraphStatus::Success;
}

/// Softmax along the depth (the last dimension).
template <typename TensorType>
GraphStatus softmaxImpl(TensorType& out, const TensorType& in) {
  const std::size_t depth = in.dims[3];
  if (out.size() != in.size() || depth == 0) return GraphStatus::ErrorFatal;
  for (std::size_t row = 0; row + depth <= in.size(); row += depth) {
    float top = in.data[row], sum = 0;
    for (std::size_t d = 1; d < depth; ++d) top = std::max(top, in.data[row + d]);
    for (std::size_t d = 0; d < depth; ++d) sum += out.data[row + d] = std::exp(in.data[row + d] - top);
    for (std::size_t d = 0; d < depth; ++d) out.data[row + d] /= sum;
  }
  return GraphStatus::Success;
}

/// The framework's QNN_Cast (CAST_TO_FP16 makes it) as the interpreter runs it: the values,
/// stored in the output's float dtype. The package has no kernel of its own for it.
static GraphStatus castReference(Tensor& out, const Tensor& in) {
  if (out.size() != in.size()) return GraphStatus::ErrorFatal;
  std::copy(in.data, in.data + in.size(), out.data);
  return GraphStatus::Success;
}

namespace {
namespace ref = example_reference;
namespace ops = optgrammar::ops;

/// The reference implementations, added when the package is loaded.
[[maybe_unused]] const bool activationsDefined = [] {
  ref::define("example.Relu", "max(x, 0), elementwise (reluImpl).", {ref::operand("x", "input")},
              &ref::eval<&reluImpl<Tensor>>, &ref::same_shape);
  ref::define("example.Softmax", "softmax along the last dimension, in f32 or f16 (softmaxImpl).",
              {ref::operand("x", "input", ops::dtypes::f32 | ops::of(optgrammar::DType::Float16))},
              &ref::eval<&softmaxImpl<Tensor>>, &ref::same_shape,
              ops::dtypes::f32 | ops::of(optgrammar::DType::Float16));
  ref::define("QNN_Cast", "x's values in the output's float dtype (the framework's cast).",
              {ref::operand("x", "input", ops::dtypes::floats)}, &ref::eval<&castReference>, &ref::same_shape,
              ops::dtypes::floats, ops::TypeRule::in_set);
  return true;
}();
}  // namespace

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
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(LATE, relaxed_precision_flag, Op("example.Softmax", "x"), EXAMPLE_IS_4D_FLOAT("x"),
                                    MAKE_OP_FP16_AND_INSERT_CAST(Op("example.Softmax", CAST_TO_FP16("x"))))

END_PKG_OP_DEFINITION(PKG_ExampleActivations);
