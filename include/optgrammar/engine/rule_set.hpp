// A set of registered rules (a package) and the tables the driver looks rules up in. Included by
// the driver (engine/driver.hpp, runtime.hpp), not by a translation unit that only defines rules.
#pragma once

#include "optgrammar/core/registry_guard.hpp"
#include "optgrammar/dsl/str.hpp"
#include "optgrammar/engine/rule.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace optgrammar::engine {

/// The documented rule order: by pass priority, then source file base name, then full file
/// name, then line. It does not depend on the order translation units register in.
inline bool rule_order(const RuleInfo* a, const RuleInfo* b) {
  if (a->priority != b->priority) return a->priority < b->priority;
  using dsl::file_base_name;
  if (auto c = file_base_name(a->file).compare(file_base_name(b->file)); c != 0) return c < 0;
  if (auto c = a->file.compare(b->file); c != 0) return c < 0;
  return a->line < b->line;
}

/// The rules of one pass as the driver looks them up: a decision built when the set is frozen.
/// First the root op's name; then the name of the op in one input slot (the slot most of the
/// root's rules look at); then, where two or more rules of the list so found guard the same term
/// (a property of the same matched op; their TermGuards differ only in the value), that
/// property, read once, selects the rules whose value it is; and so on, in the list so selected,
/// for another term two or more of its rules guard (up to max_term_levels terms). Each list keeps
/// rule order and holds exactly the rules whose guards admit what was read, so a rule is skipped
/// only where its match or constraint would fail; each rule of a list carries the term guards
/// the list's decisions have not checked, which the driver checks before calling the rule.
class PassDispatch {
 public:
  /// Terms decided one after another on a path through the decision, at most.
  static constexpr std::size_t max_term_levels = 3;

  PassDispatch(std::span<const RuleInfo* const> rules) : rules_(rules) {
    std::vector<std::vector<const RuleInfo*>> by_root;
    for (const RuleInfo* r : rules) {
      if (r->root >= by_root.size()) by_root.resize(r->root + 1);
      by_root[r->root].push_back(r);
      reads_uses_ = reads_uses_ || r->reads_uses;
    }
    split_budget_ = 16 * rules.size() + 4096;
    roots_.resize(by_root.size());
    for (std::size_t root = 0; root < by_root.size(); ++root) build_root(roots_[root], by_root[root]);
    n_roots_ = static_cast<std::uint32_t>(roots_.size());
    rooted_.resize(by_root.size());
    for (std::size_t root = 0; root < by_root.size(); ++root) rooted_[root] = !by_root[root].empty();
    // guards_ is complete: the candidates' guard runs can be pointed at.
    for (std::size_t k = 0; k < flat_.size(); ++k)
      flat_[k].guard = guard_at_[k] == no_guards ? nullptr : guards_.data() + guard_at_[k];
    guard_at_ = {};
    plain_ = std::none_of(flat_.begin(), flat_.end(), [](const Candidate& c) { return c.guard || c.rule->flag_bits; });
  }
  // The candidates point into guards_: a copy would point into the original.
  PassDispatch(const PassDispatch&) = delete;
  PassDispatch& operator=(const PassDispatch&) = delete;
  PassDispatch(PassDispatch&&) noexcept = default;
  PassDispatch& operator=(PassDispatch&&) noexcept = default;

  /// The pass's rules, in rule order (a run of its RuleSet's rules(), valid while the set's
  /// dispatch() is).
  std::span<const RuleInfo* const> rules() const noexcept { return rules_; }
  /// Whether some rule of the pass has `name` as its root name (else an op so named is skipped).
  bool roots(OpNameId name) const noexcept { return name < n_roots_ && rooted_[name]; }
  /// roots() as a value the worklist's loop can keep in registers.
  struct Rooted {
    const std::uint8_t* rooted;
    std::uint32_t n;
    bool operator()(OpNameId name) const noexcept { return name < n && rooted[name]; }
  };
  Rooted rooted() const noexcept { return {rooted_.data(), n_roots_}; }

