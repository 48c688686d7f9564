// The folding kernels the engine calls: HVX when compiling for Hexagon with 128-byte HVX,
// the portable backend otherwise. Both give the reference's bits (reference.hpp).
//
//   namespace fold = optgrammar::fold;
//   fold::kernels::binary<fold::BinOp::add>(a, b, out, n);
//   fold::binary_broadcast<fold::kernels::backend, fold::BinOp::add>(a, sa, b, sb, out, so);
#pragma once

#include "optgrammar/fold/base.hpp"
#include "optgrammar/fold/hvx.hpp"
#include "optgrammar/fold/layout.hpp"
#include "optgrammar/fold/params.hpp"
#include "optgrammar/fold/portable.hpp"
#include "optgrammar/fold/reference.hpp"

namespace optgrammar::fold {
#if OPTGRAMMAR_FOLD_HAS_HVX
namespace kernels = hvx;
#else
namespace kernels = portable;
#endif
}  // namespace optgrammar::fold
