// Process-wide interning of op names, so that matching compares integers, never strings.
#pragma once

#include "optgrammar/core/name_hash.hpp"

#include <atomic>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar {

using OpNameId = std::uint32_t;

/// Maps op names ("Conv2d", "q::Add", "$Const") to small dense integers. Rules intern their
/// op names when they register, graphs when ops are created by name.
///
/// Thread-safe: any thread may intern, find and name at any time. A name already interned is
/// found without a lock (an open-addressing table whose slots are published atomically, read
/// through an atomic pointer); only a new name takes the lock (a flag, as adding is rare and short;
/// <mutex> would cost every rule translation unit its parse), to add it. A grown table replaces
/// the old one, which stays allocated (a reader may still be probing it) until the program ends.
/// (Arrays of vectors sized once hold what the table allocates: no deque, no <memory> pointer,
/// whose headers and instantiations cost every rule translation unit, docs/performance.md
/// "Compile time".)
class OpNames {
 public:
  static OpNames& instance() {
    static OpNames table;
    return table;
  }
  OpNameId intern(std::string_view s) {
    const std::uint64_t h = name_hash(s);
    if (const Entry* e = lookup(*table_.load(std::memory_order_acquire), s, h)) return e->id;
    return add(s, h);
  }
  std::optional<OpNameId> find(std::string_view s) const {
    if (const Entry* e = lookup(*table_.load(std::memory_order_acquire), s, name_hash(s))) return e->id;
    return std::nullopt;
  }
  std::string_view name(OpNameId id) const {
    return id < count_.load(std::memory_order_acquire) ? std::string_view(entry(id)->name) : std::string_view("?");
  }
  std::size_t size() const noexcept { return count_.load(std::memory_order_acquire); }

  OpNames(const OpNames&) = delete;
  OpNames& operator=(const OpNames&) = delete;

 private:
  OpNames();
  struct Entry {
    std::string name;
    std::uint64_t hash;
    OpNameId id;
  };
  /// Linear probing over a power-of-two number of slots, at most half full.
  struct Table {
    std::size_t mask = 0;
    std::vector<std::atomic<const Entry*>> slots;
    void make(std::size_t n) {
      mask = n - 1;
      slots = std::vector<std::atomic<const Entry*>>(n);
    }
  };
  /// The entries by id, in segments that never move: segment k holds ids
  /// [64 (2^k - 1), 64 (2^(k+1) - 1)), 2^32 ids in all.
  static constexpr std::size_t first_segment = 64, segments = 26;
  /// Table j has 256 2^j slots; at most half full, 26 tables hold 2^32 ids.
  static constexpr std::size_t first_table = 256, max_tables = 26;

  static const Entry* lookup(const Table& t, std::string_view s, std::uint64_t h) noexcept {
    for (std::size_t i = h & t.mask;; i = (i + 1) & t.mask) {
      const Entry* e = t.slots[i].load(std::memory_order_acquire);
      if (!e) return nullptr;
      if (e->hash == h && e->name == s) return e;
    }
  }
  static void place(Table& t, const Entry* e) noexcept {
    std::size_t i = e->hash & t.mask;
    while (t.slots[i].load(std::memory_order_relaxed)) i = (i + 1) & t.mask;
    t.slots[i].store(e, std::memory_order_release);
  }
  static std::size_t segment_of(OpNameId id) noexcept {
    return static_cast<std::size_t>(std::bit_width(id / first_segment + 1) - 1);
  }
  const Entry* entry(OpNameId id) const noexcept {
    const std::size_t k = segment_of(id);
    return &segments_[k][id - first_segment * ((std::size_t{1} << k) - 1)];
  }
  /// Holds the flag for its scope: a thread that finds it set sleeps until it is cleared.
  struct Lock {
    std::atomic_flag& flag;
    explicit Lock(std::atomic_flag& f) noexcept : flag(f) {
      while (flag.test_and_set(std::memory_order_acquire)) flag.wait(true, std::memory_order_relaxed);
    }
    ~Lock() {
      flag.clear(std::memory_order_release);
      flag.notify_one();
    }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
  };
  /// A name not found without the lock: added under it (unless another thread just did).
  [[gnu::noinline]] OpNameId add(std::string_view s, std::uint64_t h) {
    const Lock lock(adding_);
    Table* t = table_.load(std::memory_order_relaxed);
    if (const Entry* e = lookup(*t, s, h)) return e->id;
    const auto id = static_cast<OpNameId>(count_.load(std::memory_order_relaxed));
    const std::size_t k = segment_of(id);
    if (segments_[k].empty()) segments_[k].resize(first_segment << k);
    Entry& e = segments_[k][id - first_segment * ((std::size_t{1} << k) - 1)];
    e.name = s;
    e.hash = h;
    e.id = id;
    // Counted before it can be found: whoever finds the id can name it.
    count_.store(id + 1, std::memory_order_release);
    if (2 * (std::size_t{id} + 1) > t->mask + 1) {
      Table& bigger = tables_[n_tables_++];
      bigger.make(2 * (t->mask + 1));
      for (OpNameId o = 0; o <= id; ++o) place(bigger, entry(o));
      table_.store(&bigger, std::memory_order_release);
    } else {
      place(*t, &e);
    }
    return id;
  }

  std::atomic<Table*> table_;              // the current table
  std::atomic<std::size_t> count_{0};      // names interned; ids below it are in segments_
  std::vector<Entry> segments_[segments];  // each sized once, when its first id is added
  std::atomic_flag adding_;                // set while adding
  Table tables_[max_tables];               // every table made, in order
  std::size_t n_tables_ = 0;               // tables made
};

inline OpNameId intern_op_name(std::string_view s) { return OpNames::instance().intern(s); }
inline std::string_view op_name_of(OpNameId id) { return OpNames::instance().name(id); }

/// Names with a meaning to the framework. Their ids are fixed: the table interns them first,
/// in this order, so a rule or the driver compares with a constant.
namespace op_names {
inline constexpr OpNameId const_op = 0;  ///< "$Const": constant data
inline constexpr OpNameId input = 1;     ///< "Input": graph input
inline constexpr OpNameId output = 2;    ///< "Output": graph output, never dead
inline constexpr OpNameId out = 3;       ///< "$Out": one output of a multi-output op
inline constexpr OpNameId shape = 4;     ///< "$Shape": a shape made by gen_Shape
/// The spellings of the ids above, in id order.
inline constexpr std::string_view builtin[] = {"$Const", "Input", "Output", "$Out", "$Shape"};
static_assert(std::size(builtin) == shape + 1);
}  // namespace op_names

inline OpNames::OpNames() {
  tables_[n_tables_++].make(first_table);
  table_.store(&tables_[0], std::memory_order_relaxed);
  for (std::string_view s : op_names::builtin) intern(s);
}

}  // namespace optgrammar
