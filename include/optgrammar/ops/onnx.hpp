// The imported ONNX ops: one table entry per ONNX op type the importer claims, named
// `onnx.<OpType>` in the graph, with ONNX's semantics (opset <= 17). The table is the single
// source for the importer (which attributes to read, their defaults, which inputs may be absent)
// and for these ops' definitions (verification, interpretation, docs/ops.md).
//
// Operands of every onnx op: first its attributes, as constants in the order the entry lists
// them (an absent attribute takes its default; an absent list attribute is an empty constant,
// which the op reads as ONNX's default), then the ONNX inputs in ONNX order (an absent optional
// input is a constant with no elements). Integer attributes are Int32, float attributes
// Float32, string attributes an Int32 index into the entry's choices.
#pragma once

#include "optgrammar/ops/definition.hpp"
#include "optgrammar/ops/onnx_eval.hpp"
#include "optgrammar/ops/onnx_eval_norm.hpp"
#include "optgrammar/ops/onnx_eval_quant.hpp"
#include "optgrammar/ops/onnx_eval_rnn.hpp"
#include "optgrammar/ops/onnx_eval_signal.hpp"
#include "optgrammar/ops/onnx_eval_tensor.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar::ops::onnx {

/// How an attribute becomes a constant operand.
enum class AttrKind : std::uint8_t {
  integer,   ///< Int32 scalar
  real,      ///< Float32 scalar
  integers,  ///< Int32 [n]
  reals,     ///< Float32 [n]
  choice,    ///< a string from `choices`: its index, an Int32 scalar
  choices,   ///< a list of strings from `choices`: their indices, Int32 [n]
  text,      ///< a free string: its bytes, UInt8 [n]
  tensor,    ///< a tensor: a constant of its dtype and shape
};

struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  double default_value = 0;    ///< integer, real, choice (index); unused for lists
  std::string_view choices{};  ///< choice(s): the allowed strings, comma-separated, default first in index order
  bool required = false;
  /// No default: an absent attribute is an empty constant (Compress's axis: the flattened input).
  bool optional = false;
};

struct InputSpec {
  std::string_view name;
  bool optional = false;
  bool variadic = false;    ///< the rest of the inputs (at least one)
  DTypeSet types{};         ///< the dtypes it takes; empty: the op's (OpSpec::types)
  bool like_first = false;  ///< of the first input's dtype (ONNX's type variable T shared with it)
};

/// An eval routine with the number of attribute operands it reads first, and the check of what
/// it relies on that the verifier runs (none for most ops).
struct Kernel {
  EvalFn eval = nullptr;
  std::size_t attrs = 0;
  InferFn check = nullptr;
};

template <bool (*K)(const OpView&, std::span<std::byte>, std::size_t), std::size_t NA>
bool run_kernel(const OpView& v, std::span<std::byte> out, Backend) {
  if (v.operands.size() < NA || !v.declared) return false;
  return K(v, out, NA);
}
template <bool (*K)(const OpView&, std::span<std::byte>, std::size_t), std::size_t NA>
constexpr Kernel kernel() {
  return {&run_kernel<K, NA>, NA};
}
template <Inferred (*C)(const OpView&, std::size_t), std::size_t NA>
Inferred run_check(const OpView& v) {
  if (v.operands.size() < NA || !v.declared) return {};  // the operand count is the verifier's
  return C(v, NA);
}
/// An eval routine and its check, reading the same NA attribute operands.
template <bool (*K)(const OpView&, std::span<std::byte>, std::size_t), std::size_t NA,
          Inferred (*C)(const OpView&, std::size_t)>
constexpr Kernel kernel() {
  return {&run_kernel<K, NA>, NA, &run_check<C, NA>};
}

struct OpSpec {
  std::string_view type;  ///< the ONNX op type
  std::string_view summary;
  std::vector<InputSpec> inputs;
  std::vector<AttrSpec> attrs;
  Kernel kernel;
  /// Which dtypes it computes on (floats only for transcendental functions).
  DTypeSet types = dtypes::any;
  /// The first opset whose version of the op this entry implements.
  int since = 1;
  /// The outputs of an op with more than one (a last name ending in "..." stands for any number):
  /// each used output is an op of its own, which reads the index of the output it computes as
  /// one more attribute operand, `output`, after the others. Empty: one output.
  std::vector<std::string_view> outputs{};

  bool multi_output() const { return !outputs.empty(); }
  /// Attribute operands: the attributes, and `output` for a multi-output op.
  std::size_t attr_operands() const { return attrs.size() + (multi_output() ? 1 : 0); }
};

/// The graph op name of an ONNX op type: "onnx.Conv".
inline std::string op_name(std::string_view type) { return std::string("onnx.") + std::string(type); }

// ---- scalar functions -----------------------------------------------------------------------

namespace fn {
using A = const std::vector<double>&;
inline double abs(double x, A) { return std::fabs(x); }
inline double neg(double x, A) { return -x; }
inline double exp(double x, A) { return std::exp(x); }
inline double log(double x, A) { return std::log(x); }
inline double sqrt(double x, A) { return std::sqrt(x); }
inline double tanh(double x, A) { return std::tanh(x); }
inline double sin(double x, A) { return std::sin(x); }
inline double cos(double x, A) { return std::cos(x); }
inline double tan(double x, A) { return std::tan(x); }
inline double asin(double x, A) { return std::asin(x); }
inline double acos(double x, A) { return std::acos(x); }
inline double atan(double x, A) { return std::atan(x); }
inline double sinh(double x, A) { return std::sinh(x); }
inline double cosh(double x, A) { return std::cosh(x); }
inline double asinh(double x, A) { return std::asinh(x); }
inline double acosh(double x, A) { return std::acosh(x); }
inline double atanh(double x, A) { return std::atanh(x); }
inline double ceil(double x, A) { return std::ceil(x); }
inline double floor(double x, A) { return std::floor(x); }
inline double round(double x, A) { return std::nearbyint(x); }  // halves to even
inline double reciprocal(double x, A) { return 1.0 / x; }
inline double sigmoid(double x, A) { return 1.0 / (1.0 + std::exp(-x)); }
inline double softplus(double x, A) { return std::log1p(std::exp(x)); }
inline double softsign(double x, A) { return x / (1.0 + std::fabs(x)); }
inline double sign(double x, A) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }
inline double erf(double x, A) { return std::erf(x); }
inline double relu(double x, A) { return x > 0 ? x : 0.0; }
inline double identity(double x, A) { return x; }
inline double elu(double x, A a) { return x >= 0 ? x : a[0] * (std::exp(x) - 1.0); }
inline double celu(double x, A a) { return std::max(0.0, x) + std::min(0.0, a[0] * (std::exp(x / a[0]) - 1.0)); }
inline double selu(double x, A a) { return a[1] * (x > 0 ? x : a[0] * (std::exp(x) - 1.0)); }
inline double leaky_relu(double x, A a) { return x >= 0 ? x : a[0] * x; }
inline double thresholded_relu(double x, A a) { return x > a[0] ? x : 0.0; }
inline double hard_sigmoid(double x, A a) { return std::clamp(a[0] * x + a[1], 0.0, 1.0); }
inline double hard_swish(double x, A) { return x * std::clamp(x / 6.0 + 0.5, 0.0, 1.0); }
inline double shrink(double x, A a) { return x < -a[1] ? x + a[0] : x > a[1] ? x - a[0] : 0.0; }

inline double add(double a, double b, bool) { return a + b; }
inline double sub(double a, double b, bool) { return a - b; }
inline double mul(double a, double b, bool) { return a * b; }
inline double div(double a, double b, bool integer) {
  if (integer) return b == 0 ? 0.0 : std::trunc(a / b);
  return a / b;
}
inline double pow(double a, double b, bool) { return std::pow(a, b); }
inline double max(double a, double b, bool) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
inline double min(double a, double b, bool) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }
inline double prelu(double a, double b, bool) { return a < 0 ? a * b : a; }
inline double equal(double a, double b, bool) { return a == b; }
inline double less(double a, double b, bool) { return a < b; }
inline double greater(double a, double b, bool) { return a > b; }
inline double less_equal(double a, double b, bool) { return a <= b; }
inline double greater_equal(double a, double b, bool) { return a >= b; }
inline double logical_and(double a, double b, bool) { return a != 0 && b != 0; }
inline double logical_or(double a, double b, bool) { return a != 0 || b != 0; }
inline double logical_xor(double a, double b, bool) { return (a != 0) != (b != 0); }
inline double logical_not(double x, A) { return x == 0; }
inline double is_nan(double x, A) { return std::isnan(x); }
inline double is_inf(double x, A a) { return std::isinf(x) && ((x < 0 && a[0] != 0) || (x > 0 && a[1] != 0)); }
}  // namespace fn

