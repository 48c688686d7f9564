// The definitions of the ops the project uses. Each record below is the single source for that
// op's verification, folding, CSE treatment and its entry in docs/ops.md.
//
//   const ops::OpDefinition* d = ops::find_definition("Add");
//   d->has(ops::Trait::commutative);  // true
#pragma once

#include "optgrammar/index/op_maps.hpp"
#include "optgrammar/ops/builtin_eval.hpp"
#include "optgrammar/ops/definition.hpp"
#include "optgrammar/ops/layer.hpp"
#include "optgrammar/ops/onnx_eval.hpp"

#include <string>

namespace optgrammar::ops {

namespace infer {

/// Everything from operand 0 (unary elementwise ops, Output).
inline Inferred like_first(const OpView& v) {
  Inferred r;
  r.def = *v.operands[0].def;
  r.shape = r.dtype = r.quant = true;
  return r;
}

/// numpy broadcasting of two shapes of any rank; false when they do not broadcast.
using layer::broadcast;

/// Broadcast shape of operands 0 and 1; dtype (and, unless `own_quant`, quantization) of operand 0.
template <bool own_quant>
Inferred broadcast2(const OpView& v) {
  Inferred r;
  r.def = *v.operands[0].def;
  r.dtype = true;
  r.quant = !own_quant;
  if (!broadcast(*v.operands[0].def, *v.operands[1].def, r.def))
    r.error = cat("operand shapes ", shape_string(*v.operands[0].def), " and ", shape_string(*v.operands[1].def),
                  " do not broadcast");
  else
    r.shape = true;
  return r;
}

/// Shape of operand 0, dtype and quantization from the declaration (Cast, Quantize, Requantize).
inline Inferred shape_only(const OpView& v) {
  Inferred r;
  r.def = *v.declared;
  for (std::uint32_t i = 0; i < max_rank; ++i) r.def.dims[i] = v.operands[0].def->dims[i];
  r.def.rank = v.operands[0].def->rank;
  r.shape = true;
  return r;
}

inline Inferred dequantize(const OpView& v) {
  Inferred r = shape_only(v);
  r.def.dtype = DType::Float32;
  r.dtype = true;
  return r;
}

inline Inferred transpose(const OpView& v) {
  Inferred r;
  r.def = *v.operands[0].def;
  r.dtype = r.quant = true;
  auto perm = eval::int_values(v.operands[1]);
  if (!perm) return r;  // a permutation computed at run time: the shape is not known here
  const OutputDef& x = *v.operands[0].def;
  if (perm->size() != x.rank) {
    r.error = cat("permutation has ", perm->size(), " entries for rank ", x.rank);
    return r;
  }
  std::vector<bool> seen(x.rank, false);
  for (std::uint32_t i = 0; i < x.rank; ++i) {
    const std::int64_t p = (*perm)[i];
    if (p < 0 || p >= static_cast<std::int64_t>(x.rank) || seen[static_cast<std::size_t>(p)]) {
      r.error = cat("permutation is not a permutation of 0..", x.rank - 1);
      return r;
    }
    seen[static_cast<std::size_t>(p)] = true;
    r.def.dims[i] = x.dims[static_cast<std::size_t>(p)];
  }
  r.shape = true;
  return r;
}

/// Reshape: the declared shape (or the optional shape operand's) with the element count kept.
inline Inferred reshape(const OpView& v) {
  Inferred r;
  r.def = *v.operands[0].def;
  r.dtype = r.quant = true;
  OutputDef target = *v.declared;
  if (v.operands.size() > 1)
    if (auto dims = eval::int_values(v.operands[1]); dims && dims->size() <= max_rank) {
      target.rank = static_cast<std::uint32_t>(dims->size());
      target.dims = {};
      for (std::size_t i = 0; i < dims->size(); ++i) target.dims[i] = static_cast<std::size_t>((*dims)[i]);
    }
  r.def.rank = target.rank;
  r.def.dims = target.dims;
  r.shape = true;
  if (target.element_count() != v.operands[0].def->element_count())
    r.error = cat("reshape of ", v.operands[0].def->element_count(), " elements to ", shape_string(target));
  return r;
}

/// Conv2d NHWC with stride 1 and same padding: [N, H, W, Cout].
inline Inferred conv2d(const OpView& v) {
  Inferred r;
  const OutputDef &x = *v.operands[0].def, &w = *v.operands[1].def;
  r.def = x;
  r.dtype = r.quant = true;
  if (x.rank != 4 || w.rank != 4) {
    r.error = cat("input and filter must have rank 4 (NHWC, HWIO)");
    return r;
  }
  if (w.dims[2] != x.dims[3]) {
    r.error = cat("filter input channels ", w.dims[2], " differ from the input's ", x.dims[3]);
    return r;
  }
  r.def.dims[3] = w.dims[3];
  r.shape = true;
  return r;
}

/// BiasAdd: x's definition; the bias must broadcast to it.
inline Inferred bias_add(const OpView& v) {
  Inferred r = like_first(v);
  OutputDef b;
  if (!broadcast(*v.operands[0].def, *v.operands[1].def, b) || !b.same_shape(*v.operands[0].def))
    r.error =
        cat("bias ", shape_string(*v.operands[1].def), " does not broadcast to ", shape_string(*v.operands[0].def));
  return r;
}

inline Inferred conv_bias_relu(const OpView& v) {
  Inferred r = conv2d(v);
  OutputDef b;
  if (r.error.empty() && (!broadcast(r.def, *v.operands[2].def, b) || !b.same_shape(r.def)))
    r.error = cat("bias ", shape_string(*v.operands[2].def), " does not broadcast to ", shape_string(r.def));
  return r;
}

inline Inferred concat(const OpView& v) {
  Inferred r;
  r.def = *v.declared;
  auto form = eval::concat_form(v.operands, *v.declared);
  if (!form) {
    r.error = cat("operands do not concatenate to ", shape_string(*v.declared), " along any dimension");
    return r;
  }
  r.def = *v.operands[form->first_part].def;
  r.dtype = r.quant = true;
  for (std::size_t k = form->first_part; k < v.operands.size(); ++k)
    if (!v.operands[k].def->same_encoding(*v.operands[form->first_part].def)) {
      r.error = cat("part ", k, " differs from the first part in dtype or quantization");
      return r;
    }
  r.def.dims = v.declared->dims;
  r.shape = true;
  return r;
}

/// Slice_shape(in, start, size): the size operand's dims; start + size within the input.
inline Inferred slice(const OpView& v) {
  Inferred r = like_first(v);
  auto start = eval::int_values(v.operands[1]), size = eval::int_values(v.operands[2]);
  r.shape = false;
  if (!size) return r;
  const OutputDef& x = *v.operands[0].def;
  r.def.rank = static_cast<std::uint32_t>(size->size());
  r.def.dims = {};
  for (std::size_t i = 0; i < size->size() && i < max_rank; ++i) r.def.dims[i] = static_cast<std::size_t>((*size)[i]);
  r.shape = true;
  if (size->size() != x.rank)
    r.error = cat("size has ", size->size(), " dims for rank ", x.rank);
  else if (start && start->size() != x.rank)
    r.error = cat("start has ", start->size(), " dims for rank ", x.rank);
  else if (start)
    for (std::uint32_t k = 0; k < x.rank; ++k)
      if ((*start)[k] < 0 || static_cast<std::size_t>((*start)[k] + (*size)[k]) > x.dims[k]) {
        r.error = cat("slice leaves dimension ", k, " of extent ", x.dims[k]);
        break;
      }
  return r;
}

/// Output of a `$Shape`: Int32.
inline Inferred shape_op(const OpView& v) {
  Inferred r;
  r.def = *v.declared;
  r.def.dtype = DType::Int32;
  r.dtype = true;
  return r;
}

}  // namespace infer

namespace indexing {
using Maps = std::vector<std::optional<index::IndexingMap>>;

/// Runs a map builder; index/ throws on arguments it rejects: no map then.
template <class F>
std::optional<index::IndexingMap> guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Every operand broadcast numpy-style into the output (elementwise ops, scalars of a clamp).
inline Maps broadcast_all(const OpView& v) {
  Maps m;
  const auto out = eval::index_shape(*v.declared);
  for (const auto& x : v.operands)
    m.push_back(guarded([&] { return index::numpy_broadcast_map(eval::index_shape(*x.def), out); }));
  return m;
}
/// Operand 0 elementwise; the others (parameters) without a map.
inline Maps first_elementwise(const OpView& v) {
  Maps m(v.operands.size());
  m[0] = guarded([&] { return index::elementwise_map(eval::index_shape(*v.declared)); });
  return m;
}
inline Maps transpose(const OpView& v) {
  Maps m(v.operands.size());
  if (auto perm = eval::int_values(v.operands[1])) {
    std::vector<int> p(perm->begin(), perm->end());
    m[0] = guarded([&] { return index::transpose_map(eval::index_shape(*v.operands[0].def), p); });
  }
  return m;
}
inline Maps reshape(const OpView& v) {
  Maps m(v.operands.size());
  m[0] = guarded(
      [&] { return index::reshape_map(eval::index_shape(*v.operands[0].def), eval::index_shape(*v.declared)); });
  return m;
}
inline Maps concat(const OpView& v) {
  Maps m(v.operands.size());
  auto form = eval::concat_form(v.operands, *v.declared);
  if (!form) return m;
  std::vector<index::Shape> shapes;
  for (std::size_t k = form->first_part; k < v.operands.size(); ++k)
    shapes.push_back(eval::index_shape(*v.operands[k].def));
  try {
    auto maps = index::concat_maps(shapes, static_cast<int>(form->axis));
    for (std::size_t i = 0; i < maps.size(); ++i) m[form->first_part + i] = std::move(maps[i]);
  } catch (const std::exception&) {
  }
  return m;
}
inline Maps slice(const OpView& v) {
  Maps m(v.operands.size());
  if (auto start = eval::int_values(v.operands[1]))
    m[0] = guarded([&] {
      return index::slice_map_sizes(eval::index_shape(*v.operands[0].def), *start, eval::index_shape(*v.declared));
    });
  return m;
}
/// Conv2d, input: (n, h, w, co)[kh, kw, ci] -> (n, h + kh - ph, w + kw - pw, ci), the padding
/// cut off by constraints; filter: (n, h, w, co)[kh, kw, ci] -> (kh, kw, ci, co).
inline Maps conv(const OpView& v) {
  Maps m(v.operands.size());
  const OutputDef &x = *v.operands[0].def, &w = *v.operands[1].def, &o = *v.declared;
  if (x.rank != 4 || w.rank != 4 || o.rank != 4) return m;
  auto I = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  index::IndexingMap in, filt;
  for (std::uint32_t i = 0; i < 4; ++i) in.dims.push_back({0, I(o.dims[i]) - 1});
  in.ranges = {{0, I(w.dims[0]) - 1}, {0, I(w.dims[1]) - 1}, {0, I(w.dims[2]) - 1}};
  filt.dims = in.dims;
  filt.ranges = in.ranges;
  const std::int64_t ph = (I(w.dims[0]) - 1) / 2, pw = (I(w.dims[1]) - 1) / 2;
  using index::dim;
  using index::sym;
  in.results = {dim(0), dim(1) + sym(0) - ph, dim(2) + sym(1) - pw, sym(2)};
  if (ph > 0 || I(w.dims[0]) > 1) in.constraints.push_back({dim(1) + sym(0) - ph, {0, I(x.dims[1]) - 1}});
  if (pw > 0 || I(w.dims[1]) > 1) in.constraints.push_back({dim(2) + sym(1) - pw, {0, I(x.dims[2]) - 1}});
  filt.results = {sym(0), sym(1), sym(2), dim(3)};
  m[0] = std::move(in);
  m[1] = std::move(filt);
  if (v.operands.size() > 2)
    m[2] = guarded(
        [&] { return index::numpy_broadcast_map(eval::index_shape(*v.operands[2].def), eval::index_shape(o)); });
  return m;
}
}  // namespace indexing

namespace detail {

inline OperandSpec data(std::string_view name, DTypeSet t, std::string_view summary) {
  return {name, Arity::single, TypeRule::in_set, t, summary};
}
inline OperandSpec same(std::string_view name, std::string_view summary) {
  return {name, Arity::single, TypeRule::same_as_first, dtypes::any, summary};
}
inline OperandSpec param(std::string_view name, DTypeSet t, std::string_view summary) {
  OperandSpec o{name, Arity::single, TypeRule::in_set, t, summary};
  o.must_be_constant = true;
  return o;
}

constexpr std::uint32_t elementwise_binary =
    Trait::pure | Trait::elementwise | Trait::broadcasting | Trait::same_operands_and_result_type;
constexpr std::uint32_t elementwise_unary =
    Trait::pure | Trait::elementwise | Trait::same_operands_and_result_type | Trait::same_operands_and_result_shape;

inline OpDefinition binary_op(std::string_view name, std::string_view summary, std::string_view desc, bool commutative,
                              EvalFn eval, std::string_view kernel) {
  OpDefinition d;
  d.name = name;
  d.summary = summary;
  d.description = desc;
  d.operands = {data("a", dtypes::numeric, "left operand"), same("b", "right operand, broadcast against a")};
  d.result = {"out", TypeRule::same_as_first, dtypes::numeric, "broadcast shape of a and b"};
  d.traits = elementwise_binary | (commutative ? Trait::commutative : 0u);
  d.infer = infer::broadcast2<false>;
  d.indexing = indexing::broadcast_all;
  d.eval = eval;
  d.fold_kernel = true;
  d.kernel = kernel;
  return d;
}

inline OpDefinition unary_op(std::string_view name, std::string_view summary, std::string_view desc, EvalFn eval,
                             std::string_view kernel) {
  OpDefinition d;
  d.name = name;
  d.summary = summary;
  d.description = desc;
  d.operands = {data("x", dtypes::numeric, "input")};
  d.result = {"out", TypeRule::same_as_first, dtypes::numeric, "same definition as x"};
  d.traits = elementwise_unary;
  d.infer = infer::like_first;
  d.indexing = indexing::broadcast_all;
  d.eval = eval;
  d.fold_kernel = true;
  d.kernel = kernel;
  return d;
}

inline OpDefinition clamp_op(std::string_view name, std::string_view summary, std::string_view desc) {
  OpDefinition d;
  d.name = name;
  d.summary = summary;
  d.description = desc;
  d.operands = {data("x", dtypes::numeric | dtypes::quantized, "input"), same("lo", "lower bound (element 0)"),
                same("hi", "upper bound (element 0)")};
  d.result = {"out", TypeRule::same_as_first, dtypes::any, "same definition as x"};
  d.traits = Trait::pure | Trait::elementwise | Trait::same_operands_and_result_type;
  d.infer = infer::like_first;
  d.indexing = indexing::first_elementwise;
  d.eval = eval::clamp;
  d.fold_kernel = true;
  d.kernel = "fold::clamp";
  return d;
}

inline OpDefinition quantized_op(std::string_view name, std::string_view summary, std::string_view desc, EvalFn eval,
                                 std::string_view kernel) {
  OpDefinition d;
  d.name = name;
  d.summary = summary;
  d.description = desc;
  d.operands = {data("a", dtypes::quant_storage, "left operand, its own quantization"),
                same("b", "right operand, its own quantization, broadcast against a")};
  d.result = {"out", TypeRule::same_as_first, dtypes::quant_storage, "broadcast shape; its own quantization"};
  d.traits = Trait::pure | Trait::commutative | Trait::elementwise | Trait::broadcasting | Trait::quantized;
  d.infer = infer::broadcast2<true>;
  d.indexing = indexing::broadcast_all;
  d.eval = eval;
  d.fold_kernel = true;
  d.kernel = kernel;
  return d;
}

inline void add_builtins(Definitions& t) {
  // ---- framework ops -----------------------------------------------------------------------
  {
    OpDefinition d;
    d.name = "Input";
    d.summary = "A graph input: a value supplied when the graph runs.";
    d.description =
        "Has no operands; its output definition is the input's. Never folded, never merged: two "
        "inputs with equal definitions are still different values.";
    d.result = {"out", TypeRule::in_set, dtypes::any, "the supplied value"};
    d.traits = Trait::graph_input | Trait::side_effecting;
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "Output";
    d.summary = "A graph output: the value the graph computes; never removed as dead.";
    d.description = "Reads one value and has its definition. Rewrites never remove it; CSE never merges two outputs.";
    d.operands = {data("x", dtypes::any, "the value to output")};
    d.result = {"out", TypeRule::same_as_first, dtypes::any, "same definition as x"};
    d.traits = Trait::graph_output | Trait::side_effecting;
    d.infer = infer::like_first;
    d.indexing = indexing::first_elementwise;
    d.eval = eval::identity;
    d.kernel = "copy";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "$Const";
    d.summary = "Constant data held by the graph (interned payload).";
    d.description =
        "Its bytes fill its output definition exactly (element count times element size, row-major). "
        "CSE merges constants with equal payloads and equal output definitions; the constant folder "
        "produces them.";
    d.result = {"out", TypeRule::in_set, dtypes::any, "the payload"};
    d.traits = Trait::pure | Trait::constant_like;
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "$Shape";
    d.summary = "A shape made by gen_Shape: its value is its output definition's dims.";
    d.description =
        "Has no data; rules and ops read its dims (a Slice_shape start or size, a `$Out` index). "
        "Counts as a constant for folding. Dtype Int32.";
    d.result = {"out", TypeRule::in_set, dtypes::i32, "the shape, as dims"};
    d.traits = Trait::pure | Trait::constant_like;
    d.infer = infer::shape_op;
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "$Out";
    d.summary = "Output k of a multi-output op (OpMultiOut).";
    d.description =
        "`$Out(op, $Shape(0, 0, n_out, k))`: the k-th of n_out outputs of `op`. Its definition is "
        "that output's and cannot be inferred from the operands.";
    d.operands = {data("op", dtypes::any, "the multi-output op"),
                  param("which", dtypes::i32, "`$Shape(0, 0, n_out, k)`")};
    d.result = {"out", TypeRule::in_set, dtypes::any, "output k"};
    d.traits = Trait::pure;
    t.add(std::move(d));
  }
  // ---- elementwise arithmetic --------------------------------------------------------------
  t.add(binary_op("Add", "Elementwise sum.", "`a + b` with numpy broadcasting. Int32 wraps modulo 2^32.", true,
                  eval::binary<fold::BinOp::add>, "fold::binary<add>"));
  t.add(binary_op("Sub", "Elementwise difference.", "`a - b` with numpy broadcasting. Int32 wraps modulo 2^32.", false,
                  eval::binary<fold::BinOp::sub>, "fold::binary<sub>"));
  t.add(binary_op("Mul", "Elementwise product.", "`a * b` with numpy broadcasting. Int32 wraps modulo 2^32.", true,
                  eval::binary<fold::BinOp::mul>, "fold::binary<mul>"));
  t.add(binary_op("Max", "Elementwise maximum.",
                  "With numpy broadcasting. A NaN operand gives NaN; between -0 and +0 the second operand wins.", true,
                  eval::binary<fold::BinOp::max>, "fold::binary<max>"));
  t.add(binary_op("Min", "Elementwise minimum.",
                  "With numpy broadcasting. A NaN operand gives NaN; between -0 and +0 the second operand wins.", true,
                  eval::binary<fold::BinOp::min>, "fold::binary<min>"));
  t.add(unary_op("Neg", "Elementwise negation.", "`-x`; Int32 wraps (Neg(INT_MIN) == INT_MIN).",
                 eval::unary<fold::UnOp::neg>, "fold::unary<neg>"));
  t.add(unary_op("Abs", "Elementwise absolute value.",
                 "Clears the sign bit of floats (also of NaN); Int32 wraps (Abs(INT_MIN) == INT_MIN).",
                 eval::unary<fold::UnOp::abs>, "fold::unary<abs>"));
  t.add(unary_op("Relu", "Elementwise max(x, 0).", "`x < 0 ? 0 : x`; NaN and -0 pass unchanged.",
                 eval::unary<fold::UnOp::relu>, "fold::unary<relu>"));
  t.add(clamp_op("ReluMinMax", "Clamp to [lo, hi] (lo and hi are operands).",
                 "`x < lo ? lo : x > hi ? hi : x` with lo and hi element 0 of their operands, in x's storage type "
                 "(for quantized x: quantized values). NaN passes unchanged."));
  t.add(clamp_op("Clamp", "Clamp to [lo, hi]; same as ReluMinMax.",
                 "Another name of ReluMinMax, with the same semantics."));
  // ---- types and quantization --------------------------------------------------------------
  {
    OpDefinition d;
    d.name = "Cast";
    d.summary = "Converts storage values to the declared dtype.";
    d.description =
        "int to int saturates; float to int truncates toward zero, saturates, NaN gives 0; int to float "
        "rounds to nearest even. Quantization parameters are not applied (see Dequantize/Quantize). "
        "The target dtype is the declared output's.";
    d.operands = {data("x", dtypes::f32 | dtypes::i32 | dtypes::quantized, "input")};
    d.result = {"out", TypeRule::in_set, dtypes::f32 | dtypes::i32 | dtypes::quantized, "x's shape, declared dtype"};
    d.traits = Trait::pure | Trait::elementwise | Trait::same_operands_and_result_shape;
    d.infer = infer::shape_only;
    d.indexing = indexing::first_elementwise;
    d.eval = eval::cast;
    d.fold_kernel = true;
    d.kernel = "fold::cast";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "Quantize";
    d.summary = "f32 to a quantized type with the declared zero offset and step.";
    d.description = "`q = zp + round_half_even(x / step)`, saturated; NaN gives zp.";
    d.operands = {data("x", dtypes::f32, "real values")};
    d.result = {"out", TypeRule::in_set, dtypes::quant_storage, "x's shape; declared dtype and quantization"};
    d.traits = Trait::pure | Trait::elementwise | Trait::same_operands_and_result_shape | Trait::quantized;
    d.infer = infer::shape_only;
    d.indexing = indexing::first_elementwise;
    d.eval = eval::quantize;
    d.fold_kernel = true;
    d.kernel = "fold::quantize";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "Dequantize";
    d.summary = "A quantized tensor to f32 through its own zero offset and step.";
    d.description = "`step * (q - zp)`, the difference exact, then converted to float.";
    d.operands = {data("x", dtypes::quantized, "quantized values")};
    d.result = {"out", TypeRule::in_set, dtypes::f32, "x's shape, f32"};
    d.traits = Trait::pure | Trait::elementwise | Trait::same_operands_and_result_shape | Trait::quantized;
    d.infer = infer::dequantize;
    d.indexing = indexing::first_elementwise;
    d.eval = eval::dequantize;
    d.fold_kernel = true;
    d.kernel = "fold::dequantize";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "Requantize";
    d.summary = "From one quantization to another (fixed-point multiplier and shift).";
    d.description =
        "`sat(out_zp + round_shift((x - in_zp) * multiplier, shift))` with multiplier / 2^shift "
        "approximating in_step / out_step (31-bit multiplier); ties round away from zero.";
    d.operands = {data("x", dtypes::quantized, "quantized values (qi32 accumulators too)")};
    d.result = {"out", TypeRule::in_set, dtypes::quantized, "x's shape; declared dtype and quantization"};
    d.traits = Trait::pure | Trait::elementwise | Trait::same_operands_and_result_shape | Trait::quantized;
    d.infer = infer::shape_only;
    d.indexing = indexing::first_elementwise;
    d.eval = eval::requantize;
    d.fold_kernel = true;
    d.kernel = "fold::requantize";
    t.add(std::move(d));
  }
  t.add(quantized_op("QuantizedAdd", "Sum of two quantized tensors, each with its own quantization.",
                     "`sat(out_zp + round_shift((a - a_zp) * a_mul + (b - b_zp) * b_mul, shift))`, multipliers "
                     "from a_step / out_step and b_step / out_step with one shared shift; numpy broadcasting.",
                     eval::quantized_binary<false>, "fold::qadd"));
  t.add(quantized_op("QuantizedMul", "Product of two quantized tensors, each with its own quantization.",
                     "`sat(out_zp + round_shift((a - a_zp) * (b - b_zp) * mul, shift))`, mul / 2^shift approximating "
                     "a_step * b_step / out_step; numpy broadcasting.",
                     eval::quantized_binary<true>, "fold::qmul"));
  // ---- layout ------------------------------------------------------------------------------
  {
    OpDefinition d;
    d.name = "Transpose";
    d.summary = "Permutes dimensions: out.dims[i] = x.dims[perm[i]].";
    d.description =
        "`perm` is an Int32 `$Const` with one entry per dimension of x (W1 uses shape [1,1,1,4]). "
        "Rank <= 4 runs the fold/ kernel; higher ranks ONNX Transpose's loop (onnx_eval.hpp).";
    d.operands = {data("x", dtypes::any, "input"), param("perm", dtypes::i32, "the permutation")};
    d.result = {"out", TypeRule::same_as_first, dtypes::any, "x's dtype and quantization, permuted shape"};
    d.traits = Trait::pure;
    d.infer = infer::transpose;
    d.indexing = indexing::transpose;
    d.eval = eval::transpose;
    d.fold_kernel = true;
    d.kernel = "fold::transpose";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "Reshape";
    d.summary = "Same row-major data, another shape.";
    d.description =
        "The new shape is the declared output's, or the optional `shape` operand's (a `$Shape` or an "
        "Int32 `$Const`); the element count must not change.";
    d.operands = {data("x", dtypes::any, "input"),
                  {"shape", Arity::optional, TypeRule::in_set, dtypes::i32, "the new shape", 0, true}};
    d.result = {"out", TypeRule::same_as_first, dtypes::any, "x's dtype and quantization, the new shape"};
    d.traits = Trait::pure;
    d.infer = infer::reshape;
    d.indexing = indexing::reshape;
    d.eval = eval::copy_same_bytes;
    d.kernel = "copy";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "Concat";
    d.summary = "Joins its parts along one dimension: Concat(parts...) or Concat(axis, parts...).";
    d.description =
        "With a leading `axis` (a one-element Int32 `$Const`, as AUTOSPLIT joins its parts) the "
        "parts are the other operands, joined along `axis`; that form is taken when operand 0 is such "
        "a constant and the rest, joined along it, give the declared shape. Otherwise every operand is "
        "a part and the dimension is the one along which they, joined, give the declared shape (the "
        "lowest such). The parts agree in every other dimension and share dtype and quantization.";
    d.operands = {{"parts", Arity::variadic, TypeRule::in_set, dtypes::any, "[axis,] the parts, in order", 1, false}};
    d.result = {"out", TypeRule::in_set, dtypes::any, "the joined shape, the parts' dtype and quantization"};
    d.traits = Trait::pure;
    d.infer = infer::concat;
    d.indexing = indexing::concat;
    d.eval = eval::concat;
    d.kernel = "ops::eval::concat (copies)";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "Slice_shape";
    d.summary = "The box [start, start + size) of its input (AUTOSPLIT_SLICE).";
    d.description =
        "`start` and `size` are `$Shape`s (or Int32 `$Const`s) with one entry per dimension of x; "
        "the output shape is `size` (WITH_SIZE sets it).";
    d.operands = {data("x", dtypes::any, "input"), param("start", dtypes::i32, "first index per dimension"),
                  param("size", dtypes::i32, "extent per dimension")};
    d.result = {"out", TypeRule::same_as_first, dtypes::any, "x's dtype and quantization, shape `size`"};
    d.traits = Trait::pure;
    d.infer = infer::slice;
    d.indexing = indexing::slice;
    d.eval = eval::slice;
    d.kernel = "ops::eval::slice (copies)";
    t.add(std::move(d));
  }
  // ---- convolution -------------------------------------------------------------------------
  {
    OpDefinition d;
    d.name = "Conv2d";
    d.summary = "2-d convolution, NHWC input, HWIO filter, stride 1, same padding.";
    d.description =
        "`out[n,h,w,co] = sum(kh, kw, ci) x[n, h+kh-ph, w+kw-pw, ci] * w[kh,kw,ci,co]` with "
        "ph = (KH-1)/2, pw = (KW-1)/2, zero padding, summed in kh, kw, ci order from +0. f32.";
    d.operands = {data("x", dtypes::f32, "input [N,H,W,Cin]"), same("w", "filter [KH,KW,Cin,Cout]")};
    d.result = {"out", TypeRule::same_as_first, dtypes::f32, "[N,H,W,Cout]"};
    d.traits = Trait::pure;
    d.infer = infer::conv2d;
    d.indexing = indexing::conv;
    d.eval = eval::conv2d;
    d.kernel = "ops::eval::conv2d_f32 (reference loop)";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "BiasAdd";
    d.summary = "Adds a bias broadcast over the input (per channel).";
    d.description = "`x + b` where b broadcasts to x's shape (typically [1,1,1,C]). f32.";
    d.operands = {data("x", dtypes::f32, "input"), same("b", "bias, broadcast to x")};
    d.result = {"out", TypeRule::same_as_first, dtypes::f32, "x's definition"};
    d.traits = Trait::pure | Trait::elementwise | Trait::broadcasting | Trait::same_operands_and_result_type;
    d.infer = infer::bias_add;
    d.indexing = indexing::broadcast_all;
    d.eval = eval::bias_add;
    d.fold_kernel = true;
    d.kernel = "fold::binary<add> (broadcast)";
    t.add(std::move(d));
  }
  {
    OpDefinition d;
    d.name = "ConvBiasRelu";
    d.summary = "Relu(BiasAdd(Conv2d(x, w), b)) as one op.";
    d.description =
        "Computes exactly the unfused chain (same sums, same bias add, same relu), so rule R5 of W1 "
        "keeps results bit for bit.";
    d.operands = {data("x", dtypes::f32, "input [N,H,W,Cin]"), same("w", "filter [KH,KW,Cin,Cout]"),
                  same("b", "bias, broadcast to the output")};
    d.result = {"out", TypeRule::same_as_first, dtypes::f32, "[N,H,W,Cout]"};
    d.traits = Trait::pure;
    d.infer = infer::conv_bias_relu;
    d.indexing = indexing::conv;
    d.eval = eval::conv_bias_relu;
    d.kernel = "ops::eval::conv2d_f32 + fold::binary<add> + fold::unary<relu>";
    t.add(std::move(d));
  }
}

}  // namespace detail

namespace detail {
/// Fills the definitions table on first use (ops/all_definitions.hpp, which holds the ONNX
/// table and its kernels: a file built with OPTGRAMMAR_SEPARATE_OP_DEFINITIONS does not read it).
inline Definitions& make_definitions();
}  // namespace detail

/// The definitions table with the builtin ops in it (added on first use).
///
/// With OPTGRAMMAR_SEPARATE_OP_DEFINITIONS defined for a whole program, this is only declared
/// here, and exactly one of its files includes <optgrammar/ops/definitions_impl.hpp>: the
/// kernels are then compiled once instead of in every file that verifies, folds or interprets
/// (docs/embedding.md, "Compile the kernels once").
#ifdef OPTGRAMMAR_SEPARATE_OP_DEFINITIONS
Definitions& definitions();
#else
inline Definitions& definitions() { return detail::make_definitions(); }
#endif

/// The definition an op name resolves to (docs/packages.md, "Op names"): a definition a package
/// added; else, unless a package registered an implementation of that name (DEF_PACKAGE_OP*: the
/// op is then the package's, not the built-in op of the same name), the built-in one; else none.
inline const OpDefinition* find_definition(OpNameId id) {
  const Definitions& d = definitions();
  const OpDefinition* def = d.find(id);
  if (def && d.is_builtin(id) && OpRegistry::instance().find(id)) return nullptr;
  return def;
}
inline const OpDefinition* find_definition(std::string_view name) {
  definitions();  // the built-in names are interned
  auto id = OpNames::instance().find(name);
  return id ? find_definition(*id) : nullptr;
}
/// The project's own definition of a name, whether or not a package took the name over.
inline const OpDefinition* builtin_definition(OpNameId id) {
  const Definitions& d = definitions();
  return d.is_builtin(id) ? d.find(id) : nullptr;
}

/// What the program knows of one op name: its definition and its package registration
/// (DEF_PACKAGE_OP*: implementation, cost, flags; the defaults when none).
struct OpInfo {
  const OpDefinition* definition = nullptr;
  const OpImplInfo* registration = nullptr;
  Cost cost = Cost::FAST;
  std::uint32_t flags = Flags::IS_CONST;
};

inline OpInfo op_info(OpNameId id) {
  OpInfo i;
  i.definition = find_definition(id);
  i.registration = OpRegistry::instance().find(id);
  if (i.registration) {
    i.cost = i.registration->cost;
    i.flags = i.registration->flags;
  }
  return i;
}
inline OpInfo op_info(std::string_view name) { return op_info(intern_op_name(name)); }

}  // namespace optgrammar::ops

#ifndef OPTGRAMMAR_SEPARATE_OP_DEFINITIONS
#include "optgrammar/ops/all_definitions.hpp"
#endif
