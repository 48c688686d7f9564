// Calls of external functions (EXTERNAL_CONSTRAINT, SHAPEFN_APPLY, ...): the rule's operands
// evaluated or built and passed as the function's parameters.
#pragma once

#include "optgrammar/dsl/external.hpp"
#include "optgrammar/engine/exec_state.hpp"

#include <boost/hana/at.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace optgrammar::engine {

/// How an argument of an external function is held until the call: OpRef by value, an OpDef as
/// a copy of the op's record (the function takes it by const reference; operands built after it
/// may move the graph's records), scalars converted to the parameter's type.
template <class P>
using ext_arg_t = std::conditional_t<dsl::param_kind<P>() == dsl::ParamKind::OpDef, OpDef, std::remove_cvref_t<P>>;

/// `once`: the argument is a slice's first operand (a slice's shape function reads it), which an
/// Op construction there makes once (build_once).
template <class P, class A>
inline ext_arg_t<P> ext_arg(const A& a, ExecState& s, bool once) {
  constexpr auto pk = dsl::param_kind<P>();
  if constexpr (pk == dsl::ParamKind::OpRef || pk == dsl::ParamKind::OpDef) {
    OpRef r;
    if constexpr (A::vtype == VType::OpRef)
      r = eval(a, s);  // no graph edit: also fine in constraints
    else if constexpr (A::vtype == VType::OpBuild)
      r = once ? build_once(a, s) : build(a, s);
    else
      r = build(a, s);
    if constexpr (pk == dsl::ParamKind::OpDef) {
      if (!s.g.alive(r)) throw ReplacementFailedBase("an operand of an external function does not exist");
      return s.g.op(r);
    } else {
      return r;
    }
  } else {
    return static_cast<std::remove_cvref_t<P>>(eval(a, s));
  }
}

/// Calls the external function of node `n` with the framework's leading arguments `pre...` and
/// the rule's arguments (operands 1.. of `n`), evaluated left to right.
template <std::size_t Lead, class N, class... Pre, std::size_t... I>
inline auto call_external_(const N& n, ExecState& s, std::index_sequence<I...>, Pre&... pre) {
  using F = typename boost::mp11::mp_front<typename N::children>::fn_type;
  using P = typename dsl::fn_traits<F>::params;
  using R = typename dsl::fn_traits<F>::result;
  // AUTOSPLIT_SHAPEFN_APPLY in a slice's expansion (it carries the slice's record, dsl/words.hpp)
  [[maybe_unused]] bool once = false;
  if constexpr (N::kind == Kind::AutosplitShapefnApply) once = n.leaf.record > 0;
  std::tuple<ext_arg_t<boost::mp11::mp_at_c<P, Lead + I>>...> args{
      ext_arg<boost::mp11::mp_at_c<P, Lead + I>>(hana::at_c<I + 1>(n.kids), s, once)...};
  if (s.failed) return R{};
  const F fn = hana::at_c<0>(n.kids).fn;
  return std::apply([&](auto&&... x) -> R { return fn(pre..., std::forward<decltype(x)>(x)...); }, args);
}
template <std::size_t Lead, class N, class... Pre>
inline auto call_external(const N& n, ExecState& s, Pre&... pre) {
  return call_external_<Lead>(n, s, std::make_index_sequence<N::arity - 1>{}, pre...);
}

}  // namespace optgrammar::engine
