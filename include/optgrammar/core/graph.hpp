// The runtime graph: ops, their inputs and uses, output definitions, constant data, options.
//
// Storage is flat: ops live in one vector and are named by index (OpRef); every input slot is a
// Use record in one vector, threaded on a doubly linked list of the uses of the value it reads.
// Output definitions and constant payloads are interned (equal ones stored once), so a graph of a
// million ops with a handful of distinct shapes costs about 60 bytes an op. Erased ops keep their
// index (dead slots) so that OpRefs stay valid while rules run; their input records are reused
// by the ops made after them (free_run), so rewriting needs little fresh memory. The two vectors
// move when they grow past their capacity, as any vector does: an OpRef stays good, a reference
// to an op or use record does not (build with OPTGRAMMAR_CHECK_RECORD_MOVES to find one kept
// across growth: appends then move the records, and ASan reports the stale read).
// The two vectors take their memory from the graph's record resource (Graph(RecordResource*)):
// by default operator new, or a block of a program's choosing, such as huge pages
// (core/pmr_records.hpp adapts any std::pmr::memory_resource).
#pragma once

#include "optgrammar/core/dtype.hpp"
#include "optgrammar/core/op_names.hpp"
#include "optgrammar/core/origins.hpp"
#include "optgrammar/core/output_def.hpp"

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

namespace optgrammar {

/// A reference to one op of a graph (its index). Default-constructed: invalid.
struct OpRef {
  static constexpr std::uint32_t invalid_index = 0xFFFFFFFFu;
  std::uint32_t index = invalid_index;

  constexpr bool valid() const noexcept { return index != invalid_index; }
  constexpr explicit operator bool() const noexcept { return valid(); }
  /// What shape functions read of the op's output, as package code writes it:
  /// `x.dim(rpx.graph(), 1)` (0 past the rank), `x.rank(g)`, `x.dtype(g)`. G is Graph (a template
  /// only because Graph is defined below).
  template <class G>
  std::size_t dim(const G& g, std::size_t i) const {
    return g.output(*this).dim(i);
  }
  template <class G>
  std::uint32_t rank(const G& g) const {
    return g.output(*this).rank;
  }
  template <class G>
  auto dtype(const G& g) const {
    return g.output(*this).dtype;
  }
  friend constexpr bool operator==(OpRef, OpRef) noexcept = default;
  friend constexpr auto operator<=>(OpRef, OpRef) noexcept = default;
};

inline constexpr std::uint32_t no_index = 0xFFFFFFFFu;

/// One op as stored in the graph (32 bytes). Read it through Graph's accessors.
struct OpDef {
  OpNameId name = 0;
  std::uint32_t output = 0;            ///< index of the interned OutputDef
  std::uint32_t first_input = 0;       ///< first of n_inputs consecutive Use records
  std::uint32_t first_use = no_index;  ///< head of the list of uses of this op's output
  std::uint32_t n_uses = 0;
  std::uint32_t payload = no_index;  ///< constant data (for $Const), interned
  std::uint32_t id = 0;              ///< op id; a replacement inherits the replaced op's
  std::uint16_t n_inputs = 0;
  bool alive : 1 = true;
  bool has_split_history : 1 = false;
  bool kept : 1 = false;  ///< a graph input or output (Graph::kept_name): never removed as dead
};
static_assert(sizeof(OpDef) == 32);

/// One input slot: `user` reads `value` in slot `slot`.
struct Use {
  OpRef value;
  OpRef user;
  std::uint32_t next = no_index;
  std::uint32_t prev = no_index;
};

/// Where a graph's op and input records take their memory: a program's own arena, huge pages,
/// a counting resource in a test. allocate(bytes, align) returns a block of at least `bytes`
/// bytes aligned to `align` (a power of two) or throws; deallocate gets back the block with the
/// same `bytes` and `align`. core/pmr_records.hpp adapts a std::pmr::memory_resource to it.
class RecordResource {
 public:
  virtual void* allocate(std::size_t bytes, std::size_t align) = 0;
  virtual void deallocate(void* p, std::size_t bytes, std::size_t align) noexcept = 0;

 protected:
  RecordResource() = default;
  RecordResource(const RecordResource&) = default;
  RecordResource& operator=(const RecordResource&) = default;
  ~RecordResource() = default;
};

/// The default record resource: operator new and delete (the aligned forms past
/// __STDCPP_DEFAULT_NEW_ALIGNMENT__). One object for the whole program.
class NewDeleteRecords final : public RecordResource {
 public:
  void* allocate(std::size_t bytes, std::size_t align) override {
    if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator new(bytes, std::align_val_t(align));
    return ::operator new(bytes);
  }
  void deallocate(void* p, std::size_t, std::size_t align) noexcept override {
    if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator delete(p, std::align_val_t(align));
    ::operator delete(p);
  }
};

/// The program's one NewDeleteRecords: what Graph() and Graph(nullptr) take their records from.
inline RecordResource* new_delete_records() noexcept {
  static NewDeleteRecords resource;
  return &resource;
}

/// The allocator of a graph's op and input records: their memory comes from a RecordResource,
/// the graph's (Graph(RecordResource*)), by default new_delete_records(). The resource goes with
/// the records: a graph moved, copied, assigned or swapped keeps the resource its records came
/// from, so moving a graph moves the pointers to its records and never copies them into another
/// resource.
template <class T>
struct RecordAllocator {
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  RecordAllocator() noexcept = default;
  /// nullptr: the default, new_delete_records().
  explicit RecordAllocator(RecordResource* r) noexcept : resource(r ? r : new_delete_records()) {}
  template <class U>
  RecordAllocator(const RecordAllocator<U>& other) noexcept : resource(other.resource) {}

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(resource->allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { resource->deallocate(p, n * sizeof(T), alignof(T)); }
  /// Equal when they share the resource: one frees what the other allocated.
  template <class U>
  friend bool operator==(const RecordAllocator& a, const RecordAllocator<U>& b) noexcept {
    return a.resource == b.resource;
  }

  RecordResource* resource = new_delete_records();
};

/// What an edit's caller knows at compile time of the input tree of the op it erases (or
/// re-forms), so that the erasure of what dies with it is unrolled over that part:
/// `KnownShape<I...>` is an op with exactly sizeof...(I) inputs, the k-th of them an op of the
/// shape I_k; `UnknownShape` knows nothing (any inputs, any number). A rule's match pattern
/// gives its root's shape (engine/match.hpp). The unrolled erasure takes the ops in the order the
/// general one does, so both leave the graph, and its free records, the same.
struct UnknownShape {};
template <class... Inputs>
struct KnownShape {};

/// A graph option, read by OPTION_INT/UINT/FLOAT/BOOL.
using OptionValue = std::variant<std::int64_t, std::uint64_t, double, bool, std::string>;

/// Thrown for misuse of the graph API (a bad OpRef, erasing a used op, ...).
class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Graph {
 public:
  Graph() : Graph(nullptr) {}
  /// A graph whose op and input records (the memory that grows with its ops: 48 bytes and more
  /// an op) come from `records`, which must outlive the graph and every graph moved or copied
  /// from it (RecordAllocator: the resource goes with the records). nullptr: operator new, as
  /// Graph(). The rest (interned output definitions and constants, options) is the standard
  /// library's. docs/embedding.md, "Where a graph's memory comes from".
  explicit Graph(RecordResource* records)
      : ops_(RecordAllocator<OpDef>(records)), uses_(RecordAllocator<Use>(records)) {
    outdefs_.reserve(16);
    split_histories_.emplace_back();  // index 0: no history
  }