/// The integer versions (exact, 64-bit, wrapping), used when every input is an integer or bool.
namespace ifn {
using I = std::int64_t;
using U = std::uint64_t;
inline I add(I a, I b) { return static_cast<I>(static_cast<U>(a) + static_cast<U>(b)); }
inline I sub(I a, I b) { return static_cast<I>(static_cast<U>(a) - static_cast<U>(b)); }
inline I mul(I a, I b) { return static_cast<I>(static_cast<U>(a) * static_cast<U>(b)); }
inline I div(I a, I b) { return b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b; }
inline I max(I a, I b) { return std::max(a, b); }
inline I min(I a, I b) { return std::min(a, b); }
inline I equal(I a, I b) { return a == b; }
inline I less(I a, I b) { return a < b; }
inline I greater(I a, I b) { return a > b; }
inline I less_equal(I a, I b) { return a <= b; }
inline I greater_equal(I a, I b) { return a >= b; }
inline I logical_and(I a, I b) { return a != 0 && b != 0; }
inline I logical_or(I a, I b) { return a != 0 || b != 0; }
inline I logical_xor(I a, I b) { return (a != 0) != (b != 0); }
}  // namespace ifn

// ---- preconditions the verifier checks ------------------------------------------------------
//
// What the reference evaluation relies on and refuses otherwise, checked on the operands'
// definitions (and constant attributes) so that `verify_ops` (og-opt --verify-ops) reports a
// graph the interpreter cannot run: an Inferred whose `error` names the fault (shape, dtype and
// quantization are left to the declared definition).

namespace checks {
using onnx_eval::Args;

using infer::shape_string;
inline std::string list_string(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += cat(i ? "," : "", v[i]);
  return s + "]";
}
inline Inferred fail(std::string e) {
  Inferred r;
  r.error = std::move(e);
  return r;
}

/// kernel_shape, when given, names the weight's spatial dims.
inline std::string kernel_shape_problem(const Args& a, std::size_t attr, const OutputDef& w) {
  const auto k = a.attr_ints(attr);
  if (k.empty()) return {};
  bool same = k.size() + 2 == w.rank;
  for (std::size_t i = 0; same && i < k.size(); ++i)
    same = k[i] >= 0 && static_cast<std::size_t>(k[i]) == w.dims[i + 2];
  if (same) return {};
  return cat("kernel_shape ", list_string(k), " disagrees with the weight W ", shape_string(w));
}

/// Conv (transposed: ConvTranspose) of X [N, C, ...] with W [M, C/group, k...] ([C, M/group, k...]),
/// bias B of M elements.
template <bool Transposed>
inline Inferred conv(const OpView& v, std::size_t na) {
  constexpr std::size_t kernel_attr = 3;
  if (v.operands.size() < na + 2) return {};
  const Args a{v, na};
  const OutputDef &x = *a.in(0).def, &w = *a.in(1).def;
  if (x.rank < 3)
    return fail(cat("input X ", shape_string(x), " has rank ", x.rank, ", a convolution needs at least 3"));
  if (w.rank != x.rank) return fail(cat("weight W ", shape_string(w), " has rank ", w.rank, ", input X has ", x.rank));
  const std::int64_t group = a.attr_int(2);
  if (group < 1) return fail(cat("group ", group, " is below 1"));
  const std::size_t g = static_cast<std::size_t>(group), C = x.dims[1];
  if (C % g) return fail(cat("input X has ", C, " channels, not a multiple of group ", g));
  std::size_t M = 0;
  if (Transposed) {
    if (w.dims[0] != C)
      return fail(cat("weight W ", shape_string(w), " has ", w.dims[0], " input channels, input X has ", C));
    M = w.dims[1] * g;
  } else {
    M = w.dims[0];
    if (w.dims[1] * g != C)
      return fail(cat("weight W ", shape_string(w), " takes ", w.dims[1], " channels per group, input X has ", C,
                      " in ", g, " groups"));
    if (M % g) return fail(cat("weight W has ", M, " output channels, not a multiple of group ", g));
  }
  if (auto p = kernel_shape_problem(a, kernel_attr, w); !p.empty()) return fail(p);
  if (a.present(2) && a.in(2).def->element_count() != M)
    return fail(cat("bias B ", shape_string(*a.in(2).def), " has ", a.in(2).def->element_count(),
                    " elements, the weight gives ", M, " output channels"));
  const OutputDef& o = *v.declared;
  if (o.rank != x.rank || o.dims[0] != x.dims[0] || o.dims[1] != M)
    return fail(cat("output ", shape_string(o), " is not [", x.dims[0], ",", M, ",...] of rank ", x.rank));
  return {};
}

/// Gemm: A and B of rank 2 agreeing in K, C broadcasting to [M, N], an output of M x N.
inline Inferred gemm(const OpView& v, std::size_t na) {
  if (v.operands.size() < na + 2) return {};
  const Args a{v, na};
  const OutputDef &A = *a.in(0).def, &B = *a.in(1).def;
  if (A.rank != 2 || B.rank != 2)
    return fail(cat("A ", shape_string(A), " and B ", shape_string(B), " must have rank 2"));
  const bool ta = a.attr_int(2) != 0, tb = a.attr_int(3) != 0;
  const std::size_t M = ta ? A.dims[1] : A.dims[0], K = ta ? A.dims[0] : A.dims[1];
  const std::size_t N = tb ? B.dims[0] : B.dims[1], KB = tb ? B.dims[1] : B.dims[0];
  if (K != KB) return fail(cat("A ", shape_string(A), " gives K = ", K, ", B ", shape_string(B), " gives ", KB));
  if (a.present(2)) {
    const OutputDef& c = *a.in(2).def;
    const std::size_t mn[2] = {M, N};
    bool ok = c.rank <= 2;
    for (std::uint32_t i = 0; ok && i < c.rank; ++i) {
      const std::size_t want = mn[2 - c.rank + i];
      ok = c.dims[i] == 1 || c.dims[i] == want;
    }
    if (!ok) return fail(cat("C ", shape_string(c), " does not broadcast to [", M, ",", N, "]"));
  }
  if (v.declared->element_count() != M * N)
    return fail(cat("output ", shape_string(*v.declared), " is not ", M, " x ", N));
  return {};
}

/// BatchNormalization (inference): X of rank >= 2, scale, B, mean and var vectors of C elements each.
inline Inferred batch_norm(const OpView& v, std::size_t na) {
  if (v.operands.size() < na + 5) return {};
  const Args a{v, na};
  if (a.attr_int(2) != 0) return fail("training_mode is set: only inference is evaluated");
  const OutputDef& x = *a.in(0).def;
  if (x.rank < 2) return fail(cat("input X ", shape_string(x), " has rank ", x.rank, ", at least 2 needed"));
  constexpr const char* names[] = {"scale", "B", "input_mean", "input_var"};
  for (std::size_t k = 1; k < 5; ++k)
    if (a.in(k).def->rank != 1 || a.in(k).def->dims[0] != x.dims[1])
      return fail(cat(names[k - 1], " ", shape_string(*a.in(k).def), " is not a vector of the ", x.dims[1],
                      " channels of input X"));
  if (!v.declared->same_shape(x))
    return fail(cat("output ", shape_string(*v.declared), " is not X's shape ", shape_string(x)));
  return {};
}

/// Concat: axis within the output's rank; every input of the output's dtype and rank, equal to it
/// but along axis, where their sizes add up to the output's.
inline Inferred concat(const OpView& v, std::size_t na) {
  if (v.operands.size() < na + 1) return {};
  const Args a{v, na};
  const OutputDef& o = *v.declared;
  const std::int64_t axis = a.attr_int(0);
  const auto ax = onnx_eval::axis_of(axis, o.rank);
  if (!ax) return fail(cat("axis ", axis, " is outside the output's rank ", o.rank));
  std::size_t total = 0;
  for (std::size_t k = 0; k < a.n_inputs(); ++k) {
    const OutputDef& d = *a.in(k).def;
    bool ok = d.dtype == o.dtype && d.rank == o.rank;
    for (std::uint32_t i = 0; ok && i < o.rank; ++i) ok = i == *ax || d.dims[i] == o.dims[i];
    if (!ok)
      return fail(
          cat("input ", k, " ", shape_string(d), " does not fit output ", shape_string(o), " along axis ", *ax));
    total += d.dims[*ax];
  }
  if (total != o.dims[*ax])
    return fail(cat("the inputs add up to ", total, " along axis ", *ax, ", the output has ", o.dims[*ax]));
  return {};
}

/// Gather: axis within data's rank; constant indices within [-n, n) for n = data's size there;
/// the output data's dims before axis, indices' dims, data's dims after axis.
inline Inferred gather(const OpView& v, std::size_t na) {
  if (v.operands.size() < na + 2) return {};
  const Args a{v, na};
  const OutputDef& x = *a.in(0).def;
  const std::int64_t axis = a.attr_int(0);
  const auto ax = onnx_eval::axis_of(axis, x.rank);
  if (!ax) return fail(cat("axis ", axis, " is outside data's rank ", x.rank));
  const OutputDef& idx = *a.in(1).def;
  onnx_eval::Dims want(x.dims.begin(), x.dims.begin() + *ax);
  want.insert(want.end(), idx.dims.begin(), idx.dims.begin() + idx.rank);
  want.insert(want.end(), x.dims.begin() + *ax + 1, x.dims.begin() + x.rank);
  if (want != onnx_eval::dims_of(*v.declared))
    return fail(cat("output ", shape_string(*v.declared), " is not data's dims around indices' ", shape_string(idx)));
  if (a.in(1).known && a.in(1).data.size() == a.in(1).def->byte_size()) {
    const auto n = static_cast<std::int64_t>(x.dims[*ax]);
    for (std::int64_t i : a.input_ints(1))
      if (i < -n || i >= n) return fail(cat("index ", i, " is outside [", -n, ", ", n, ") along axis ", *ax));
  }
  return {};
}

/// Resize: scales and sizes, when given (not empty), vectors with an element per dim of X.
inline Inferred resize(const OpView& v, std::size_t na) {
  if (v.operands.size() < na + 4) return {};
  const Args a{v, na};
  const OutputDef& x = *a.in(0).def;
  constexpr const char* names[] = {"scales", "sizes"};
  for (std::size_t k = 2; k < 4; ++k) {
    const OutputDef& d = *a.in(k).def;
    if (d.element_count() != 0 && (d.rank != 1 || d.dims[0] != x.rank))
      return fail(
          cat(names[k - 2], " ", shape_string(d), " is not a vector of an element per dim of X ", shape_string(x)));
  }
  return {};
}

}  // namespace checks

