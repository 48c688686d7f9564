// The matcher: a rule's match pattern against the graph, one function per construct family
// (operand, inputs, op).
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/exec_state.hpp"

#include <boost/hana/at.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace optgrammar::engine {

template <bool Root = false, class N>
inline bool match_op(const N& n, const Graph& g, OpRef o, MatchState& s);

template <class N>
inline bool match_operand(const N& n, const Graph& g, OpRef in, MatchState& s) {
  if constexpr (N::kind == Kind::Tag) {
    if (n.leaf.wildcard) return true;
    if (n.leaf.first) {
      s.slot[n.leaf.slot] = in;
      return true;
    }
    return s.slot[n.leaf.slot] == in;
  } else if constexpr (N::kind == Kind::Let) {
    if (!n.leaf.first && s.slot[n.leaf.slot] != in) return false;
    s.slot[n.leaf.slot] = in;
    return match_op(hana::at_c<0>(n.kids), g, in, s);
  } else {
    return match_op(n, g, in, s);
  }
}

template <class N, std::size_t... I>
inline bool match_inputs([[maybe_unused]] const N& n, [[maybe_unused]] const Graph& g, [[maybe_unused]] OpRef o,
                         [[maybe_unused]] MatchState& s, std::index_sequence<I...>) {
  return (match_operand(hana::at_c<I>(n.kids), g, g.input(o, static_cast<std::uint32_t>(I)), s) && ...);
}

/// Root: the op the driver dispatched on, whose name is the rule's root name (RuleInfo::apply's
/// contract), so only its inputs are compared.
template <bool Root, class N>
inline bool match_op(const N& n, const Graph& g, OpRef o, MatchState& s) {
  if constexpr (!Root)
    if (g.name_id(o) != s.ids[n.leaf.index]) return false;
  const std::uint32_t k = g.n_inputs(o);
  if constexpr (N::kind == Kind::Op) {
    if (k != N::arity) return false;
  } else {
    if (k < N::arity) return false;
  }
  return match_inputs(n, g, o, s, std::make_index_sequence<N::arity>{});
}

/// What a match of the pattern node N guarantees of the matched op's input tree, as the
/// graph's edits take it (KnownShape, UnknownShape): an Op node's op has exactly its operands,
/// and each operand that is an Op node (or a LET over one) is known in turn; a tag, or an op
/// with more inputs allowed, is not.
template <class N>
auto match_shape_of();
template <class N>
using match_shape = decltype(match_shape_of<std::remove_cvref_t<N>>());
template <class N>
auto match_shape_of() {
  if constexpr (N::kind == Kind::Let)
    return match_shape<boost::mp11::mp_front<typename N::children>>{};
  else if constexpr (N::kind == Kind::Op)
    return boost::mp11::mp_apply<KnownShape, boost::mp11::mp_transform<match_shape, typename N::children>>{};
  else
    return UnknownShape{};
}

}  // namespace optgrammar::engine
