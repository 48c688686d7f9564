// The driver: runs a rule set over a graph, pass by pass, each to a fixed point over a worklist.
//
// Order: passes in ascending priority; inside a pass, a FIFO worklist that starts with every live
// op in index order (inputs before users for a freshly built graph); for each op, the rules whose
// root is that op's name, in rule order (rule.hpp), until one fires. Rules whose input or
// dimension guards cannot hold for the op are skipped without a call (PassDispatch, rule.hpp). Every edit goes through
// Rewriter::replace, which re-enqueues what it touched and removes what became dead.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/core/verify.hpp"
#include "optgrammar/dsl/grammar.hpp"
#include "optgrammar/engine/rule.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace optgrammar {

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
  std::string name;   ///< first rule's pass spelling
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

struct DriverOptions {
  /// A pass stops with CycleError after this many rewrites per live op at its start (plus 1000).
  std::uint64_t rewrite_budget_per_op = 16;
  /// Receives one line per rewrite: "<pass> <rule name> %root(Op) -> %result(Op)".
  std::ostream* trace = nullptr;
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
  /// Called on every visited op before its rules (constant folding plugs in here). Returns
  /// true when it replaced the op (through rw.replace), which then counts as a rewrite.
  std::function<bool(Rewriter&, OpRef)> visit;
  /// Called before the first pass and after every pass (common-subexpression elimination
  /// plugs in here). Edits go through the Rewriter.
  std::function<void(Rewriter&)> between_passes;
};

/// What a rule's apply function edits the graph through.
class Rewriter {
 public:
  Rewriter(Graph& g, std::vector<RuleStats>& stats) : g_(g), stats_(stats) {}

  Graph& graph() noexcept { return g_; }
  const Graph& graph() const noexcept { return g_; }
  RuleStats& stats(const RuleInfo& r) noexcept { return stats_[r.index]; }

  /// Readers of `root` read `with` instead; `root` and whatever became dead are removed.
  void replace(OpRef root, OpRef with) {
    g_.replace_all_uses(root, with, [this](OpRef user) { push(user); });
    push(with);
    dead_ += g_.erase_if_dead(root);
    ++rewrites_;
  }
  // The worklist is a sweep over the ops that existed when the pass began (in index order, or
  // its reverse), followed by a FIFO of ops pushed since. An op the sweep has not reached yet is
  // already pending, so pushing it again is a no-op: the sweep needs no storage of its own.

