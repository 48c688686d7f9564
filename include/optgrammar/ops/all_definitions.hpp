// The function that fills the definitions table: the project's ops (builtin.hpp), the imported
// ONNX ops (onnx.hpp, with every ONNX kernel) and the lowering's layer ops. builtin.hpp includes
// it unless OPTGRAMMAR_SEPARATE_OP_DEFINITIONS is defined; then only definitions_impl.hpp does,
// in the one file that compiles the kernels.
#pragma once

#include "optgrammar/ops/builtin.hpp"
#include "optgrammar/ops/layer.hpp"
#include "optgrammar/ops/layer_dense.hpp"
#include "optgrammar/ops/layer_elementwise.hpp"
#include "optgrammar/ops/layer_quantized.hpp"
#include "optgrammar/ops/layer_spatial.hpp"
#include "optgrammar/ops/onnx.hpp"

namespace optgrammar::ops::detail {

/// Its code holds every op's eval function, hence every folding kernel for every element type:
/// most of the compile cost of a file that reaches it.
inline Definitions& make_definitions() {
  static Definitions& t = []() -> Definitions& {
    Definitions& d = Definitions::instance();
    const std::size_t from = d.added();
    add_builtins(d);
    onnx::add_definitions(d);
    layer::add_definitions(d);
    layer::add_spatial_definitions(d);
    layer::add_dense_definitions(d);
    layer::add_elementwise_definitions(d);
    layer::add_quantized_definitions(d);
    d.mark_builtin(from);
    return d;
  }();
  return t;
}

}  // namespace optgrammar::ops::detail
