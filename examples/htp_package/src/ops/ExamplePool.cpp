// example.MaxPool(x, window): the window constant [h, w] becomes the backend's 4-d window shape.
// Both ops have reference implementations (their kernel, example_reference.h).
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "example_helpers.h"
#include "example_reference.h"
#include "kernels/example_kernels.h"

#include <algorithm>

BEGIN_PKG_OP_DEFINITION(PKG_ExamplePool);

/// Pooling over the non-overlapping wh x ww windows of in's rows and columns: out element
/// (b, h, w, d) reads the window starting at (h * wh, w * ww); out's windows lie within in.
template <bool Max>
GraphStatus poolWindows(Tensor& out, const Tensor& in, std::int32_t wh, std::int32_t ww) {
  if (wh < 1 || ww < 1 || out.dims[0] != in.dims[0] || out.dims[3] != in.dims[3] ||
      out.dims[1] * static_cast<std::size_t>(wh) > in.dims[1] ||
      out.dims[2] * static_cast<std::size_t>(ww) > in.dims[2])
    return GraphStatus::ErrorFatal;
  const std::size_t depth = in.dims[3], H = static_cast<std::size_t>(wh), W = static_cast<std::size_t>(ww);
  for (std::size_t b = 0; b < out.dims[0]; ++b)
    for (std::size_t h = 0; h < out.dims[1]; ++h)
      for (std::size_t w = 0; w < out.dims[2]; ++w)
        for (std::size_t d = 0; d < depth; ++d) {
          const auto at = [&](std::size_t i, std::size_t j) {
            return in.data[((b * in.dims[1] + h * H + i) * in.dims[2] + (w * W + j)) * depth + d];
          };
          float acc = Max ? at(0, 0) : 0.0f;
          for (std::size_t i = 0; i < H; ++i)
            for (std::size_t j = 0; j < W; ++j)
              acc = Max ? std::max(acc, at(i, j)) : acc + at(i, j) / static_cast<float>(H * W);
          out.data[((b * out.dims[1] + h) * out.dims[2] + w) * depth + d] = acc;
        }
  return GraphStatus::Success;
}

/// window = [h, w].
GraphStatus maxPoolImpl(Tensor& out, const Tensor& in, const Int32Tensor& window) {
  if (window.n != 2) return GraphStatus::ErrorFatal;
  return poolWindows<true>(out, in, window.data[0], window.data[1]);
}

/// window = the 4-d window shape [1, h, w, 1] (reshape_hw_to_4d's).
GraphStatus maxPoolWindowImpl(Tensor& out, const Tensor& in, const Int32Tensor& window) {
  if (window.n != 4 || window.data[0] != 1 || window.data[3] != 1) return GraphStatus::ErrorFatal;
  return poolWindows<true>(out, in, window.data[1], window.data[2]);
}

namespace {
namespace ref = example_reference;
using optgrammar::ops::Inferred;
using optgrammar::ops::OpView;

/// The pooled shape of a 4-d x by windows of window's elements `h` and `w` of `n`: floor(H / h),
/// floor(W / w); the other elements of a 4-d window are 1.
template <std::size_t n, std::size_t h, std::size_t w>
Inferred pooledShape(const OpView& v) {
  std::int32_t win[n];
  const auto& x = *v.operands[0].def;
  if (x.rank != 4 || !ref::ints(v, 1, n, win) || win[h] < 1 || win[w] < 1 ||
      static_cast<std::size_t>(win[h]) > x.dims[1] || static_cast<std::size_t>(win[w]) > x.dims[2] ||
      (n == 4 && (win[0] != 1 || win[3] != 1)))
    return ref::rejected(n == 2 ? "x must be 4-d and window [h, w] within its rows and columns"
                                : "x must be 4-d and window [1, h, w, 1] within its rows and columns");
  return ref::with_hw(v, x.dims[1] / static_cast<std::size_t>(win[h]), x.dims[2] / static_cast<std::size_t>(win[w]));
}

[[maybe_unused]] const bool poolDefined = [] {
  ref::define("example.MaxPool", "maximum over the non-overlapping windows window = [h, w] of a 4-d x (maxPoolImpl).",
              {ref::operand("x", "input"), ref::operand("window", "[h, w]", {}, true)}, &ref::eval<&maxPoolImpl>,
              &pooledShape<2, 0, 1>);
  ref::define("example.MaxPoolWindow", "example.MaxPool with the window as the shape [1, h, w, 1] (maxPoolWindowImpl).",
              {ref::operand("x", "input"), ref::operand("window", "[1, h, w, 1]", {}, true)},
              &ref::eval<&maxPoolWindowImpl>, &pooledShape<4, 1, 2>);
  return true;
}();
}  // namespace

DEF_PACKAGE_OP(maxPoolImpl, "example.MaxPool")
DEF_PACKAGE_OP(maxPoolWindowImpl, "example.MaxPoolWindow")

DEF_TENSOR_PROPERTIES(Op("example.MaxPool", "x", "window"), Flat("*", "x"), MainMemory("window"))
DEF_TENSOR_PROPERTIES(Op("example.MaxPoolWindow", "x", "window"), Flat("*", "x"), MainMemory("window"))

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("example.MaxPool", "x", OPCONST("window")), EQ(RANK_OF("x"), 4),
                         Op("example.MaxPoolWindow", "x", SHAPEFN_APPLY(reshape_hw_to_4d, "window")))

END_PKG_OP_DEFINITION(PKG_ExamplePool);
