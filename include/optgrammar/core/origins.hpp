// Provenance: where each op of a graph came from. An op made by a rewrite records the rule that
// made it (its name, "file.cpp:12"), or "fold" for a folded constant; an op read from a model
// records how it entered ("imported"). Each also lists the source nodes it stands for: the ONNX
// node names an importer gave, carried through rewrites as the union over the ops the rule's
// match covered, so that a fused op lists every node it fuses.
//
// The table lives beside the graph's op records (Graph::origins()), off until
// Graph::track_origins(): a graph that does not track it pays nothing when it is built or
// rewritten, and one that does pays one record per rewrite (docs/engine.md, "Provenance").
#pragma once

#include "optgrammar/core/name_hash.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar {

/// Where ops came from, by op index (see the file comment). Names (rule names, node names) are
/// interned; an origin is a record of who made the op and the sorted source names.
class Origins {
 public:
  /// The record of an op without one: made when the graph was built, no source known.
  static constexpr std::uint32_t none = 0;

  struct Record {
    std::uint32_t by = 0;             ///< interned name of the maker ("imported", "fold", a rule)
    std::vector<std::uint32_t> from;  ///< interned source names, sorted, each once
  };

  /// The id of a name (interned; "" is 0).
  std::uint32_t name_id(std::string_view s) {
    if (s.empty()) return 0;
    if (slots_.empty()) slots_.assign(64, 0);
    const std::size_t i = slot_of(s);
    if (slots_[i] != 0) return slots_[i];
    names_.emplace_back(s);
    const auto id = static_cast<std::uint32_t>(names_.size());
    if (2 * names_.size() > slots_.size()) {  // at most half full: grow, and place every name again
      slots_.assign(2 * slots_.size(), 0);
      for (std::uint32_t k = 1; k <= id; ++k) slots_[slot_of(names_[k - 1])] = k;
    } else {
      slots_[i] = id;
    }
    return id;
  }
  std::string_view name(std::uint32_t id) const {
    return id != 0 && id <= names_.size() ? std::string_view(names_[id - 1]) : std::string_view();
  }

  /// A new record: made by `by`, standing for the sources `from` (sorted and made unique here).
  std::uint32_t add(std::uint32_t by, std::vector<std::uint32_t> from) {
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    records_.push_back(Record{by, std::move(from)});
    return static_cast<std::uint32_t>(records_.size());
  }
  const Record& record(std::uint32_t id) const {
    static const Record empty;
    return id != 0 && id <= records_.size() ? records_[id - 1] : empty;
  }

  /// The record of op `op` (none when it has no record).
  std::uint32_t of(std::uint32_t op) const noexcept { return op < of_.size() ? of_[op] : none; }
  void set(std::uint32_t op, std::uint32_t rec) {
    if (op >= of_.size()) of_.resize(op + 1, none);
    of_[op] = rec;
  }
  /// Forgets the records of ops at or past `ops` (a rollback took them back).
  void truncate(std::size_t ops) {
    if (of_.size() > ops) of_.resize(ops);
  }
  /// Op `keep` stands for op `gone` too (CSE merged them): its record lists the sources of both,
  /// with its own maker. Nothing changes when `gone` adds no source.
  void merge(std::uint32_t keep, std::uint32_t gone) {
    const Record& g = record(of(gone));
    const Record& k = record(of(keep));
    if (std::includes(k.from.begin(), k.from.end(), g.from.begin(), g.from.end())) return;
    std::vector<std::uint32_t> from = k.from;
    from.insert(from.end(), g.from.begin(), g.from.end());
    const std::uint32_t by = k.by;
    set(keep, add(by, std::move(from)));  // (add() may move the records k and g are in)
  }
  /// Adds the sources of op `op`'s record to `out` (unsorted).
  void sources_of(std::uint32_t op, std::vector<std::uint32_t>& out) const {
    const Record& r = record(of(op));
    out.insert(out.end(), r.from.begin(), r.from.end());
  }

 private:
  // Nothing is allocated until the first name or record: a graph that does not track origins
  // carries four empty vectors.
  std::vector<std::string> names_;  ///< name id k is names_[k - 1]
  std::vector<Record> records_;
  std::vector<std::uint32_t> of_;
  /// The name ids by a hash of the name: linear probing over a power-of-two number of slots, 0
  /// an empty slot. (A table of its own rather than an unordered_map of strings, whose
  /// instantiation costs every translation unit that includes the graph.)
  std::vector<std::uint32_t> slots_;

  /// The slot that holds `s`'s id, or the empty slot where it goes (slots_ not empty).
  std::size_t slot_of(std::string_view s) const noexcept {
    const std::uint64_t h = name_hash(s);
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = static_cast<std::size_t>(h) & mask;
    while (slots_[i] != 0 && names_[slots_[i] - 1] != s) i = (i + 1) & mask;
    return i;
  }
};

}  // namespace optgrammar
