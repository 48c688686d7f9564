// Rule operands that are not rule nodes of their own: external C++ functions (EXTERNAL_CONSTRAINT,
// EXTERNAL_REPLACE, SHAPEFN_APPLY, AUTOSPLIT_SHAPEFN_APPLY) and MESSAGE texts.
//
// A function operand keeps both the function pointer (called at run time) and its name as written
// (for the canonical form and messages). The name comes from the macros of define.hpp, which
// stringify the first operand: `SHAPEFN_APPLY(pad_total, "x")` → `SHAPEFN_APPLY_("pad_total",
// pad_total, "x")`. The function's type is part of the node type, so analysis checks the
// arguments against the parameters at compile time.
#pragma once

#include "optgrammar/dsl/messages.hpp"
#include "optgrammar/dsl/node.hpp"
#include "optgrammar/engine/context.hpp"

#include <boost/hana/tuple.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
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

/// What a parameter of an external function takes from a rule argument.
enum class ParamKind : unsigned char { OpRef, OpDef, Bool, Integral, Floating, DType, Other };

template <class P>
constexpr ParamKind param_kind() {
  using U = std::remove_cvref_t<P>;
  if constexpr (std::is_same_v<U, ::optgrammar::OpRef>) return ParamKind::OpRef;
  else if constexpr (std::is_same_v<U, ::optgrammar::OpDef> && std::is_reference_v<P> &&
                     std::is_const_v<std::remove_reference_t<P>>)
    return ParamKind::OpDef;
  else if constexpr (std::is_same_v<U, bool>) return ParamKind::Bool;
  else if constexpr (std::is_integral_v<U>) return ParamKind::Integral;
  else if constexpr (std::is_floating_point_v<U>) return ParamKind::Floating;
  else if constexpr (std::is_same_v<U, ::optgrammar::DType>) return ParamKind::DType;
  else return ParamKind::Other;
}
constexpr std::string_view param_kind_name(ParamKind k) {
  return param_kind_words[static_cast<std::size_t>(k)];
}
/// Whether an argument of value type `t` may be passed to a parameter of kind `p`.
constexpr bool accepts(ParamKind p, VType t) {
  switch (p) {
    case ParamKind::OpRef:
    case ParamKind::OpDef: return is_repl(t);
    case ParamKind::Bool: return t == VType::Bool;
    case ParamKind::Integral: return is_integral(t);
    case ParamKind::Floating: return is_integral(t) || t == VType::Float;
    case ParamKind::DType: return t == VType::DType;
    case ParamKind::Other: return false;
  }
  return false;
}

/// The value kind of a function's result, as a rule sees it: scalars for EXTERNAL_CONSTRAINT,
/// a shape construction for functions returning OpRef or QuickShape.
template <class F>
constexpr VType fn_result_vtype() {
  using R = typename fn_traits<F>::result;
  if constexpr (!fn_traits<F>::is_fn) return VType::Text;
  else if constexpr (std::is_same_v<R, bool>) return VType::Bool;
  else if constexpr (std::is_integral_v<R> && std::is_signed_v<R>) return VType::Int;
  else if constexpr (std::is_integral_v<R>) return VType::Size;
  else if constexpr (std::is_floating_point_v<R>) return VType::Float;
  else if constexpr (std::is_same_v<R, ::optgrammar::OpRef> || std::is_same_v<R, ::optgrammar::QuickShape>)
    return VType::Shape;
  else return VType::Text;
}

/// The function operand: name as written, pointer, and the pointer's type.
template <class F>
struct FnNode {
  static constexpr Kind kind = Kind::FnName;
  static constexpr std::size_t arity = 0;
  using children = boost::mp11::mp_list<>;
  using fn_type = F;
  static constexpr VType vtype = fn_result_vtype<F>();
  static constexpr bool operand_bad = false;
  Leaf leaf{};
  F fn{};
  boost::hana::tuple<> kids{};
};

/// MESSAGE's text: any C string literal (escapes allowed, any length), kept by address.
struct TextNode {
  static constexpr Kind kind = Kind::MessageText;
  static constexpr std::size_t arity = 0;
  using children = boost::mp11::mp_list<>;
  static constexpr VType vtype = VType::Text;
  static constexpr bool operand_bad = false;
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
  if (new_dim >= 0 && static_cast<std::uint32_t>(new_dim) < d.rank) q.dims[static_cast<std::size_t>(new_dim)] = sc.start;
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
}  // namespace optgrammar
