// Registered rules, as the driver sees them: a name, a pass, a root op, and an apply function.
#pragma once

#include "optgrammar/core/graph.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace optgrammar::dsl {
struct FlatCopy;  // dsl/flat.hpp: what RuleInfo::flat gives, complete where it is called
}  // namespace optgrammar::dsl

namespace optgrammar::engine {

class Rewriter;
struct RuleInfo;
struct Explanation;  // engine/explain.hpp
struct NodeEval;     // engine/explain_nodes.hpp

/// A rule's explainer (og-opt --why-not): what the rule's translation unit compiled for it, the
/// evaluators of its constraint's nodes (engine/explain_nodes.hpp), and the call that explains the
/// rule on one op, defined in engine/explain.hpp (which a program that explains includes): the
/// rule translation units compile no walk. False for a hand-made RuleInfo.
struct Explainer {
  /// Writes the evaluator of node i of the rule's constraint (in preorder) to out[i].
  void (*nodes)(const void* rule, NodeEval* out) = nullptr;
  explicit operator bool() const noexcept { return nodes != nullptr; }
  /// Explains rule `self` on `root` into `out`: where its match or constraint fails there, or what
  /// its replacement does (it runs inside a checkpoint that is rolled back).
  inline void operator()(const RuleInfo& self, Graph& g, OpRef root, Explanation& out) const;
};

/// Counters of one rule over a run.
struct RuleStats {
  std::uint64_t tried = 0;    ///< the rule's matcher ran on an op with the rule's root name
  std::uint64_t matched = 0;  ///< the match succeeded
  std::uint64_t fired = 0;    ///< the constraint held and the replacement changed the graph
  std::uint64_t failed = 0;   ///< the replacement failed part-way and was rolled back
};

/// What a rule needs of its root's inputs before its matcher can succeed: input `slot` exists
/// and is an op named `name` (a child `Op("name", ...)` or `OpVarIn("name", ...)` of the match
/// root, under a LET or not). A DSL rule's guards are computed from its compile-time structure
/// when it is defined (package/define.hpp); a hand-made RuleInfo has none and is tried on every op
/// with its root name.
struct InputGuard {
  std::uint32_t slot = 0;
  OpNameId name = 0;
};

/// A necessary condition of a rule's constraint, as a term and the value it must have: the
/// constraint is `EQ(P, K)` (or has it among the conjuncts of its top-level AND), K a constant, and P
/// one property of an op the match binds: `DIM_OF("t", N)` (K >= 0), `RANK_OF("t")` (K >= 0) or
/// `DTYPE_OF("t")` (K a DType; IS_FLOAT32("t") and the other IS_* names expand to this), tag t
/// found at `path` (input slots followed from the root). Checked by the driver before it calls
/// the rule: reading one property costs less than a call that binds and evaluates; where several
/// rules of a root guard the same term, the driver reads it once for all of them
/// (engine/rule_set.hpp).
struct TermGuard {
  static constexpr std::size_t max_depth = 4;
  /// The most a DSL rule gets: its constraint's first fitting conjuncts.
  static constexpr std::size_t max_per_rule = 4;
  /// The property read: dimension `dim`, the rank, or the dtype (as its enumerator's value).
  enum class Of : std::uint8_t { dim, rank, dtype };
  std::uint32_t depth = 0;
  std::uint32_t path[max_depth] = {};
  std::size_t dim = 0, value = 0;
  Of of = Of::dim;
  bool active = false;
  /// False only when the op at `path` exists and its property differs: the rule cannot fire.
  bool admits(const Graph& g, OpRef root) const noexcept { return !active || holds(g, root); }
  /// admits() of an active guard (what the driver is handed: PassDispatch keeps no other).
  bool holds(const Graph& g, OpRef root) const noexcept {
    std::size_t v = 0;
    return !read(g, root, v) || v == value;
  }
  /// Reads the property of the op at `path` from `root` into `out`, as the constraint's term
  /// evaluates it; false when the path leaves the graph (an input slot the op does not have:
  /// the matcher will say no).
  bool read(const Graph& g, OpRef root, std::size_t& out) const noexcept {
    OpRef o = root;
    for (std::uint32_t d = 0; d < depth; ++d) {
      if (path[d] >= g.n_inputs(o)) return false;
      o = g.input(o, path[d]);
    }
    const OutputDef& def = g.outdef_at(g.output_index(o));
    out = of == Of::dim ? def.dim(dim) : of == Of::rank ? def.rank : static_cast<std::size_t>(def.dtype);
    return true;
  }
  /// Whether `o` reads the same property of the same op (its value aside).
  bool same_term(const TermGuard& o) const noexcept { return !term_before(o) && !o.term_before(*this); }
  /// An order of terms (values aside), for sorting guards by what they read.
  bool term_before(const TermGuard& o) const noexcept {
    if (active != o.active) return active < o.active;
    if (depth != o.depth) return depth < o.depth;
    for (std::uint32_t d = 0; d < depth; ++d)
      if (path[d] != o.path[d]) return path[d] < o.path[d];
    if (of != o.of) return of < o.of;
    return dim < o.dim;
  }
};

/// An op a rule's match covers below its root: the input slots followed from the root to it.
struct PatternOp {
  std::uint32_t depth = 0;
  std::uint32_t path[TermGuard::max_depth] = {};
};

/// One rule. DEF_PACKAGE_OPTIMIZATION makes these; hand-written rules can be made directly.
struct RuleInfo {
  std::string name;  ///< "file.cpp:12": the rule's stable name in traces and counters
  std::string file;  ///< as __FILE__ gave it
  int line = 0;
  std::string pass_name;        ///< "EARLY+1"
  int priority = 0;             ///< the pass: lower runs first
  OpNameId root = 0;            ///< op name of the match root
  std::string canonical;        ///< the rule in canonical text form (docs/canonical-form.md)
  std::string flags;            ///< DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS' flags, as written
  std::uint32_t flag_bits = 0;  ///< the same as bits of dsl/grammar.hpp's rule_flags
  bool warn_nested_split = false;
  /// Whether the rule's outcome may depend on which ops read an op (dsl::Analysis::reads_uses).
  /// A rule written by hand may read anything: true unless its author says otherwise.
  bool reads_uses = true;
  /// Tries the rule on `root` (whose name is `this->root`). Returns true when it changed the
  /// graph; it then has called rw.replace(). Counts into rw's stats for this rule.
  bool (*apply)(Rewriter& rw, const RuleInfo& self, OpRef root) = nullptr;
  const void* rule = nullptr;  ///< the analyzed rule a shared apply function reads (DSL rules)
  /// The rule's flat form (dsl/flat.hpp), made from `rule` when called: what a program reads of a
  /// DSL rule's structure (the check of engine/rule_op_warnings.hpp); null for a hand-made RuleInfo.
  dsl::FlatCopy (*flat)(const void* rule) = nullptr;
  /// Explains the rule: `explain(rule, g, root, out)` (engine/explain.hpp). Never called by the
  /// driver; false for a hand-made RuleInfo.
  Explainer explain;
  std::vector<OpNameId> names;         ///< op names the rule uses, interned (for DSL rules)
  std::vector<InputGuard> guards;      ///< input slots whose op name the match fixes (for DSL rules)
  std::vector<TermGuard> term_guards;  ///< properties the constraint fixes, in conjunct order (for DSL rules)
  /// The ops a match covers below its root (the match's Op and OpVarIn nodes within
  /// TermGuard::max_depth): a rewrite's ops stand for the sources of these and of the root
  /// (Graph::origins()). For DSL rules it views the rule's constant data, so copying a RuleInfo
  /// copies no list; empty for a hand-made RuleInfo.
  std::span<const PatternOp> pattern_ops;
  std::size_t index = 0;  ///< position in the sorted rule order of a RuleSet
};

/// Rules defined by DEF_PACKAGE_OPTIMIZATION in this program that RuleSet::global()
/// (engine/rule_set.hpp) has not taken in yet. A rule's registration only appends here, so a
/// translation unit of rules needs neither RuleSet nor the driver's dispatch tables; global() moves
/// them into the set, deduplicated there, each time it is called.
inline std::vector<RuleInfo>& pending_rules() {
  static std::vector<RuleInfo> pending;
  return pending;
}

}  // namespace optgrammar::engine

// The names programs and rule authors use, from the engine's namespace.
namespace optgrammar {
using engine::InputGuard;
using engine::PatternOp;
using engine::Rewriter;
using engine::RuleInfo;
using engine::RuleStats;
using engine::TermGuard;
}  // namespace optgrammar