  // ---- building ---------------------------------------------------------------------------
  /// Room for a graph of `ops` ops with `inputs` inputs in all, and a quarter more of each for
  /// what rewriting adds, so that neither building nor rewriting moves the records (a graph that
  /// outgrows it moves them, copying each vector once per doubling). The room is address space
  /// only: a page of it is faulted in when a record is first written there, so counts that are
  /// only bounds (the text reader's lines, which comments and blank lines inflate) cost nothing
  /// past what is used, and the ops a rewrite appends fault in only the pages they fill.
  void reserve(std::size_t ops, std::size_t inputs) {
    ops_.reserve(ops + ops / 4);
    uses_.reserve(inputs + inputs / 4);
  }
  /// Op slots that fit before the op records move.
  std::size_t op_capacity() const noexcept { return ops_.capacity(); }
  /// Where the op and input records' memory comes from (Graph(RecordResource*)).
  RecordResource* records_resource() const noexcept { return ops_.get_allocator().resource; }

  /// add_op("Conv2d", {x, w}, OutputDef::make(DType::Float32, {1, 32, 32, 16})).
  OpRef add_op(OpNameId name, std::span<const OpRef> inputs, const OutputDef& out) {
    return add_op_with_id(name, inputs, intern_output(out), next_id_++);
  }
  OpRef add_op(std::string_view name, std::initializer_list<OpRef> inputs, const OutputDef& out) {
    return add_op(intern_op_name(name), std::span<const OpRef>(inputs.begin(), inputs.size()), out);
  }
  OpRef add_op(OpNameId name, std::initializer_list<OpRef> inputs, const OutputDef& out) {
    return add_op(name, std::span<const OpRef>(inputs.begin(), inputs.size()), out);
  }

  /// The general form: interned output definition index and an explicit op id.
  OpRef add_op_with_id(OpNameId name, std::span<const OpRef> inputs, std::uint32_t outdef, std::uint64_t id) {
    // Everything is checked before anything is appended: a bad call leaves the graph as it was.
    if (inputs.size() > 0xFFFF) throw GraphError("an op may have at most 65535 inputs");
    if (outdef >= outdefs_.size()) throw GraphError("unknown output definition index");
    if (id > 0xFFFFFFFFu) throw GraphError("op ids are limited to 32 bits");
    for (OpRef in : inputs) check(in);
    return add_op_unchecked(name, inputs, outdef, static_cast<std::uint32_t>(id));
  }
  /// add_op_with_id for a caller that knows what it checks: every input is alive, `outdef` is an
  /// interned index and there are at most 65535 inputs (a rule's replacement made of Op
  /// constructions over the ops its match bound, with the root's output definition and id). A
  /// build with assertions (the asan preset) checks them all the same.
  OpRef add_op_unchecked(OpNameId name, std::span<const OpRef> inputs, std::uint32_t outdef, std::uint32_t id) {
    assert(inputs.size() <= 0xFFFF && outdef < outdefs_.size());
    assert(std::all_of(inputs.begin(), inputs.end(), [&](OpRef in) { return alive(in); }));
    OpRef r{static_cast<std::uint32_t>(ops_.size())};
    check_moves(ops_);
    OpDef& d = ops_.emplace_back();
    d.name = name;
    if (name >= name_bound_) name_bound_ = name + 1;
    d.output = outdef;
    d.id = id;
    if (id >= next_id_) next_id_ = std::uint64_t{id} + 1;
    const auto n_in = static_cast<std::uint32_t>(inputs.size());
    const std::uint32_t first = take_run(n_in);
    d.first_input = first;
    d.n_inputs = static_cast<std::uint16_t>(n_in);
    d.kept = kept_name(name);
    if (!d.kept) ++unread_;
    for (std::uint32_t k = 0; k < n_in; ++k) link_new_use(first + k, inputs[k], r);
    ++live_;
    return r;
  }

  /// A constant: `$Const` with the given bytes (element_count * element_size of `out`).
  OpRef add_const(const OutputDef& out, std::span<const std::byte> data) { return add_const(intern_output(out), data); }
  /// The same with an interned output definition (intern_output), for bulk building.
  OpRef add_const(std::uint32_t outdef, std::span<const std::byte> data) {
    if (outdef >= outdefs_.size()) throw GraphError("add_const: unknown output definition index");
    check_const_size(outdef, data);
    OpRef r = add_op_with_id(op_names::const_op, std::span<const OpRef>{}, outdef, next_id_++);
    ops_[r.index].payload = intern_payload(data);
    return r;
  }
  template <class T>
  OpRef add_const(const OutputDef& out, std::span<const T> values) {
    return add_const(out, std::as_bytes(values));
  }
  template <class T>
  OpRef add_const(const OutputDef& out, std::initializer_list<T> values) {
    return add_const(out, std::span<const T>(values.begin(), values.size()));
  }
  OpRef add_input(const OutputDef& out) { return add_op(op_names::input, std::span<const OpRef>{}, out); }
  OpRef add_output(OpRef value) { return add_op(op_names::output, std::span<const OpRef>(&value, 1), output(value)); }