  /// A rule to try and the term guards it still has to pass: a run ended by an inactive guard
  /// (null: none).
  struct Candidate {
    const RuleInfo* rule = nullptr;
    const TermGuard* guard = nullptr;
    /// Whether every guard of the run holds for `op` (see TermGuard::holds).
    bool admits(const Graph& g, OpRef op) const noexcept {
      for (const TermGuard* t = guard; t->active; ++t)
        if (!t->holds(g, op)) return false;
      return true;
    }
  };
  /// The rules to try on `op`, whose name is `name`, in rule order.
  struct Candidates {
    const Candidate* rules = nullptr;
    std::size_t size = 0;
  };
  /// `Rooted`: the caller knows that the name roots a rule of the pass (rooted() said so).
  template <bool Rooted = false>
  [[gnu::always_inline]] Candidates candidates(const Graph& g, OpRef op, OpNameId name) const noexcept {
    if constexpr (!Rooted)
      if (name >= n_roots_) return {};
    const Root& e = roots_[name];
    List list = e.fallback;
    if (e.slot < g.n_inputs(op)) {  // (no_slot is no slot of any op)
      const OpNameId in = g.name_id(g.input(op, e.slot));
      if (in - e.base < e.table_size) {
        list = table_[e.table_begin + (in - e.base)];
      } else if (e.sparse_size) [[unlikely]] {  // names too far apart for a table: binary search
        const auto* b = sparse_.data() + e.sparse_begin;
        const auto* it =
            std::lower_bound(b, b + e.sparse_size, in, [](const auto& p, OpNameId n) { return p.first < n; });
        if (it != b + e.sparse_size && it->first == in) list = it->second;
      }
    }
    while (list.size == decided) [[unlikely]] list = decide(decisions_[list.begin], g, op);
    return {flat_.data() + list.begin, list.size};
  }

  /// Whether some rule of the pass may read an op's uses (RuleInfo::reads_uses).
  bool reads_uses() const noexcept { return reads_uses_; }
  /// Whether no candidate has a term guard left to check and no rule waits for a graph option
  /// (RuleInfo::flag_bits): the driver then only calls the candidates.
  bool plain() const noexcept { return plain_; }

  /// How many lists are split by a shared term (the third level and below), for tests and reports.
  std::size_t term_decisions() const noexcept { return decisions_.size(); }
  /// How many rule entries all lists hold together (a rule is in several), for tests and reports.
  std::size_t stored_candidates() const noexcept { return flat_.size(); }
  /// stored_candidates() past which lists split by one term only (no deeper): 16 per rule and
  /// 4,096 more.
  std::size_t split_budget() const noexcept { return split_budget_; }

