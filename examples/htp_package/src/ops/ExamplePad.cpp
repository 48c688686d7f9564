// example.Pad(act, pad): explicit padding by the constant [[top, bottom], [left, right]].
// Rewritten into the backend's example.PadQnn(act, before), sized with the framework's padding
// shape functions.
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "kernels/example_kernels.h"
#include "example_helpers.h"

BEGIN_PKG_OP_DEFINITION(PKG_ExamplePad);

template <typename TensorType>
GraphStatus padImpl(TensorType& out, const TensorType& in, const Int32Tensor& pad) {
  if (pad.n != 4) return GraphStatus::ErrorFatal;
  const std::size_t top = static_cast<std::size_t>(pad.data[0]), left = static_cast<std::size_t>(pad.data[2]);
  for (std::size_t i = 0; i < out.size(); ++i) out.data[i] = 0;
  for (std::size_t h = 0; h < in.dims[1]; ++h)
    for (std::size_t w = 0; w < in.dims[2]; ++w)
      for (std::size_t d = 0; d < in.dims[3]; ++d)
        out.data[((h + top) * out.dims[2] + (w + left)) * out.dims[3] + d] = in.data[(h * in.dims[2] + w) * in.dims[3] + d];
  return GraphStatus::Success;
}

template <typename TensorType>
GraphStatus padQnnImpl(TensorType& out, const TensorType& in, const Int32Tensor& before) {
  return padImpl(out, in, before);
}

DEF_PACKAGE_OP(padImpl<Tensor>, "example.Pad")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(padQnnImpl<Tensor>, "example.PadQnn", FAST, Flags::RESOURCE_HVX)

DEF_TENSOR_PROPERTIES(Op("example.Pad", "act", "pad"), Flat("*", "act"), MainMemory("pad"))
DEF_TENSOR_PROPERTIES(Op("example.PadQnn", "act", "before"), Flat("*", "act"), MainMemory("before"))
DEF_PACKAGE_PARAM_ORDER("example.Pad", "pad", true, nullptr)

// The pad amounts become where the activation starts; the result is sized as the padded tensor.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("example.Pad", "act", OPCONST("pad")),
    EXAMPLE_IS_4D_FLOAT("act"),
    WITH_SIZE(SHAPEFN_APPLY(pad_total_for_qnn, "act", "pad"),
              WITH_TYPE("act", Op("example.PadQnn", "act", SHAPEFN_APPLY(pad_before_for_qnn, "act", "pad")))))

END_PKG_OP_DEFINITION(PKG_ExamplePad);