  /// Adds an op to the worklist (no-op when already pending).
  void push(OpRef r) {
    if (sweep_pending(r.index)) return;
    const std::size_t word = r.index >> 6;
    const std::uint64_t bit = std::uint64_t{1} << (r.index & 63);
    if (word >= queued_.size()) queued_.resize(std::max<std::size_t>(g_.size() >> 6, word) + 64, 0);
    if (!(queued_[word] & bit)) {
      queued_[word] |= bit;
      queue_.push_back(r);
    }
  }
  /// The next live op to visit, or an invalid ref when the worklist is empty.
  OpRef pop() {
    if (!reverse_ && order_.empty()) {
      // The common forward sweep: the next index is sweep_end_ - sweep_left_.
      for (std::uint32_t x = sweep_end_ - sweep_left_; x < sweep_end_; ++x)
        if (g_.alive(OpRef{x})) {
          sweep_left_ = sweep_end_ - x - 1;
          return OpRef{x};
        }
      sweep_left_ = 0;
    }
    while (sweep_left_ > 0) {
      --sweep_left_;
      std::uint32_t pos = reverse_ ? sweep_left_ : sweep_end_ - 1 - sweep_left_;
      std::uint32_t x = order_.empty() ? pos : order_[pos];
      if (g_.alive(OpRef{x})) return OpRef{x};
    }
    while (head_ < queue_.size()) {
      OpRef r = queue_[head_++];
      queued_[r.index >> 6] &= ~(std::uint64_t{1} << (r.index & 63));
      if (g_.alive(r)) return r;
    }
    queue_.truncate(0);
    head_ = 0;
    return OpRef{};
  }
  /// Starts a pass: every live op is pending, in index order or its reverse.
  void fill_queue(bool reverse, std::uint64_t shuffle_seed = 0) {
    queue_.truncate(0);
    head_ = 0;
    reverse_ = reverse;
    sweep_end_ = static_cast<std::uint32_t>(g_.size());
    sweep_left_ = sweep_end_;
    order_.clear();
    position_.clear();
    if (shuffle_seed) {
      // Fisher-Yates with a 64-bit LCG: a reproducible order for a given seed.
      order_.resize(sweep_end_);
      for (std::uint32_t k = 0; k < sweep_end_; ++k) order_[k] = k;
      std::uint64_t st = shuffle_seed;
      for (std::uint32_t k = sweep_end_; k > 1; --k) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        std::swap(order_[k - 1], order_[static_cast<std::uint32_t>((st >> 33) % k)]);
      }
      position_.resize(sweep_end_);
      for (std::uint32_t k = 0; k < sweep_end_; ++k) position_[order_[k]] = k;
    }
  }
  std::uint64_t rewrites() const noexcept { return rewrites_; }
  std::uint64_t dead_removed() const noexcept { return dead_; }
  void count_dead(std::uint64_t n) noexcept { dead_ += n; }

  /// The trace sink of the run (nullptr: no trace).
  std::ostream* trace = nullptr;
  const std::string* pass_name = nullptr;

 private:
  Graph& g_;
  std::vector<RuleStats>& stats_;
  // Memory first touched during a run costs a page fault per 4 KB: the FIFO grows in chunks
  // (no copy, no 2x peak when it grows) and the pending marks are one bit per op.
  ChunkedVector<OpRef, 12> queue_;
  std::size_t head_ = 0;
  std::vector<std::uint64_t> queued_;  // bit i: op i is in queue_
  std::uint32_t sweep_end_ = 0;   // the sweep covers ops [0, sweep_end_)
  std::uint32_t sweep_left_ = 0;  // how many of them it has still to visit
  bool reverse_ = false;
  std::vector<std::uint32_t> order_;     // shuffled sweep: position → op
  std::vector<std::uint32_t> position_;  // and op → position
  bool sweep_pending(std::uint32_t op) const noexcept {
    if (op >= sweep_end_) return false;
    std::uint32_t x = position_.empty() ? op : position_[op];
    // Forward: pending when x comes at or after the next index to visit; reverse: before it.
    return reverse_ ? x < sweep_left_ : x >= sweep_end_ - sweep_left_;
  }
  std::uint64_t rewrites_ = 0;
  std::uint64_t dead_ = 0;
};

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
      if (const bool* b = std::get_if<bool>(v)) on = *b;
      else if (const auto* i = std::get_if<std::int64_t>(v)) on = *i != 0;
      else if (const auto* u = std::get_if<std::uint64_t>(v)) on = *u != 0;
    }
    if (!on) off |= std::uint32_t{1} << f.bit;
  }
  return off;
}