 private:
  static constexpr std::uint32_t no_slot = 0xFFFFFFFFu;
  /// A list's size that says its begin is a decision's index (decisions_): it splits once more.
  static constexpr std::uint32_t decided = 0xFFFFFFFFu;
  /// A list of candidates: the run [begin, begin + size) of flat_, or a decision (size decided).
  struct List {
    std::uint32_t begin = 0, size = 0;
  };
  struct Root {
    std::uint32_t slot = no_slot;  // the input slot looked at; no_slot: one list for all
    OpNameId base = 0;             // table_[table_begin + k] is the list for name base + k
    std::uint32_t table_begin = 0, table_size = 0;
    List fallback;                                    // list for an op whose slot names no guard's op
    std::uint32_t sparse_begin = 0, sparse_size = 0;  // or sorted (name, list) in sparse_
  };
  /// A list's split by one term: the property `term` reads (its value unused) selects the list of
  /// the rules guarded by that value (sorted (value, list) pairs in values_), else `other`.
  /// When the term's path leaves the graph, the whole list (`all`) is tried, guards and all.
  struct Decision {
    TermGuard term;
    std::uint32_t values_begin = 0, values_size = 0;
    List other, all;
  };
  /// The list `d` picks for `op` (itself decided, when it splits by a further term): one read of
  /// the property its rules share.
  List decide(const Decision& d, const Graph& g, OpRef op) const noexcept {
    std::size_t v = 0;
    if (!d.term.read(g, op, v)) return d.all;
    const auto* b = values_.data() + d.values_begin;
    const auto* it =
        std::lower_bound(b, b + d.values_size, v, [](const auto& p, std::size_t x) { return p.first < x; });
    return it != b + d.values_size && it->first == v ? it->second : d.other;
  }
  /// Whether the driver checks term guard t: it is active and its path fits (a hand-made
  /// RuleInfo may set a longer one; that guard is then not checked and the rule is tried).
  static bool usable(const TermGuard& t) noexcept { return t.active && t.depth <= TermGuard::max_depth; }
  /// Whether r has a usable guard of t's term not among `checked`; `all_equal` then says whether
  /// every such guard names t's value.
  static bool guards_term(const RuleInfo& r, const TermGuard& t, bool* all_equal = nullptr) {
    bool any = false, equal = true;
    for (const TermGuard& o : r.term_guards)
      if (usable(o) && o.same_term(t)) {
        any = true;
        equal = equal && o.value == t.value;
      }
    if (all_equal) *all_equal = equal;
    return any;
  }
  static bool is_checked(const TermGuard& t, const std::vector<TermGuard>& checked) {
    return std::any_of(checked.begin(), checked.end(), [&](const TermGuard& c) { return c.same_term(t); });
  }
  /// The term, not among `checked`, that most rules of `v` guard, if two or more do (the first
  /// such in rule and conjunct order on a tie): one sort of the list's guards.
  static const TermGuard* most_guarded(const std::vector<const RuleInfo*>& v, const std::vector<TermGuard>& checked) {
    struct Seen {
      const TermGuard* t;
      std::size_t rule, order;  // the rule's place in v; the guard's in rule and conjunct order
    };
    std::vector<Seen> seen;
    for (std::size_t i = 0; i < v.size(); ++i)
      for (const TermGuard& t : v[i]->term_guards)
        if (usable(t) && !is_checked(t, checked)) seen.push_back({&t, i, seen.size()});
    std::stable_sort(seen.begin(), seen.end(), [](const Seen& a, const Seen& b) { return a.t->term_before(*b.t); });
    const TermGuard* best = nullptr;
    std::size_t best_rules = 1, best_order = 0;
    // [i, j): the guards of one term, in their first order (the sort is stable), so seen[i] is
    // the term's first appearance and a rule's guards of it are adjacent.
    for (std::size_t i = 0, j = 0; i < seen.size(); i = j) {
      std::size_t rules = 0;
      for (j = i; j < seen.size() && !seen[i].t->term_before(*seen[j].t); ++j)
        rules += j == i || seen[j].rule != seen[j - 1].rule;
      if (rules > best_rules || (rules == best_rules && best && seen[i].order < best_order)) {
        best_rules = rules;
        best_order = seen[i].order;
        best = seen[i].t;
      }
    }
    return best;
  }
  /// Appends the rules `v` in order, each with its usable term guards but those of the terms
  /// `checked` (the decisions that lead to the list have checked them).
  List append_list(const std::vector<const RuleInfo*>& v, const std::vector<TermGuard>& checked) {
    const List list{static_cast<std::uint32_t>(flat_.size()), static_cast<std::uint32_t>(v.size())};
    for (const RuleInfo* r : v) {
      std::uint32_t at = no_guards;
      for (const TermGuard& t : r->term_guards) {
        if (!usable(t) || is_checked(t, checked)) continue;
        if (at == no_guards) at = static_cast<std::uint32_t>(guards_.size());
        guards_.push_back(t);
      }
      if (at != no_guards) guards_.emplace_back();  // the run's end: an inactive guard
      flat_.push_back({r, nullptr});
      guard_at_.push_back(at);
    }
    return list;
  }
  /// Adds the list `v` and, where two or more of its rules guard one term not `checked`, the
  /// decision on that term; returns the list, or the decision (a List of size `decided`).
  List add_list(const std::vector<const RuleInfo*>& v, const std::vector<TermGuard>& checked = {}) {
    const List id = append_list(v, checked);
    // Deeper splits copy the rules that do not guard a term into every value's list: past a
    // budget in the size of the package, a list is left to its guards.
    if (checked.size() >= max_term_levels || (!checked.empty() && flat_.size() > split_budget_)) return id;
    const TermGuard* term = most_guarded(v, checked);
    if (!term) return id;
    const TermGuard t = *term;
    std::vector<std::size_t> values;
    for (const RuleInfo* r : v)
      for (const TermGuard& o : r->term_guards)
        if (usable(o) && o.same_term(t)) values.push_back(o.value);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    std::vector<TermGuard> deeper = checked;
    deeper.push_back(t);
    // The rules that do not guard the term, and those whose every guard of it names `value`.
    auto for_value = [&](const std::size_t* value) {
      std::vector<const RuleInfo*> sub;
      for (const RuleInfo* r : v) {
        TermGuard named = t;
        if (value) named.value = *value;
        bool all_equal = false;
        if (!guards_term(*r, named, &all_equal) || (value && all_equal)) sub.push_back(r);
      }
      return add_list(sub, deeper);
    };
    Decision d;
    d.term = t;
    d.all = id;
    d.other = for_value(nullptr);
    std::vector<std::pair<std::size_t, List>> picked;
    for (const std::size_t& value : values) picked.emplace_back(value, for_value(&value));
    d.values_begin = static_cast<std::uint32_t>(values_.size());
    d.values_size = static_cast<std::uint32_t>(picked.size());
    values_.insert(values_.end(), picked.begin(), picked.end());
    decisions_.push_back(d);
    return List{static_cast<std::uint32_t>(decisions_.size() - 1), decided};
  }
  void build_root(Root& e, const std::vector<const RuleInfo*>& rules) {
    std::vector<std::vector<InputGuard>> guards;
    std::vector<std::uint32_t> per_slot;
    for (const RuleInfo* r : rules) {
      guards.push_back(r->guards);
      for (const InputGuard& gd : guards.back()) {
        if (gd.slot >= per_slot.size()) per_slot.resize(gd.slot + 1);
        ++per_slot[gd.slot];
      }
    }
    if (per_slot.empty()) {
      e.fallback = add_list(rules);
      return;
    }
    e.slot = static_cast<std::uint32_t>(std::max_element(per_slot.begin(), per_slot.end()) - per_slot.begin());
    // Each rule's requirement on the slot: its guard's name, or none (every name passes).
    std::vector<const OpNameId*> need(rules.size(), nullptr);
    std::vector<OpNameId> names;
    for (std::size_t k = 0; k < rules.size(); ++k)
      for (const InputGuard& gd : guards[k])
        if (gd.slot == e.slot) {
          need[k] = &gd.name;
          names.push_back(gd.name);
        }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    auto list_for = [&](const OpNameId* name) {
      std::vector<const RuleInfo*> v;
      for (std::size_t k = 0; k < rules.size(); ++k)
        if (!need[k] || (name && *need[k] == *name)) v.push_back(rules[k]);
      return add_list(v);
    };
    e.fallback = list_for(nullptr);
    const std::size_t span = names.back() - names.front() + 1;
    if (span > 64 + 8 * names.size()) {
      e.sparse_begin = static_cast<std::uint32_t>(sparse_.size());
      e.sparse_size = static_cast<std::uint32_t>(names.size());
      for (const OpNameId& n : names) sparse_.emplace_back(n, list_for(&n));
      return;
    }
    e.base = names.front();
    e.table_size = static_cast<std::uint32_t>(span);
    e.table_begin = static_cast<std::uint32_t>(table_.size());
    table_.resize(table_.size() + span, e.fallback);
    for (const OpNameId& n : names) table_[e.table_begin + (n - e.base)] = list_for(&n);
  }