// ---- the table ------------------------------------------------------------------------------

namespace detail {
namespace e = onnx_eval;
inline AttrSpec i(std::string_view n, double d = 0) { return {n, AttrKind::integer, d, {}, false}; }
inline AttrSpec ir(std::string_view n) { return {n, AttrKind::integer, 0, {}, true}; }
inline AttrSpec f(std::string_view n, double d) { return {n, AttrKind::real, d, {}, false}; }
inline AttrSpec is(std::string_view n) { return {n, AttrKind::integers, 0, {}, false}; }
inline AttrSpec fs(std::string_view n) { return {n, AttrKind::reals, 0, {}, false}; }
inline AttrSpec ch(std::string_view n, std::string_view choices) { return {n, AttrKind::choice, 0, choices, false}; }
/// A required choice (BitShift's direction).
inline AttrSpec chr(std::string_view n, std::string_view choices) { return {n, AttrKind::choice, 0, choices, true}; }
/// An integer attribute without a default: absent, an empty constant.
inline AttrSpec iopt(std::string_view n) { return {n, AttrKind::integer, 0, {}, false, true}; }
/// A float attribute without a default: absent, an empty constant.
inline AttrSpec fopt(std::string_view n) { return {n, AttrKind::real, 0, {}, false, true}; }
inline AttrSpec txt(std::string_view n) { return {n, AttrKind::text, 0, {}, true}; }
inline AttrSpec tensor(std::string_view n) { return {n, AttrKind::tensor, 0, {}, false}; }
inline AttrSpec chs(std::string_view n, std::string_view choices) { return {n, AttrKind::choices, 0, choices, false}; }
inline InputSpec in(std::string_view n) { return {n, false, false}; }
/// An input of its own dtypes (MaxUnpool's Int64 positions beside data of any type).
inline InputSpec in(std::string_view n, DTypeSet t) { return {n, false, false, t}; }
inline InputSpec opt(std::string_view n) { return {n, true, false}; }
/// An optional input of its own dtypes (Resize's integer sizes beside float data).
inline InputSpec opt(std::string_view n, DTypeSet t) { return {n, true, false, t}; }
inline InputSpec var(std::string_view n) { return {n, false, true}; }
/// An input of the first input's dtype (Clip's bounds, LayerNormalization's Scale).
inline InputSpec like_in(std::string_view n) { return {n, false, false, {}, true}; }
/// An optional input of the first input's dtype (Pad's constant_value).
inline InputSpec like(std::string_view n) { return {n, true, false, {}, true}; }
/// ONNX's index type Tind: Int32 or Int64 (Slice's starts, Gather's indices).
inline constexpr DTypeSet index = of(DType::Int32, DType::Int64);
inline constexpr std::string_view auto_pad = "NOTSET,SAME_UPPER,SAME_LOWER,VALID";

/// Comparisons, logic, Where and the ops of onnx_eval_tensor.hpp.
inline void add_tensor_ops(std::vector<OpSpec>& t) {
  auto op = [&](std::string_view type, std::string_view summary, std::vector<InputSpec> inputs,
                std::vector<AttrSpec> attrs, Kernel k, DTypeSet types = dtypes::any, int since = 1,
                std::vector<std::string_view> outputs = {}) {
    t.push_back({type, summary, std::move(inputs), std::move(attrs), k, types, since, std::move(outputs)});
  };
  // comparison and logic: Bool results
  op("Equal", "a == b, a Bool", {in("A"), in("B")}, {}, kernel<e::nary<fn::equal, false, ifn::equal>, 0>());
  op("Less", "a < b, a Bool", {in("A"), in("B")}, {}, kernel<e::nary<fn::less, false, ifn::less>, 0>());
  op("Greater", "a > b, a Bool", {in("A"), in("B")}, {}, kernel<e::nary<fn::greater, false, ifn::greater>, 0>());
  op("LessOrEqual", "a <= b, a Bool", {in("A"), in("B")}, {},
     kernel<e::nary<fn::less_equal, false, ifn::less_equal>, 0>());
  op("GreaterOrEqual", "a >= b, a Bool", {in("A"), in("B")}, {},
     kernel<e::nary<fn::greater_equal, false, ifn::greater_equal>, 0>());
  op("And", "a and b", {in("A"), in("B")}, {}, kernel<e::nary<fn::logical_and, false, ifn::logical_and>, 0>(),
     dtypes::boolean);
  op("Or", "a or b", {in("A"), in("B")}, {}, kernel<e::nary<fn::logical_or, false, ifn::logical_or>, 0>(),
     dtypes::boolean);
  op("Xor", "a xor b", {in("A"), in("B")}, {}, kernel<e::nary<fn::logical_xor, false, ifn::logical_xor>, 0>(),
     dtypes::boolean);
  op("Not", "not x", {in("X")}, {}, kernel<e::unary<fn::logical_not>, 0>(), dtypes::boolean);
  op("IsNaN", "whether x is NaN, a Bool", {in("X")}, {}, kernel<e::unary<fn::is_nan>, 0>(), dtypes::floats);
  op("IsInf", "whether x is -inf (detect_negative) or +inf (detect_positive), a Bool", {in("X")},
     {i("detect_negative", 1), i("detect_positive", 1)}, kernel<e::unary<fn::is_inf>, 2>(), dtypes::floats);
  op("Where", "X where condition holds, else Y (all three broadcast)", {in("condition"), in("X"), in("Y")}, {},
     kernel<e::where, 0>());
  op("Mod",
     "a mod b: with fmod 0 the remainder takes the divisor's sign (integers), with fmod 1 the dividend's (C's fmod); "
     "integers exact, a zero divisor gives 0",
     {in("A"), in("B")}, {i("fmod")}, kernel<e::mod, 1>());
  op("BitShift",
     "x shifted left (direction LEFT) or right (RIGHT) by y bits, unsigned; shifts by the width or more give 0",
     {in("X"), in("Y")}, {chr("direction", "LEFT,RIGHT")}, kernel<e::bit_shift, 1>(), dtypes::integers, 11);
  op("CastLike", "input converted to target_type's dtype (as Cast)", {in("input"), in("target_type")}, {},
     kernel<e::same_elements, 0>(), dtypes::any, 15);
  // generators
  op("ConstantOfShape", "the output's shape filled with value (a one-element tensor; absent: float 0)", {in("input")},
     {tensor("value")}, kernel<e::constant_of_shape, 1>(), dtypes::any, 9);
  op("Range",
     "start + i * delta for i below max(ceil((limit - start) / delta), 0) (integers exact; floats accumulated "
     "step by step in the output's precision)",
     {in("start"), in("limit"), in("delta")}, {}, kernel<e::range, 0>(), dtypes::any, 11);
  op("EyeLike", "ones on the k-th diagonal of a 2-d output of input's shape, zeros elsewhere (dtype: the output's)",
     {in("input")}, {iopt("dtype"), i("k")}, kernel<e::eye_like, 2>(), dtypes::any, 9);
  op("Size", "the element count of data, an Int64 scalar", {in("data")}, {}, kernel<e::size, 0>());
  op("OneHot",
     "a new axis of length depth: values[1] where it equals the index (negative indices counted from depth), "
     "values[0] elsewhere",
     {in("indices"), in("depth"), in("values")}, {i("axis", -1)}, kernel<e::one_hot, 1>(), dtypes::any, 9);
  // triangles, scans, sorting
  op("Trilu", "the upper (upper 1: j - i >= k) or lower (j - i <= k) triangle of the last two dims, zeros elsewhere",
     {in("input"), opt("k")}, {i("upper", 1)}, kernel<e::trilu, 1>(), dtypes::any, 14);
  op("CumSum", "running sums along axis (exclusive: without the element itself; reverse: from the end)",
     {in("x"), in("axis")}, {i("exclusive"), i("reverse")}, kernel<e::cum_sum, 2>(), dtypes::any, 11);
  op("ArgMax",
     "the Int64 position of the maximum along axis (the first, or with select_last_index the last, of equal ones)",
     {in("data")}, {i("axis"), i("keepdims", 1), i("select_last_index")}, kernel<e::arg_extreme<true>, 3>());
  op("ArgMin",
     "the Int64 position of the minimum along axis (the first, or with select_last_index the last, of equal ones)",
     {in("data")}, {i("axis"), i("keepdims", 1), i("select_last_index")}, kernel<e::arg_extreme<false>, 3>());
  op("TopK",
     "output 0 (Values): the K largest (largest 0: smallest) along axis, in order; output 1 (Indices): their Int64 "
     "positions; equal values keep their order (K: the attribute k in opset 1)",
     {in("X"), opt("K", dtypes::i64)}, {i("axis", -1), iopt("k"), i("largest", 1), i("sorted", 1)},
     kernel<e::top_k, 5>(), dtypes::any, 1, {"Values", "Indices"});
  // gather and scatter
  op("GatherElements", "out[i] = data[i with its axis coordinate replaced by indices[i]]", {in("data"), in("indices")},
     {i("axis")}, kernel<e::gather_elements, 1>(), dtypes::any, 11);
  op("GatherND", "the slices of data at the index tuples in indices' last dim, after batch_dims shared leading dims",
     {in("data"), in("indices")}, {i("batch_dims")}, kernel<e::gather_nd, 1>(), dtypes::any, 11);
  op("ScatterElements",
     "data with updates[i] written at i with its axis coordinate replaced by indices[i] (reduction: "
     "none writes, add and mul combine)",
     {in("data"), in("indices"), in("updates")}, {i("axis"), ch("reduction", "none,add,mul,max,min")},
     kernel<e::scatter_elements<true>, 2>(), dtypes::any, 11);
  op("Scatter", "ScatterElements without reduction (opsets 9 and 10)", {in("data"), in("indices"), in("updates")},
     {i("axis")}, kernel<e::scatter_elements<false>, 1>(), dtypes::any, 9);
  op("ScatterND",
     "data with the slices of updates written (reduction add, mul: combined) at the index tuples in indices' "
     "last dim",
     {in("data"), in("indices"), in("updates")}, {ch("reduction", "none,add,mul,max,min")}, kernel<e::scatter_nd, 1>(),
     dtypes::any, 11);
  // data-dependent selections (their shapes come from the model: other data is an error)
  op("Compress", "the slices along axis (without axis: the elements of the flattened input) whose condition is true",
     {in("input"), in("condition")}, {iopt("axis")}, kernel<e::compress, 1>(), dtypes::any, 9);
  op("NonZero", "Int64 [rank, n]: the coordinates of the n non-zero elements in row-major order", {in("X")}, {},
     kernel<e::non_zero, 0>(), dtypes::any, 9);
  op("Unique",
     "output 0 (Y): the distinct elements (slices along axis when given), ascending (sorted 1) or in order of "
     "first appearance; 1 (indices): where each first appears; 2 (inverse_indices): each input element's entry in Y; "
     "3 (counts): how often each appears (Int64)",
     {in("X")}, {iopt("axis"), i("sorted", 1)}, kernel<e::unique, 3>(), dtypes::any, 11,
     {"Y", "indices", "inverse_indices", "counts"});
  op("ReverseSequence", "per batch entry b, its first sequence_lens[b] steps along time_axis reversed",
     {in("input"), in("sequence_lens")}, {i("batch_axis", 1), i("time_axis")}, kernel<e::reverse_sequence, 2>(),
     dtypes::any, 10);
  // padding, splitting, rearranging
  op("Pad",
     "each axis grown by pads[k] before and pads[rank + k] after (negative: cropped); new elements are "
     "constant_value (mode constant), the nearest edge element (edge) or the mirror image without the edge (reflect); "
     "pads and value are attributes before opset 11",
     {in("data"), opt("pads", dtypes::i64), like("constant_value")},
     {ch("mode", "constant,reflect,edge"), is("pads"), f("value", 0.0)}, kernel<e::pad, 3>(), dtypes::any, 2);
  op("Split",
     "output k: the k-th part along axis; the parts' lengths are split (an attribute before opset 13), else equal",
     {in("input"), opt("split", dtypes::i64)}, {i("axis"), is("split")}, kernel<e::split, 3>(), dtypes::any, 2,
     {"outputs..."});
  op("DepthToSpace",
     "NCHW: channel blocks of blocksize^2 moved into spatial blocks (mode DCR: depth, column, row; CRD: "
     "column, row, depth)",
     {in("input")}, {ir("blocksize"), ch("mode", "DCR,CRD")}, kernel<e::depth_space<true>, 2>());
  op("SpaceToDepth", "NCHW: blocksize x blocksize spatial blocks moved into channels (DepthToSpace DCR's inverse)",
     {in("input")}, {ir("blocksize")}, kernel<e::depth_space<false>, 1>());
  op("Upsample",
     "per axis, output coordinate o reads input o / scale: nearest (floor) or linear (between the two "
     "neighbours, the last one edge-clamped); scales an input from opset 9, an attribute in 7 and 8",
     {in("X"), opt("scales", dtypes::floats)}, {ch("mode", "nearest,linear,bilinear"), fs("scales")},
     kernel<e::upsample, 2>(), dtypes::any, 7);
  op("MaxUnpool",
     "zeros of the output's shape with X's elements put at the flat output positions I names (as ONNX "
     "Runtime and PyTorch take them, also for a larger output_shape)",
     {in("X"), in("I", dtypes::i64), opt("output_shape", dtypes::i64)}, {is("kernel_shape"), is("pads"), is("strides")},
     kernel<e::max_unpool, 3>(), dtypes::any, 9);
  op("Einsum",
     "Einstein summation over the labels of equation (its bytes: a UInt8 constant); without \"->\" the output "
     "takes the labels used once, alphabetically, after any ellipsis dims",
     {var("Inputs")}, {txt("equation")}, kernel<e::einsum, 1>(), dtypes::any, 12);
  op("Det", "the determinants of the square matrices in X's last two dims", {in("X")}, {}, kernel<e::det, 0>(),
     dtypes::floats, 11);
}

/// The normalizations, Lp pools (onnx_eval.hpp's pools), Dropout and the losses (onnx_eval_norm.hpp), and the
/// quantization ops (onnx_eval_quant.hpp).
inline void add_norm_and_quant_ops(std::vector<OpSpec>& t) {
  auto op = [&](std::string_view type, std::string_view summary, std::vector<InputSpec> inputs,
                std::vector<AttrSpec> attrs, Kernel k, DTypeSet types = dtypes::any, int since = 1,
                std::vector<std::string_view> outputs = {}) {
    t.push_back({type, summary, std::move(inputs), std::move(attrs), k, types, since, std::move(outputs)});
  };
  const std::vector<AttrSpec> conv_attrs = {ch("auto_pad", auto_pad), is("dilations"), i("group", 1),
                                            is("kernel_shape"),       is("pads"),      is("strides")};
  op("LayerNormalization",
     "over the dims from axis on, (x - mean) / sqrt(var + epsilon) * Scale + B (Scale and B "
     "broadcast over those dims); output 1 (Mean): the means, 2 (InvStdDev): 1 / sqrt(var + epsilon), both of X's "
     "shape "
     "with the normalized dims 1; computed in double",
     {in("X"), like_in("Scale"), like("B")}, {i("axis", -1), f("epsilon", 1e-5), i("stash_type", 1)},
     kernel<e::layer_norm, 4>(), dtypes::floats, 17, {"Y", "Mean", "InvStdDev"});
  op("InstanceNormalization", "per (n, c) over the spatial dims, (x - mean) / sqrt(var + epsilon) * scale[c] + B[c]",
     {in("input"), like_in("scale"), like_in("B")}, {f("epsilon", 1e-5)}, kernel<e::instance_norm, 1>(),
     dtypes::floats);
  op("LRN",
     "x / (bias + alpha / size * the sum of x^2 over channels c - floor((size-1)/2) .. c + ceil((size-1)/2))^beta",
     {in("X")}, {f("alpha", 1e-4), f("beta", 0.75), f("bias", 1.0), ir("size")}, kernel<e::lrn, 4>(), dtypes::floats);
  op("MeanVarianceNormalization",
     "(x - mean) / (sqrt(var) + 1e-9) over axes (default [0, 2, 3]), as ONNX's function of it", {in("X")}, {is("axes")},
     kernel<e::mean_variance_norm, 1>(), dtypes::floats, 9);
  op("LpNormalization", "x divided by the p-norm (p 1 or 2) of its line along axis (a zero norm gives 0)",
     {in("input")}, {i("axis", -1), i("p", 2)}, kernel<e::lp_norm, 2>(), dtypes::floats);
  op("LpPool", "N-d window (sum of |x|^p)^(1/p), padding adding nothing", {in("X")},
     {ch("auto_pad", auto_pad), is("kernel_shape"), i("p", 2), is("pads"), is("strides")},
     kernel<e::pool<e::Pool::lp>, 5>(), dtypes::floats, 2);
  op("GlobalLpPool", "(sum of |x|^p over the spatial dims)^(1/p) per (n, c)", {in("X")}, {i("p", 2)},
     kernel<e::global_pool<e::Pool::lp>, 1>(), dtypes::floats, 2);
  op("Dropout",
     "inference: output 0 the data as it is, output 1 (mask) all true; a training_mode input that is not a "
     "constant false is not claimed (the importer refuses it: its mask is random)",
     {in("data"), opt("ratio", dtypes::floats), opt("training_mode", dtypes::boolean)}, {iopt("seed"), f("ratio", 0.5)},
     kernel<e::dropout, 3>(), dtypes::any, 1, {"output", "mask"});
  op("NegativeLogLikelihoodLoss",
     "-input[n, target, d...] * weight[target] per element (0 where target is ignore_index); "
     "reduction none keeps them, sum adds them, mean divides the sum by the sum of the weights used",
     {in("input"), in("target", dtypes::integers), opt("weight")},
     {iopt("ignore_index"), ch("reduction", "mean,none,sum")}, kernel<e::nll_loss_op, 2>(), dtypes::floats, 12);
  op("SoftmaxCrossEntropyLoss",
     "output 1 (log_prob): the log-softmax of scores along dim 1; output 0: its "
     "NegativeLogLikelihoodLoss at labels",
     {in("scores"), in("labels", dtypes::integers), opt("weights")},
     {iopt("ignore_index"), ch("reduction", "mean,none,sum")}, kernel<e::softmax_cross_entropy, 3>(), dtypes::floats,
     12, {"output", "log_prob"});
  // quantization: as ONNX Runtime computes, bit for bit
  op("QuantizeLinear",
     "saturate(round_half_even(x / y_scale) + y_zero_point) in the zero point's integer type (UInt8 "
     "without one), the division in float; y_scale and y_zero_point per tensor or, 1-d, per slice along axis",
     {in("x"), in("y_scale"), opt("y_zero_point")}, {i("axis", 1)}, kernel<e::quantize_linear, 1>(), dtypes::any, 10);
  op("DequantizeLinear", "(x - x_zero_point) * x_scale in float, per tensor or, 1-d, per slice along axis",
     {in("x", dtypes::integers | dtypes::quantized), in("x_scale"), opt("x_zero_point")}, {i("axis", 1)},
     kernel<e::dequantize_linear, 1>(), dtypes::any, 10);
  op("DynamicQuantizeLinear",
     "output 1 (y_scale): (max(0, max x) - min(0, min x)) / 255; output 2 (y_zero_point): "
     "saturate(round_half_even(-min / scale)); output 0 (y): x quantized to UInt8 with them; all in float",
     {in("x")}, {}, kernel<e::dynamic_quantize_linear, 1>(), dtypes::floats, 11, {"y", "y_scale", "y_zero_point"});
  op("MatMulInteger",
     "matmul of (A - a_zero_point) and (B - b_zero_point) summed exactly into Int32 (a_zero_point per row "
     "or scalar, b_zero_point per column or scalar)",
     {in("A"), in("B"), opt("a_zero_point"), opt("b_zero_point")}, {}, kernel<e::matmul_integer, 0>(), dtypes::any, 10);
  op("QLinearMatMul",
     "the exact matmul of (a - a_zero_point) and (b - b_zero_point) requantized: "
     "saturate(round_half_even(sum * (a_scale * b_scale / y_scale)) + y_zero_point), the scale and product in float "
     "(b's scale and zero point per column or scalar)",
     {in("a"), in("a_scale"), in("a_zero_point"), in("b"), in("b_scale"), in("b_zero_point"), in("y_scale"),
      in("y_zero_point")},
     {}, kernel<e::qlinear_matmul, 0>(), dtypes::any, 10);
  op("ConvInteger",
     "Conv of (x - x_zero_point) and (w - w_zero_point) summed exactly into Int32 (w_zero_point per output "
     "channel or scalar)",
     {in("x"), in("w"), opt("x_zero_point"), opt("w_zero_point")}, conv_attrs, kernel<e::conv_integer, 6>(),
     dtypes::any, 10);
  // recurrent: output 0 Y, 1 Y_h, 2 Y_c (LSTM)
  auto rnn_attrs = [](std::optional<AttrSpec> option) {
    std::vector<AttrSpec> v = {fs("activation_alpha"),
                               fs("activation_beta"),
                               chs("activations", e::rnn_activations),
                               fopt("clip"),
                               ch("direction", "forward,reverse,bidirectional"),
                               iopt("hidden_size")};
    if (option) v.push_back(*option);
    v.push_back(i("layout"));
    return v;
  };
  op("RNN",
     "Ht = f(Xt W^T + Ht-1 R^T + Wb + Rb) (f default Tanh), per direction; output 0 (Y): every step's Ht, "
     "[seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]); 1 (Y_h): the last one (of each "
     "sequence_lens); "
     "clip bounds the pre-activations",
     {in("X"), in("W"), in("R"), opt("B"), opt("sequence_lens", dtypes::integers), opt("initial_h")},
     rnn_attrs(std::nullopt), kernel<e::recurrent<e::Cell::rnn>, 8>(), dtypes::floats, 7, {"Y", "Y_h"});
  op("GRU",
     "gates z, r (f, default Sigmoid) and candidate h (g, default Tanh) in W's order z, r, h; ht = g(Xt Wh^T + (rt * "
     "Ht-1) Rh^T + Rbh + Wbh), with linear_before_reset g(Xt Wh^T + rt * (Ht-1 Rh^T + Rbh) + Wbh); Ht = (1 - zt) * ht "
     "+ zt * "
     "Ht-1; outputs as RNN's",
     {in("X"), in("W"), in("R"), opt("B"), opt("sequence_lens", dtypes::integers), opt("initial_h")},
     rnn_attrs(i("linear_before_reset")), kernel<e::recurrent<e::Cell::gru>, 9>(), dtypes::floats, 7, {"Y", "Y_h"});
  op("LSTM",
     "gates i, o, f (f, default Sigmoid; with peepholes P in the order i, o, f) and cell c (g, default Tanh) in W's "
     "order i, o, f, c; Ct = ft * Ct-1 + it * ct, Ht = ot * h(Ct) (h default Tanh); input_forget makes ft = 1 - it; "
     "outputs "
     "as RNN's and 2 (Y_c): the last cell state",
     {in("X"), in("W"), in("R"), opt("B"), opt("sequence_lens", dtypes::integers), opt("initial_h"), opt("initial_c"),
      opt("P")},
     rnn_attrs(i("input_forget")), kernel<e::recurrent<e::Cell::lstm>, 9>(), dtypes::floats, 7, {"Y", "Y_h", "Y_c"});
  op("QLinearConv",
     "the exact Conv sums of (x - x_zero_point) and (w - w_zero_point) plus the Int32 bias B, requantized "
     "per output channel m with x_scale * w_scale[m] / y_scale (as QLinearMatMul)",
     {in("x"), in("x_scale"), in("x_zero_point"), in("w"), in("w_scale"), in("w_zero_point"), in("y_scale"),
      in("y_zero_point"), opt("B")},
     conv_attrs, kernel<e::qlinear_conv, 6>(), dtypes::any, 10);
}

/// The signal and detection ops (onnx_eval_signal.hpp).
inline void add_signal_ops(std::vector<OpSpec>& t) {
  auto op = [&](std::string_view type, std::string_view summary, std::vector<InputSpec> inputs,
                std::vector<AttrSpec> attrs, Kernel k, DTypeSet types = dtypes::any, int since = 1,
                std::vector<std::string_view> outputs = {}) {
    t.push_back({type, summary, std::move(inputs), std::move(attrs), k, types, since, std::move(outputs)});
  };
  op("DFT",
     "the discrete Fourier transform along axis of input [batch, ..., 1 (real) or 2 (complex)], zero-padded or cut "
     "to dft_length; output [..., 2]; onesided keeps the first n/2 + 1 bins, inverse divides by n",
     {in("input"), opt("dft_length", dtypes::integers)}, {i("axis", 1), i("inverse"), i("onesided")},
     kernel<e::dft, 3>(), dtypes::floats, 17);
  op("STFT",
     "frames of signal [batch, length, 1 or 2] every frame_step samples, each times window (of frame_length, "
     "default all ones), transformed: [batch, frames, bins, 2], onesided: length / 2 + 1 bins",
     {in("signal"), in("frame_step", dtypes::integers), opt("window"), opt("frame_length", dtypes::integers)},
     {i("onesided", 1)}, kernel<e::stft, 1>(), dtypes::floats, 17);
  const std::vector<AttrSpec> window_attrs = {i("output_datatype", 1), i("periodic", 1)};
  op("HannWindow", "0.5 - 0.5 cos(2 pi n / N), N = size (periodic) or size - 1", {in("size")}, window_attrs,
     kernel<e::cosine_window<e::Window_::hann>, 2>(), dtypes::integers, 17);
  op("HammingWindow", "25/46 - 21/46 cos(2 pi n / N), N = size (periodic) or size - 1", {in("size")}, window_attrs,
     kernel<e::cosine_window<e::Window_::hamming>, 2>(), dtypes::integers, 17);
  op("BlackmanWindow", "0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N), N = size (periodic) or size - 1",
     {in("size")}, window_attrs, kernel<e::cosine_window<e::Window_::blackman>, 2>(), dtypes::integers, 17);
  op("MelWeightMatrix",
     "[dft_length / 2 + 1, num_mel_bins] triangular filters of peak 1 on the mel scale 2595 log10(1 + f "
     "/ 700), their edges the spectrogram bins floor((dft_length + 1) * hertz / sample_rate) of num_mel_bins + 2 "
     "points a "
     "mel range / (num_mel_bins + 2) apart (as ONNX's reference)",
     {in("num_mel_bins"), in("dft_length"), in("sample_rate"), in("lower_edge_hertz"), in("upper_edge_hertz")},
     {i("output_datatype", 1)}, kernel<e::mel_weight_matrix, 1>(), dtypes::any, 17);
  op("TfIdfVectorizer",
     "per row of integer X, how often each n-gram of pool_int64s occurs (items skip + 1 apart for skip up "
     "to max_skip_count; ngram_counts: where the n-grams of each length start in the pool), at its ngram_indexes "
     "entry; mode "
     "TF: the counts, IDF: weights where the count is not 0, TFIDF: counts times weights (pool_strings is not claimed)",
     {in("X")},
     {i("max_gram_length"), i("max_skip_count"), i("min_gram_length"), ch("mode", "TF,IDF,TFIDF"), is("ngram_counts"),
      is("ngram_indexes"), is("pool_int64s"), fs("weights")},
     kernel<e::tfidf, 8>(), dtypes::integers, 9);
  op("NonMaxSuppression",
     "per batch and class, boxes by descending score (equal scores: lower index first) above "
     "score_threshold, each kept unless its IoU with one kept before exceeds iou_threshold, at most "
     "max_output_boxes_per_class: Int64 rows (batch, class, box); boxes as (y1, x1, y2, x2) corners, or with "
     "center_point_box (x, y, w, h)",
     {in("boxes"), in("scores"), opt("max_output_boxes_per_class", dtypes::integers), opt("iou_threshold"),
      opt("score_threshold")},
     {i("center_point_box")}, kernel<e::non_max_suppression, 1>(), dtypes::floats, 10);
  op("RoiAlign",
     "per region (x1, y1, x2, y2) of rois in image batch_indices, output_height x output_width bins, each the "
     "average (mode avg) or maximum (max) of sampling_ratio^2 bilinear samples (0: ceil(bin size) per axis); "
     "coordinates times spatial_scale, less 0.5 with half_pixel (the default from opset 16; output_half_pixel before)",
     {in("X"), in("rois"), in("batch_indices", dtypes::integers)},
     {ch("coordinate_transformation_mode", "half_pixel,output_half_pixel"), ch("mode", "avg,max"),
      i("output_height", 1), i("output_width", 1), i("sampling_ratio"), f("spatial_scale", 1.0)},
     kernel<e::roi_align, 6>(), dtypes::floats, 10);
  op("MaxRoiPool",
     "per region (batch, x1, y1, x2, y2; rounded after spatial_scale) the maximum over each of pooled_shape's "
     "bins",
     {in("X"), in("rois")}, {is("pooled_shape"), f("spatial_scale", 1.0)}, kernel<e::max_roi_pool, 2>(),
     dtypes::floats);
  op("GridSample",
     "X [N, C, H, W] sampled at grid [N, Ho, Wo, (x, y)] in [-1, 1] (align_corners: -1 and 1 are the corner "
     "pixels' centres, else their outer edges): bilinear, nearest (halves to even) or bicubic (A = -0.75); outside "
     "pixels "
     "are 0 (zeros), the nearest edge pixel (border) or mirrored (reflection)",
     {in("X"), in("grid")},
     {i("align_corners"), ch("mode", "bilinear,nearest,bicubic"), ch("padding_mode", "zeros,border,reflection")},
     kernel<e::grid_sample, 3>(), dtypes::floats, 16);
}

inline std::vector<OpSpec> make_table() {
  std::vector<OpSpec> t;
  auto unary = [&](std::string_view type, std::string_view summary, Kernel k, std::vector<AttrSpec> attrs = {},
                   DTypeSet types = dtypes::floats) {
    t.push_back({type, summary, {in("X")}, std::move(attrs), k, types});
  };
  // elementwise, one input
  unary("Abs", "|x|", kernel<e::unary<fn::abs>, 0>(), {}, dtypes::any);
  unary("Neg", "-x", kernel<e::unary<fn::neg>, 0>(), {}, dtypes::any);
  unary("Exp", "e^x", kernel<e::unary<fn::exp>, 0>());
  unary("Log", "ln x", kernel<e::unary<fn::log>, 0>());
  unary("Sqrt", "square root", kernel<e::unary<fn::sqrt>, 0>());
  unary("Tanh", "tanh x", kernel<e::unary<fn::tanh>, 0>());
  unary("Sin", "sin x", kernel<e::unary<fn::sin>, 0>());
  unary("Cos", "cos x", kernel<e::unary<fn::cos>, 0>());
  unary("Tan", "tan x", kernel<e::unary<fn::tan>, 0>());
  unary("Asin", "asin x", kernel<e::unary<fn::asin>, 0>());
  unary("Acos", "acos x", kernel<e::unary<fn::acos>, 0>());
  unary("Atan", "atan x", kernel<e::unary<fn::atan>, 0>());
  unary("Sinh", "sinh x", kernel<e::unary<fn::sinh>, 0>());
  unary("Cosh", "cosh x", kernel<e::unary<fn::cosh>, 0>());
  unary("Asinh", "asinh x", kernel<e::unary<fn::asinh>, 0>());
  unary("Acosh", "acosh x", kernel<e::unary<fn::acosh>, 0>());
  unary("Atanh", "atanh x", kernel<e::unary<fn::atanh>, 0>());
  unary("Ceil", "rounds up", kernel<e::unary<fn::ceil>, 0>());
  unary("Floor", "rounds down", kernel<e::unary<fn::floor>, 0>());
  unary("Round", "rounds to nearest, halves to even", kernel<e::unary<fn::round>, 0>());
  unary("Reciprocal", "1/x", kernel<e::unary<fn::reciprocal>, 0>());
  unary("Sigmoid", "1/(1+e^-x)", kernel<e::unary<fn::sigmoid>, 0>());
  unary("Softplus", "ln(1+e^x)", kernel<e::unary<fn::softplus>, 0>());
  unary("Softsign", "x/(1+|x|)", kernel<e::unary<fn::softsign>, 0>());
  unary("Sign", "-1, 0 or 1", kernel<e::unary<fn::sign>, 0>(), {}, dtypes::any);
  unary("Erf", "error function", kernel<e::unary<fn::erf>, 0>());
  unary("Relu", "max(x, 0)", kernel<e::unary<fn::relu>, 0>(), {}, dtypes::any);
  unary("Identity", "x", kernel<e::same_elements, 0>(), {}, dtypes::any);
  unary("Elu", "x, or alpha*(e^x-1) below 0", kernel<e::unary<fn::elu>, 1>(), {f("alpha", 1.0)});
  unary("Celu", "max(0,x) + min(0, alpha*(e^(x/alpha)-1))", kernel<e::unary<fn::celu>, 1>(), {f("alpha", 1.0)});
  unary("Selu", "gamma*(x, or alpha*(e^x-1) below 0)", kernel<e::unary<fn::selu>, 2>(),
        {f("alpha", 1.67326319217681884765625), f("gamma", 1.05070102214813232421875)});
  unary("LeakyRelu", "x, or alpha*x below 0", kernel<e::unary<fn::leaky_relu>, 1>(), {f("alpha", 0.01)});
  unary("ThresholdedRelu", "x above alpha, else 0", kernel<e::unary<fn::thresholded_relu>, 1>(), {f("alpha", 1.0)});
  unary("HardSigmoid", "clamp(alpha*x + beta, 0, 1)", kernel<e::unary<fn::hard_sigmoid>, 2>(),
        {f("alpha", 0.2), f("beta", 0.5)});
  unary("HardSwish", "x * clamp(x/6 + 1/2, 0, 1)", kernel<e::unary<fn::hard_swish>, 0>());
  unary("Shrink", "x+bias below -lambd, x-bias above lambd, else 0", kernel<e::unary<fn::shrink>, 2>(),
        {f("bias", 0.0), f("lambd", 0.5)}, dtypes::any);
  // elementwise, broadcasting
  auto binary = [&](std::string_view type, std::string_view summary, Kernel k) {
    t.push_back({type, summary, {in("A"), in("B")}, {}, k, dtypes::any});
  };
  binary("Add", "a + b", kernel<e::nary<fn::add, false, ifn::add>, 0>());
  binary("Sub", "a - b", kernel<e::nary<fn::sub, false, ifn::sub>, 0>());
  binary("Mul", "a * b", kernel<e::nary<fn::mul, false, ifn::mul>, 0>());
  binary("Div", "a / b (integers: truncated toward zero, a zero divisor gives 0)",
         kernel<e::nary<fn::div, false, ifn::div>, 0>());
  binary("Pow", "a ^ b (result of a's dtype)", kernel<e::nary<fn::pow>, 0>());
  binary("PRelu", "a, or a*slope below 0", kernel<e::nary<fn::prelu>, 0>());
  auto variadic = [&](std::string_view type, std::string_view summary, Kernel k) {
    t.push_back({type, summary, {var("data_0")}, {}, k, dtypes::any});
  };
  variadic("Max", "elementwise maximum of all inputs (a NaN gives NaN)",
           kernel<e::nary<fn::max, false, ifn::max>, 0>());
  variadic("Min", "elementwise minimum of all inputs (a NaN gives NaN)",
           kernel<e::nary<fn::min, false, ifn::min>, 0>());
  variadic("Sum", "elementwise sum of all inputs", kernel<e::nary<fn::add, false, ifn::add>, 0>());
  variadic("Mean", "elementwise mean of all inputs", kernel<e::nary<fn::add, true>, 0>());
  t.push_back({"Clip",
               "x limited to [min, max] (the inputs, else the attributes of opsets before 11; default: unbounded)",
               {in("input"), like("min"), like("max")},
               {f("min", -HUGE_VAL), f("max", HUGE_VAL)},
               kernel<e::clip, 2>(),
               dtypes::any});
  t.push_back({"Cast",
               "x converted to the dtype `to` names (also the output's dtype)",
               {in("input")},
               {ir("to")},
               kernel<e::same_elements, 1>(),
               dtypes::any});
  // data movement
  t.push_back({"Reshape",
               "same elements, the output's shape",
               {in("data"), in("shape", dtypes::i64)},
               {i("allowzero")},
               kernel<e::same_elements, 1>(),
               dtypes::any});
  t.push_back(
      {"Flatten", "same elements, 2-d", {in("input")}, {i("axis", 1)}, kernel<e::same_elements, 1>(), dtypes::any});
  t.push_back({"Squeeze",
               "same elements, size-1 axes removed (axes: attribute before opset 13)",
               {in("data"), opt("axes", dtypes::i64)},
               {is("axes")},
               kernel<e::same_elements, 1>(),
               dtypes::any});
  t.push_back({"Unsqueeze",
               "same elements, size-1 axes inserted (axes: attribute before opset 13)",
               {in("data"), opt("axes", dtypes::i64)},
               {is("axes")},
               kernel<e::same_elements, 1>(),
               dtypes::any});
  t.push_back({"Transpose",
               "dimensions permuted (no perm: reversed)",
               {in("data")},
               {is("perm")},
               kernel<e::transpose, 1>(),
               dtypes::any});
  t.push_back({"Concat",
               "inputs joined along axis",
               {var("inputs")},
               {ir("axis")},
               kernel<e::concat, 1, checks::concat>(),
               dtypes::any});
  t.push_back({"Slice",
               "strided box of data (starts, ends, axes: attributes before opset 10)",
               {in("data"), opt("starts", index), opt("ends", index), opt("axes", index), opt("steps", index)},
               {is("starts"), is("ends"), is("axes")},
               kernel<e::slice, 3>(),
               dtypes::any});
  t.push_back({"Gather",
               "entries of data along axis at indices",
               {in("data"), in("indices", index)},
               {i("axis")},
               kernel<e::gather, 1, checks::gather>(),
               dtypes::any});
  t.push_back({"Expand",
               "input broadcast to the output's shape",
               {in("input"), in("shape", dtypes::i64)},
               {},
               kernel<e::expand, 0>(),
               dtypes::any});
  t.push_back({"Tile",
               "input repeated along each axis",
               {in("input"), in("repeats", dtypes::i64)},
               {},
               kernel<e::tile, 0>(),
               dtypes::any});
  t.push_back({"Shape",
               "the dims of data (from start to end) as integers",
               {in("data")},
               {i("start"), i("end", 2147483647)},
               kernel<e::shape, 2>(),
               dtypes::any});
  // reductions
  auto reduce = [&](std::string_view type, std::string_view summary, Kernel k) {
    t.push_back({type,
                 summary,
                 {in("data"), opt("axes", dtypes::i64)},
                 {is("axes"), i("keepdims", 1), i("noop_with_empty_axes")},
                 k,
                 dtypes::any});
  };
  reduce("ReduceSum", "sum over axes", kernel<e::reduce<e::Reduce::sum>, 3>());
  reduce("ReduceMean", "mean over axes", kernel<e::reduce<e::Reduce::mean>, 3>());
  reduce("ReduceMax", "maximum over axes", kernel<e::reduce<e::Reduce::max>, 3>());
  reduce("ReduceMin", "minimum over axes", kernel<e::reduce<e::Reduce::min>, 3>());
  reduce("ReduceProd", "product over axes", kernel<e::reduce<e::Reduce::prod>, 3>());
  reduce("ReduceL1", "sum of |x| over axes", kernel<e::reduce<e::Reduce::l1>, 3>());
  reduce("ReduceL2", "sqrt of the sum of x^2 over axes", kernel<e::reduce<e::Reduce::l2>, 3>());
  reduce("ReduceSumSquare", "sum of x^2 over axes", kernel<e::reduce<e::Reduce::sum_square>, 3>());
  reduce("ReduceLogSum", "ln of the sum over axes", kernel<e::reduce<e::Reduce::log_sum>, 3>());
  reduce("ReduceLogSumExp", "ln of the sum of e^x over axes", kernel<e::reduce<e::Reduce::log_sum_exp>, 3>());
  t.push_back({"Softmax",
               "e^x / sum e^x along axis",
               {in("input")},
               {i("axis", -1)},
               kernel<e::softmax<e::Softmax::soft>, 1>(),
               dtypes::floats});
  t.push_back({"LogSoftmax",
               "ln of Softmax",
               {in("input")},
               {i("axis", -1)},
               kernel<e::softmax<e::Softmax::log>, 1>(),
               dtypes::floats});
  t.push_back({"Hardmax",
               "1 at the first maximum along axis, else 0",
               {in("input")},
               {i("axis", -1)},
               kernel<e::softmax<e::Softmax::hard>, 1>(),
               dtypes::floats});
  // linear algebra, convolution, pooling, normalization
  t.push_back({"MatMul", "numpy matmul", {in("A"), in("B")}, {}, kernel<e::matmul, 0>(), dtypes::any});
  t.push_back({"Gemm",
               "alpha * A' B' + beta * C",
               {in("A"), in("B"), opt("C")},
               {f("alpha", 1.0), f("beta", 1.0), i("transA"), i("transB")},
               kernel<e::gemm, 4, checks::gemm>(),
               dtypes::any});
  t.push_back(
      {"Conv",
       "N-d convolution, NCHW, grouped",
       {in("X"), in("W"), opt("B")},
       {ch("auto_pad", auto_pad), is("dilations"), i("group", 1), is("kernel_shape"), is("pads"), is("strides")},
       kernel<e::conv, 6, checks::conv<false>>(),
       dtypes::floats});
  t.push_back({"ConvTranspose",
               "N-d transposed convolution, NCHW, grouped",
               {in("X"), in("W"), opt("B")},
               {ch("auto_pad", auto_pad), is("dilations"), i("group", 1), is("kernel_shape"), is("output_padding"),
                is("output_shape"), is("pads"), is("strides")},
               kernel<e::conv_transpose, 8, checks::conv<true>>(),
               dtypes::floats});
  t.push_back({"AveragePool",
               "N-d window mean",
               {in("X")},
               {ch("auto_pad", auto_pad), i("ceil_mode"), i("count_include_pad"), is("kernel_shape"), is("pads"),
                is("strides")},
               kernel<e::pool<e::Pool::average>, 6>(),
               dtypes::floats});
  t.push_back(
      {"MaxPool",
       "N-d window maximum; output 1 (Indices): the Int64 flat position of each maximum in X (the first of equal "
       "ones), row-major, or with storage_order 1 column-major within its (n, c) plane",
       {in("X")},
       {ch("auto_pad", auto_pad), i("ceil_mode"), is("dilations"), is("kernel_shape"), is("pads"), i("storage_order"),
        is("strides")},
       kernel<e::pool<e::Pool::max>, 8>(),
       dtypes::any,
       1,
       {"Y", "Indices"}});
  t.push_back({"GlobalAveragePool",
               "mean over all spatial dims",
               {in("X")},
               {},
               kernel<e::global_pool<e::Pool::average>, 0>(),
               dtypes::floats});
  t.push_back({"GlobalMaxPool",
               "maximum over all spatial dims",
               {in("X")},
               {},
               kernel<e::global_pool<e::Pool::max>, 0>(),
               dtypes::floats});
  t.push_back({"BatchNormalization",
               "(x - mean) / sqrt(var + epsilon) * scale + B per channel (inference)",
               {in("X"), in("scale"), in("B"), in("input_mean"), in("input_var")},
               {f("epsilon", 1e-5), f("momentum", 0.9), i("training_mode")},
               kernel<e::batch_norm, 3, checks::batch_norm>(),
               dtypes::floats});
  t.push_back(
      {"Resize",
       "N-d resize: nearest, linear or cubic (opset 11 and later)",
       {in("X"), opt("roi", dtypes::floats), opt("scales", dtypes::f32), opt("sizes", dtypes::i64)},
       {ch("coordinate_transformation_mode",
           "half_pixel,pytorch_half_pixel,align_corners,asymmetric,tf_half_pixel_for_nn,tf_crop_and_resize"),
        f("cubic_coeff_a", -0.75), i("exclude_outside"), f("extrapolation_value", 0.0),
        ch("mode", "nearest,linear,cubic"), ch("nearest_mode", "round_prefer_floor,round_prefer_ceil,floor,ceil")},
       kernel<e::resize, 6, checks::resize>(),
       dtypes::floats,
       11});
  add_tensor_ops(t);
  add_norm_and_quant_ops(t);
  add_signal_ops(t);
  for (const auto& s : t)
    if (s.kernel.attrs != s.attr_operands())
      throw std::logic_error(std::string("onnx table: attribute count of ") + std::string(s.type));
  return t;
}
}  // namespace detail

