// The Rewriter: what a rule's apply function edits the graph through, and the driver's worklist.
// A rewrite tells it what it did, and the Rewriter enqueues what that touched: `notify_inserted`
// for the ops the rewrite made, `replace` for the root (its readers; the replacement too where a
// rule of the pass reads uses: fill_queue), and
// `erase_unused` for made ops nothing reads. Only the Rewriter pushes onto the worklist. Rule
// translation units need this and not the driver (engine/driver.hpp).
#pragma once

#include "optgrammar/core/chunked_vector.hpp"
#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/rule.hpp"
#include "optgrammar/engine/trace.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace optgrammar::engine {

/// What a rule's apply function edits the graph through.
class Rewriter {
 public:
  /// `stats`: a counter for each rule the run may apply, by RuleInfo::index; the vector must
  /// keep its size while the Rewriter lives.
  Rewriter(Graph& g, std::vector<RuleStats>& stats) : g_(g), stats_(stats.data()), observing_(g.tracks_origins()) {}

  Graph& graph() noexcept { return g_; }
  const Graph& graph() const noexcept { return g_; }
  RuleStats& stats(const RuleInfo& r) noexcept { return stats_[r.index]; }

  /// Readers of `root` read `with` instead; `root` and whatever became dead are removed.
  void replace(OpRef root, OpRef with) { replace_ops<true>(root, with); }
  /// replace() for a caller that knows both ops are alive: the root the driver handed to a rule
  /// and a result the rule has checked or just made (the DSL rules' apply function). `Shape`:
  /// what the caller knows of root's input tree (Graph's KnownShape; its match), which unrolls
  /// the erasure of what dies with root.
  template <class Shape = UnknownShape>
  [[gnu::always_inline]] void replace_alive(OpRef root, OpRef with) {
    replace_ops<false, Shape>(root, with);
  }
  /// The rewrite's result is one new op, `name(inputs)` with the interned output definition
  /// `outdef` and op id `id`, made and put in root's place; returns it. With `in_place` on and
  /// Graph::can_reform allowing it, the new op takes root's slot (Graph::reform): nothing is
  /// appended and root's readers keep their use records. Otherwise it is appended and replaces
  /// root as replace() does. Root and the inputs must be alive, as for Graph::add_op_unchecked.
  /// A root with a split history gives it to the new op either way. `Shape` as for
  /// replace_alive; `N`, when given, the number of inputs (the edit is then unrolled over them).
  template <class Shape = UnknownShape, std::size_t N = std::dynamic_extent>
  [[gnu::always_inline]] OpRef replace_by_new(OpRef root, OpNameId name,
                                              std::type_identity_t<std::span<const OpRef, N>> inputs,
                                              std::uint32_t outdef, std::uint32_t id) {
    if (in_place && g_.can_reform(root, name, inputs)) {
      reform<Shape, N>(root, name, inputs, outdef, id);
      return root;
    }
    const OpRef made = g_.add_op_unchecked(name, inputs, outdef, id);
    if (g_.op_at(root.index).has_split_history) [[unlikely]]
      g_.copy_split_history(made, root);
    push(made);
    replace_ops<false, Shape>(root, made);
    erase_unused(made);  // when root had no readers
    return made;
  }
  /// Whether replace_by_new may put the new op in its root's slot (run_rules sets it from
  /// DriverOptions::rewrite_in_place).
  bool in_place = false;
  /// Whether constant folding may turn `root` into its constant in its own slot (in_place on and
  /// Graph::can_reform allowing it); else the constant is appended and replaces root.
  bool can_fold_in_place(OpRef root) const noexcept {
    return in_place && g_.can_reform(root, op_names::const_op, std::span<const OpRef>{});
  }
  /// Constant folding's edit where can_fold_in_place(root): root becomes a `$Const` holding
  /// `data` (Graph::reform_const), and counts as a rewrite as replace() does.
  void fold_in_place(OpRef root, std::span<const std::byte> data) {
    dead_ += g_.reform_const(root, data);
    reformed(root);
  }
  /// The last root replace_by_new turned into its result in place (the driver's checks: that
  /// root stays alive).
  OpRef last_reformed() const noexcept { return last_reformed_; }
  /// `r` was made by the current rewrite: it may match rules of this pass in turn, so it is
  /// enqueued.
  void notify_inserted(OpRef r) { push(r); }
  /// Every op from index `first` on was made by the current rewrite (the graph appends, so this
  /// covers the ops external functions make too): each is enqueued. Called once the rewrite
  /// stands; ops of a rolled-back attempt are never reported.
  [[gnu::always_inline]] void notify_inserted_since(std::size_t first) {
    const std::size_t n = g_.size();
    if (first + 1 == n) [[likely]]  // most rewrites make no op or one
      push(OpRef{static_cast<std::uint32_t>(first)});
    else if (first < n)
      push_since(first);
  }
  /// After replace(): `r`, made by the rewrite, is removed when nothing reads it and it is not a
  /// graph output, with what becomes dead through it.
  [[gnu::always_inline]] void erase_unused(OpRef r) {
    if (g_.n_uses(r) == 0 && !g_.is_root(r)) [[unlikely]]
      erase_dead(r);
  }
  /// The same for every live op from index `first` on (a shape read only by WITH_SIZE, the
  /// temporary base of OP_ITER).
  [[gnu::noinline]] void erase_unused_since(std::size_t first) {
    for (std::size_t i = first; i < g_.size(); ++i)
      if (const OpRef r{static_cast<std::uint32_t>(i)}; g_.alive(r)) erase_unused(r);
  }