  std::span<const RuleInfo* const> rules_;            // the pass's rules
  std::vector<Root> roots_;                           // by root name
  std::uint32_t n_roots_ = 0;                         // roots_.size()
  std::vector<std::uint8_t> rooted_;                  // by root name: has rules
  std::vector<List> table_;                           // lists by inner name
  std::vector<std::pair<OpNameId, List>> sparse_;     // (inner name, list), sorted
  std::vector<Decision> decisions_;                   // the lists' third levels
  std::vector<std::pair<std::size_t, List>> values_;  // (term value, list), sorted per decision
  std::vector<Candidate> flat_;                       // the lists' runs; guards point into guards_
  std::vector<TermGuard> guards_;                     // the candidates' guard runs, each ended by an inactive guard
  static constexpr std::uint32_t no_guards = 0xFFFFFFFFu;
  std::vector<std::uint32_t> guard_at_;  // while building: flat_[k]'s run in guards_, or no_guards
  std::size_t split_budget_ = 0;         // flat_'s size past which lists split by one term only
  bool reads_uses_ = false;
  bool plain_ = false;
};

namespace detail {
/// A table a const member function builds on first use: readers that see `done` read it without
/// a lock; the first to ask builds it under the lock while others wait. A moved-from or copied
/// owner is not in use, so a move takes the value of the flag and a fresh lock.
class BuiltOnce {
 public:
  BuiltOnce() = default;
  BuiltOnce(BuiltOnce&& o) noexcept : done_(o.done_.load(std::memory_order_relaxed)) {}
  BuiltOnce& operator=(BuiltOnce&& o) noexcept {
    done_.store(o.done_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    return *this;
  }
  template <class F>
  void ensure(F&& build) {
    if (done_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_.load(std::memory_order_relaxed)) return;
    build();
    done_.store(true, std::memory_order_release);
  }
  /// The owner changed (no one else may be using it then).
  void reset() noexcept { done_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> done_{false};
  std::mutex mutex_;
};
}  // namespace detail

/// A set of rules (a package). The global registry holds every rule linked into the program.
///
/// Threads: a set that no one changes may be read and run (run_rules) by any number of threads at
/// once; its sorted order and dispatch tables are built once, by the first that asks. add() and
/// add_once() need the set to themselves.
class RuleSet {
 public:
  RuleSet() = default;
  // Moves keep the rules' addresses (a deque's elements stay where they are), so rules() stays
  // valid; a copy would not, and no caller needs one: select() makes a subset.
  RuleSet(RuleSet&&) = default;
  RuleSet& operator=(RuleSet&&) = default;
  RuleSet(const RuleSet&) = delete;
  RuleSet& operator=(const RuleSet&) = delete;