/// Applies `rules` to `g` until no rule fires in any pass.
inline RunReport run_rules(Graph& g, const RuleSet& rules, const DriverOptions& opt = {}) {
  using clock = std::chrono::steady_clock;
  RunReport rep;
  rep.rules = rules.rules();
  rep.stats.assign(rep.rules.size(), {});
  rep.ops_before = g.live_count();
  auto t_run = clock::now();
  Rewriter rw(g, rep.stats);
  rw.trace = opt.trace;
  rep.dead_removed += g.remove_dead();

  if (opt.between_passes) opt.between_passes(rw);
  const std::uint32_t flags_off = flags_switched_off(g);
  std::size_t i = 0;
  const std::vector<PassDispatch>& dispatch = rules.dispatch();
  for (std::size_t pass = 0; i < rep.rules.size(); ++pass) {
    // One pass: the rules [i, j) share a priority.
    std::size_t j = i;
    while (j < rep.rules.size() && rep.rules[j]->priority == rep.rules[i]->priority) ++j;
    auto t_pass = clock::now();
    PassReport pr;
    pr.name = rep.rules[i]->pass_name;
    pr.priority = rep.rules[i]->priority;
    rw.pass_name = &pr.name;
    const PassDispatch& by_root = dispatch[pass];

    std::uint64_t rewrites0 = rw.rewrites(), dead0 = rw.dead_removed();
    std::uint64_t budget = opt.rewrite_budget_per_op * g.live_count() + 1000;
    std::vector<std::uint64_t> fired_at_start(j - i);
    for (std::size_t k = i; k < j; ++k) fired_at_start[k - i] = rep.stats[k].fired;
    rw.fill_queue(opt.reverse_order, opt.shuffle_seed);
    const bool check_rules = opt.check_rules || opt.verify_each_rewrite;  // the slow, checked path
    for (OpRef r = rw.pop(); r.valid(); r = rw.pop()) {
      if (opt.visit && opt.visit(rw, r)) continue;
      const PassDispatch::Candidates cands = by_root.candidates(g, r, g.name_id(r));
      for (std::size_t c = 0; c < cands.size; ++c) {
        if (!cands.guards[c].admits(g, r)) continue;  // its constraint cannot hold here
        const RuleInfo* rule = cands.rules[c];
        if (rule->flag_bits & flags_off) continue;  // waits for a graph option that is off
        if (!check_rules) {
          if (rule->apply(rw, *rule, r)) break;
          continue;
        }
        std::size_t size0 = g.size(), live0 = g.live_count();
        std::uint64_t rw0 = rw.rewrites();
        bool fired = rule->apply(rw, *rule, r);
        if (opt.check_rules) {
          if (!fired && (g.size() != size0 || g.live_count() != live0 || rw.rewrites() != rw0))
            throw std::logic_error("rule " + rule->name + " did not fire but changed the graph");
          if (fired && (rw.rewrites() == rw0 || g.alive(r)))
            throw std::logic_error("rule " + rule->name + " reported firing but did not replace its root");
        }
        if (fired) {
          if (opt.verify_each_rewrite) {
            auto problems = verify(g);
            if (!problems.empty())
              throw std::runtime_error("graph invalid after rule " + rule->name + ": " + problems.front());
          }
          break;
        }
      }
      if (rw.rewrites() - rewrites0 > budget) {
        // Name the rules that fired most in this pass: they are the cycle.
        std::vector<std::pair<std::uint64_t, const RuleInfo*>> firing;
        for (std::size_t k = i; k < j; ++k)
          if (auto n = rep.stats[k].fired - fired_at_start[k - i]) firing.emplace_back(n, rep.rules[k]);
        std::sort(firing.begin(), firing.end(),
                  [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second->index < b.second->index; });
        std::vector<std::string> names;
        std::string msg = "no fixed point in pass " + pr.name + std::string(" after ").append(std::to_string(budget)) +
                          " rewrites; rules still firing:";
        for (std::size_t k = 0; k < firing.size() && k < 4; ++k) {
          names.push_back(firing[k].second->name);
          msg += " " + firing[k].second->name + std::string(" (").append(std::to_string(firing[k].first)) + " times)";
        }
        throw CycleError(msg, names);
      }
    }
    pr.rewrites = rw.rewrites() - rewrites0;
    pr.dead_removed = rw.dead_removed() - dead0;
    pr.seconds = std::chrono::duration<double>(clock::now() - t_pass).count();
    rep.passes.push_back(pr);
    if (opt.between_passes) opt.between_passes(rw);
    i = j;
  }
  rep.rewrites = rw.rewrites();
  rep.dead_removed += rw.dead_removed();
  rep.ops_after = g.live_count();
  rep.seconds = std::chrono::duration<double>(clock::now() - t_run).count();
  return rep;
}

}  // namespace optgrammar

