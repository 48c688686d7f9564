// Explaining a rule on one op: which part of its match pattern, or which term of its constraint,
// failed there, with what was found (og-opt --why-not). A second walk of the rule's compiled trees,
// next to the apply function (engine/apply.hpp) and shared as apply functions are (one per node
// type of the analyzed rule): the match is walked as engine/match.hpp walks it, recording where it
// stops; the constraint's AND, OR, NOT and XOR are walked recursively and every other term is
// evaluated by `eval` (engine/constraint_eval.hpp), so that each construct has one semantics. Nodes are named
// by their preorder index in the rule's flat form (dsl/flat.hpp); node_text() gives their
// canonical text, from the rule's flat form (RuleInfo::flat). Nothing here runs unless a tool asks for an explanation.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/dsl/canonical.hpp"
#include "optgrammar/engine/constraint_eval.hpp"
#include "optgrammar/engine/exec_state.hpp"
#include "optgrammar/engine/rewriter.hpp"
#include "optgrammar/engine/rule.hpp"

#include <boost/hana/at.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace optgrammar::engine {

/// The canonical text of node `index` of rule `r` and its subtree, from the rule's flat form
/// (RuleInfo::flat); empty for a hand-made rule or past the rule's last node.
inline std::string node_text(const RuleInfo& r, std::uint32_t index) {
  return r.flat ? dsl::node_text(r.flat(r.rule), index) : std::string();
}

/// One failing node of a rule on one op: its preorder index in the rule's flat form, what was
/// found there in words, and the values the node's operands computed (their indices and values).
struct Finding {
  std::uint32_t node = 0;
  std::string found;
  std::vector<std::pair<std::uint32_t, std::string>> values;
};

/// A rule explained on one op: how far it got, and the failing nodes, the first failure first (an
/// OR that is false gives itself, then each of its false operands).
struct Explanation {
  enum class Verdict : std::uint8_t {
    match_failed,      ///< the match pattern does not match the op
    constraint_false,  ///< the match holds; the constraint is false or could not be evaluated
    passes,            ///< match and constraint hold: `rewrite` says what the replacement does
  };
  Verdict verdict = Verdict::passes;
  std::vector<Finding> findings;
  std::string rewrite;  ///< for `passes`: whether the rule fires, or why its replacement failed
  bool fires = false;   ///< for `passes`: the rule changes the graph there
};