/// Every claimed ONNX op type, in documentation order.
inline const std::vector<OpSpec>& table() {
  static const std::vector<OpSpec> t = detail::make_table();
  return t;
}

inline const OpSpec* find(std::string_view type) {
  for (const auto& s : table())
    if (s.type == type) return &s;
  return nullptr;
}

/// The op definitions of the table's ops, added to `defs`.
inline void add_definitions(Definitions& defs) {
  for (const OpSpec& s : table()) {
    OpDefinition d;
    static std::deque<std::string> names;  // the definitions keep string_views into these
    names.push_back(op_name(s.type));
    d.name = names.back();
    names.push_back("ONNX `" + std::string(s.type) + "`: " + std::string(s.summary) + ".");
    d.summary = names.back();
    std::string desc = "Imported from ONNX (docs/onnx.md): the attributes, then the inputs.";
    if (s.since > 1) desc += cat(" From opset ", s.since, ".");
    if (s.kernel.check)
      desc += " The verifier checks what its evaluation relies on (operand ranks, channel counts and lengths, axes).";
    for (const auto& a : s.attrs) {
      std::string def;
      switch (a.kind) {
        case AttrKind::integer: def = cat(static_cast<long long>(a.default_value)); break;
        case AttrKind::real: def = std::to_string(a.default_value); break;
        case AttrKind::choice: {
          const std::string_view first = a.choices.substr(0, a.choices.find(','));
          def = cat("an index into ", a.choices, " (", first, " = 0)");
          break;
        }
        case AttrKind::choices: def = cat("empty; indices into ", a.choices); break;
        case AttrKind::integers:
        case AttrKind::reals:
        case AttrKind::text:
        case AttrKind::tensor: continue;
      }
      if (a.required)
        desc += cat(" `", a.name, "`: required.");
      else if (a.optional)
        desc += cat(" `", a.name, "`: optional (absent: an empty constant).");
      else
        desc += cat(" `", a.name, "`: default ", def, ".");
    }
    if (s.multi_output()) {
      std::string outs;
      for (std::size_t k = 0; k < s.outputs.size(); ++k) outs += cat(k ? ", " : "", k, " ", s.outputs[k]);
      desc += cat(" Outputs: ", outs,
                  ". Each used output is an op of its own; its operand `output` (after the "
                  "attributes) says which one it computes.");
    }
    names.push_back(std::move(desc));
    d.description = names.back();
    for (const auto& a : s.attrs) {
      const bool list = a.kind == AttrKind::integers || a.kind == AttrKind::reals || a.kind == AttrKind::choices;
      const DTypeSet t = a.kind == AttrKind::real || a.kind == AttrKind::reals ? dtypes::f32
                         : a.kind == AttrKind::text                            ? of(DType::UInt8)
                         : a.kind == AttrKind::tensor                          ? dtypes::any
                                                                               : dtypes::i32;
      std::string_view what = a.required                   ? "attribute (required)"
                              : list                       ? "attribute (empty: ONNX's default)"
                              : a.optional                 ? "attribute (empty: absent)"
                              : a.kind == AttrKind::text   ? "attribute (the string's bytes)"
                              : a.kind == AttrKind::tensor ? "attribute (a tensor; empty: ONNX's default)"
                                                           : "attribute";
      d.operands.push_back({a.name, Arity::single, TypeRule::in_set, t, what, 0, true});
      d.operands.back().scalar = a.kind == AttrKind::integer || a.kind == AttrKind::real || a.kind == AttrKind::choice;
      if (a.kind == AttrKind::choice || a.kind == AttrKind::choices)
        d.operands.back().choices = static_cast<std::uint16_t>(std::count(a.choices.begin(), a.choices.end(), ',') + 1);
    }
    if (s.multi_output())
      d.operands.push_back({"output", Arity::single, TypeRule::in_set, dtypes::i32,
                            "which output this op computes (0, 1, ...)", 0, true});
    const auto first_input = static_cast<std::uint16_t>(d.operands.size());
    for (const auto& x : s.inputs)
      d.operands.push_back({x.name, x.variadic ? Arity::variadic : Arity::single,
                            x.like_first ? TypeRule::same_as_operand : TypeRule::in_set,
                            x.types.empty() ? s.types : x.types, x.optional ? "input (absent: no elements)" : "input",
                            static_cast<std::uint16_t>(x.variadic ? 1 : 0), false, first_input});
    d.result = {"out", TypeRule::in_set, dtypes::any, "the declared output definition (from the model)"};
    d.traits = Trait::pure;
    d.infer = s.kernel.check;  // preconditions only: the output is the declared one
    d.infer_checks_only = true;
    d.eval = s.kernel.eval;
    d.kernel = "ops::onnx_eval (reference loops)";
    // A dequantization of constant integers is how ONNX stores quantized weights: kept, so that
    // a quantized lowering reads the integers and their scales (OpDefinition::folds).
    d.folds = s.type != "DequantizeLinear";
    defs.add(std::move(d));
  }
}

}  // namespace optgrammar::ops::onnx