  /// Whether a rewrite is reported beyond its edit: to the trace, or to the graph's provenance
  /// table (Graph::tracks_origins, as it was when the Rewriter was made or set_trace last ran).
  /// Rules test it once per rewrite: one flag.
  bool observing() const noexcept { return observing_; }
  /// Sets the trace (rewrite lines are written only to a trace set so).
  void set_trace(TraceSink t) noexcept {
    trace = t;
    observing_ = trace || g_.tracks_origins();
  }
  /// What a rule whose edit erases what its match covered (Rewriter::replace_by_new) notes before
  /// the edit, when observing(): the provenance record, the root's name and the first op the edit
  /// may make.
  [[gnu::noinline, gnu::cold]] void observe_before(const RuleInfo& rule, OpRef root) {
    observed_origin_ = origin_of(rule, root);
    observed_root_name_ = g_.name_id(root);
    observed_first_new_ = g_.size();
  }
  std::uint32_t observed_origin() const noexcept { return observed_origin_; }
  OpNameId observed_root_name() const noexcept { return observed_root_name_; }
  std::size_t observed_first_new() const noexcept { return observed_first_new_; }
  /// The provenance record of a rewrite of `rule` at `root`, read before the edit: made by the
  /// rule, standing for the sources of the root and of every op the rule's match covers
  /// (RuleInfo::pattern_ops; constants are values, not nodes, and add none). None when the graph
  /// does not track origins.
  [[gnu::noinline, gnu::cold]] std::uint32_t origin_of(const RuleInfo& rule, OpRef root) {
    if (!g_.tracks_origins()) return Origins::none;
    Origins& o = g_.origins();
    std::vector<std::uint32_t> from;
    o.sources_of(root.index, from);
    for (const PatternOp& op : rule.pattern_ops) {
      OpRef x = root;
      bool there = true;
      for (const std::uint32_t k : std::span<const std::uint32_t>(op.path, op.depth)) {
        if (k >= g_.n_inputs(x)) {
          there = false;
          break;
        }
        x = g_.input(x, k);
      }
      if (there && !g_.is_const(x)) o.sources_of(x.index, from);
    }
    return o.add(o.name_id(rule.name), std::move(from));
  }
  /// Gives the ops from index `first` on, and `also` (a root re-formed in its slot), the
  /// provenance record `rec` (origin_of). Hand-written rules call it (with origin_of before their
  /// edit) for their ops to carry one; the DSL rules' apply function does.
  [[gnu::noinline, gnu::cold]] void record_origin(std::uint32_t rec, std::size_t first, OpRef also = {}) {
    if (rec == Origins::none) return;
    for (std::size_t i = first; i < g_.size(); ++i) g_.origins().set(static_cast<std::uint32_t>(i), rec);
    if (also.valid()) g_.origins().set(also.index, rec);
  }

