// example.Conv(act, w): a per-channel scaling convolution (a 1x1 kernel). Fused with a following
// example.Relu, and tiled by rows with the package's own AUTOSPLIT shape functions when the graph
// option example_tile_rows asks for it. Both ops have reference implementations (their kernel,
// example_reference.h).
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "example_helpers.h"
#include "example_reference.h"
#include "kernels/example_kernels.h"

#include <algorithm>

BEGIN_PKG_OP_DEFINITION(PKG_ExampleConv);

template <bool WithRelu>
GraphStatus convImpl(Tensor& out, const Tensor& in, const Tensor& w) {
  const std::size_t depth = in.dims[3];
  if (out.size() != in.size() || w.size() != depth) return GraphStatus::ErrorFatal;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float v = in.data[i] * w.data[i % depth];
    out.data[i] = WithRelu ? std::max(v, 0.0f) : v;
  }
  return GraphStatus::Success;
}

namespace {
namespace ref = example_reference;

/// act's shape, when w has one weight per channel (act's last dimension).
optgrammar::ops::Inferred convShape(const optgrammar::ops::OpView& v) {
  const auto& act = *v.operands[0].def;
  if (act.rank == 0 || act.rank > 4 || v.operands[1].def->element_count() != act.dims[act.rank - 1])
    return ref::rejected("w needs one weight per channel of a 1-d to 4-d act, act " +
                         optgrammar::ops::infer::shape_string(act) + ", w " +
                         optgrammar::ops::infer::shape_string(*v.operands[1].def));
  return ref::same_shape(v);
}

[[maybe_unused]] const bool convDefined = [] {
  ref::define("example.Conv", "act scaled per channel (last dimension) by w (convImpl).",
              {ref::operand("act", "input"), ref::operand("w", "one weight per channel")}, &ref::eval<&convImpl<false>>,
              &convShape);
  ref::define("example.ConvRelu", "example.Conv, then max(., 0) (convImpl).",
              {ref::operand("act", "input"), ref::operand("w", "one weight per channel")}, &ref::eval<&convImpl<true>>,
              &convShape);
  return true;
}();
}  // namespace

/// The cost of a convolution: the framework calls this with the op to price.
static float convCost(const Op* op) { return op ? 4.0f : 1.0f; }

DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(convImpl<false>, "example.Conv", convCost, Flags::RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(convImpl<true>, "example.ConvRelu", convCost, Flags::RESOURCE_HVX)

DEF_TENSOR_PROPERTIES(Op("example.Conv", "act", "w"), Flat("*", "act"), MainMemory("w"))
DEF_TENSOR_PROPERTIES(Op("example.ConvRelu", "act", "w"), Flat("*", "act"), MainMemory("w"))
DEF_PACKAGE_PARAM_ORDER("example.ConvRelu", "w", true, nullptr)

// Where part I of a split starts in `orig`: 0 but on the split dimension.
// :::EXTERNAL_SHAPEFN::: { QuickShape example_rows_start(Replacement&, Split_Context const&, OpRef const&, int); }
API_EXPORT QuickShape example_rows_start(Replacement& rpx, Split_Context const& splitinfo, OpRef const& orig, int dim) {
  std::size_t dims[4] = {0, 0, 0, 0};
  (void)rpx;
  (void)orig;
  dims[dim] = splitinfo.start;
  return QuickShape(dims);
}
// The size of part I: orig's shape with the part's size on the split dimension.
// :::EXTERNAL_SHAPEFN::: { QuickShape example_rows_size(Replacement&, Split_Context const&, OpRef const&, int); }
API_EXPORT QuickShape example_rows_size(Replacement& rpx, Split_Context const& splitinfo, OpRef const& orig, int dim) {
  const auto& g = rpx.graph();
  std::size_t dims[4] = {orig.dim(g, 0), orig.dim(g, 1), orig.dim(g, 2), orig.dim(g, 3)};
  dims[dim] = splitinfo.size;
  return QuickShape(dims[0], dims[1], dims[2], dims[3]);
}

// Conv then Relu: one fused op.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("example.Relu", LET("conv", Op("example.Conv", "act", "w"))),
                         EXAMPLE_IS_4D_FLOAT("act"), Op("example.ConvRelu", "act", "w"))

// Tall convolutions by rows of example_tile_rows; each part reads its rows of the activation.
DEF_PACKAGE_OPTIMIZATION(
    TILING, Op("example.ConvRelu", "act", "w"), EXAMPLE_NEEDS_TILING,
    AUTOSPLIT(1, "I", EXAMPLE_TILE_ROWS,
              Op("example.ConvRelu",
                 AUTOSPLIT_SLICE("act", AUTOSPLIT_SHAPEFN_APPLY(example_rows_start, "I", "act", SPLIT_DIM("I")),
                                 AUTOSPLIT_SHAPEFN_APPLY(example_rows_size, "I", "act", SPLIT_DIM("I"))),
                 "w")))

END_PKG_OP_DEFINITION(PKG_ExampleConv);
