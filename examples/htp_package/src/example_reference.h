// The example package's reference implementations: og-opt's interpreter runs each op by calling
// the op's own kernel on the values of a graph, so that --check and --verify compare the rules
// against what the kernels compute (docs/packages.md, "Reference implementations"). The kernels see
// a tensor as [b, h, w, d]; a value of lower rank is right-aligned in it ([r, c] is [1, 1, r, c]).
#pragma once

#include "kernels/example_kernels.h"

#include <optgrammar/core/element.hpp>
#include <optgrammar/ops/definition.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace example_reference {

namespace ops = optgrammar::ops;
using optgrammar::OutputDef;

/// d's dims as the kernels' four, right-aligned; false above rank 4.
inline bool dims4(const OutputDef& d, std::size_t (&out)[4]) {
  if (d.rank > 4) return false;
  for (std::size_t i = 0; i < 4; ++i) out[i] = 1;
  for (std::uint32_t k = 0; k < d.rank; ++k) out[4 - d.rank + k] = d.dims[k];
  return true;
}

/// The storage of one kernel argument.
struct Storage {
  std::vector<float> floats;
  std::vector<std::int32_t> ints;
};

/// A float value of known data as a kernel's Tensor.
inline bool argument(const ops::ValueView& v, Tensor& t, Storage& s) {
  if (!v.known || v.is_shape || !optgrammar::is_floating(v.def->dtype) || !dims4(*v.def, t.dims)) return false;
  s.floats.resize(v.def->element_count());
  for (std::size_t i = 0; i < s.floats.size(); ++i)
    s.floats[i] = static_cast<float>(optgrammar::element_value(v.def->dtype, v.data.data(), i));
  t.data = s.floats.data();
  return true;
}

/// An Int32 constant, or the dims of a `$Shape` (what SHAPEFN_APPLY makes), as an Int32Tensor.
inline bool argument(const ops::ValueView& v, Int32Tensor& t, Storage& s) {
  if (!v.known) return false;
  if (v.is_shape)
    for (std::uint32_t k = 0; k < v.def->rank; ++k) s.ints.push_back(static_cast<std::int32_t>(v.def->dims[k]));
  else if (v.def->dtype == optgrammar::DType::Int32)
    for (std::size_t i = 0; i < v.def->element_count(); ++i)
      s.ints.push_back(static_cast<std::int32_t>(optgrammar::element_value(v.def->dtype, v.data.data(), i)));
  else
    return false;
  t.data = s.ints.data();
  t.n = s.ints.size();
  return true;
}

/// Runs `kernel` on the op's operands into the declared output (stored in its dtype). False when
/// an operand is not what the kernel takes or the kernel refuses the shapes.
template <class Out, class... In>
bool run(GraphStatus (*kernel)(Out&, const In&...), const ops::OpView& v, std::span<std::byte> out) {
  if (v.operands.size() != sizeof...(In) || !optgrammar::is_floating(v.declared->dtype)) return false;
  Out result;
  if (!dims4(*v.declared, result.dims)) return false;
  std::vector<float> values(v.declared->element_count());
  result.data = values.data();
  std::array<Storage, sizeof...(In)> storage;
  std::tuple<In...> args;
  const bool loaded = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return (argument(v.operands[K], std::get<K>(args), storage[K]) && ...);
  }
  (std::index_sequence_for<In...>{});
  if (!loaded || std::apply([&](const In&... a) { return kernel(result, a...); }, args) != Success) return false;
  for (std::size_t i = 0; i < values.size(); ++i) optgrammar::store_value(v.declared->dtype, out.data(), i, values[i]);
  return true;
}

/// The eval of an op whose kernel is `Kernel`.
template <auto Kernel>
bool eval(const ops::OpView& v, std::span<std::byte> out, ops::Backend) {
  return run(Kernel, v, out);
}

/// An operand of the definitions below: data of `types`, or (`parameter`) an Int32 constant or a
/// `$Shape`.
inline ops::OperandSpec operand(std::string_view name, std::string_view summary, ops::DTypeSet types = ops::dtypes::f32,
                                bool parameter = false) {
  return {name, ops::Arity::single, ops::TypeRule::in_set, parameter ? ops::dtypes::i32 : types, summary, 0, parameter};
}

/// Adds the definition of an example op to the program's op definitions: pure, its result of
/// `types` (`result`: the first operand's dtype unless told), computed by `eval`, its output
/// definition checked (and, when it says so, inferred) by `infer`.
inline void define(std::string_view name, std::string_view summary, std::vector<ops::OperandSpec> operands,
                   ops::EvalFn eval, ops::InferFn infer, ops::DTypeSet types = ops::dtypes::f32,
                   ops::TypeRule result = ops::TypeRule::same_as_first) {
  ops::OpDefinition d;
  d.name = name;
  d.summary = summary;
  d.operands = std::move(operands);
  d.result = {"out", result, types, summary};
  d.traits = ops::Trait::pure;
  d.infer = infer;
  d.eval = eval;
  d.kernel = "the package's kernel";
  ops::Definitions::instance().add(std::move(d));
}

/// Operand k's Int32 values (a constant or a `$Shape`), when there are `n` of them.
inline bool ints(const ops::OpView& v, std::size_t k, std::size_t n, std::int32_t* out) {
  Storage s;
  Int32Tensor t;
  if (k >= v.operands.size() || !argument(v.operands[k], t, s) || t.n != n) return false;
  for (std::size_t i = 0; i < n; ++i) out[i] = t.data[i];
  return true;
}

/// An inference that rejects the operands with `error`.
inline ops::Inferred rejected(std::string error) {
  ops::Inferred r;
  r.error = std::move(error);
  return r;
}

/// An inferred shape: operand 0's (an elementwise op).
inline ops::Inferred same_shape(const ops::OpView& v) {
  ops::Inferred r;
  if (v.operands.empty()) return rejected("no operand");
  r.def = *v.operands[0].def;
  r.shape = true;
  return r;
}

/// An inferred shape: operand 0's with dims[1] and dims[2] as given (a 4-d operand).
inline ops::Inferred with_hw(const ops::OpView& v, std::size_t h, std::size_t w) {
  ops::Inferred r;
  r.def = *v.operands[0].def;
  r.def.dims[1] = h;
  r.def.dims[2] = w;
  r.shape = true;
  return r;
}

}  // namespace example_reference
