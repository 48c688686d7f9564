// Rule application: the apply function of an analyzed rule, running its phases in order (match,
// slot cache, constraint, replacement) and handing the result to the Rewriter.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/build.hpp"
#include "optgrammar/engine/build_split.hpp"
#include "optgrammar/engine/eval.hpp"
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

/// Match and constraint of one rule, flattened into one straight-line function (only this
/// part: flattening the replacement too costs far more compile time than it saves run time).
template <class R>
[[gnu::flatten]] bool match_and_check(Graph& g, MatchState m, OpRef root, RuleStats& st, TraceSink trace) {
  static constexpr auto& rule = R::value;
  if (!match_op<true>(rule.match, g, root, m)) return false;
  ++st.matched;
  if constexpr (std::remove_cvref_t<decltype(rule.constraint)>::kind == Kind::Bool) {
    return rule.constraint.leaf.i != 0;
  } else {
    static constexpr FactsUse use = facts_use_of(rule.constraint);
    SlotFacts facts[rule.info.n_tags];
    fill_facts<use>(g, m.slot, facts, std::make_index_sequence<rule.info.n_tags>{});
    Split_Context none[1];  // split variables have no value in a constraint (analysis rejects them)
    ExecState s(g, m, root, none);
    s.facts = facts;
    s.trace = trace;
    const bool ok = eval(rule.constraint, s);
    return ok && !s.failed;
  }
}

/// Trace line of one rewrite.
[[gnu::noinline]] inline void trace_rewrite(Rewriter& rw, const RuleInfo& self, const Graph& g, OpRef root, OpRef result) {
  rw.trace << (rw.pass_name ? *rw.pass_name : std::string()) << " " << self.name << " %" << root.index << "("
           << g.name(root) << ") -> %" << result.index << "(" << g.name(result) << ")\n";
}

/// One trace line for a replacement that failed and was rolled back, with the reason.
[[gnu::noinline]] inline void trace_failure(Rewriter& rw, const RuleInfo& self, const Graph& g, OpRef root,
                                            std::string_view reason) {
  rw.trace << (rw.pass_name ? *rw.pass_name : std::string()) << " " << self.name << " %" << root.index << "("
           << g.name(root) << ") failed: " << reason << "\n";
}

/// The apply function of an analyzed DSL rule (R::value is the constexpr AnalyzedRule).
template <class R>
bool apply_rule(Rewriter& rw, const RuleInfo& self, OpRef root) {
  static constexpr auto& rule = R::value;
  using Rep = std::remove_cvref_t<decltype(rule.replacement)>;
  Graph& g = rw.graph();
  RuleStats& st = rw.stats(self);
  ++st.tried;
  // Sized to this rule: only its own slots are written on every attempt.
  OpRef slots[rule.info.n_tags];
  slots[0] = root;
  const MatchState m{self.names.data(), slots};
  if (!match_and_check<R>(g, m, root, st, rw.trace)) return false;
  const std::size_t first_new = g.size();
  OpRef result;
  if constexpr (Rep::vtype == VType::OpRef) {
    // An existing operand (bypass): nothing is built, so there is nothing to undo.
    Split_Context none[1];
    ExecState s(g, m, root, none);
    s.trace = rw.trace;
    result = eval(rule.replacement, s);
    if (s.failed || !g.alive(result)) {
      ++st.failed;
      if (rw.trace) [[unlikely]]
        trace_failure(rw, self, g, root, s.failed ? "the replacement could not be evaluated" : "the replacement names no live op");
      return false;
    }
    if (result == root) return false;
  } else if constexpr (plain_build<Rep>()) {
    Split_Context none[1];
    ExecState s(g, m, root, none);
    s.first_new = first_new;
    result = build(rule.replacement, s);
  } else {
    Split_Context splits[rule.info.n_splits > 0 ? rule.info.n_splits : 1];
    ExecState s(g, m, root, splits);
    s.trace = rw.trace;
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
  if (rw.trace) [[unlikely]]
    trace_rewrite(rw, self, g, root, result);
  // The rewrite stands: the Rewriter learns what it made and replaced, and enqueues what that touched.
  rw.notify_inserted_since(first_new);
  rw.replace(root, result);
  if constexpr (plain_build<Rep>()) {
    rw.erase_unused(result);  // only the top op can be left unread (when the root had no readers)
  } else if constexpr (Rep::vtype != VType::OpRef) {
    rw.erase_unused_since(first_new);
  }
  return true;
}

}  // namespace optgrammar::engine
