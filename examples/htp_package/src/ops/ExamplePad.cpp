// example.Pad(act, pad): explicit padding by the constant [[top, bottom], [left, right]].
// Rewritten into the backend's example.PadQnn(act, before), sized with the framework's padding
// shape functions. Both ops have reference implementations (their kernel, example_reference.h).
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "example_helpers.h"
#include "example_reference.h"
#include "kernels/example_kernels.h"

BEGIN_PKG_OP_DEFINITION(PKG_ExamplePad);

/// in placed at row `top`, column `left` of out, zeros around it (a 4-d in that fits).
template <typename TensorType>
GraphStatus placeAt(TensorType& out, const TensorType& in, std::int32_t top, std::int32_t left) {
  if (top < 0 || left < 0 || out.dims[0] != in.dims[0] || out.dims[3] != in.dims[3] ||
      in.dims[1] + static_cast<std::size_t>(top) > out.dims[1] ||
      in.dims[2] + static_cast<std::size_t>(left) > out.dims[2])
    return GraphStatus::ErrorFatal;
  const std::size_t t = static_cast<std::size_t>(top), l = static_cast<std::size_t>(left);
  for (std::size_t i = 0; i < out.size(); ++i) out.data[i] = 0;
  for (std::size_t b = 0; b < in.dims[0]; ++b)
    for (std::size_t h = 0; h < in.dims[1]; ++h)
      for (std::size_t w = 0; w < in.dims[2]; ++w)
        for (std::size_t d = 0; d < in.dims[3]; ++d)
          out.data[((b * out.dims[1] + h + t) * out.dims[2] + (w + l)) * out.dims[3] + d] =
              in.data[((b * in.dims[1] + h) * in.dims[2] + w) * in.dims[3] + d];
  return GraphStatus::Success;
}

/// pad = [top, bottom, left, right]; out is in grown by them.
template <typename TensorType>
GraphStatus padImpl(TensorType& out, const TensorType& in, const Int32Tensor& pad) {
  if (pad.n != 4) return GraphStatus::ErrorFatal;
  const auto amount = [&](std::size_t k) {
    return static_cast<std::size_t>(pad.data[k]);
  };  // (a negative one: placeAt refuses it)
  if (out.dims[1] != in.dims[1] + amount(0) + amount(1) || out.dims[2] != in.dims[2] + amount(2) + amount(3))
    return GraphStatus::ErrorFatal;
  return placeAt(out, in, pad.data[0], pad.data[2]);
}

/// before = {0, top, left, 0} (pad_before_for_qnn's shape); out's size says the rest.
template <typename TensorType>
GraphStatus padQnnImpl(TensorType& out, const TensorType& in, const Int32Tensor& before) {
  if (before.n != 4 || before.data[0] != 0 || before.data[3] != 0) return GraphStatus::ErrorFatal;
  return placeAt(out, in, before.data[1], before.data[2]);
}

namespace {
namespace ref = example_reference;
using optgrammar::ops::Inferred;
using optgrammar::ops::OpView;

/// example.Pad's output: act (4-d) grown by the pad amounts (non-negative).
Inferred padShape(const OpView& v) {
  std::int32_t p[4];
  if (v.operands[0].def->rank != 4 || !ref::ints(v, 1, 4, p) || p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0)
    return ref::rejected("act must be 4-d and pad an Int32 constant of 4 non-negative amounts");
  const auto& act = *v.operands[0].def;
  const auto amount = [&](std::size_t k) { return static_cast<std::size_t>(p[k]); };
  return ref::with_hw(v, act.dims[1] + amount(0) + amount(1), act.dims[2] + amount(2) + amount(3));
}

/// example.PadQnn's operands (its output size is declared: the bottom and right amounts are not
/// among them).
Inferred padQnnOperands(const OpView& v) {
  std::int32_t b[4];
  if (v.operands[0].def->rank != 4 || !ref::ints(v, 1, 4, b) || b[0] != 0 || b[1] < 0 || b[2] < 0 || b[3] != 0)
    return ref::rejected("act must be 4-d and before {0, top, left, 0}");
  return {};
}

[[maybe_unused]] const bool padDefined = [] {
  ref::define("example.Pad", "4-d act padded with zeros by pad = [top, bottom, left, right] (padImpl).",
              {ref::operand("act", "input"), ref::operand("pad", "[top, bottom, left, right]", {}, true)},
              &ref::eval<&padImpl<Tensor>>, &padShape);
  ref::define("example.PadQnn",
              "4-d act placed at before = {0, top, left, 0} of the output, zeros around (padQnnImpl).",
              {ref::operand("act", "input"), ref::operand("before", "{0, top, left, 0}", {}, true)},
              &ref::eval<&padQnnImpl<Tensor>>, &padQnnOperands);
  return true;
}();
}  // namespace

DEF_PACKAGE_OP(padImpl<Tensor>, "example.Pad")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(padQnnImpl<Tensor>, "example.PadQnn", FAST, Flags::RESOURCE_HVX)

DEF_TENSOR_PROPERTIES(Op("example.Pad", "act", "pad"), Flat("*", "act"), MainMemory("pad"))
DEF_TENSOR_PROPERTIES(Op("example.PadQnn", "act", "before"), Flat("*", "act"), MainMemory("before"))
DEF_PACKAGE_PARAM_ORDER("example.Pad", "pad", true, nullptr)

// The pad amounts become where the activation starts; the result is sized as the padded tensor.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("example.Pad", "act", OPCONST("pad")), EXAMPLE_IS_4D_FLOAT("act"),
                         WITH_SIZE(SHAPEFN_APPLY(pad_total_for_qnn, "act", "pad"),
                                   WITH_TYPE("act", Op("example.PadQnn", "act",
                                                       SHAPEFN_APPLY(pad_before_for_qnn, "act", "pad")))))

END_PKG_OP_DEFINITION(PKG_ExamplePad);