  // ---- reading ----------------------------------------------------------------------------
  std::size_t size() const noexcept { return ops_.size(); }  ///< op slots, dead ones included
  std::size_t live_count() const noexcept { return live_; }
  /// One more than the largest op name id an op of this graph has had (0 for an empty graph): no
  /// op's name is at or above it.
  std::uint32_t name_bound() const noexcept { return name_bound_; }
  /// Input records stored, in use or not (the records of erased ops are reused: free_run).
  std::size_t use_records() const noexcept { return uses_.size(); }
  bool valid(OpRef r) const noexcept { return r.index < ops_.size(); }
  bool alive(OpRef r) const noexcept { return r.index < ops_.size() && ops_[r.index].alive; }
  /// alive() of an index known to be below size().
  bool alive_at(std::uint32_t i) const noexcept { return ops_[i].alive; }
  const OpDef& op(OpRef r) const { return ops_[checked(r)]; }
  /// op() of an index known to be below size().
  const OpDef& op_at(std::uint32_t i) const noexcept { return ops_[i]; }
  OpNameId name_id(OpRef r) const noexcept { return ops_[r.index].name; }
  std::string_view name(OpRef r) const { return op_name_of(op(r).name); }
  const OutputDef& output(OpRef r) const { return outdefs_[op(r).output]; }
  std::uint32_t output_index(OpRef r) const noexcept { return ops_[r.index].output; }
  /// An interned output definition by index (indices come from intern_output or output_index).
  const OutputDef& outdef_at(std::uint32_t i) const noexcept { return outdefs_[i]; }
  /// outdef_at(i).element_count(), computed once when the definition was interned.
  std::size_t element_count_at(std::uint32_t i) const noexcept { return outdef_counts_[i]; }
  std::uint32_t n_inputs(OpRef r) const noexcept { return ops_[r.index].n_inputs; }
  [[gnu::always_inline]] OpRef input(OpRef r, std::uint32_t i) const noexcept {
    return uses_[ops_[r.index].first_input + i].value;
  }
  std::uint32_t n_uses(OpRef r) const noexcept { return ops_[r.index].n_uses; }
  std::uint64_t op_id(OpRef r) const noexcept { return ops_[r.index].id; }
  bool is_const(OpRef r) const noexcept { return ops_[r.index].payload != no_index; }
  std::span<const std::byte> payload(OpRef r) const {
    const OpDef& d = op(r);
    if (d.payload == no_index) return {};
    const auto& p = payloads_[d.payload];
    return {p.data(), p.size()};
  }
  std::uint32_t payload_index(OpRef r) const noexcept { return ops_[r.index].payload; }
  /// Whether a and b compute the same from the same inputs: name, output definition (interned:
  /// its index), constant data, input count and split history; not their op ids nor their inputs.
  bool same_but_inputs(OpRef a, OpRef b) const {
    const OpDef& x = ops_[a.index];
    const OpDef& y = ops_[b.index];
    if (x.name != y.name || x.output != y.output || x.payload != y.payload || x.n_inputs != y.n_inputs) return false;
    return !(x.has_split_history || y.has_split_history) || split_history(a) == split_history(b);
  }
  /// The bytes of an interned payload by index (payload_index of a constant).
  const std::byte* payload_data_at(std::uint32_t i) const noexcept { return payloads_[i].data(); }
  const std::vector<int>& split_history(OpRef r) const {
    static const std::vector<int> none;
    if (!op(r).has_split_history) return none;
    return split_histories_[history_of_.at(r.index)];
  }

  /// Calls f(user, slot) for every use of r's output.
  template <class F>
  void for_each_use(OpRef r, F&& f) const {
    for (std::uint32_t u = ops_[r.index].first_use; u != no_index;) {
      const Use& use = uses_[u];
      std::uint32_t next = use.next;
      f(use.user, u - ops_[use.user.index].first_input);
      u = next;
    }
  }
  std::vector<OpRef> users(OpRef r) const {
    std::vector<OpRef> v;
    for_each_use(r, [&](OpRef u, std::uint32_t) { v.push_back(u); });
    return v;
  }
  std::vector<OpRef> live_ops() const {
    std::vector<OpRef> v;
    v.reserve(live_);
    for (std::uint32_t i = 0; i < ops_.size(); ++i)
      if (ops_[i].alive) v.push_back(OpRef{i});
    return v;
  }
  /// The graph's interface, never removed as dead: outputs (ops named Output) and inputs (ops
  /// named Input; a caller binds inputs by position, so an unread input must stay).
  static bool kept_name(OpNameId n) noexcept { return n == op_names::output || n == op_names::input; }
  bool is_root(OpRef r) const noexcept { return ops_[r.index].kept; }

