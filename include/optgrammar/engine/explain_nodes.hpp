// What a rule's translation unit compiles for explaining the rule (og-opt --why-not): the
// evaluators of its constraint's nodes, by preorder index, each a call of `eval` (engine/constraint_eval.hpp)
// on a node of one type, so that each construct has one semantics. One function per node type,
// shared by every rule with a node of that type, and per analyzed rule type only the function
// that hands them out (`explain_nodes<A>`, RuleInfo::explain). The walk that uses them is not a
// template and is compiled only where a program explains (engine/explain.hpp).
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/dsl/node.hpp"
#include "optgrammar/engine/constraint_eval.hpp"
#include "optgrammar/engine/exec_state.hpp"

#include <boost/hana/at.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace optgrammar::engine {

/// The value eval (engine/constraint_eval.hpp) gave a constraint node, of one of the language's scalar types or an op.
struct NodeValue {
  VType type = VType::Bad;
  bool b = false;
  int i = 0;
  std::size_t z = 0;
  float f = 0;
  DType d{};
  OpRef o{};
  void set(bool v) { type = VType::Bool, b = v; }
  void set(int v) { type = VType::Int, i = v; }
  void set(std::size_t v) { type = VType::Size, z = v; }
  void set(float v) { type = VType::Float, f = v; }
  void set(DType v) { type = VType::DType, d = v; }
  void set(OpRef v) { type = VType::OpRef, o = v; }
};

/// How the explainer evaluates one node of a rule's constraint (by its preorder index from the
/// constraint's root): the node in the rule's analysis and the function that evaluates a node of
/// its type through `eval`; no function where the explainer never evaluates the node.
struct NodeEval {
  const void* node = nullptr;
  void (*eval)(const void* node, ExecState& s, NodeValue& out) = nullptr;
};

namespace explain_detail {

/// The value of a node of type N (one function per node type, shared by every rule that has one).
template <class N>
void eval_value(const void* node, ExecState& s, NodeValue& out) {
  out.set(eval(*static_cast<const N*>(node), s));
}
/// A term of the constraint's top-level AND/OR tree, as a truth value.
template <class N>
void eval_truth(const void* node, ExecState& s, NodeValue& out) {
  out.set(static_cast<bool>(eval(*static_cast<const N*>(node), s)));
}

/// Whether a node has a value `eval` computes that is worth showing: not a constant as written, nor
/// the name of a function or a MESSAGE text.
template <class N>
constexpr bool shows_value() {
  if constexpr (!dsl::is_node<N>::value) {
    return false;
  } else {
    constexpr Kind k = N::kind;
    return (dsl::is_scalar(N::vtype) || N::vtype == VType::OpRef) && k != Kind::Bool && k != Kind::Int &&
           k != Kind::Size && k != Kind::Float && k != Kind::DTypeConst && k != Kind::Message && k != Kind::FnName &&
           k != Kind::MessageText;
  }
}

/// The offset of operand K of N from N's own index in preorder.
template <class N, std::size_t K>
constexpr std::uint32_t kid_offset() {
  std::uint32_t at = 1;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<K>>(
      [&](auto i) { at += static_cast<std::uint32_t>(boost::mp11::mp_at_c<typename N::children, i>::tree_size); });
  return at;
}

/// Where a constraint node stands for the explainer: in the constraint's top-level tree of ANDs
/// and ORs, which the walk follows; a term (an operand of that tree: evaluated as a truth value);
/// a node whose value a failing term shows (an operand of a term, or of such a node, that shows a
/// value); or none of these.
enum class Role : std::uint8_t { tree, term, shown, none };

/// Fills `at[0 .. N::tree_size)` for node `n` and its subtree, in preorder.
template <Role R, class N>
void collect(const N& n, NodeEval* at) {
  constexpr bool tree = R == Role::tree && (N::kind == Kind::And || N::kind == Kind::Or);
  constexpr Role self = R == Role::tree && !tree ? Role::term : R;
  if constexpr (self == Role::term)
    at->eval = &eval_truth<N>;
  else if constexpr (self == Role::shown && shows_value<N>())
    at->eval = &eval_value<N>;
  at->node = &n;
  // the operands' roles: those of a term, and of a node that shows a value, show theirs
  constexpr Role kids = tree                                                              ? Role::tree
                        : self == Role::term || (self == Role::shown && shows_value<N>()) ? Role::shown
                                                                                          : Role::none;
  if constexpr (dsl::is_node<N>::value && kids != Role::none) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (collect<kids>(hana::at_c<I>(n.kids), at + kid_offset<N, I>()), ...);
    }
    (std::make_index_sequence<N::arity>{});
  }
}

}  // namespace explain_detail

/// RuleInfo::explain's evaluators of a DSL rule whose analysis (AnalyzedRule) has the node type A:
/// `out[i]` for node i of the rule's constraint in preorder (its flat form's nodes from
/// FlatRule::constraint on).
template <class A>
void explain_nodes(const void* rule, NodeEval* out) {
  explain_detail::collect<explain_detail::Role::tree>(static_cast<const A*>(rule)->constraint, out);
}

}  // namespace optgrammar::engine
