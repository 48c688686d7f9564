// Rule application: the apply function of an analyzed rule, running its phases in order (match,
// slot cache, constraint, replacement) and handing the result to the Rewriter.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/build.hpp"
#include "optgrammar/engine/build_split.hpp"
#include "optgrammar/engine/constraint_eval.hpp"
#include "optgrammar/engine/exec_state.hpp"
#include "optgrammar/engine/match.hpp"
#include "optgrammar/engine/rewriter.hpp"
#include "optgrammar/engine/rule.hpp"
#include "optgrammar/engine/slot_cache.hpp"
#include "optgrammar/engine/trace.hpp"

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace optgrammar::engine {

/// A replacement made only of Op constructions over tags bound by the match: it cannot fail,
/// so it needs no checkpoint, and every op it makes but the top one is read by its parent.
template <class N>
constexpr bool plain_build();
template <class N>
using is_plain_build = std::bool_constant<plain_build<N>()>;
template <class N>
constexpr bool plain_build() {
  if constexpr (!dsl::is_node<N>::value) {
    return false;
  } else if constexpr (N::kind == Kind::Tag) {
    return true;
  } else if constexpr (N::kind == Kind::Op) {
    return boost::mp11::mp_all_of<typename N::children, is_plain_build>::value;
  } else {
    return false;
  }
}

/// A tag (a node the match bound).
template <class N>
constexpr bool tag_node() {
  if constexpr (dsl::is_node<N>::value)
    return N::kind == Kind::Tag;
  else
    return false;
}
template <class N>
using is_tag_node = std::bool_constant<tag_node<N>()>;
/// A plain replacement that makes one op: an Op construction whose operands are all tags
/// (Rewriter::replace_by_new, which may put it in the root's slot).
template <class N>
constexpr bool one_op_build() {
  if constexpr (!dsl::is_node<N>::value) {
    return false;
  } else if constexpr (N::kind != Kind::Op) {
    return false;
  } else {
    return boost::mp11::mp_all_of<typename N::children, is_tag_node>::value;
  }
}

/// What the apply function needs of a rule as constants: its numbers of tags and splits, and
/// the slots whose facts the constraint reads. Rules of the same node types and layout share
/// one apply function (apply_shared).
struct RuleLayout {
  int n_tags = 1;
  int n_splits = 0;
  FactsUse use;
};

/// Match and constraint of one rule, flattened into one straight-line function (only this
/// part: flattening the replacement too costs far more compile time than it saves run time).
/// `rule()` gives the analyzed rule: R::value itself for a rule specialized on its own, whose
/// values are then constants in the code, or the rule a shared function was called for.
template <RuleLayout L, class Rule>
[[gnu::flatten]] bool match_and_check(Rule rule_of, Graph& g, MatchState m, OpRef root, RuleStats& st,
                                      TraceSink trace) {
  const auto& rule = rule_of();
  if (!match_op<true>(rule.match, g, root, m)) return false;
  ++st.matched;
  if constexpr (std::remove_cvref_t<decltype(rule.constraint)>::kind == Kind::Bool) {
    return rule.constraint.leaf.i != 0;
  } else {
    SlotFacts facts[L.n_tags];
    fill_facts<L.use>(g, m.slot, facts, std::make_index_sequence<L.n_tags>{});
    Split_Context none[1];  // split variables have no value in a constraint (analysis rejects them)
    ExecState s(g, m, root, none);
    s.facts = facts;
    s.trace = trace;
    const bool ok = eval(rule.constraint, s);
    return ok && !s.failed;
  }
}

/// The analyzed rule R::value, as match_and_check reads it.
template <class R>
struct fixed_rule {
  constexpr const auto& operator()() const { return R::value; }
};
/// The analyzed rule a shared apply function was called for.
template <class A>
struct shared_rule {
  const A* rule;
  const A& operator()() const { return *rule; }
};

/// Trace line of one rewrite: the root (named `root_name` before the rewrite) and its result,
/// and when the graph tracks provenance, the sources the result stands for.
[[gnu::noinline]] inline void trace_rewrite(Rewriter& rw, const RuleInfo& self, const Graph& g, OpRef root,
                                            OpNameId root_name, OpRef result) {
  rw.trace << (rw.pass_name ? *rw.pass_name : std::string()) << " " << self.name << " %" << root.index << "("
           << op_name_of(root_name) << ") -> %" << result.index << "(" << g.name(result) << ")";
  if (g.tracks_origins()) {
    const auto from = g.made_from(result);
    for (std::size_t k = 0; k < from.size(); ++k) rw.trace << (k ? ", " : " from ") << from[k];
  }
  rw.trace << "\n";
}

/// What a rewrite reports beyond its edit (Rewriter::observing): the provenance of the ops it made
/// (from index `first_new` on, and its root when re-formed in place into `result`), with the record
/// `rec` read before the edit or, when none was, now (the root's input tree is still as matched),
/// then the trace line.
[[gnu::noinline]] inline void observe_rewrite(Rewriter& rw, const RuleInfo& self, Graph& g, OpRef root,
                                              OpNameId root_name, OpRef result, std::size_t first_new,
                                              std::uint32_t rec) {
  if (g.tracks_origins() && (first_new < g.size() || result == root)) {
    if (rec == Origins::none) rec = rw.origin_of(self, root);
    rw.record_origin(rec, first_new, result == root ? root : OpRef{});
  }
  if (rw.trace) trace_rewrite(rw, self, g, root, root_name, result);
}

/// One trace line for a replacement that failed and was rolled back, with the reason.
[[gnu::noinline]] inline void trace_failure(Rewriter& rw, const RuleInfo& self, const Graph& g, OpRef root,
                                            std::string_view reason) {
  rw.trace << (rw.pass_name ? *rw.pass_name : std::string()) << " " << self.name << " %" << root.index << "("
           << g.name(root) << ") failed: " << reason << "\n";
}

/// observe_rewrite after Rewriter::replace_by_new, with what Rewriter::observe_before noted.
[[gnu::noinline, gnu::cold]] inline void observe_replaced(Rewriter& rw, const RuleInfo& self, OpRef root,
                                                          OpRef result) {
  observe_rewrite(rw, self, rw.graph(), root, rw.observed_root_name(), result, rw.observed_first_new(),
                  rw.observed_origin());
}

/// The rule application, inlined into its two entry points below: `Check` runs the match and the
/// constraint (specialized or shared), `rule` is the analyzed rule.
template <RuleLayout L, class A, class Check>
[[gnu::always_inline]] inline bool apply_analyzed(Rewriter& rw, const RuleInfo& self, OpRef root, const A& rule,
                                                  Check check) {
  using Rep = std::remove_cvref_t<decltype(rule.replacement)>;
  // What the match guarantees of the root's input tree: the edits below unroll the erasure of
  // what dies with the root over it, where nothing but this function touched the graph since
  // the match (a tag or a plain build; other replacements may run external code).
  using Shape = match_shape<decltype(rule.match)>;
  Graph& g = rw.graph();
  RuleStats& st = rw.stats(self);
  ++st.tried;
  // Sized to this rule: only its own slots are written on every attempt.
  OpRef slots[L.n_tags];
  slots[0] = root;
  const MatchState m{self.names.data(), slots};
  if (!check(g, m, root, st, rw.trace)) return false;
  const std::size_t first_new = g.size();
  OpRef result;
  if constexpr (Rep::kind == Kind::Tag) {
    // A tag the match bound (the usual bypass): a live op, read from its slot.
    result = slots[rule.replacement.leaf.slot];
    if (result == root) return false;
  } else if constexpr (Rep::vtype == VType::OpRef) {
    // An existing operand (bypass): nothing is built, so there is nothing to undo.
    Split_Context none[1];
    ExecState s(g, m, root, none);
    s.trace = rw.trace;
    result = eval(rule.replacement, s);
    if (s.failed || !g.alive(result)) {
      ++st.failed;
      if (rw.trace) [[unlikely]]
        trace_failure(rw, self, g, root,
                      s.failed ? "the replacement could not be evaluated" : "the replacement names no live op");
      return false;
    }
    if (result == root) return false;
  } else if constexpr (one_op_build<Rep>()) {
    // One new op over tags the match bound: made and put in the root's place in one step, in the
    // root's own slot when the run allows it (Rewriter::replace_by_new). Output definition and op
    // id are the root's, as build_plain gives them.
    OpRef in[Rep::arity + 1];
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((in[I] = slots[hana::at_c<I>(rule.replacement.kids).leaf.slot]), ...);
    }
    (std::make_index_sequence<Rep::arity>{});
    ++st.fired;
    if (rw.observing()) [[unlikely]]
      rw.observe_before(self, root);  // (what the match covered goes in the edit)
    const OpDef& was = g.op_at(root.index);
    result =
        rw.replace_by_new<Shape, Rep::arity>(root, self.names[rule.replacement.leaf.index],
                                             std::span<const OpRef, Rep::arity>(in, Rep::arity), was.output, was.id);
    if (rw.observing()) [[unlikely]]
      observe_replaced(rw, self, root, result);
    return true;
  } else if constexpr (plain_build<Rep>()) {
    Split_Context none[1];
    ExecState s(g, m, root, none);
    s.first_new = first_new;
    result = build_plain(rule.replacement, s);
  } else {
    Split_Context splits[L.n_splits > 0 ? L.n_splits : 1];
    ExecState s(g, m, root, splits);
    s.trace = rw.trace;
    std::vector<OpRef> once;  // (stays empty, unallocated, but for a slice of an Op construction)
    s.built_once = &once;
    auto cp = g.checkpoint();
    s.first_new = cp.ops;
    try {
      result = build(rule.replacement, s);
    } catch (const ReplacementFailedBase& e) {
      g.rollback(cp);  // the rule does not apply here; the graph is as it was
      ++st.failed;
      if (rw.trace) [[unlikely]]
        trace_failure(rw, self, g, root, e.what());
      return false;
    } catch (...) {
      g.rollback(cp);
      ++st.failed;
      throw;
    }
    if (result == root) {
      g.rollback(cp);
      return false;
    }
    g.commit(cp);  // the replacement stands; replace() below makes it visible
  }
  ++st.fired;
  if (rw.observing()) [[unlikely]]
    observe_rewrite(rw, self, g, root, g.name_id(root), result, first_new, Origins::none);
  // The rewrite stands: the Rewriter learns what it made and replaced, and enqueues what that touched.
  if constexpr (Rep::kind != Kind::Tag) rw.notify_inserted_since(first_new);  // (a tag makes nothing)
  if constexpr (Rep::kind == Kind::Tag || plain_build<Rep>())
    rw.replace_alive<Shape>(root, result);  // the driver's root, and a bound op or a made one
  else if constexpr (Rep::vtype == VType::OpRef)
    rw.replace_alive(root, result);  // the driver's root, and a live operand (checked)
  else
    rw.replace(root, result);
  if constexpr (Rep::kind == Kind::Tag) {
    // Nothing to do: the tag's op is in the root's input tree, so if the root's going left it
    // unread, it went with the root (Graph::replace_and_erase erases what dies with the root).
  } else if constexpr (plain_build<Rep>()) {
    rw.erase_unused(result);  // only the top op can be left unread (when the root had no readers)
  } else if constexpr (Rep::vtype != VType::OpRef) {
    rw.erase_unused_since(first_new);
  }
  return true;
}

/// The apply function of a rule specialized at compile time (R::value is its constexpr
/// AnalyzedRule): one function per rule, its values folded into the code.
template <class R, RuleLayout L>
bool apply_rule(Rewriter& rw, const RuleInfo& self, OpRef root) {
  return apply_analyzed<L>(rw, self, root, R::value, [](Graph& g, MatchState m, OpRef r, RuleStats& st, TraceSink t) {
    return match_and_check<L>(fixed_rule<R>{}, g, m, r, st, t);
  });
}

/// The apply function shared by the rules of one node type A and layout L: the rule's values
/// (op-name indices, slots, constants) are read from the analyzed rule `self.rule` points to.
template <class A, RuleLayout L>
bool apply_shared(Rewriter& rw, const RuleInfo& self, OpRef root) {
  const A& rule = *static_cast<const A*>(self.rule);
  return apply_analyzed<L>(rw, self, root, rule, [&rule](Graph& g, MatchState m, OpRef r, RuleStats& st, TraceSink t) {
    return match_and_check<L>(shared_rule<A>{&rule}, g, m, r, st, t);
  });
}

}  // namespace optgrammar::engine