  // ---- editing ----------------------------------------------------------------------------
  /// Every reader of `from` reads `to` instead. Calls touched(user) for each changed reader.
  template <class F>
  void replace_all_uses(OpRef from, OpRef to, F&& touched) {
    check(from);
    check(to);
    if (from == to) return;
    if (open_checkpoints_ == 0) [[likely]] {
      OpDef& f = ops_[from.index];
      if (f.n_uses == 0) return;
      move_uses(f, ops_[to.index], to, touched);
      if (!f.kept) ++unread_;  // from is read no more
      return;
    }
    std::uint32_t u = ops_[from.index].first_use;
    while (u != no_index) {
      std::uint32_t next = uses_[u].next;
      log_use(u);
      unlink_use(u);
      uses_[u].value = to;
      link_use(u);
      touched(uses_[u].user);
      u = next;
    }
  }
  void replace_all_uses(OpRef from, OpRef to) {
    replace_all_uses(from, to, [](OpRef) {});
  }
  /// replace_all_uses(from, to, touched), then erase_if_dead(from): a rewrite's edit, in one
  /// pass when no checkpoint is open. Returns how many ops were erased. Check = false: the caller
  /// knows that both ops are alive (it does not check them again).
  /// `Shape`: what the caller knows of from's input tree (KnownShape).
  template <bool Check = true, class Shape = UnknownShape, class F>
  [[gnu::always_inline]] std::size_t replace_and_erase(OpRef from, OpRef to, F&& touched) {
    if constexpr (Check) {
      check(from);
      check(to);
    }
    if (from == to || open_checkpoints_ != 0) [[unlikely]] {
      replace_all_uses(from, to, touched);
      return erase_if_dead(from);
    }
    OpDef& f = ops_[from.index];
    if (f.n_uses != 0) {
      move_uses(f, ops_[to.index], to, touched);
      if (f.kept) return 0;
      return erase_chain<Shape>(from);  // from turned unread and goes: the unread count is unchanged
    }
    if (f.kept) return 0;
    --unread_;
    return erase_chain<Shape>(from);
  }
  /// Whether reform(r, name, inputs, ...) may turn `r` into that op in its own slot: no checkpoint
  /// is open (rollback could not take it back), neither r nor the new op is a graph input or
  /// output, and every input comes before r (so index order stays topological; r cannot read
  /// itself). `r` and the inputs must be alive.
  bool can_reform(OpRef r, OpNameId name, std::span<const OpRef> inputs) const noexcept {
    if (open_checkpoints_ != 0 || ops_[r.index].kept || kept_name(name)) return false;
    for (OpRef in : inputs)
      if (in.index >= r.index) return false;
    return true;
  }
  /// A rewrite's edit without a new slot: the live op `r` becomes the op `name(inputs)` with the
  /// interned output definition `outdef` and op id `id`, where can_reform allows it. r's readers
  /// keep reading r, which is now the new op; the inputs r read before lose that use, and those
  /// that nothing reads any more are erased with what dies with them. Returns how many ops were
  /// erased. What r's readers read changed: the caller revisits them.
  /// `Shape`: what the caller knows of r's input tree before (KnownShape).
  template <class Shape = UnknownShape>
  [[gnu::always_inline]] std::size_t reform(OpRef r, OpNameId name, std::span<const OpRef> inputs, std::uint32_t outdef,
                                            std::uint32_t id) {
    assert(can_reform(r, name, inputs) && alive(r) && outdef < outdefs_.size() && inputs.size() <= 0xFFFF);
    OpDef& d = ops_[r.index];
    const std::uint32_t old_first = d.first_input, old_end = old_first + d.n_inputs;
    // The new inputs are linked first: an op read before and after keeps a use and stays.
    const auto n_in = static_cast<std::uint32_t>(inputs.size());
    const std::uint32_t first = take_run(n_in);
    for (std::uint32_t k = 0; k < n_in; ++k) link_new_use(first + k, inputs[k], r);
    d.name = name;
    if (name >= name_bound_) name_bound_ = name + 1;
    d.output = outdef;
    d.id = id;
    d.payload = no_index;  // the new op is no constant (reform_const gives it its data after)
    if (id >= next_id_) next_id_ = std::uint64_t{id} + 1;
    d.first_input = first;
    d.n_inputs = static_cast<std::uint16_t>(n_in);
    // Each old input that this leaves unread goes (unread_ is unchanged: it turned unread and went).
    const std::size_t erased = release_inputs_of(old_first, old_end, static_cast<Shape*>(nullptr));
    if (old_end != old_first) free_run(old_first, old_end - old_first);
    live_ -= erased;
    return erased;
  }
  /// reform() into a `$Const` holding `data`, with r's output definition and op id (constant
  /// folding in place). r keeps no split history, as a constant added in its place would not.
  std::size_t reform_const(OpRef r, std::span<const std::byte> data) {
    const OpDef& d = ops_[r.index];
    check_const_size(d.output, data);
    const std::size_t erased = reform(r, op_names::const_op, std::span<const OpRef>{}, d.output, d.id);
    ops_[r.index].payload = intern_payload(data);
    if (ops_[r.index].has_split_history) [[unlikely]]
      set_split_history(r, {});
    return erased;
  }
  void set_input(OpRef user, std::uint32_t slot, OpRef value) {
    check(user);
    check(value);
    if (slot >= ops_[user.index].n_inputs) throw GraphError("input slot out of range");
    std::uint32_t u = ops_[user.index].first_input + slot;
    log_use(u);
    unlink_use(u);
    uses_[u].value = value;
    link_use(u);
  }
  void set_output(OpRef r, const OutputDef& d) {
    std::uint32_t idx = intern_output(d);
    log_op(r, Undo::Output);
    ops_[checked(r)].output = idx;
  }
  void set_op_id(OpRef r, std::uint64_t id) {
    if (id > 0xFFFFFFFFu) throw GraphError("op ids are limited to 32 bits");
    log_op(r, Undo::Id);
    ops_[checked(r)].id = static_cast<std::uint32_t>(id);
    if (id >= next_id_) next_id_ = id + 1;
  }
  void set_split_history(OpRef r, std::vector<int> h) {
    log_op(r, Undo::History);
    OpDef& d = ops_[checked(r)];
    if (h.empty()) {
      d.has_split_history = false;
      history_of_.erase(r.index);
      return;
    }
    split_histories_.push_back(std::move(h));
    history_of_[r.index] = static_cast<std::uint32_t>(split_histories_.size() - 1);
    d.has_split_history = true;
  }
  void copy_split_history(OpRef to, OpRef from) {
    if (!op(from).has_split_history) {
      set_split_history(to, {});
      return;
    }
    log_op(to, Undo::History);
    history_of_[to.index] = history_of_.at(from.index);
    ops_[checked(to)].has_split_history = true;
  }
  /// A fresh op id, for ops that must not inherit one.
  std::uint64_t new_op_id() noexcept { return next_id_++; }

  /// Removes an op that nothing reads; its inputs lose a use. Calls released(input) for each
  /// input whose last use this was (the caller decides whether it is dead in turn).
  template <class F>
  void erase(OpRef r, F&& released) {
    const OpDef& d = ops_[checked(r)];
    if (!d.alive) return;
    if (d.n_uses != 0) [[unlikely]]
      throw GraphError(std::string("erasing op %").append(std::to_string(r.index)) + " which is still used");
    erase_unused(r, released);
  }
  void erase(OpRef r) {
    erase(r, [](OpRef) {});
  }

  /// Erases r if dead, then every input made dead by that, transitively.
  std::size_t erase_if_dead(OpRef r) {
    if (!alive(r)) return 0;
    if (const OpDef& d = ops_[r.index]; d.n_uses != 0 || d.kept) return 0;
    return erase_dead(r);
  }
  /// Removes every op that no graph output depends on (graph inputs stay). Returns how many.
  std::size_t remove_dead() {
    if (unread_ == 0) return 0;  // every op is read or kept: nothing is dead
    std::size_t n = 0;
    for (std::uint32_t i = static_cast<std::uint32_t>(ops_.size()); i-- > 0;) {
      const OpDef& d = ops_[i];
      if (d.alive && d.n_uses == 0 && !d.kept) n += erase_if_dead(OpRef{i});
    }
    return n;
  }

