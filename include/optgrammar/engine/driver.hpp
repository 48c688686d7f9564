// The driver: runs a rule set over a graph, pass by pass, each to a fixed point over a worklist.
//
// Order: passes in ascending priority; inside a pass, a FIFO worklist that starts with every live
// op in index order (inputs before users for a freshly built graph); for each op, the rules whose
// root is that op's name, in rule order (rule_set.hpp), until one fires. Rules whose input or
// term guards cannot hold for the op are skipped without a call (PassDispatch, rule_set.hpp). Every edit goes through
// Rewriter::replace, which re-enqueues what it touched and removes what became dead.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/core/graph_verify.hpp"
#include "optgrammar/core/registry_guard.hpp"
#include "optgrammar/dsl/grammar.hpp"
#include "optgrammar/engine/autosplit_check.hpp"
#include "optgrammar/engine/rewriter.hpp"
#include "optgrammar/engine/rule_set.hpp"
#include "optgrammar/engine/trace.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <ctime>
#include <functional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace optgrammar::engine {

/// The run did not reach a fixed point: some rules keep firing.
class CycleError : public std::runtime_error {
 public:
  CycleError(const std::string& what, std::vector<std::string> rules)
      : std::runtime_error(what), rules_(std::move(rules)) {}
  const std::vector<std::string>& rules() const noexcept { return rules_; }

 private:
  std::vector<std::string> rules_;
};

struct PassReport {
  std::string name;  ///< first rule's pass spelling
  int priority = 0;
  std::uint64_t rewrites = 0;
  std::uint64_t dead_removed = 0;
  double seconds = 0;
};

struct RunReport {
  std::size_t ops_before = 0;
  std::size_t ops_after = 0;
  std::uint64_t rewrites = 0;
  std::uint64_t dead_removed = 0;
  double seconds = 0;
  std::vector<PassReport> passes;
  std::vector<const RuleInfo*> rules;  ///< rule order
  std::vector<RuleStats> stats;        ///< by rule order
};

/// Looks at rules at work, for tools (og-opt's report pictures one instance of each rule that
/// fired): `trying` is called before a rule is tried on an op, `fired` after it fired there (the
/// root may be gone or, with rewrite_in_place, be its replacement). A run with a watch takes the
/// driver's slow path, as with a visit function.
class RuleWatch {
 public:
  virtual ~RuleWatch() = default;
  virtual void trying(const Rewriter& rw, const RuleInfo& rule, OpRef root) = 0;
  virtual void fired(const Rewriter& rw, const RuleInfo& rule, OpRef root) = 0;
};

struct DriverOptions {
  /// A pass stops with CycleError after this many rewrites per live op at its start (plus 1000).
  std::uint64_t rewrite_budget_per_op = 16;
  /// Receives one line per rewrite: "<pass> <rule name> %root(Op) -> %result(Op)".
  TraceSink trace;
  /// Run graph verification after every rewrite (slow; for debugging rules).
  bool verify_each_rewrite = false;
  /// Visit the initial worklist in reverse (checks results do not depend on visiting order).
  bool reverse_order = false;
  /// When non-zero: visit the initial worklist in a pseudo-random order drawn from this seed.
  std::uint64_t shuffle_seed = 0;
  /// Check after every attempt that a rule that did not fire left the graph unchanged and one
  /// that fired replaced its root (on by default in builds without NDEBUG).
#if defined(NDEBUG)
  bool check_rules = false;
#else
  bool check_rules = true;
#endif
  /// Let a rewrite whose result is one new op over ops the match bound put it in its root's slot
  /// (Rewriter::replace_by_new; DSL rules with such a replacement, as W1's and W2's fusions),
  /// and constant folding put each constant in the folded op's slot (Rewriter::fold_in_place):
  /// nothing is appended and the root's readers keep their records, so a run needs less fresh
  /// memory. The root's OpRef then names its replacement (which has the root's op id and output
  /// definition) and stays alive; index order stays topological. Off: every made op is appended
  /// and an erased op's OpRef never names another op (docs/engine.md).
  bool rewrite_in_place = false;
  /// Called on every visited op before its rules (constant folding plugs in here). Returns
  /// true when it replaced the op (through rw.replace, or rw.fold_in_place), which then counts
  /// as a rewrite.
  std::function<bool(Rewriter&, OpRef)> visit;
  /// Called before the first pass and after every pass (common-subexpression elimination
  /// plugs in here). Edits go through the Rewriter.
  std::function<void(Rewriter&)> between_passes;
  /// Told of every rule tried and every rule that fired (RuleWatch); nullptr: none.
  RuleWatch* watch = nullptr;
};

