// Rule operands that are not rule nodes of their own: external C++ functions (EXTERNAL_CONSTRAINT,
// EXTERNAL_REPLACE, SHAPEFN_APPLY, AUTOSPLIT_SHAPEFN_APPLY) and MESSAGE texts.
//
// A function operand keeps both the function pointer (called at run time) and its name as written
// (for the canonical form and messages). The name comes from the macros of package/define.hpp, which
// stringify the first operand: `SHAPEFN_APPLY(pad_total, "x")` → `SHAPEFN_APPLY_("pad_total",
// pad_total, "x")`. The function's type is part of the node type, so analysis checks the
// arguments against the parameters at compile time.
#pragma once

#include "optgrammar/core/context.hpp"
#include "optgrammar/dsl/flat.hpp"
#include "optgrammar/dsl/messages.hpp"
#include "optgrammar/dsl/node.hpp"

#include <boost/hana/tuple.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace optgrammar::dsl {

/// Signature facts of an external function pointer type.
template <class F>
struct fn_traits {
  static constexpr bool is_fn = false;
  using result = void;
  using params = boost::mp11::mp_list<>;
};
template <class R, class... P>
struct fn_traits<R (*)(P...)> {
  static constexpr bool is_fn = true;
  using result = R;
  using params = boost::mp11::mp_list<P...>;
};
template <class R, class... P>
struct fn_traits<R (*)(P...) noexcept> : fn_traits<R (*)(P...)> {};

/// The kind of a parameter of type P (dsl/flat.hpp's ParamKind): what it takes from a rule
/// argument, or the framework parameter it is.
template <class P>
constexpr ParamKind param_kind() {
  using U = std::remove_cvref_t<P>;
  if constexpr (std::is_same_v<U, ::optgrammar::OpRef>)
    return ParamKind::OpRef;
  else if constexpr (std::is_same_v<U, ::optgrammar::OpDef> && std::is_reference_v<P> &&
                     std::is_const_v<std::remove_reference_t<P>>)
    return ParamKind::OpDef;
  else if constexpr (std::is_same_v<U, bool>)
    return ParamKind::Bool;
  else if constexpr (std::is_integral_v<U>)
    return ParamKind::Integral;
  else if constexpr (std::is_floating_point_v<U>)
    return ParamKind::Floating;
  else if constexpr (std::is_same_v<U, ::optgrammar::DType>)
    return ParamKind::DType;
  else if constexpr (std::is_same_v<U, ::optgrammar::Constraint> && std::is_reference_v<P>)
    return ParamKind::Constraint;
  else if constexpr (std::is_same_v<P, ::optgrammar::Replacement&>)
    return ParamKind::Replacement;
  else if constexpr (std::is_same_v<P, const ::optgrammar::Split_Context&>)
    return ParamKind::SplitContext;
  else
    return ParamKind::Other;
}

/// What a function pointer type returns, as a rule sees it.
template <class F>
constexpr Returns returns_of() {
  using R = typename fn_traits<F>::result;
  if constexpr (!fn_traits<F>::is_fn)
    return Returns::not_a_function;
  else if constexpr (std::is_same_v<R, bool>)
    return Returns::Bool;
  else if constexpr (std::is_integral_v<R> && std::is_signed_v<R>)
    return Returns::Int;
  else if constexpr (std::is_integral_v<R>)
    return Returns::Size;
  else if constexpr (std::is_floating_point_v<R>)
    return Returns::Float;
  else if constexpr (std::is_same_v<R, ::optgrammar::OpRef>)
    return Returns::OpRef;
  else if constexpr (std::is_same_v<R, ::optgrammar::QuickShape>)
    return Returns::QuickShape;
  else
    return Returns::Other;
}

template <class... P>
constexpr void add_params(Signature& s, boost::mp11::mp_list<P...>) {
  ((s.n_params < max_params ? void(s.params[s.n_params++] = param_kind<P>()) : void()), ...);
}
/// The signature of a function pointer type, as the checker reads it (dsl/check.hpp).
template <class F>
constexpr Signature signature_of() {
  Signature s;
  s.result = returns_of<F>();
  add_params(s, typename fn_traits<F>::params{});
  return s;
}

/// The function operand: name as written, pointer, and the pointer's type.
template <class F>
struct FnNode {
  static constexpr Kind kind = Kind::FnName;
  static constexpr std::size_t arity = 0;
  static constexpr std::size_t tree_size = 1, fn_count = 1;
  using children = boost::mp11::mp_list<>;
  using fn_type = F;
  static constexpr VType vtype = result_vtype(returns_of<F>());
  Leaf leaf{};
  F fn{};
  boost::hana::tuple<> kids{};
};

/// MESSAGE's text: any C string literal (escapes allowed, any length), kept by address.
struct TextNode {
  static constexpr Kind kind = Kind::MessageText;
  static constexpr std::size_t arity = 0;
  static constexpr std::size_t tree_size = 1, fn_count = 0;
  using children = boost::mp11::mp_list<>;
  static constexpr VType vtype = VType::Text;
  Leaf leaf{};
  const char* text = "";
  std::size_t len = 0;
  boost::hana::tuple<> kids{};
};

template <class F>
struct is_node<FnNode<F>> : std::true_type {};
template <>
struct is_node<TextNode> : std::true_type {};

}  // namespace optgrammar::dsl