  // ---- transactions -----------------------------------------------------------------------
  /// rollback(cp) takes the graph back to what it was at checkpoint(): appended ops and uses are
  /// removed, and edits to ops that existed (set_input, set_output, set_op_id, split history,
  /// replace_all_uses, erase) are undone from a log kept while a checkpoint is open.
  /// commit(cp) closes the checkpoint and keeps everything.
  struct Checkpoint {
    std::size_t ops, uses, live, unread, undo;
    std::uint64_t next_id;
  };
  Checkpoint checkpoint() {
    if (open_checkpoints_++ == 0) {
      log_ops_below_ = ops_.size();
      log_uses_below_ = uses_.size();
    }
    return {ops_.size(), uses_.size(), live_, unread_, undo_.size(), next_id_};
  }
  void commit(const Checkpoint& cp) noexcept {
    if (open_checkpoints_ > 0 && --open_checkpoints_ == 0) {
      undo_.clear();
      log_ops_below_ = log_uses_below_ = 0;
    }
    (void)cp;
  }
  void rollback(const Checkpoint& cp) {
    // Undo edits to existing ops, newest first.
    while (undo_.size() > cp.undo) {
      Undo e = undo_.back();
      undo_.pop_back();
      switch (e.kind) {
        case Undo::UseValue: {
          Use& use = uses_[e.index];
          if (use.value.valid()) unlink_use(e.index);
          use.value = OpRef{e.value};
          if (use.value.valid()) link_use(e.index);
          break;
        }
        case Undo::Output: ops_[e.index].output = e.value; break;
        case Undo::Id: ops_[e.index].id = e.value; break;
        case Undo::History:
          ops_[e.index].has_split_history = e.flag;
          if (e.flag)
            history_of_[e.index] = e.value;
          else
            history_of_.erase(e.index);
          break;
        case Undo::Erase: ops_[e.index].alive = true; break;
      }
    }
    for (std::size_t u = uses_.size(); u-- > cp.uses;)
      if (uses_[u].value.valid()) unlink_use(static_cast<std::uint32_t>(u));
    for (std::size_t i = cp.ops; i < ops_.size(); ++i)
      if (ops_[i].has_split_history) history_of_.erase(static_cast<std::uint32_t>(i));
    uses_.resize(cp.uses);
    ops_.resize(cp.ops);
    origins_.truncate(cp.ops);
    live_ = cp.live;
    unread_ = cp.unread;
    next_id_ = cp.next_id;
    if (open_checkpoints_ > 0 && --open_checkpoints_ == 0) {
      undo_.clear();
      log_ops_below_ = log_uses_below_ = 0;
    }
  }

  // ---- interned tables --------------------------------------------------------------------
  std::uint32_t intern_output(const OutputDef& d) {
    if (!outdefs_.empty() && outdefs_[last_outdef_] == d) return last_outdef_;
    auto [it, fresh] = outdef_ids_.try_emplace(d, static_cast<std::uint32_t>(outdefs_.size()));
    if (fresh) {
      outdefs_.push_back(d);
      outdef_counts_.push_back(d.element_count());
    }
    last_outdef_ = it->second;
    return it->second;
  }
  std::size_t distinct_outputs() const noexcept { return outdefs_.size(); }
  std::size_t distinct_payloads() const noexcept { return payloads_.size(); }

  // ---- provenance (core/origins.hpp) ------------------------------------------------------
  /// Turns on recording where ops come from: from then on a rewrite records, for each op it makes,
  /// the rule that made it and the sources of the ops its match covered (engine/rewriter.hpp),
  /// and constant folding "fold". Ops without a record count as made when the graph was built.
  /// Off by default: building and rewriting then never touch the table.
  void track_origins(bool on = true) noexcept { track_origins_ = on; }
  bool tracks_origins() const noexcept { return track_origins_; }
  Origins& origins() noexcept { return origins_; }
  const Origins& origins() const noexcept { return origins_; }
  /// Records that `r` was made by `by` ("imported", a rule's name, ...) from the sources `from`
  /// (node names of the model it was read from). Turns tracking on.
  void set_origin(OpRef r, std::string_view by, std::span<const std::string> from = {}) {
    track_origins_ = true;
    std::vector<std::uint32_t> ids;
    for (const std::string& f : from) ids.push_back(origins_.name_id(f));
    origins_.set(checked(r), origins_.add(origins_.name_id(by), std::move(ids)));
  }
  /// Who made r: "imported" for an op without a record, else the record's maker.
  std::string_view made_by(OpRef r) const {
    const auto& rec = origins_.record(origins_.of(r.index));
    return rec.by == 0 ? std::string_view("imported") : origins_.name(rec.by);
  }
  /// The sources r stands for (sorted), none when it has no record.
  std::vector<std::string_view> made_from(OpRef r) const {
    std::vector<std::string_view> v;
    for (std::uint32_t id : origins_.record(origins_.of(r.index)).from) v.push_back(origins_.name(id));
    return v;
  }

  // ---- options ----------------------------------------------------------------------------
  void set_option(std::string name, OptionValue v) { options_[std::move(name)] = std::move(v); }
  const OptionValue* option(std::string_view name) const {
    auto it = options_.find(std::string(name));
    return it == options_.end() ? nullptr : &it->second;
  }
  const std::unordered_map<std::string, OptionValue>& options() const noexcept { return options_; }