  void add(RuleInfo r) {
    const std::size_t h = text_hash(r);
    add_hashed(std::move(r), h);
  }
  /// Adds `r` unless the set already holds the same rule: the same name (file base name and
  /// line) and the same canonical text. A rule defined in a header that several translation
  /// units include registers once from each of them, under whatever path spelling each used
  /// ("inc/x.hpp", "/src/../inc/x.hpp"); it is one rule. Two different files of one base name
  /// holding the same text at the same line also count as one: in its pass the second copy
  /// could never fire (it is tried only where the first, identical, rule did not), so nothing
  /// is lost. Returns whether `r` was added.
  /// Different rules of one name (one macro use that defines several rules, or two files of one
  /// base name with rules at the same line) are told apart by a number, in the order they were
  /// added: `htp_lowering.cpp:172#1`, `#2`, ..., so that every rule of the set has a name of
  /// its own in traces, counters and reports.
  /// Start-up cost: one hash of the canonical text and a look at the rules of equal text, not a
  /// scan of every rule registered so far.
  bool add_once(RuleInfo r) {
    const std::size_t h = text_hash(r);
    for (auto [it, end] = by_text_.equal_range(h); it != end; ++it) {
      const RuleInfo& o = owned_[it->second];
      if (o.line == r.line && o.canonical == r.canonical && dsl::file_base_name(o.file) == dsl::file_base_name(r.file))
        return false;
    }
    if (!r.name.empty()) {
      auto [named, first] = by_name_.try_emplace(r.name, NameUse{owned_.size(), 0});
      if (!first) {
        if (named->second.count == 1) owned_[named->second.first].name += "#1";
        // Appended in two steps: g++-12 -O3 warns wrongly about `"#" + std::to_string(...)` once
        // this is inlined (-Wrestrict, GCC bug 105329).
        r.name += '#';
        r.name += std::to_string(named->second.count + 1);
      }
      ++named->second.count;
    }
    add_hashed(std::move(r), h);
    return true;
  }
  /// The rules in rule order.
  const std::vector<const RuleInfo*>& rules() const {
    sorted_.ensure([this] {
      order_.clear();
      for (auto& r : owned_) order_.push_back(&r);
      std::stable_sort(order_.begin(), order_.end(), rule_order);
      for (std::size_t i = 0; i < order_.size(); ++i) const_cast<RuleInfo*>(order_[i])->index = i;
    });
    return order_;
  }
  std::size_t size() const noexcept { return owned_.size(); }