namespace explain_detail {

/// "%7 (onnx.Add)".
inline std::string op_words(const Graph& g, OpRef o) {
  if (!o.valid()) return "no op";
  std::string s = "%" + std::to_string(o.index);
  if (!g.alive(o)) return s + " (erased)";
  return s.append(" (").append(g.name(o)).append(")");
}

/// "input 1 of %3 (onnx.Conv)", or "the root" for the op the rule is tried on.
inline std::string place_words(const Graph& g, OpRef parent, std::uint32_t slot) {
  if (!parent.valid()) return "the root";
  return "input " + std::to_string(slot) + " of " + op_words(g, parent);
}

[[gnu::noinline]] inline void wrong_name(Explanation& e, const Graph& g, std::uint32_t node, OpRef o, OpRef parent,
                                         std::uint32_t slot) {
  e.findings.push_back({node, place_words(g, parent, slot) + " is " + op_words(g, o), {}});
}

[[gnu::noinline]] inline void wrong_count(Explanation& e, const Graph& g, std::uint32_t node, OpRef o,
                                          std::uint32_t found, std::size_t wanted, bool exact) {
  e.findings.push_back({node,
                        op_words(g, o) + " has " + std::to_string(found) + " operand" + (found == 1 ? "" : "s") +
                            "; the pattern allows " + (exact ? "exactly " : "at least ") + std::to_string(wanted),
                        {}});
}

[[gnu::noinline]] inline void bound_twice(Explanation& e, const Graph& g, std::uint32_t node, OpRef here, OpRef bound,
                                          OpRef parent, std::uint32_t slot) {
  e.findings.push_back({node, place_words(g, parent, slot) + " is " + op_words(g, here) + ", but the tag is bound to " +
                                  op_words(g, bound),
                        {}});
}

/// The value of a constraint node in words.
inline std::string value_words(const Graph&, bool v) { return v ? "true" : "false"; }
inline std::string value_words(const Graph&, int v) { return std::to_string(v); }
inline std::string value_words(const Graph&, std::size_t v) { return std::to_string(v); }
inline std::string value_words(const Graph&, float v) {
  std::string s;
  dsl::print_float(s, v);
  return s;
}
inline std::string value_words(const Graph&, DType v) { return "DType::" + std::string(dtype_name(v)); }
inline std::string value_words(const Graph& g, OpRef v) { return op_words(g, v); }

/// The offset of operand K of N from N's own index in preorder.
template <class N, std::size_t K>
constexpr std::uint32_t kid_offset() {
  std::uint32_t at = 1;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<K>>(
      [&](auto i) { at += static_cast<std::uint32_t>(boost::mp11::mp_at_c<typename N::children, i>::tree_size); });
  return at;
}

template <class N>
bool op(const N& n, const Graph& g, OpRef o, OpRef parent, std::uint32_t slot, std::uint32_t at, MatchState& s,
        Explanation& e);

template <class N>
bool operand(const N& n, const Graph& g, OpRef parent, std::uint32_t slot, std::uint32_t at, MatchState& s,
             Explanation& e) {
  const OpRef in = g.input(parent, slot);
  if constexpr (N::kind == Kind::Tag) {
    if (n.leaf.wildcard) return true;
    if (n.leaf.first) {
      s.slot[n.leaf.slot] = in;
      return true;
    }
    if (s.slot[n.leaf.slot] == in) return true;
    bound_twice(e, g, at, in, s.slot[n.leaf.slot], parent, slot);
    return false;
  } else if constexpr (N::kind == Kind::Let) {
    if (!n.leaf.first && s.slot[n.leaf.slot] != in) {
      bound_twice(e, g, at, in, s.slot[n.leaf.slot], parent, slot);
      return false;
    }
    s.slot[n.leaf.slot] = in;
    return op(hana::at_c<0>(n.kids), g, in, parent, slot, at + 1, s, e);
  } else {
    return op(n, g, in, parent, slot, at, s, e);
  }
}

/// match_op's walk (engine/match.hpp), the root's name included, recording the first failure.
template <class N>
bool op(const N& n, const Graph& g, OpRef o, OpRef parent, std::uint32_t slot, std::uint32_t at, MatchState& s,
        Explanation& e) {
  if (g.name_id(o) != s.ids[n.leaf.index]) {
    wrong_name(e, g, at, o, parent, slot);
    return false;
  }
  const std::uint32_t k = g.n_inputs(o);
  if (N::kind == Kind::Op ? k != N::arity : k < N::arity) {
    wrong_count(e, g, at, o, k, N::arity, N::kind == Kind::Op);
    return false;
  }
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return (operand(hana::at_c<I>(n.kids), g, o, static_cast<std::uint32_t>(I), at + kid_offset<N, I>(), s, e) && ...);
  }(std::make_index_sequence<N::arity>{});
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
           k != Kind::Size && k != Kind::Float && k != Kind::DTypeConst && k != Kind::Message &&
           k != Kind::FnName && k != Kind::MessageText;
  }
}

/// The values of the operands of node N (at index `at`) and of their subterms, in preorder.
template <class N>
void record_values(const N& n, std::uint32_t at, ExecState& s, Finding& f) {
  if constexpr (dsl::is_node<N>::value) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      [[maybe_unused]] auto one = [&](const auto& kid, std::uint32_t i) {
        using K = std::remove_cvref_t<decltype(kid)>;
        if constexpr (shows_value<K>()) {
          const bool failed = s.failed;
          s.failed = false;
          auto v = eval(kid, s);
          f.values.emplace_back(i, s.failed ? std::string("(could not be evaluated)") : value_words(s.g, v));
          s.failed = failed;
          if constexpr (K::kind != Kind::Tag) record_values(kid, i, s, f);
        }
      };
      (one(hana::at_c<I>(n.kids), at + kid_offset<N, I>()), ...);
    }(std::make_index_sequence<N::arity>{});
  }
}