 private:
  // The checks inline; their failure paths do not (they are cold).
  std::uint32_t checked(OpRef r) const {
    if (r.index >= ops_.size()) [[unlikely]]
      bad_ref(r);
    return r.index;
  }
  void check(OpRef r) const {
    if (!alive(r)) [[unlikely]]
      dead_ref(r);
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void bad_ref(OpRef r) {
    throw GraphError(std::string("invalid op reference %").append(std::to_string(r.index)));
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void dead_ref(OpRef r) {
    throw GraphError(std::string("op %").append(std::to_string(r.index)).append(" does not exist or was erased"));
  }
  /// Moves every use of `f` (which has some) to `t`, the op `to`, without logging: each record
  /// goes to the head of t's list in f's list order, the order link_use gives. Counts t as read;
  /// f's unread count is the caller's.
  template <class F>
  [[gnu::always_inline]] void move_uses(OpDef& f, OpDef& t, OpRef to, F& touched) {
    if (t.n_uses == 0 && !t.kept) --unread_;
    for (std::uint32_t u = f.first_use; u != no_index;) {
      Use& use = uses_[u];
      const std::uint32_t next = use.next;
      use.value = to;
      use.prev = no_index;
      use.next = t.first_use;
      if (t.first_use != no_index) uses_[t.first_use].prev = u;
      t.first_use = u;
      touched(use.user);
      u = next;
    }
    t.n_uses += f.n_uses;
    f.first_use = no_index;
    f.n_uses = 0;
  }
  /// Fills the free record u: `user` reads `in` there, at the head of in's use list.
  [[gnu::always_inline]] void link_new_use(std::uint32_t u, OpRef in, OpRef user) {
    Use& use = uses_[u];
    use.value = in;
    use.user = user;
    use.prev = no_index;
    OpDef& v = ops_[in.index];
    use.next = v.first_use;
    if (v.first_use != no_index) uses_[v.first_use].prev = u;
    v.first_use = u;
    if (v.n_uses++ == 0 && !v.kept) --unread_;
  }
  void link_use(std::uint32_t u) {
    OpDef& v = ops_[uses_[u].value.index];
    uses_[u].prev = no_index;
    uses_[u].next = v.first_use;
    if (v.first_use != no_index) uses_[v.first_use].prev = u;
    v.first_use = u;
    if (v.n_uses++ == 0 && !v.kept) --unread_;
  }
  void unlink_use(std::uint32_t u) { unlink_use(uses_[u]); }
  void unlink_use(Use& use) {
    OpDef& v = splice_out(use);
    use.next = use.prev = no_index;
    if (--v.n_uses == 0 && !v.kept) ++unread_;
  }
  /// Takes a use record out of its value's use list (the record's own links and the value's count
  /// are left to the caller); returns the value's op record, looked up once.
  [[gnu::always_inline]] OpDef& splice_out(const Use& use) {
    OpDef& v = ops_[use.value.index];
    splice_out(use, v);
    return v;
  }
  /// The same with the value's op record `v` at hand.
  [[gnu::always_inline]] void splice_out(const Use& use, OpDef& v) {
    const std::uint32_t prev = use.prev, next = use.next;
    if (prev != no_index)
      uses_[prev].next = next;
    else
      v.first_use = next;
    if (next != no_index) uses_[next].prev = prev;
  }
  /// erase() of an op known to be alive and unread.
  template <class F>
  [[gnu::always_inline]] void erase_unused(OpRef r, F&& released) {
    OpDef& d = ops_[r.index];
    const std::uint32_t first = d.first_input, end = first + d.n_inputs;
    for (std::uint32_t u = first; u < end; ++u) {
      Use& use = uses_[u];
      const OpRef v = use.value;
      log_use(u);
      // unlink_use's work, with the value's record looked up once for the unlinking, the count
      // and the release (calling unlink_use costs W1 about 0.4 M instructions at B = 5,000).
      OpDef& vd = splice_out(use);
      use.next = use.prev = no_index;
      use.value = OpRef{};
      if (--vd.n_uses == 0) {
        if (!vd.kept) ++unread_;
        released(v);
      }
    }
    log_op(r, Undo::Erase);
    d.alive = false;
    --live_;
    if (!d.kept) --unread_;
    // The input records can serve a later op, unless a checkpoint is open (rollback revives them).
    if (open_checkpoints_ == 0 && end != first) free_run(first, end - first);
  }

  /// erase_if_dead's work on r, alive, unread and not kept. Every op it erases is such an op: an
  /// input is taken when its last use goes, unless it is kept. So the count of unread ops drops by
  /// exactly one (r's; each input taken turns unread and goes), and live_ by the number erased.
  /// Order: r, then depth first, the input released last first (the records freed by a chain of
  /// erasures then join into one hole, free_run).
  std::size_t erase_dead(OpRef r) {
    if (open_checkpoints_ != 0) [[unlikely]]
      return erase_dead_logged(r);
    --unread_;
    return erase_chain(r);
  }
  /// Takes the input record `use` of an op that goes (or is re-formed) out of its value's use
  /// list, without logging. Returns the value when this was its last use and it is not a graph
  /// input or output: it is unread now, and the caller erases it. Nothing of the record is
  /// cleared: nothing reads a free record before take_run sets it, and rollback reads only
  /// records appended after its checkpoint.
  [[gnu::always_inline]] OpRef release_use(const Use& use) {
    const OpRef v = use.value;
    OpDef& vd = ops_[v.index];
    if (--vd.n_uses != 0) {
      splice_out(use, vd);
      return OpRef{};
    }
    vd.first_use = no_index;  // the value's only use: its list is empty now
    return vd.kept ? OpRef{} : v;
  }
  /// erase_dead's work without a checkpoint, but for the unread count. Nothing is logged and
  /// every freed input run can be reused. `Shape`: what the caller knows of r's input tree
  /// (erase_walk_as).
  template <class Shape = UnknownShape>
  [[gnu::always_inline]] std::size_t erase_chain(OpRef r) {
    const std::size_t n = erase_walk_as(r, static_cast<Shape*>(nullptr));
    live_ -= n;
    return n;
  }
  /// erase_chain(r) that leaves live_ to the caller (it is a member: counting it down in the
  /// caller once costs less than in every walk). The next op to erase is held in `x`; only an
  /// op that releases two or more inputs puts the earlier ones on the stack.
  [[gnu::always_inline]] std::size_t erase_walk(OpRef r) {
    // dead_stack_ is empty between calls; `stacked` counts what this call put on it.
    std::size_t n = 0, stacked = 0;
    for (OpRef x = r;;) {
      OpDef& d = ops_[x.index];
      const std::uint32_t first = d.first_input, end = first + d.n_inputs;
      OpRef next{};
      for (std::uint32_t u = first; u < end; ++u) {
        if (const OpRef v = release_use(uses_[u]); v.valid()) {
          if (next.valid()) [[unlikely]] {
            dead_stack_.push_back(OpRef{next.index});  // (a copy: `next` stays in a register)
            ++stacked;
          }
          next = v;
        }
      }
      d.alive = false;
      ++n;
      if (end != first) free_run(first, end - first);
      if (next.valid()) {
        x = next;
      } else if (stacked != 0) {
        --stacked;
        x = dead_stack_.back();
        dead_stack_.pop_back();
      } else {
        break;
      }
    }
    return n;
  }
  /// erase_walk(r), unrolled over the part of r's input tree that `KnownShape<I...>` describes:
  /// r's inputs are released in slot order, then the ones that died go, the last slot first,
  /// each with everything that dies with it (erase_walk's order: r, then depth first, the input
  /// released last first).
  [[gnu::always_inline]] std::size_t erase_walk_as(OpRef r, UnknownShape*) { return erase_walk(r); }
  template <class... I>
  [[gnu::always_inline]] std::size_t erase_walk_as(OpRef r, KnownShape<I...>* shape) {
    return erase_known(r, shape, std::index_sequence_for<I...>{});
  }
  template <class... I, std::size_t... K>
  [[gnu::always_inline]] std::size_t erase_known(OpRef r, KnownShape<I...>*, std::index_sequence<K...>) {
    constexpr std::size_t n_in = sizeof...(I);
    OpDef& d = ops_[r.index];
    assert(d.alive && d.n_uses == 0 && !d.kept && d.n_inputs == n_in);
    d.alive = false;
    if constexpr (n_in == 0) {
      return 1;
    } else {
      const std::uint32_t first = d.first_input;
      const OpRef died[n_in] = {release_use(uses_[first + K])...};
      free_run(first, n_in);
      using Reversed = boost::mp11::mp_reverse<boost::mp11::mp_list<I...>>;
      std::size_t n = 1;  // (a comma fold: its operands go left to right, the order the walk needs)
      ((n += erase_if_valid(died[n_in - 1 - K], static_cast<boost::mp11::mp_at_c<Reversed, K>*>(nullptr))), ...);
      return n;
    }
  }
  template <class S>
  [[gnu::always_inline]] std::size_t erase_if_valid(OpRef v, S* shape) {
    return v.valid() ? erase_walk_as(v, shape) : 0;
  }
  /// reform()'s release of r's old input records [first, end): each input in slot order loses
  /// its use and, when that left it unread, goes with what dies with it before the next is
  /// released; unrolled where r had a known shape. Returns how many ops went.
  [[gnu::always_inline]] std::size_t release_inputs_of(std::uint32_t first, std::uint32_t end, UnknownShape*) {
    std::size_t n = 0;
    for (std::uint32_t u = first; u < end; ++u)
      if (const OpRef v = release_use(uses_[u]); v.valid()) n += erase_walk(v);
    return n;
  }
  template <class... I>
  [[gnu::always_inline]] std::size_t release_inputs_of(std::uint32_t first, [[maybe_unused]] std::uint32_t end,
                                                       KnownShape<I...>* shape) {
    assert(end - first == sizeof...(I));
    return release_known(first, shape, std::index_sequence_for<I...>{});
  }
  template <class... I, std::size_t... K>
  [[gnu::always_inline]] std::size_t release_known(std::uint32_t first, KnownShape<I...>*, std::index_sequence<K...>) {
    std::size_t n = 0;
    ((n += erase_if_valid(release_use(uses_[first + K]), static_cast<I*>(nullptr))), ...);
    return n;
  }
  /// The same while a checkpoint is open: edits are logged for rollback, no records are freed.
  [[gnu::noinline]] std::size_t erase_dead_logged(OpRef r) {
    dead_stack_.clear();
    std::size_t n = 0;
    for (OpRef x = r;; ++n) {
      erase_unused(x, [this](OpRef v) {
        if (!ops_[v.index].kept) dead_stack_.push_back(v);
      });
      if (dead_stack_.empty()) return n + 1;
      x = dead_stack_.back();
      dead_stack_.pop_back();
    }
  }

  // Reuse of use records: the input records of erased ops form holes in uses_. The graph keeps
  // one hole, [hole_begin_, hole_end_): a freed run that touches it extends it, a longer one
  // replaces it (the records of a shorter one stay unused), and a new op takes its input records
  // from the front of the hole when it is long enough. Erasing a chain of ops one after the other
  // (what rewriting mostly does) makes one hole out of their inputs; the ops a rewrite then makes
  // fill it. O(1) either way. Nothing is freed or reused while a checkpoint is open: rollback
  // revives erased ops' records and truncates appended ones.
  void free_run(std::uint32_t f, std::uint32_t len) noexcept {
    // (When the hole is empty, extending it at either end gives [f, f + len), as replacing it
    // does.)
    if (f + len == hole_begin_) {
      hole_begin_ = f;
    } else if (f == hole_end_) {
      hole_end_ += len;
    } else if (len > hole_end_ - hole_begin_) {
      hole_begin_ = f;
      hole_end_ = f + len;
    }
  }
  /// The first of n consecutive use records for a new op: from the hole when it holds n, else
  /// appended.
  std::uint32_t take_run(std::uint32_t n) {
    if (hole_end_ - hole_begin_ >= n && open_checkpoints_ == 0) {
      const std::uint32_t f = hole_begin_;
      hole_begin_ += n;
      return f;
    }
    const auto first = static_cast<std::uint32_t>(uses_.size());
    check_moves(uses_);
    uses_.resize(uses_.size() + n);
    return first;
  }
  /// With OPTGRAMMAR_CHECK_RECORD_MOVES (the asan preset): the records move to a new block before
  /// growing, so that a reference to a record kept across growth reads freed memory, which ASan
  /// reports. Every time while the block holds room for fewer than 2,048; in a larger block,
  /// while the vector holds fewer than 4, and after that four times between one power of two and
  /// the next (a graph of n records then copies about 6 n records in all, in about 4 moves per
  /// doubling). The schedule goes by the block's size as well as the vector's: a graph reserved
  /// for a million ops (a text file is sized by its lines before it is read) would otherwise
  /// allocate its whole block anew for each of its first 2,048 records. Without the macro
  /// nothing happens.
  template <class V>
  static void check_moves([[maybe_unused]] V& v) {
#if defined(OPTGRAMMAR_CHECK_RECORD_MOVES)
    const std::size_t n = v.size();
    if (v.capacity() >= 2048 && n >= 4 && n % (std::bit_floor(n) / 4) != 0) return;
    V moved(v.get_allocator());  // (from the graph's resource, as the records it replaces)
    moved.reserve(std::max(v.capacity(), n + 1));
    moved.assign(v.begin(), v.end());
    v.swap(moved);
#endif
  }

  struct BytesHash {
    std::size_t operator()(std::string_view s) const noexcept {
      // Four independent multiply-add lanes over 8-byte words, then a final avalanche: about
      // half an instruction per byte, so interning large weights stays cheap. Equal hashes are
      // confirmed by comparing the bytes, so the hash only has to spread well.
      constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
      std::uint64_t h[4] = {k, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull};
      std::size_t i = 0, n = s.size();
      for (; i + 32 <= n; i += 32)
        for (int l = 0; l < 4; ++l) {
          std::uint64_t w;
          std::memcpy(&w, s.data() + i + 8 * l, 8);
          h[l] = (h[l] + w) * k;
        }
      std::uint64_t r = n * k;
      for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        r = (r + w) * 0xC2B2AE3D27D4EB4Full;
      }
      for (; i < n; ++i) r = (r + static_cast<unsigned char>(s[i])) * 0x165667B19E3779F9ull;
      for (int l = 0; l < 4; ++l) {
        r ^= h[l] ^ (h[l] >> 29);
        r *= k;
        r ^= r >> 32;
      }
      return static_cast<std::size_t>(r);
    }
  };
  /// Constant data must fill its output definition exactly.
  void check_const_size(std::uint32_t outdef, std::span<const std::byte> data) const {
    // (The element count is the one interned with the definition: no product of the dims here.)
    const std::size_t need = outdef_counts_[outdef] * element_size(outdefs_[outdef].dtype);
    if (data.size() != need)
      throw GraphError(std::string("constant data has ")
                           .append(std::to_string(data.size()))
                           .append(" bytes, its shape needs ")
                           .append(std::to_string(need)));
  }
  std::uint32_t intern_payload(std::span<const std::byte> data) {
    // Builders often pass the same buffer again: a small cache by buffer address, confirmed by
    // comparing the bytes, skips hashing. A miss (or changed contents) takes the hash path. The
    // cache has 32 sets of two entries, the last used first, so that two buffers a builder
    // alternates between that fall into one set both stay (W1's builder passes eleven buffers,
    // and with one entry a set, two of them took the hash path at every block).
    const std::uint64_t key = (reinterpret_cast<std::uintptr_t>(data.data()) ^ data.size()) * 0x9E3779B97F4A7C15ull;
    RecentPayload* set = &recent_payloads_[(key >> 59) * 2];
    // (The sizes are compared too: an unused entry, {null, 0, 0}, must not match an empty buffer
    // with a null address, whose payload is not payload 0.)
    auto holds = [&](const RecentPayload& e) {
      return e.source == data.data() && e.size == data.size() && e.id < payloads_.size() &&
             payloads_[e.id].size() == data.size() &&
             (data.empty() || std::memcmp(payloads_[e.id].data(), data.data(), data.size()) == 0);
    };
    if (holds(set[0])) return set[0].id;
    if (holds(set[1])) {
      std::swap(set[0], set[1]);
      return set[0].id;
    }
    std::uint32_t id = intern_payload_hashed(data);
    set[1] = set[0];
    set[0] = RecentPayload{data.data(), data.size(), id};
    return id;
  }
  std::uint32_t intern_payload_hashed(std::span<const std::byte> data) {
    std::string_view key(reinterpret_cast<const char*>(data.data()), data.size());
    if (auto it = payload_ids_.find(key); it != payload_ids_.end()) return it->second;
    auto id = static_cast<std::uint32_t>(payloads_.size());
    payloads_.emplace_back(data.begin(), data.end());
    const auto& stored = payloads_.back();
    payload_ids_.emplace(std::string_view(reinterpret_cast<const char*>(stored.data()), stored.size()), id);
    return id;
  }

  struct Undo {
    enum Kind : std::uint8_t { UseValue, Output, Id, History, Erase } kind;
    bool flag;
    std::uint32_t index;  // use index (UseValue) or op index
    std::uint32_t value;  // the old value
  };
  void log_use(std::uint32_t u) {
    if (u < log_uses_below_) [[unlikely]]
      undo_.push_back(Undo{Undo::UseValue, false, u, uses_[u].value.index});
  }
  void log_op(OpRef r, Undo::Kind k) {
    if (r.index >= log_ops_below_) [[likely]]
      return;
    const OpDef& d = ops_[r.index];
    std::uint32_t v = 0;
    bool flag = false;
    if (k == Undo::Output) v = d.output;
    if (k == Undo::Id) v = d.id;
    if (k == Undo::History) {
      flag = d.has_split_history;
      if (flag) v = history_of_.at(r.index);
    }
    undo_.push_back(Undo{k, flag, r.index, v});
  }
  std::vector<Undo> undo_;
  std::size_t open_checkpoints_ = 0;
  std::size_t log_ops_below_ = 0, log_uses_below_ = 0;
  struct RecentPayload {
    const std::byte* source = nullptr;
    std::size_t size = 0;
    std::uint32_t id = 0;
  };
  std::array<RecentPayload, 64> recent_payloads_{};  // intern_payload's cache: 32 sets of two
  std::vector<OpDef, RecordAllocator<OpDef>> ops_;
  std::vector<Use, RecordAllocator<Use>> uses_;
  std::uint32_t hole_begin_ = 0, hole_end_ = 0;  // unused use records, reused first (free_run)
  std::size_t live_ = 0;
  std::size_t unread_ = 0;  // live ops that nothing reads and that are not kept (remove_dead's work)
  std::uint64_t next_id_ = 1;
  std::uint32_t name_bound_ = 0;  // name_bound()
  std::vector<OutputDef> outdefs_;
  std::vector<std::size_t> outdef_counts_;  // element_count() of each of outdefs_
  std::unordered_map<OutputDef, std::uint32_t, OutputDefHash> outdef_ids_;
  std::uint32_t last_outdef_ = 0;
  // Payload bytes never move once stored (vector of vectors), so the views used as keys stay valid.
  std::vector<std::vector<std::byte>> payloads_;
  std::unordered_map<std::string_view, std::uint32_t, BytesHash> payload_ids_;
  std::vector<std::vector<int>> split_histories_;
  std::unordered_map<std::uint32_t, std::uint32_t> history_of_;  // op index → split_histories_
  std::unordered_map<std::string, OptionValue> options_;
  std::vector<OpRef> dead_stack_;
  Origins origins_;  // where ops came from, when track_origins_
  bool track_origins_ = false;
};

}  // namespace optgrammar
