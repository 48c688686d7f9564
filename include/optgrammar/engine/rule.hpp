// Registered rules, as the driver sees them: a name, a pass, a root op, and an apply function.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/dsl/str.hpp"

#include <algorithm>
#include <deque>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace optgrammar {

class Rewriter;

/// Counters of one rule over a run.
struct RuleStats {
  std::uint64_t tried = 0;    ///< the rule's matcher ran on an op with the rule's root name
  std::uint64_t matched = 0;  ///< the match succeeded
  std::uint64_t fired = 0;    ///< the constraint held and the replacement changed the graph
  std::uint64_t failed = 0;   ///< the replacement failed part-way and was rolled back
};

/// One rule. DEF_PACKAGE_OPTIMIZATION makes these; hand-written rules can be made directly.
struct RuleInfo {
  std::string name;           ///< "file.cpp:12": the rule's stable name in traces and counters
  std::string file;           ///< as __FILE__ gave it
  int line = 0;
  std::string pass_name;      ///< "EARLY+1"
  int priority = 0;           ///< the pass: lower runs first
  OpNameId root = 0;          ///< op name of the match root
  std::string canonical;      ///< the rule in canonical text form (docs/canonical-form.md)
  std::string flags;          ///< DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS' flags, as written
  bool warn_nested_split = false;
  /// Tries the rule on `root` (whose name is `this->root`). Returns true when it changed the
  /// graph; it then has called rw.replace(). Counts into rw's stats for this rule.
  bool (*apply)(Rewriter& rw, const RuleInfo& self, OpRef root) = nullptr;
  std::vector<OpNameId> names;  ///< op names the rule uses, interned (for DSL rules)
  std::size_t index = 0;        ///< position in the sorted rule order of a RuleSet
};

/// The documented rule order: by pass priority, then source file base name, then full file
/// name, then line. It does not depend on the order translation units register in.
inline bool rule_order(const RuleInfo* a, const RuleInfo* b) {
  if (a->priority != b->priority) return a->priority < b->priority;
  using dsl::file_base_name;
  if (auto c = file_base_name(a->file).compare(file_base_name(b->file)); c != 0) return c < 0;
  if (auto c = a->file.compare(b->file); c != 0) return c < 0;
  return a->line < b->line;
}

/// A set of rules (a package). The global registry holds every rule linked into the program.
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
  /// Start-up cost: one hash of the canonical text and a look at the rules of equal text, not a
  /// scan of every rule registered so far.
  bool add_once(RuleInfo r) {
    const std::size_t h = text_hash(r);
    for (auto [it, end] = by_text_.equal_range(h); it != end; ++it) {
      const RuleInfo& o = owned_[it->second];
      if (o.line == r.line && o.canonical == r.canonical &&
          dsl::file_base_name(o.file) == dsl::file_base_name(r.file))
        return false;
    }
    add_hashed(std::move(r), h);
    return true;
  }
  /// The rules in rule order.
  const std::vector<const RuleInfo*>& rules() const {
    if (!sorted_) {
      order_.clear();
      for (auto& r : owned_) order_.push_back(&r);
      std::stable_sort(order_.begin(), order_.end(), rule_order);
      for (std::size_t i = 0; i < order_.size(); ++i) const_cast<RuleInfo*>(order_[i])->index = i;
      sorted_ = true;
    }
    return order_;
  }
  std::size_t size() const noexcept { return owned_.size(); }

  /// The rules for which pred(rule) holds, as a set of their own (a package, a test's subset).
  template <class Pred>
  RuleSet select(Pred pred) const {
    RuleSet out;
    for (const auto& r : owned_)
      if (pred(r)) out.add(r);
    return out;
  }

  /// Every DEF_PACKAGE_OPTIMIZATION linked into the program.
  static RuleSet& global() {
    static RuleSet set;
    return set;
  }

 private:
  static std::size_t text_hash(const RuleInfo& r) noexcept {
    return std::hash<std::string_view>{}(r.canonical);
  }
  void add_hashed(RuleInfo r, std::size_t h) {
    by_text_.emplace(h, owned_.size());
    owned_.push_back(std::move(r));
    sorted_ = false;
  }

  std::deque<RuleInfo> owned_;  // stable addresses
  std::unordered_multimap<std::size_t, std::size_t> by_text_;  // canonical's hash -> owned_ index
  mutable std::vector<const RuleInfo*> order_;
  mutable bool sorted_ = false;
};

}  // namespace optgrammar
