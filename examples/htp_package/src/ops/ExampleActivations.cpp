// example.Relu and example.Softmax: a Relu of something already rectified goes away; Softmax runs
// in fp16 between casts when the graph allows relaxed precision (the fp16 "sandwich"). example.Relu
// also has a reference implementation for og-opt's interpreter (--check): a definition with an
// eval, added to the program's op definitions (docs/packages.md, "Reference implementations").
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "kernels/example_kernels.h"
#include "example_helpers.h"

#include <optgrammar/ops/definition.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

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

namespace {
namespace ops = optgrammar::ops;

/// example.Relu on constant data: max(x, 0) for each f32 element, what reluImpl computes on the
/// device. False (the interpreter then reports the op) for anything else.
bool reluReference(const ops::OpView& v, std::span<std::byte> out, ops::Backend) {
  const ops::ValueView& x = v.operands[0];
  if (!x.known || x.def->dtype != optgrammar::DType::Float32 || v.declared->dtype != optgrammar::DType::Float32 ||
      x.data.size() != out.size())
    return false;
  for (std::size_t i = 0; i < out.size(); i += sizeof(float)) {
    float e;
    std::memcpy(&e, x.data.data() + i, sizeof e);
    e = std::max(e, 0.0f);
    std::memcpy(out.data() + i, &e, sizeof e);
  }
  return true;
}

/// The definition, added when the package is loaded: Definitions::instance() is the program's
/// table (ops::definitions() would compile every built-in kernel into the package).
[[maybe_unused]] const bool reluDefined = [] {
  ops::OpDefinition d;
  d.name = "example.Relu";
  d.summary = "max(x, 0), elementwise (the example package's op, with its reference implementation).";
  d.operands = {{"x", ops::Arity::single, ops::TypeRule::in_set, ops::dtypes::f32, "input"}};
  d.result = {"out", ops::TypeRule::same_as_first, ops::dtypes::f32, "max(x, 0)"};
  d.traits = ops::Trait::pure;
  d.eval = &reluReference;
  ops::Definitions::instance().add(std::move(d));
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
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(LATE, relaxed_precision_flag,
    Op("example.Softmax", "x"),
    EXAMPLE_IS_4D_FLOAT("x"),
    MAKE_OP_FP16_AND_INSERT_CAST(Op("example.Softmax", CAST_TO_FP16("x"))))

END_PKG_OP_DEFINITION(PKG_ExampleActivations);
