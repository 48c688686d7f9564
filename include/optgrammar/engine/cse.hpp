// Common-subexpression elimination between passes (after TVM's CSE: only computations without
// side effects are candidates; here "pure" comes from the op definitions).
//
//   engine::Cse cse;                      // CseOptions{.merge_constants = true}
//   DriverOptions opt;
//   opt.between_passes = cse.hook();      // before the first pass and after every pass
//   run_rules(g, rules, opt);
//   cse.run(g);                           // or on demand, outside the driver
//
// Merged: two live ops with the same name, the same output definition and the same inputs
// (either order of the two operands for commutative ops) whose definition is pure; two
// constants with the same payload (interned: payload_index) and output definition, when
// merge_constants is on. Never merged: ops without a definition (unknown ops are not assumed
// pure), side-effecting ops, Input and Output, ops with different split histories. The op that
// comes first in topological order (then by index) is kept; readers of the other read it, and
// its provenance (Graph::origins()) lists the other's sources too.
//
// CSE never runs inside a pass, so SAME_OP keeps the spec's meaning: two ops that CSE would
// merge are not SAME_OP until the pass ends and CSE has merged them.
#pragma once

#include "optgrammar/engine/driver.hpp"
#include "optgrammar/ops/builtin.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace optgrammar::engine {

struct CseOptions {
  /// Merge `$Const`s with equal payloads and output definitions.
  bool merge_constants = true;
};

struct CseStats {
  std::uint64_t runs = 0;
  std::uint64_t merged_ops = 0;        ///< non-constant ops merged into an equal one
  std::uint64_t merged_constants = 0;  ///< constants merged into an equal one
  std::uint64_t dead_removed = 0;      ///< ops that became dead through the merges
};

/// Live ops in a topological order (inputs first); ties by index.
inline std::vector<OpRef> inputs_first_order(const Graph& g) {
  std::vector<std::uint32_t> pending(g.size(), 0);
  std::vector<OpRef> order, ready;
  order.reserve(g.live_count());
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!g.alive(r)) continue;
    pending[i] = g.n_inputs(r);
    if (pending[i] == 0) ready.push_back(r);
  }
  std::reverse(ready.begin(), ready.end());  // pop_back takes the lowest index first
  while (!ready.empty()) {
    OpRef r = ready.back();
    ready.pop_back();
    order.push_back(r);
    g.for_each_use(r, [&](OpRef u, std::uint32_t) {
      if (--pending[u.index] == 0) ready.push_back(u);
    });
  }
  return order;  // shorter than live_count() only for a cyclic graph (verify() reports those)
}

class Cse {
 public:
  explicit Cse(CseOptions opt = {}) : opt_(opt) {}
  const CseStats& stats() const noexcept { return stats_; }
  const CseOptions& options() const noexcept { return opt_; }

  /// One sweep over the graph through the rewriter (merges count as rewrites). Returns merges.
  std::uint64_t run(Rewriter& rw) {
    Graph& g = rw.graph();
    ++stats_.runs;
    table_.clear();
    std::uint64_t merged = 0;
    const std::uint64_t dead0 = rw.dead_removed();
    for (OpRef r : inputs_first_order(g)) {
      if (!g.alive(r) || !candidate(g, r)) continue;
      const std::uint64_t h = hash(g, r);
      auto [lo, hi] = table_.equal_range(h);
      OpRef keeper{};
      for (auto it = lo; it != hi; ++it)
        if (g.alive(it->second) && equal(g, it->second, r)) {
          keeper = it->second;
          break;
        }
      if (!keeper.valid()) {
        table_.emplace(h, r);
        continue;
      }
      if (g.is_const(r))
        ++stats_.merged_constants;
      else
        ++stats_.merged_ops;
      ++merged;
      if (g.tracks_origins()) [[unlikely]]
        g.origins().merge(keeper.index, r.index);  // the kept op stands for both ops' sources
      rw.replace(r, keeper);
    }
    stats_.dead_removed += rw.dead_removed() - dead0;
    return merged;
  }
  /// On demand, outside the driver.
  std::uint64_t run(Graph& g) {
    std::vector<RuleStats> none;
    Rewriter rw(g, none);
    return run(rw);
  }
  /// The DriverOptions::between_passes hook.
  std::function<void(Rewriter&)> hook() {
    return [this](Rewriter& rw) { run(rw); };
  }

  /// Whether CSE may merge r with an equal op.
  bool candidate(const Graph& g, OpRef r) const {
    const OpNameId n = g.name_id(r);
    if (n == op_names::input || n == op_names::output) return false;
    if (g.is_const(r)) return opt_.merge_constants;
    const ops::OpDefinition* def = ops::find_definition(n);
    return def && def->has(ops::Trait::pure) && !def->has(ops::Trait::side_effecting);
  }

 private:
  static bool commutative(const Graph& g, OpRef r) {
    const ops::OpDefinition* def = ops::find_definition(g.name_id(r));
    return def && def->has(ops::Trait::commutative) && g.n_inputs(r) == 2;
  }
  static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0x100000001B3ull;
  }
  static std::uint64_t hash(const Graph& g, OpRef r) {
    std::uint64_t h = mix(g.name_id(r), g.output_index(r));
    h = mix(h, g.payload_index(r));
    const std::uint32_t n = g.n_inputs(r);
    if (commutative(g, r)) {
      std::uint32_t a = g.input(r, 0).index, b = g.input(r, 1).index;
      if (a > b) std::swap(a, b);
      return mix(mix(h, a), b);
    }
    for (std::uint32_t k = 0; k < n; ++k) h = mix(h, g.input(r, k).index);
    return mix(h, n);
  }
  static bool equal(const Graph& g, OpRef a, OpRef b) {
    if (!g.same_but_inputs(a, b)) return false;
    const std::uint32_t n = g.n_inputs(a);
    bool same = true;
    for (std::uint32_t k = 0; k < n && same; ++k) same = g.input(a, k) == g.input(b, k);
    if (same) return true;
    return commutative(g, a) && g.input(a, 0) == g.input(b, 1) && g.input(a, 1) == g.input(b, 0);
  }

  CseOptions opt_;
  CseStats stats_;
  std::unordered_multimap<std::uint64_t, OpRef> table_;
};

}  // namespace optgrammar::engine