  // The worklist is a sweep over the ops that existed when the pass began (in index order, or
  // its reverse), followed by a FIFO of ops pushed since. An op the sweep has not reached yet is
  // already pending, so pushing it again is a no-op: the sweep needs no storage of its own.

  /// Accepts every op name (pop's default filter).
  struct AnyName {
    constexpr bool operator()(OpNameId) const noexcept { return true; }
  };
  /// The next live op to visit whose name `want` accepts, or an invalid ref when the worklist is
  /// empty. Ops it passes over leave the worklist as if visited.
  template <class Want = AnyName>
  OpRef pop(Want want = {}) {
    if (const OpRef r = pop_sweep(want); r.valid()) return r;
    while (other_left_ > 0) {
      --other_left_;
      std::uint32_t pos = reverse_ ? other_left_ : other_end_ - 1 - other_left_;
      std::uint32_t x = order_.empty() ? pos : order_[pos];
      if (const OpDef& d = g_.op_at(x); d.alive && want(d.name)) return OpRef{x};
    }
    while (head_ < queue_.size()) {
      OpRef r = queue_[head_++];
      queued_[r.index >> 6] &= ~(std::uint64_t{1} << (r.index & 63));
      if (const OpDef& d = g_.op_at(r.index); d.alive && want(d.name)) return r;
    }
    queue_.truncate(0);
    head_ = 0;
    return OpRef{};
  }
  /// pop() while the forward sweep lasts: its next op, or an invalid ref when it has none left
  /// (pop() then goes on with the ops visited out of sweep order).
  template <class Want = AnyName>
  [[gnu::always_inline]] OpRef pop_sweep(Want want = {}) {
    // Every index below sweep_end_ is an op of the graph, which never shrinks during a pass. A
    // reversed or shuffled sweep leaves it empty.
    for (std::uint32_t x = sweep_next_; x < sweep_end_; ++x)
      // (The name first: most ops the sweep passes over are alive, and root no rule of the pass.)
      if (const OpDef& d = g_.op_at(x); want(d.name) && d.alive) {
        sweep_next_ = x + 1;
        return OpRef{x};
      }
    sweep_next_ = sweep_end_;
    return OpRef{};
  }
  /// Starts a pass: every live op is pending, in index order or its reverse. With `roots` (one
  /// byte per op name, `n_roots` of them), an op pushed during the pass whose name has a zero
  /// byte, or none, is not queued: the driver would pass it over (its name roots no rule of the
  /// pass), so it leaves the worklist at once, as if visited. `push_replacement`: whether replace()
  /// enqueues the op that replaces a root as well as the root's readers. Its readers changed,
  /// which matters only to a rule that reads an op's uses (the driver passes
  /// PassDispatch::reads_uses); its inputs, and so every other rule's outcome on it, are as they
  /// were.
  void fill_queue(bool reverse, std::uint64_t shuffle_seed = 0, const std::uint8_t* roots = nullptr,
                  std::uint32_t n_roots = 0, bool push_replacement = true) {
    queue_.truncate(0);
    head_ = 0;
    // Marks left from the last pass (ops pushed between passes) would hide ops pushed in this one.
    std::fill(queued_.begin(), queued_.end(), std::uint64_t{0});
    roots_ = roots;
    n_roots_ = n_roots;
    push_replacement_ = push_replacement;
    reverse_ = reverse;
    const auto n = static_cast<std::uint32_t>(g_.size());
    order_.clear();
    position_.clear();
    const bool plain = !reverse && !shuffle_seed;
    // The forward sweep covers [sweep_next_, sweep_end_); any other order runs over other_end_
    // ops with an empty forward sweep.
    sweep_next_ = 0;
    sweep_end_ = plain ? n : 0;
    other_end_ = plain ? 0 : n;
    other_left_ = other_end_;
    if (shuffle_seed) {
      // Fisher-Yates with a 64-bit LCG: a reproducible order for a given seed.
      order_.resize(n);
      for (std::uint32_t k = 0; k < n; ++k) order_[k] = k;
      std::uint64_t st = shuffle_seed;
      for (std::uint32_t k = n; k > 1; --k) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        std::swap(order_[k - 1], order_[static_cast<std::uint32_t>((st >> 33) % k)]);
      }
      position_.resize(n);
      for (std::uint32_t k = 0; k < n; ++k) position_[order_[k]] = k;
    }
  }
  std::uint64_t rewrites() const noexcept { return rewrites_; }
  std::uint64_t dead_removed() const noexcept { return dead_; }

  /// The trace sink of the run (empty: no trace); set it with set_trace.
  TraceSink trace;
  const std::string* pass_name = nullptr;

 private:
  template <bool Check, class Shape = UnknownShape>
  [[gnu::always_inline]] void replace_ops(OpRef root, OpRef with) {
    // Inlined by force: GCC sometimes compiles this lambda and push out of line, which
    // costs W1 about 0.7 M instructions at B = 5,000 (git history of docs/performance.md).
    dead_ += g_.replace_and_erase<Check, Shape>(
        root, with, [this](OpRef user) __attribute__((always_inline)) { push(user); });
    if (push_replacement_) push(with);
    ++rewrites_;
  }
  template <class Shape, std::size_t N>
  [[gnu::always_inline]] void reform(OpRef root, OpNameId name, std::span<const OpRef, N> inputs, std::uint32_t outdef,
                                     std::uint32_t id) {
    dead_ += g_.template reform<Shape>(root, name, inputs, outdef, id);
    reformed(root);
  }
  /// After root turned into another op in its own slot.
  [[gnu::always_inline]] void reformed(OpRef root) {
    // Root is a new op now, and its readers read it: each may match a rule in turn. They are
    // enqueued in the appending path's order (the made op, then the readers in use-list order),
    // so both modes visit the same ops in the same order.
    push(root);
    g_.for_each_use(root, [this](OpRef user, std::uint32_t) { push(user); });
    if (g_.n_uses(root) == 0) [[unlikely]]  // (can_reform refused a graph input or output)
      erase_dead(root);                     // nothing read root: its replacement goes as a made op nothing reads would
    last_reformed_ = root;
    ++rewrites_;
  }
  /// Adds an op to the worklist (no-op when already pending). The cheapest answers come first:
  /// an op the forward sweep has still to reach (one compare), then an op the pass never visits
  /// (fill_queue's `roots`: it is not queued, and needs no mark, since a name changes only when
  /// a rewrite re-forms the op, which pushes it again).
  [[gnu::always_inline]] void push(OpRef r) {
    const std::uint32_t x = r.index;
    if (x - sweep_next_ < sweep_end_ - sweep_next_) return;  // sweep_next_ <= x < sweep_end_
    if (other_left_ != 0) [[unlikely]]
      if (other_pending(x)) return;
    if (!queued_for_visit(r)) return;
    const std::size_t word = x >> 6;
    const std::uint64_t bit = std::uint64_t{1} << (x & 63);
    if (x >= marked_ops_) [[unlikely]]
      grow_marks(word);
    if (!(queued_[word] & bit)) {
      queued_[word] |= bit;
      queue_.push_back(r);
    }
  }
  /// Whether the pass visits an op of r's name (fill_queue's `roots`).
  [[gnu::always_inline]] bool queued_for_visit(OpRef r) const noexcept {
    if (!roots_) return true;
    const OpNameId name = g_.name_id(r);
    return name < n_roots_ && roots_[name];
  }

  [[gnu::noinline]] void erase_dead(OpRef r) { dead_ += g_.erase_if_dead(r); }
  [[gnu::noinline]] void push_since(std::size_t first) {
    for (std::size_t i = first; i < g_.size(); ++i) push(OpRef{static_cast<std::uint32_t>(i)});
  }
  [[gnu::noinline]] void grow_marks(std::size_t word) {
    queued_.resize(std::max<std::size_t>(g_.size() >> 6, word) + 64, 0);
    marked_ops_ =
        queued_.size() >= (std::size_t{1} << 26) ? 0xFFFFFFFFu : static_cast<std::uint32_t>(queued_.size() * 64);
  }

  Graph& g_;
  RuleStats* stats_;  // the constructor's vector's records
  // Memory first touched during a run costs a page fault per 4 KB: the FIFO grows in chunks
  // (no copy, no 2x peak when it grows) and the pending marks are one bit per op.
  ChunkedVector<OpRef, 12> queue_;
  std::size_t head_ = 0;
  std::vector<std::uint64_t> queued_;    // bit i: op i is in queue_
  std::uint32_t marked_ops_ = 0;         // queued_ has a bit for every op below this index
  const std::uint8_t* roots_ = nullptr;  // by op name: the pass visits such ops (null: all)
  std::uint32_t n_roots_ = 0;
  std::uint32_t sweep_next_ = 0;  // the forward sweep visits ops [sweep_next_, sweep_end_) still
  std::uint32_t sweep_end_ = 0;
  std::uint32_t other_end_ = 0;   // a reversed or shuffled sweep covers ops [0, other_end_)
  std::uint32_t other_left_ = 0;  // how many of them it has still to visit
  bool reverse_ = false;
  bool push_replacement_ = true;         // fill_queue's
  std::vector<std::uint32_t> order_;     // shuffled sweep: position → op
  std::vector<std::uint32_t> position_;  // and op → position
  /// Whether a reversed or shuffled sweep has still to reach op `op`.
  bool other_pending(std::uint32_t op) const noexcept {
    if (op >= other_end_) return false;
    std::uint32_t x = position_.empty() ? op : position_[op];
    // Forward (shuffled): pending when x comes at or after the next position; reverse: before it.
    return reverse_ ? x < other_left_ : x >= other_end_ - other_left_;
  }
  std::uint64_t rewrites_ = 0;
  std::uint64_t dead_ = 0;
  OpRef last_reformed_;
  bool observing_ = false;             // observing()
  std::uint32_t observed_origin_ = 0;  // observe_before's notes
  OpNameId observed_root_name_ = 0;
  std::size_t observed_first_new_ = 0;
};

