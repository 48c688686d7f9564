// Elementwise layer ops of any rank (targets of the lowering package, examples/htp_lowering/):
// activations and arithmetic the NHWC layer ops of layer.hpp and the fold/ kernels (rank <= 4)
// leave out. Each computes in double from its operands' values and rounds once to the output's
// float dtype, the same function as the ONNX op it replaces (include/optgrammar/ops/onnx.hpp's
// scalar functions, reused here).
//
//   Sigmoid Tanh Exp Log Sqrt Rsqrt Reciprocal Erf Sin Cos Softplus Silu(x)
//   Gelu(x, approximate)   LeakyRelu(x, alpha)   Elu(x, alpha)
//   Div(a, b)  Pow(a, b)  PRelu(x, slope)        numpy broadcasting, any rank
#pragma once

#include "optgrammar/ops/layer_util.hpp"
#include "optgrammar/ops/onnx.hpp"

#include <cmath>
#include <numbers>

namespace optgrammar::ops::layer {

namespace fn {
using A = const std::vector<double>&;
inline double rsqrt(double x, A) { return 1.0 / std::sqrt(x); }
inline double silu(double x, A) { return x / (1.0 + std::exp(-x)); }
/// approximate 0: x/2 (1 + erf(x/sqrt 2)); 1: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
inline double gelu(double x, A a) {
  if (!a.empty() && a[0] != 0)
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
}  // namespace fn

namespace infer {
/// Binary numpy broadcasting of any rank; dtype and quantization of operand 0.
inline Inferred broadcast_any(const OpView& v) {
  Inferred r = like_x(v);
  if (!broadcast(*v.operands[0].def, *v.operands[1].def, r.def))
    return failed(cat("operand shapes ", ops::infer::shape_string(*v.operands[0].def), " and ",
                      ops::infer::shape_string(*v.operands[1].def), " do not broadcast"));
  return r;
}
}  // namespace infer

inline void add_elementwise_definitions(Definitions& t) {
  namespace oe = onnx_eval;
  namespace of = onnx::fn;
  constexpr std::uint32_t unary_traits =
      Trait::pure | Trait::elementwise | Trait::same_operands_and_result_type | Trait::same_operands_and_result_shape;
  constexpr std::uint32_t binary_traits =
      Trait::pure | Trait::elementwise | Trait::broadcasting | Trait::same_operands_and_result_type;
  const DTypeSet fl = dtypes::floats;
  auto unary = [&](std::string_view name, std::string_view summary, EvalFn eval, std::vector<OperandSpec> params = {}) {
    std::vector<OperandSpec> ops{data("x", fl, "input")};
    for (auto& p : params) ops.push_back(p);
    // (With parameters the operands differ from the result: only x shares its definition.)
    const std::uint32_t traits = params.empty() ? unary_traits : Trait::pure | Trait::elementwise;
    OpDefinition d =
        make_def(name, summary,
                 "Any rank; computed in double from x's value (and the parameters' element 0), rounded once "
                 "to the output's dtype.",
                 std::move(ops), {"out", TypeRule::same_as_first, fl, "same definition as x"}, like_x, eval,
                 "ops::onnx_eval::unary (reference loop)", traits);
    t.add(std::move(d));
  };
  unary("Sigmoid", "Elementwise 1/(1+e^-x).", as_is<oe::unary<of::sigmoid>>);
  unary("Tanh", "Elementwise tanh x.", as_is<oe::unary<of::tanh>>);
  unary("Exp", "Elementwise e^x.", as_is<oe::unary<of::exp>>);
  unary("Log", "Elementwise ln x.", as_is<oe::unary<of::log>>);
  unary("Sqrt", "Elementwise square root.", as_is<oe::unary<of::sqrt>>);
  unary("Rsqrt", "Elementwise 1/sqrt(x).", as_is<oe::unary<fn::rsqrt>>);
  unary("Reciprocal", "Elementwise 1/x.", as_is<oe::unary<of::reciprocal>>);
  unary("Erf", "Elementwise error function.", as_is<oe::unary<of::erf>>);
  unary("Sin", "Elementwise sin x.", as_is<oe::unary<of::sin>>);
  unary("Cos", "Elementwise cos x.", as_is<oe::unary<of::cos>>);
  unary("Softplus", "Elementwise ln(1+e^x).", as_is<oe::unary<of::softplus>>);
  unary("Silu", "Elementwise x * sigmoid(x) (SiLU, swish).", as_is<oe::unary<fn::silu>>);
  unary("Gelu", "Elementwise GELU: x/2 (1 + erf(x/sqrt 2)), or its tanh approximation.",
        params_last<oe::unary<fn::gelu>, 1>,
        {int_param("approximate", "0: the erf form; 1: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))")});
  unary("LeakyRelu", "Elementwise x, or alpha*x below 0.", params_last<oe::unary<of::leaky_relu>, 1>,
        {float_param("alpha", "slope below 0")});
  unary("Elu", "Elementwise x, or alpha*(e^x - 1) below 0.", params_last<oe::unary<of::elu>, 1>,
        {float_param("alpha", "scale below 0")});
  auto binary = [&](std::string_view name, std::string_view summary, EvalFn eval) {
    t.add(make_def(name, summary,
                   "numpy broadcasting of any rank; computed in double from the operands' values, rounded once to the "
                   "output's dtype.",
                   {data("a", fl, "left operand"), same("b", "right operand, broadcast against a")},
                   {"out", TypeRule::same_as_first, fl, "broadcast shape of a and b"}, infer::broadcast_any, eval,
                   "ops::onnx_eval::nary (reference loop)", binary_traits));
  };
  binary("Div", "Elementwise quotient a / b.", as_is<oe::nary<of::div>>);
  binary("Pow", "Elementwise power a ^ b.", as_is<oe::nary<of::pow>>);
  binary("PRelu", "Elementwise a, or a * b below 0 (b the slope).", as_is<oe::nary<of::prelu>>);
}

}  // namespace optgrammar::ops::layer