namespace optgrammar {
/// The framework's shape functions of TYPICAL_SLICE and CHANGEDIM_SLICE (also usable by name in
/// AUTOSPLIT_SHAPEFN_APPLY): the start and size of the slice of `in` for one part of a split,
/// along the split dimension (`simple_*`) or along `new_dim` (`simpledim_*`).
inline QuickShape simpledim_split_start(Replacement& rpx, Split_Context const& sc, OpRef in, int new_dim) {
  const OutputDef& d = rpx.graph().output(in);
  QuickShape q;
  q.rank = d.rank;
  if (new_dim >= 0 && static_cast<std::uint32_t>(new_dim) < d.rank)
    q.dims[static_cast<std::size_t>(new_dim)] = sc.start;
  return q;
}
inline QuickShape simpledim_split_size(Replacement& rpx, Split_Context const& sc, OpRef in, int new_dim) {
  const OutputDef& d = rpx.graph().output(in);
  QuickShape q;
  q.rank = d.rank;
  for (std::uint32_t i = 0; i < d.rank; ++i) q.dims[i] = d.dims[i];
  if (new_dim >= 0 && static_cast<std::uint32_t>(new_dim) < d.rank) q.dims[static_cast<std::size_t>(new_dim)] = sc.size;
  return q;
}
inline QuickShape simple_split_start(Replacement& rpx, Split_Context const& sc, OpRef in) {
  return simpledim_split_start(rpx, sc, in, sc.dim);
}
inline QuickShape simple_split_size(Replacement& rpx, Split_Context const& sc, OpRef in) {
  return simpledim_split_size(rpx, sc, in, sc.dim);
}

namespace detail {
/// The first `n` elements of an Int32/QInt32 constant (as stored, no quantization), or false
/// when `r` is not such a constant of at least `n` elements.
inline bool const_ints(const Graph& g, OpRef r, std::size_t n, std::int32_t* out) {
  if (!g.valid(r) || !g.alive(r) || !g.is_const(r)) return false;
  const OutputDef& d = g.output(r);
  if ((d.dtype != DType::Int32 && d.dtype != DType::QInt32) || d.element_count() < n) return false;
  std::memcpy(out, g.payload(r).data(), n * sizeof(std::int32_t));
  return true;
}
/// The shape a shape function returns when its operands do not fit: a rank no shape has, so the
/// rule fails (its trace names the function).
inline QuickShape no_shape() {
  QuickShape q;
  q.rank = max_rank + 1;
  return q;
}
}  // namespace detail

/// The framework's shape functions for QNN-style explicit padding, called through SHAPEFN_APPLY.
/// `pad` is the pad-amount constant [[top, bottom], [left, right]] (Int32).
/// pad_total_for_qnn: `act`'s shape grown by top + bottom in H (dim 1) and left + right in W (dim 2).
inline QuickShape pad_total_for_qnn(Replacement& rpx, OpRef const& act, OpRef const& pad) {
  std::int32_t p[4];
  const OutputDef& a = rpx.graph().output(act);
  if (!detail::const_ints(rpx.graph(), pad, 4, p) || a.rank != 4) return detail::no_shape();
  QuickShape q;
  q.rank = 4;
  for (std::size_t i = 0; i < 4; ++i) q.dims[i] = a.dims[i];
  q.dims[1] += static_cast<std::size_t>(p[0]) + static_cast<std::size_t>(p[1]);
  q.dims[2] += static_cast<std::size_t>(p[2]) + static_cast<std::size_t>(p[3]);
  return q;
}
/// pad_before_for_qnn: where `act` starts inside the padded tensor, {0, top, left, 0}.
inline QuickShape pad_before_for_qnn(Replacement& rpx, OpRef const& act, OpRef const& pad) {
  std::int32_t p[4];
  if (!detail::const_ints(rpx.graph(), pad, 4, p) || rpx.graph().output(act).rank != 4) return detail::no_shape();
  QuickShape q;
  q.rank = 4;
  q.dims[1] = static_cast<std::size_t>(p[0]);
  q.dims[2] = static_cast<std::size_t>(p[2]);
  return q;
}
/// reshape_hw_to_4d: the constant [h, w] (a window or a stride) as the shape [1, h, w, 1].
inline QuickShape reshape_hw_to_4d(Replacement& rpx, OpRef const& hw) {
  std::int32_t v[2];
  if (!detail::const_ints(rpx.graph(), hw, 2, v)) return detail::no_shape();
  QuickShape q;
  q.rank = 4;
  q.dims = {1, static_cast<std::size_t>(v[0]), static_cast<std::size_t>(v[1]), 1};
  return q;
}
}  // namespace optgrammar

/// The framework's shape functions above, by name: rules name them in AUTOSPLIT_SHAPEFN_APPLY and
/// SHAPEFN_APPLY (dsl/words.hpp makes a word of each), and so do expansion texts
/// (dsl/grammar.hpp's *_SLICE names).
#define OPTGRAMMAR_SHAPE_FUNCTIONS(X) \
  X(simple_split_start)               \
  X(simple_split_size)                \
  X(simpledim_split_start)            \
  X(simpledim_split_size)             \
  X(pad_total_for_qnn)                \
  X(pad_before_for_qnn)               \
  X(reshape_hw_to_4d)
