// Registered rules, as the driver sees them: a name, a pass, a root op, and an apply function.
#pragma once

#include "optgrammar/core/graph.hpp"

#include <algorithm>
#include <deque>
#include <cstdint>
#include <string>
#include <string_view>
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

/// The last component of a path as __FILE__ gives it: "x.hpp" for "/src/../inc/x.hpp".
constexpr std::string_view file_base_name(std::string_view file) noexcept {
  auto p = file.rfind('/');
  return p == std::string_view::npos ? file : file.substr(p + 1);
}

/// The documented rule order: by pass priority, then source file base name, then full file
/// name, then line. It does not depend on the order translation units register in.
inline bool rule_order(const RuleInfo* a, const RuleInfo* b) {
  if (a->priority != b->priority) return a->priority < b->priority;
  if (auto c = file_base_name(a->file).compare(file_base_name(b->file)); c != 0) return c < 0;
  if (auto c = a->file.compare(b->file); c != 0) return c < 0;
  return a->line < b->line;
}

/// A set of rules (a package). The global registry holds every rule linked into the program.
class RuleSet {
 public:
  void add(RuleInfo r) {
    owned_.push_back(std::move(r));
    sorted_ = false;
  }
  /// Adds `r` unless the set already holds the same rule: the same name (file base name and
  /// line) and the same canonical text. A rule defined in a header that several translation
  /// units include registers once from each of them, under whatever path spelling each used
  /// ("inc/x.hpp", "/src/../inc/x.hpp"); it is one rule. Two different files of one base name
  /// holding the same text at the same line also count as one: in its pass the second copy
  /// could never fire (it is tried only where the first, identical, rule did not), so nothing
  /// is lost. Returns whether `r` was added.
  bool add_once(RuleInfo r) {
    for (const auto& o : owned_)
      if (o.line == r.line && o.canonical == r.canonical &&
          file_base_name(o.file) == file_base_name(r.file))
        return false;
    add(std::move(r));
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
  std::deque<RuleInfo> owned_;  // stable addresses
  mutable std::vector<const RuleInfo*> order_;
  mutable bool sorted_ = false;
};

}  // namespace optgrammar