namespace detail {
/// Seconds since the epoch, for the pass times of the report (<ctime>: <chrono> costs every rule
/// translation unit <sstream> in C++20).
inline double now_seconds() noexcept {
  std::timespec ts{};
  if (std::timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
/// The forward sweep's name filter: a byte for each of `size` names, read without a range check
/// (a build with assertions checks it).
struct SweepFilter {
  const std::uint8_t* bytes = nullptr;
  std::uint32_t size = 0;
  bool operator()(OpNameId n) const noexcept {
    assert(n < size);
    return bytes[n] != 0;
  }
};
/// One pass's worklist loop, until the worklist is empty (false) or the rewrites pass
/// `budget_end` (true: no fixed point). `Checked`: a visit function, checks after every attempt
/// or verification after every rewrite (DriverOptions); without, the loop does only the lookups.
/// `Plain`: no candidate of the pass has a guard or a flag to test (PassDispatch::plain).
template <bool Checked, bool Plain = false>
bool run_pass(Rewriter& rw, const PassDispatch& by_root, const DriverOptions& opt, std::uint32_t flags_off,
              std::uint64_t budget_end) {
  Graph& g = rw.graph();
  // (Read again here, not passed in from run_rules: passed by value it cost W1 about 22
  // instructions a block, callgrind, B = 5,000.)
  const PassDispatch::Rooted rooted = by_root.rooted();
  // Tries the candidates of r in rule order; whether one fired.
  auto visit = [&](OpRef r) __attribute__((always_inline)) {
    // (The lean loop's ops come through the name filter: their names root a rule of the pass.)
    const PassDispatch::Candidates cands = by_root.candidates<!Checked>(g, r, g.name_id(r));
    for (std::size_t c = 0; c < cands.size; ++c) {
      const PassDispatch::Candidate& cand = cands.rules[c];
      const RuleInfo* rule = cand.rule;
      if constexpr (!Plain) {
        if (cand.guard && !cand.admits(g, r)) continue;  // its constraint cannot hold here
        if (rule->flag_bits & flags_off) continue;       // waits for a graph option that is off
      }
      if constexpr (!Checked) {
        if (!rule->apply(rw, *rule, r)) continue;
      } else {
        if (opt.watch) opt.watch->trying(rw, *rule, r);
        std::size_t size0 = g.size(), live0 = g.live_count();
        std::uint64_t rw0 = rw.rewrites();
        // (a rule made by hand records no provenance itself: recorded for it where the graph tracks it)
        bool fired =
            rule->rule == nullptr && g.tracks_origins() ? apply_hand_made(rw, *rule, r) : rule->apply(rw, *rule, r);
        if (opt.check_rules) {
          if (!fired && (g.size() != size0 || g.live_count() != live0 || rw.rewrites() != rw0))
            throw std::logic_error("rule " + rule->name + " did not fire but changed the graph");
          if (fired && (rw.rewrites() == rw0 || (g.alive(r) && rw.last_reformed() != r)))
            throw std::logic_error("rule " + rule->name + " reported firing but did not replace its root");
        }
        if (!fired) continue;
        if (opt.watch) opt.watch->fired(rw, *rule, r);
        if (opt.verify_each_rewrite) {
          auto problems = verify(g);
          if (!problems.empty())
            throw std::runtime_error("graph invalid after rule " + rule->name + ": " + problems.front());
        }
      }
      return true;
    }
    return false;
  };
  if constexpr (!Checked) {
    // The forward sweep visits each op that was alive when the pass began at most once, and a
    // visit fires at most one rule, which rewrites once (a DSL rule always does): with a budget
    // of at least the live count (the default budget always is), the sweep is over before the
    // budget is, so its loop does not check it; the check after it catches a hand-written rule
    // that rewrote more. Its name filter is a byte for every name an op of the graph has had
    // (Graph::name_bound), so that it reads the byte without a range check; it is widened when a
    // rule gave an op a newer name.
    if (budget_end - rw.rewrites() >= g.live_count()) {
      std::vector<std::uint8_t> names;
      SweepFilter filter;
      auto cover = [&] {
        names.assign(std::max(g.name_bound(), rooted.n), 0);
        std::copy(rooted.rooted, rooted.rooted + rooted.n, names.begin());
        filter = {names.data(), static_cast<std::uint32_t>(names.size())};
      };
      cover();
      for (OpRef r; (r = rw.pop_sweep(filter)).valid();) {
        visit(r);
        if (g.name_bound() > filter.size) [[unlikely]]
          cover();
      }
      if (rw.rewrites() > budget_end) return true;
    }
  }
  for (;;) {
    OpRef r;
    if constexpr (Checked) {
      r = opt.visit ? rw.pop() : rw.pop(rooted);
      if (!r.valid()) return false;
      if (opt.visit && opt.visit(rw, r)) {
        if (rw.rewrites() > budget_end) return true;
        continue;
      }
    } else {
      r = rw.pop(rooted);
      if (!r.valid()) return false;
    }
    if (visit(r) && rw.rewrites() > budget_end) return true;
  }
}
}  // namespace detail

/// The rule-flag bits whose rules wait for a graph option that is not on: a rule with
/// `relaxed_precision_flag` runs only when the graph's bool option "relaxed_precision_flag" is
/// true (dsl/grammar.hpp's rule_flags name each flag's option).
inline std::uint32_t flags_switched_off(const Graph& g) {
  std::uint32_t off = 0;
  for (const auto& f : dsl::rule_flags) {
    if (f.option.empty()) continue;
    const OptionValue* v = g.option(f.option);
    bool on = false;
    if (v) {
      if (const bool* b = std::get_if<bool>(v))
        on = *b;
      else if (const auto* i = std::get_if<std::int64_t>(v))
        on = *i != 0;
      else if (const auto* u = std::get_if<std::uint64_t>(v))
        on = *u != 0;
    }
    if (!on) off |= std::uint32_t{1} << f.bit;
  }
  return off;
}

/// Applies `rules` to `g` until no rule fires in any pass.
///
/// Threads (docs/engine.md, "Threads"): runs on different graphs may go on at once on any threads,
/// with the same rule set; each reads the registries under a RegistryRead, so that a package
/// cannot be loaded meanwhile (RegistryWrite throws RegistryBusy) and a run waits for a load in
/// progress. A graph, its DriverOptions (the visit and between-passes functions, the trace sink)
/// and what they point to belong to one run at a time.
inline RunReport run_rules(Graph& g, const RuleSet& rules, const DriverOptions& opt = {});

namespace detail {
/// run_rules without its RegistryRead. Out of line, so that the guard around it leaves the code
/// of the run (its inlining, hence the rewrite loop's instructions) as it is without the guard.
[[gnu::noinline]] inline RunReport run_rules_unguarded(Graph& g, const RuleSet& rules, const DriverOptions& opt) {
  install_split_check();  // also where static initialization has not run it yet
  RunReport rep;
  rep.rules = rules.rules();
  rep.stats.assign(rep.rules.size(), {});
  rep.ops_before = g.live_count();
  const double t_run = detail::now_seconds();
  Rewriter rw(g, rep.stats);
  rw.set_trace(opt.trace);
  rw.in_place = opt.rewrite_in_place;
  rep.dead_removed += g.remove_dead();

  if (opt.between_passes) opt.between_passes(rw);
  const std::uint32_t flags_off = flags_switched_off(g);
  std::size_t i = 0;
  const std::vector<PassDispatch>& dispatch = rules.dispatch();
  for (std::size_t pass = 0; i < rep.rules.size(); ++pass) {
    // One pass: the rules [i, j) share a priority.
    std::size_t j = i;
    while (j < rep.rules.size() && rep.rules[j]->priority == rep.rules[i]->priority) ++j;
    const double t_pass = detail::now_seconds();
    PassReport pr;
    pr.name = rep.rules[i]->pass_name;
    pr.priority = rep.rules[i]->priority;
    rw.pass_name = &pr.name;
    const PassDispatch& by_root = dispatch[pass];

    std::uint64_t rewrites0 = rw.rewrites(), dead0 = rw.dead_removed();
    std::vector<std::uint64_t> fired_at_start(j - i);
    for (std::size_t k = i; k < j; ++k) fired_at_start[k - i] = rep.stats[k].fired;
    const std::uint64_t budget = opt.rewrite_budget_per_op * g.live_count() + 1000;
    // The slow path; also for a pass with a rule made by hand where the graph tracks provenance
    // (apply_hand_made records it for the rule).
    const bool hand_made_origins =
        g.tracks_origins() && std::any_of(rep.rules.begin() + static_cast<std::ptrdiff_t>(i),
                                          rep.rules.begin() + static_cast<std::ptrdiff_t>(j),
                                          [](const RuleInfo* r) { return r->rule == nullptr; });
    const bool checked = opt.check_rules || opt.verify_each_rewrite || opt.visit || opt.watch || hand_made_origins;
    // Without a visit function, an op whose name roots no rule of the pass is passed over by the
    // worklist itself (visiting it would do nothing), and is not queued when pushed.
    const PassDispatch::Rooted rooted = by_root.rooted();
    rw.fill_queue(opt.reverse_order, opt.shuffle_seed, opt.visit ? nullptr : rooted.rooted, opt.visit ? 0 : rooted.n,
                  by_root.reads_uses());
    const bool cycle = checked ? detail::run_pass<true>(rw, by_root, opt, flags_off, rewrites0 + budget)
                       : by_root.plain()
                           ? detail::run_pass<false, true>(rw, by_root, opt, flags_off, rewrites0 + budget)
                           : detail::run_pass<false>(rw, by_root, opt, flags_off, rewrites0 + budget);
    if (cycle) {
      // Name the rules that fired most in this pass: they are the cycle.
      std::vector<std::pair<std::uint64_t, const RuleInfo*>> firing;
      for (std::size_t k = i; k < j; ++k)
        if (auto n = rep.stats[k].fired - fired_at_start[k - i]) firing.emplace_back(n, rep.rules[k]);
      std::sort(firing.begin(), firing.end(), [](auto& a, auto& b) {
        return a.first != b.first ? a.first > b.first : a.second->index < b.second->index;
      });
      std::vector<std::string> names;
      std::string msg = "no fixed point in pass " + pr.name + std::string(" after ").append(std::to_string(budget)) +
                        " rewrites; rules still firing:";
      for (std::size_t k = 0; k < firing.size() && k < 4; ++k) {
        names.push_back(firing[k].second->name);
        msg += " " + firing[k].second->name + std::string(" (").append(std::to_string(firing[k].first)) + " times)";
      }
      throw CycleError(msg, names);
    }
    pr.rewrites = rw.rewrites() - rewrites0;
    pr.dead_removed = rw.dead_removed() - dead0;
    pr.seconds = detail::now_seconds() - t_pass;
    rep.passes.push_back(pr);
    if (opt.between_passes) opt.between_passes(rw);
    i = j;
  }
  rep.rewrites = rw.rewrites();
  rep.dead_removed += rw.dead_removed();
  rep.ops_after = g.live_count();
  rep.seconds = detail::now_seconds() - t_run;
  return rep;
}
}  // namespace detail

inline RunReport run_rules(Graph& g, const RuleSet& rules, const DriverOptions& opt) {
  const RegistryRead reading;
  return detail::run_rules_unguarded(g, rules, opt);
}

}  // namespace optgrammar::engine

// The names programs and rule authors use, from the engine's namespace.
namespace optgrammar {
using engine::CycleError;
using engine::DriverOptions;
using engine::flags_switched_off;
using engine::PassReport;
using engine::RuleWatch;
using engine::run_rules;
using engine::RunReport;
}  // namespace optgrammar
