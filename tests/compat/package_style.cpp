// An op-package source written exactly as packages of the original framework are: the SDK's
// include names, the per-file brackets, template implementations registered without
// parentheses, a flagged fp16 rule, the short rule macros DEF_OPT and DEF_OPTIM, tensor properties, an external shape
// function with API_EXPORT, the framework's logging in kernels and cost functions, C and C++ math functions without
// <cmath> (the framework's headers bring it), a constructor hook. Compiled twice by tests/compat/CMakeLists.txt: as is,
// and with PREPARE_DISABLED.
#include "HTP/core/constraints.h"
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "kernel_stand_ins.h"

BEGIN_PKG_OP_DEFINITION(PKG_CompatRelu);

template <typename T>
GraphStatus compatReluImpl(T& out, const T& in) {
  if (out.n < in.n) errlog("compatRelu: output of %zu elements for an input of %zu", out.n, in.n);
  debuglog("compatRelu: %zu elements", in.n);
  for (std::size_t i = 0; i < in.n && i < out.n; ++i) out.data[i] = in.data[i] > 0 ? in.data[i] : 0;
  return GraphStatus::Success;
}

template <bool Clip>
GraphStatus compatClipImpl(Tensor& out, const Tensor& in) {
  for (std::size_t i = 0; i < in.n && i < out.n; ++i) out.data[i] = Clip && in.data[i] > 6 ? 6 : in.data[i];
  return GraphStatus::Success;
}

DEF_PACKAGE_OP(compatReluImpl<Tensor>, "CompatRelu")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(compatReluImpl<PlainFloatTensor>, "CompatRelu", SNAIL, Flags::RESOURCE_HVX)
DEF_PACKAGE_OP(compatClipImpl<true>, "CompatClip")

// :::EXTERNAL_SHAPEFN::: { float compatCost(const Op*); }
static float compatCost(const Op* op) {
  const float cost = op ? std::fabs(-2.0f) : expf(0.0f);  // 2 or 1
  logmsg(2, "compatCost: cost=%f", static_cast<double>(cost));
  return cost;
}
DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(compatClipImpl<false>, "CompatClipF", compatCost, Flags::RESOURCE_HVX)

// As packages for the framework's older headers write them: the op name in a variable, the cost
// in quotes.
static const char* const compat_old_name = "CompatOld";
template <int K>
GraphStatus compatOldImpl(Tensor& out, const Tensor& in) {
  return compatClipImpl<K != 0>(out, in);
}
DEF_PACKAGE_OP(compatOldImpl<0>, compat_old_name)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(compatOldImpl<1>, compat_old_name, "SNAIL", Flags::RESOURCE_HVX)
// The SDK's generated sources name the op through a variable in parameter orders too.
DEF_PACKAGE_PARAM_ORDER(compat_old_name, "limit", true, nullptr, "mode", false, 0)

DEF_TENSOR_PROPERTIES(Op("CompatRelu", "in"), Flat("*", "in"))
DEF_TENSOR_PROPERTIES(Op("CompatCat", "axis", "..."), Flat("*", "..."), MainMemory("axis"))
DEF_TENSOR_PROPERTIES(Op("CompatGen", "in0"), Outputs("out0", "out1"), Flat("out0", "out1"), MainMemory("out1"))
// "..." in a property of an Op without one, as public packages write it: the inputs left over.
DEF_TENSOR_PROPERTIES(Op("CompatAttn", "query", "key", "value"), Flat("*", "query", "key", "value"), Tcm("*", "query"),
                      MainMemory("..."))
DEF_TENSOR_PROPERTIES(Op("CompatMixed", "axis", "..."), Flat("*", "axis", "..."), MainMemory("..."))

// :::EXTERNAL_SHAPEFN::: { QuickShape compat_same(Replacement&, OpRef const&); }
API_EXPORT QuickShape compat_same(Replacement& rpx, OpRef const& x) {
  const auto& d = rpx.graph().output(x);
  QuickShape q;
  q.rank = d.rank;
  for (std::uint32_t i = 0; i < d.rank; ++i) q.dims[i] = d.dims[i];
  return q;
}

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("CompatRelu", LET("r", Op("CompatRelu", "x"))), OK, "r")

DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY + 1, relaxed_precision_flag, Op("CompatClip", "x"), IS_FLOAT32("*"),
                                    MAKE_OP_FP16_AND_INSERT_CAST(Op("CompatClip", CAST_TO_FP16("x"))))

DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("CompatShape", "x"), OK,
                         Op("CompatShaped", "x", SHAPEFN_APPLY(compat_same, "x")))

// The framework's short names of the two rule macros.
DEF_OPT(EARLY + 3, Op("CompatNeg", Op("CompatNeg", "x")), OK, "x")
DEF_OPTIM(EARLY + 3, relaxed_precision_flag, Op("CompatSq", "x"), IS_FLOAT32("*"),
          MAKE_OP_FP16_AND_INSERT_CAST(Op("CompatSq", CAST_TO_FP16("x"))))

// A package's own cast macro, sliced as public LLM packages slice it: TYPICAL_SLICE of a new op
// (the grammar wants an existing opref there; og-parse warns, both front ends refuse it strictly).
#define COMPAT_CAST_FP16(IN) \
  WITH_SIZE(IN, WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, Op(FROM_DEFAULT_PACKAGE("Cast"), IN)))
DEF_PACKAGE_OPTIMIZATION(TILING, Op("CompatAttnF", "q", "k"), GT(DIM_HEIGHT("q"), 2),
                         AUTOSPLIT(1, "I", 2, Op("CompatAttnQ", TYPICAL_SLICE(COMPAT_CAST_FP16("q"), "I"), "k")))

#ifndef PREPARE_DISABLED
namespace {
/// What the framework would run when it builds a CompatRelu on the device.
struct CompatReluHook {
  int calls = 0;
};
}  // namespace
CTOR_OPHOOK(compatReluImpl<Tensor>, CompatReluHook)
#endif

// Some packages write the brackets without a ';' after them.
END_PKG_OP_DEFINITION(PKG_CompatRelu)