template <class N>
void term_failed(const N& n, std::uint32_t at, ExecState& s, Explanation& e, bool could_not) {
  Finding& f = e.findings.emplace_back();
  f.node = at;
  f.found = could_not ? "could not be evaluated (an operand out of range, a division by zero, ...)" : "is false";
  record_values(n, at, s, f);
}

/// The constraint term N at index `at`: its value as eval gives it, with the failing terms
/// recorded. AND and OR stop where eval's short circuit does, so the same terms are evaluated.
template <class N>
bool term(const N& n, std::uint32_t at, ExecState& s, Explanation& e) {
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::And) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (term(hana::at_c<I>(n.kids), at + kid_offset<N, I>(), s, e) && ...);
    }(std::make_index_sequence<N::arity>{});
  } else if constexpr (k == Kind::Or) {
    const std::size_t mark = e.findings.size();
    e.findings.push_back({at, "none of its " + std::to_string(N::arity) + " terms holds", {}});
    const bool any = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (term(hana::at_c<I>(n.kids), at + kid_offset<N, I>(), s, e) || ...);
    }(std::make_index_sequence<N::arity>{});
    if (any) e.findings.resize(mark);  // (a false operand before a true one is no failure)
    return any;
  } else {
    const bool failed_before = s.failed;
    const bool v = static_cast<bool>(eval(n, s));
    if (!failed_before && s.failed) term_failed(n, at, s, e, true);
    else if (!v) term_failed(n, at, s, e, false);
    return v;
  }
}

/// What the replacement does where match and constraint hold: the rule's own apply function run
/// on a copy of the graph, with a trace for its reason when it fails.
struct TraceText {
  std::string text;
  void write(const char* p, long n) { text.append(p, static_cast<std::size_t>(n)); }
};
[[gnu::noinline]] inline void explain_rewrite(const RuleInfo& self, const Graph& g, OpRef root, Explanation& e) {
  Graph copy = g;
  std::vector<RuleStats> stats(self.index + 1);
  Rewriter rw(copy, stats);
  TraceText trace;
  rw.set_trace(&trace);
  e.fires = self.apply(rw, self, root);
  const RuleStats& st = stats[self.index];
  if (e.fires) {
    e.rewrite = "the rule fires here";
  } else if (st.failed > 0) {
    const std::size_t at = trace.text.find(" failed: ");
    std::string reason = at == std::string::npos ? trace.text : trace.text.substr(at + 9);
    while (!reason.empty() && reason.back() == '\n') reason.pop_back();
    e.rewrite = "the replacement failed and was rolled back: " + reason;
  } else {
    e.rewrite = "the replacement is the root itself: nothing changes";
  }
}

}  // namespace explain_detail

/// RuleInfo::explain of a DSL rule whose analysis (AnalyzedRule) has the node type A: the rule
/// explained on `root` into `e`. One function per node type, as apply_shared; the rule's values
/// are read from `self.rule`.
template <class A>
void explain_rule(const RuleInfo& self, Graph& g, OpRef root, Explanation& e) {
  const A& rule = *static_cast<const A*>(self.rule);
  e = {};
  OpRef slots[dsl::max_tags];
  slots[0] = root;
  MatchState m{self.names.data(), slots};
  if (!explain_detail::op(rule.match, g, root, OpRef{}, 0, 0, m, e)) {
    e.verdict = Explanation::Verdict::match_failed;
    return;
  }
  using M = std::remove_cvref_t<decltype(rule.match)>;
  Split_Context none[1];
  ExecState s(g, m, root, none);
  const bool ok = explain_detail::term(rule.constraint, static_cast<std::uint32_t>(M::tree_size), s, e);
  if (!ok || s.failed) {
    e.verdict = Explanation::Verdict::constraint_false;
    if (e.findings.empty())  // (an operand of a true OR failed)
      e.findings.push_back({static_cast<std::uint32_t>(M::tree_size), "could not be evaluated", {}});
    return;
  }
  e.findings.clear();
  e.verdict = Explanation::Verdict::passes;
  explain_detail::explain_rewrite(self, g, root, e);
}

}  // namespace optgrammar::engine

namespace optgrammar {
using engine::Explanation;
}  // namespace optgrammar
