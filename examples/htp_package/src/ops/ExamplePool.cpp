// example.MaxPool(x, window): the window constant [h, w] becomes the backend's 4-d window shape.
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "kernels/example_kernels.h"
#include "example_helpers.h"

#include <algorithm>

BEGIN_PKG_OP_DEFINITION(PKG_ExamplePool);

template <bool Max>
GraphStatus poolImpl(Tensor& out, const Tensor& in, const Int32Tensor& window) {
  if (window.n != 2) return GraphStatus::ErrorFatal;
  const auto wh = static_cast<std::size_t>(window.data[0]), ww = static_cast<std::size_t>(window.data[1]);
  const std::size_t depth = in.dims[3];
  for (std::size_t h = 0; h < out.dims[1]; ++h)
    for (std::size_t w = 0; w < out.dims[2]; ++w)
      for (std::size_t d = 0; d < depth; ++d) {
        float acc = Max ? in.data[((h * wh) * in.dims[2] + w * ww) * depth + d] : 0.0f;
        for (std::size_t i = 0; i < wh; ++i)
          for (std::size_t j = 0; j < ww; ++j) {
            const float v = in.data[((h * wh + i) * in.dims[2] + (w * ww + j)) * depth + d];
            acc = Max ? std::max(acc, v) : acc + v / static_cast<float>(wh * ww);
          }
        out.data[(h * out.dims[2] + w) * depth + d] = acc;
      }
  return GraphStatus::Success;
}

DEF_PACKAGE_OP(poolImpl<true>, "example.MaxPool")
DEF_PACKAGE_OP(poolImpl<true>, "example.MaxPoolWindow")

DEF_TENSOR_PROPERTIES(Op("example.MaxPool", "x", "window"), Flat("*", "x"), MainMemory("window"))
DEF_TENSOR_PROPERTIES(Op("example.MaxPoolWindow", "x", "window"), Flat("*", "x"), MainMemory("window"))

DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("example.MaxPool", "x", OPCONST("window")),
    EQ(RANK_OF("x"), 4),
    Op("example.MaxPoolWindow", "x", SHAPEFN_APPLY(reshape_hw_to_4d, "window")))

END_PKG_OP_DEFINITION(PKG_ExamplePool);