/// Applies a rule made by hand (RuleInfo::rule null, whose apply records no provenance) where the
/// graph tracks provenance (Graph::origins(); the driver calls it then): when the rule fired,
/// each op the rewrite made that has no record of its own, and a root re-formed in place whose
/// record the rule left as it was, gets a record made by the rule, standing for the root's
/// sources. A rule that records more itself (Rewriter::origin_of, record_origin) keeps its own.
inline bool apply_hand_made(Rewriter& rw, const RuleInfo& self, OpRef root) {
  Graph& g = rw.graph();
  if (!g.tracks_origins()) return self.apply(rw, self, root);
  Origins& o = g.origins();
  std::vector<std::uint32_t> from;
  o.sources_of(root.index, from);
  const std::uint32_t root_before = o.of(root.index);
  const std::size_t first = g.size();
  if (!self.apply(rw, self, root)) return false;
  std::uint32_t rec = Origins::none;
  const auto give = [&](std::uint32_t op) {
    if (rec == Origins::none) rec = o.add(o.name_id(self.name), std::move(from));
    o.set(op, rec);
  };
  for (std::size_t i = first; i < g.size(); ++i)
    if (o.of(static_cast<std::uint32_t>(i)) == Origins::none) give(static_cast<std::uint32_t>(i));
  if (g.alive(root) && rw.last_reformed() == root && o.of(root.index) == root_before) give(root.index);
  return true;
}

}  // namespace optgrammar::engine