  /// One PassDispatch per pass, in pass order (the rules of pass k are a run of rules() of one
  /// priority). Built once, the first time a run asks for it after the set changed.
  const std::vector<PassDispatch>& dispatch() const {
    dispatched_.ensure([this] {
      const auto& order = rules();
      dispatch_.clear();
      for (std::size_t i = 0, j = 0; i < order.size(); i = j) {
        while (j < order.size() && order[j]->priority == order[i]->priority) ++j;
        dispatch_.emplace_back(std::span<const RuleInfo* const>(order.data() + i, j - i));
      }
    });
    return dispatch_;
  }

  /// The rules for which pred(rule) holds, as a set of their own (a package, a test's subset).
  template <class Pred>
  RuleSet select(Pred pred) const {
    RuleSet out;
    for (const auto& r : owned_)
      if (pred(r)) out.add(r);
    return out;
  }

  /// Every DEF_PACKAGE_OPTIMIZATION linked into the program: the rules registered so far
  /// (pending_rules()) are taken in first, also those of a package loaded since the last call.
  /// Taking them in changes the set, so it is a registration (RegistryWrite): it throws
  /// RegistryBusy while runs are in progress. Call it once after loading packages, before
  /// threads start optimizing (docs/engine.md, "Threads"); calls that find nothing new change
  /// nothing and may come from any thread.
  static RuleSet& global() {
    static RuleSet set;
    // pending_rules() is written by registrations: at static initialization, or while a package
    // loads under a RegistryWrite, whose lock this takes too.
    std::lock_guard<std::recursive_mutex> lock(optgrammar::detail::RegistryState::instance().writers);
    if (auto& pending = pending_rules(); !pending.empty()) {
      RegistryWrite change("the rules of a package cannot join RuleSet::global()");
      for (RuleInfo& r : pending) set.add_once(std::move(r));
      pending.clear();
    }
    return set;
  }

 private:
  static std::size_t text_hash(const RuleInfo& r) noexcept { return std::hash<std::string_view>{}(r.canonical); }
  void add_hashed(RuleInfo r, std::size_t h) {
    by_text_.emplace(h, owned_.size());
    owned_.push_back(std::move(r));
    sorted_.reset();
    dispatched_.reset();
  }

  std::deque<RuleInfo> owned_;                                 // stable addresses
  std::unordered_multimap<std::size_t, std::size_t> by_text_;  // canonical's hash -> owned_ index
  struct NameUse {
    std::size_t first;  // owned_ index of the first rule of the name
    std::size_t count;  // rules of the name
  };
  std::unordered_map<std::string, NameUse> by_name_;  // add_once's names, as registered (file:line)
  mutable std::vector<const RuleInfo*> order_;
  mutable detail::BuiltOnce sorted_;
  mutable std::vector<PassDispatch> dispatch_;
  mutable detail::BuiltOnce dispatched_;
};

}  // namespace optgrammar::engine

namespace optgrammar {
using engine::PassDispatch;
using engine::rule_order;
using engine::RuleSet;
}  // namespace optgrammar
