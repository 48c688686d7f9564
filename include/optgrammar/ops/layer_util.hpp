// What the layer op headers (layer*.hpp: the targets of the lowering package,
// examples/htp_lowering/) share: operand declarations, inference helpers, and the adapter that
// runs an `onnx.*` op's reference loop (onnx_eval.hpp) for a layer op that computes the same
// function with its parameters after its data operands instead of before them.
#pragma once

#include "optgrammar/ops/builtin_eval.hpp"
#include "optgrammar/ops/definition.hpp"
#include "optgrammar/ops/onnx_eval.hpp"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace optgrammar::ops::layer {

// ---- operand declarations -------------------------------------------------------------------

/// A data operand of the given dtypes.
inline OperandSpec data(std::string_view name, DTypeSet types, std::string_view summary) {
  return OperandSpec{name, Arity::single, TypeRule::in_set, types, summary};
}
/// A data operand of operand 0's dtype.
inline OperandSpec same(std::string_view name, std::string_view summary) {
  return OperandSpec{name, Arity::single, TypeRule::same_as_first, dtypes::any, summary};
}
/// A parameter: a `$Const` (or `$Shape`) of the given dtypes.
inline OperandSpec param(std::string_view name, DTypeSet types, std::string_view summary) {
  OperandSpec o{name, Arity::single, TypeRule::in_set, types, summary};
  o.must_be_constant = true;
  return o;
}
/// An integer parameter: Int32 (the importer's attributes, gen_ConstArr_vals_i32) or Int64 (ONNX's
/// index inputs).
inline OperandSpec int_param(std::string_view name, std::string_view summary) {
  return param(name, dtypes::i32 | dtypes::i64, summary);
}
inline OperandSpec float_param(std::string_view name, std::string_view summary) {
  return param(name, dtypes::f32, summary);
}

/// The parts of a definition every layer op fills the same way.
inline OpDefinition make_def(std::string_view name, std::string_view summary, std::string_view description,
                             std::vector<OperandSpec> operands, ResultSpec result, InferFn infer, EvalFn eval,
                             std::string_view kernel, std::uint32_t traits = Trait::pure) {
  OpDefinition d;
  d.name = name;
  d.summary = summary;
  d.description = description;
  d.operands = std::move(operands);
  d.result = result;
  d.traits = traits;
  d.infer = infer;
  d.eval = eval;
  d.kernel = kernel;
  return d;
}

// ---- reading operands -----------------------------------------------------------------------

/// The integers of a parameter (a `$Const` of an integer dtype, or a `$Shape`); empty when it has
/// none.
inline std::vector<std::int64_t> ints(const ValueView& v) {
  if (v.is_shape || (v.def && v.def->dtype == DType::Int32)) {
    auto x = eval::int_values(v);
    return x ? *x : std::vector<std::int64_t>{};
  }
  std::vector<std::int64_t> out;
  if (!v.def || !dtypes::integers.contains(v.def->dtype) || !eval::has_data(v)) return out;
  for (std::size_t i = 0; i < v.def->element_count(); ++i)
    out.push_back(static_cast<std::int64_t>(onnx_eval::get(v.def->dtype, v.data.data(), i)));
  return out;
}
/// Element 0 of a numeric constant, as double (`fallback` when it has none).
inline double scalar(const ValueView& v, double fallback = 0.0) {
  if (!v.def || !v.known || v.is_shape || v.def->element_count() == 0 || v.data.size() != v.def->byte_size())
    return fallback;
  return onnx_eval::get(v.def->dtype, v.data.data(), 0);
}
/// Every operand has its bytes.
inline bool all_data(std::span<const ValueView> in) {
  for (const ValueView& v : in)
    if (!v.is_shape && !eval::has_data(v)) return false;
  return true;
}

// ---- inference helpers ----------------------------------------------------------------------

inline Inferred failed(std::string e) {
  Inferred r;
  r.error = std::move(e);
  return r;
}
/// Operand k's definition with `dims` as its shape; dtype and quantization from operand k.
inline Inferred shaped_like(const OpView& v, std::size_t k, std::span<const std::size_t> dims) {
  Inferred r;
  r.def = *v.operands[k].def;
  r.def.rank = static_cast<std::uint32_t>(dims.size());
  r.def.dims = {};
  for (std::size_t i = 0; i < dims.size() && i < max_rank; ++i) r.def.dims[i] = dims[i];
  r.shape = r.dtype = r.quant = true;
  return r;
}
/// Operand 0's whole definition.
inline Inferred like_x(const OpView& v) {
  Inferred r;
  r.def = *v.operands[0].def;
  r.shape = r.dtype = r.quant = true;
  return r;
}
/// numpy broadcasting of a's and b's shapes into out's dims and rank; false when they do not.
inline bool broadcast(const OutputDef& a, const OutputDef& b, OutputDef& out) {
  const std::uint32_t r = a.rank > b.rank ? a.rank : b.rank;
  out.rank = r;
  out.dims = {};
  for (std::uint32_t i = 0; i < r; ++i) {
    const std::size_t da = i + a.rank >= r ? a.dims[i + a.rank - r] : 1,
                      db = i + b.rank >= r ? b.dims[i + b.rank - r] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out.dims[i] = da == 1 ? db : da;
  }
  return true;
}
inline std::vector<std::size_t> dims_of(const OutputDef& d) { return {d.dims.begin(), d.dims.begin() + d.rank}; }

// ---- the adapter to onnx_eval ---------------------------------------------------------------

/// An empty constant standing for an absent input of an onnx kernel.
inline const ValueView& absent() {
  static const OutputDef none = OutputDef::make(DType::Float32, {0});
  static const ValueView v{&none, {}, true, false};
  return v;
}

/// Runs the onnx_eval kernel K for an op whose last NP operands are K's NP attributes (in K's
/// order) and whose first operands are K's inputs; `Extra` absent inputs follow them.
template <bool (*K)(const OpView&, std::span<std::byte>, std::size_t), std::size_t NP, std::size_t Extra = 0>
bool params_last(const OpView& v, std::span<std::byte> out, Backend) {
  if (v.operands.size() < NP || !v.declared) return false;
  std::array<ValueView, 16> buf;
  const std::size_t nd = v.operands.size() - NP;
  if (v.operands.size() + Extra > buf.size()) return false;
  std::size_t k = 0;
  for (std::size_t i = 0; i < NP; ++i) buf[k++] = v.operands[nd + i];
  for (std::size_t i = 0; i < nd; ++i) buf[k++] = v.operands[i];
  for (std::size_t i = 0; i < Extra; ++i) buf[k++] = absent();
  return K(OpView{std::span<const ValueView>(buf.data(), k), v.declared}, out, NP);
}

/// Runs K (which takes no attributes) on the operands as they are.
template <bool (*K)(const OpView&, std::span<std::byte>, std::size_t)>
bool as_is(const OpView& v, std::span<std::byte> out, Backend) {
  return v.declared && K(v, out, 0);
}

}  // namespace optgrammar::ops::layer
