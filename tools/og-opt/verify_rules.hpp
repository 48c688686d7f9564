// og-opt --verify N: checks a rule package on graphs synthesized from its rules. For each rule,
// graphs are drawn from its match pattern (its flat form, RuleInfo::flat: the Op/OpVarIn nodes, their operand
// structure, shared tags and LETs; each leaf an input or a constant), with shapes and dtypes
// drawn, the pattern ops' output definitions inferred through the op definitions (a draw they
// reject is redrawn), and constant values drawn from the constants the rule mentions, their
// neighbours and a small pool (near misses included). Each graph is rewritten by the whole
// package as og-opt runs it (run.hpp: passes, folding, CSE), checked against the op definitions
// and interpreted before and after (result_check.hpp). The first failure of a rule is shrunk
// greedily and written as an .ogt counterexample. docs/og-opt.md describes the output.
#pragma once

#include "load_rules.hpp"
#include "options.hpp"
#include "result_check.hpp"
#include "run.hpp"

#include "onnx_import.hpp"

#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/dsl/canonical.hpp>
#include <optgrammar/dsl/flat.hpp>
#include <optgrammar/engine/explain.hpp>
#include <optgrammar/ops/builtin.hpp>
#include <optgrammar/ops/definition_verify.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace og_opt {

/// Exit status of --verify when a rule fails.
inline constexpr int verify_failed_status = 4;

namespace verify_detail {

using optgrammar::DType;
using optgrammar::Graph;
using optgrammar::OpRef;
using optgrammar::OutputDef;
using optgrammar::dsl::Kind;

/// One value of the synthesized graph: a leaf (an operand tag, or an Op("$Const") of the
/// pattern) or a pattern op over earlier entries.
struct PlanEntry {
  bool leaf = true;
  bool constant_only = false;  ///< Op("$Const"), or a tag whose constant values the constraint reads
  std::string name;            ///< the op name (not a leaf) or the tag (a leaf)
  std::vector<std::uint32_t> operands;
  const optgrammar::ops::OperandSpec* spec = nullptr;  ///< a leaf: the slot of its first consumer
};

/// What the synthesizer takes from a rule: the pattern in build order (operands first, the root
/// last), the constants and dtypes the rule mentions, or why it cannot synthesize the rule.
struct Plan {
  std::vector<PlanEntry> entries;
  std::vector<double> numbers;
  std::vector<DType> dtypes;
  /// What the constraint compares a constant's element with: EQ(CONSTVAL_*("t", k), V) gives
  /// (k, V) for the tag t (LE and GE too: V is within their bound; LT(ABS(SUB(CONSTVAL_*, V)), eps)
  /// too: V is near).
  std::map<std::string, std::vector<std::pair<std::size_t, double>>> element_hints;
  /// Tags whose constraint reads CONSTVAL_*_VALID("t", 0): absent ONNX inputs are constants
  /// with no elements, which such a rule asks for.
  std::set<std::string> maybe_empty;
  std::map<std::string, std::uint32_t> tags;  ///< each tag and LET of the match: its entry
  std::string unsupported;                    ///< non-empty: beyond the synthesizer (what)
  std::string no_eval;                        ///< non-empty: an op without reference semantics (which)
};

class Planner {
 public:
  Planner(const optgrammar::dsl::FlatCopy& t, Plan& p) : t_(t), p_(p) {}

  void plan() {
    for (std::uint32_t i = 0; i < t_.nodes.size(); ++i) {
      const FlatNode& n = at(i);
      if (n.kind == Kind::Let && i < t_.constraint) lets_[name(n)] = operand(i, 0);
      if (n.kind == Kind::Int || n.kind == Kind::Size) p_.numbers.push_back(static_cast<double>(n.value));
      if (n.kind == Kind::Float && std::isfinite(n.real)) p_.numbers.push_back(n.real);
      if (n.kind == Kind::DTypeConst) p_.dtypes.push_back(static_cast<DType>(n.value));
      if ((n.kind == Kind::Op || n.kind == Kind::OpVarIn) && p_.no_eval.empty()) {
        const auto* def = optgrammar::ops::definitions().find(name(n));
        if (def == nullptr)
          p_.no_eval = name(n) + " has no op definition";
        else if (def->eval == nullptr && !def->has(optgrammar::ops::Trait::constant_like))
          p_.no_eval = name(n) + " has no eval (no reference semantics)";
      }
    }
    for (std::uint32_t i = t_.constraint; i < t_.replacement; ++i)
      if (optgrammar::dsl::reads_constval(at(i).kind) && at(i).n > 0 && at(operand(i, 0)).kind == Kind::Tag) {
        const_tags_.insert(name(at(operand(i, 0))));
        const bool valid = at(i).kind == Kind::ConstvalFloatValid || at(i).kind == Kind::ConstvalIntValid;
        if (valid && at(i).n == 2 && at(operand(i, 1)).value == 0) p_.maybe_empty.insert(name(at(operand(i, 0))));
      }
    for (std::uint32_t i = t_.constraint; i < t_.replacement; ++i) {
      if ((at(i).kind == Kind::Eq || at(i).kind == Kind::Le || at(i).kind == Kind::Ge) && at(i).n == 2)
        hint(operand(i, 0), operand(i, 1)), hint(operand(i, 1), operand(i, 0));  // the bound of LE and GE satisfies it
      // LT(ABS(SUB(CONSTVAL_*("t", k), V)), eps): near V.
      if ((at(i).kind == Kind::Lt || at(i).kind == Kind::Le) && at(i).n == 2 && at(operand(i, 0)).kind == Kind::Abs &&
          at(operand(i, 0)).n == 1 && at(operand(operand(i, 0), 0)).kind == Kind::Sub &&
          at(operand(operand(i, 0), 0)).n == 2) {
        const std::uint32_t sub = operand(operand(i, 0), 0);
        hint(operand(sub, 0), operand(sub, 1)), hint(operand(sub, 1), operand(sub, 0));
      }
    }
    visit(t_.match);
    for (auto& e : p_.entries)
      if (e.leaf && const_tags_.count(e.name)) e.constant_only = true;
    p_.tags = tags_;
  }

 private:
  using FlatNode = optgrammar::dsl::FlatNode;
  static std::string name(const FlatNode& n) { return std::string(n.str.view()); }
  const FlatNode& at(std::uint32_t i) const { return t_.nodes[i]; }
  /// Operand k of node i.
  std::uint32_t operand(std::uint32_t i, std::uint32_t k) const {
    return optgrammar::dsl::operand_at(t_.nodes.data(), i, k);
  }
  /// Records EQ(CONSTVAL_*("t", k), V) as a hint for the leaf t.
  void hint(std::uint32_t read, std::uint32_t value) {
    const FlatNode& r = at(read);
    const FlatNode& v = at(value);
    if ((r.kind != Kind::ConstvalFloat && r.kind != Kind::ConstvalInt) || r.n != 2) return;
    const FlatNode& tag = at(operand(read, 0));
    const FlatNode& k = at(operand(read, 1));
    if (tag.kind != Kind::Tag || (k.kind != Kind::Int && k.kind != Kind::Size) || k.value < 0) return;
    if (v.kind == Kind::Float && std::isfinite(v.real)) p_.element_hints[name(tag)].emplace_back(k.value, v.real);
    if (v.kind == Kind::Int || v.kind == Kind::Size)
      p_.element_hints[name(tag)].emplace_back(k.value, static_cast<double>(v.value));
  }
  static PlanEntry leaf(std::string name, bool constant_only = false) {
    PlanEntry e;
    e.name = std::move(name);
    e.constant_only = constant_only;
    return e;
  }
  std::uint32_t push(PlanEntry e) {
    p_.entries.push_back(std::move(e));
    return static_cast<std::uint32_t>(p_.entries.size() - 1);
  }
  std::uint32_t visit(std::uint32_t i) {
    if (const auto m = memo_.find(i); m != memo_.end()) return m->second;
    const FlatNode& n = at(i);
    std::uint32_t e = 0;
    switch (n.kind) {
      case Kind::Op:
      case Kind::OpVarIn: {
        if (n.n == 0 && name(n) == "$Const") {
          e = push(leaf("$Const", true));
          break;
        }
        PlanEntry op;
        op.leaf = false;
        op.name = name(n);
        for (std::uint32_t k = 0; k < n.n; ++k) op.operands.push_back(visit(operand(i, k)));
        const auto* def = optgrammar::ops::definitions().find(name(n));
        for (std::uint32_t k = 0; k < op.operands.size(); ++k) {
          PlanEntry& in = p_.entries[op.operands[k]];
          if (in.leaf && in.spec == nullptr && def) in.spec = def->operand_spec(k);
        }
        e = push(std::move(op));
        break;
      }
      case Kind::Let:
        e = visit(operand(i, 0));
        tags_[name(n)] = e;
        if (p_.entries[e].leaf) p_.entries[e].name = name(n);  // LET("c", Op("$Const")): the leaf c
        break;
      case Kind::Tag: {
        if (const auto b = tags_.find(name(n)); b != tags_.end()) return b->second;
        if (const auto l = lets_.find(name(n)); l != lets_.end()) return tags_[name(n)] = visit(l->second);
        if (name(n) == "*") {  // an operand matched by anything: a leaf of its own each time
          e = push(leaf(name(n)));
          break;
        }
        e = tags_[name(n)] = push(leaf(name(n)));
        break;
      }
      default:
        if (p_.unsupported.empty())
          p_.unsupported = "the pattern holds " + std::string(optgrammar::dsl::kind_name(n.kind));
        e = push(leaf(optgrammar::dsl::node_text(t_, i)));
    }
    return memo_[i] = e;
  }

  const optgrammar::dsl::FlatCopy& t_;
  Plan& p_;
  std::map<std::string, std::uint32_t> lets_, tags_;
  std::map<std::uint32_t, std::uint32_t> memo_;
  std::set<std::string> const_tags_;
};

/// A drawn leaf: input or constant, its definition and (a constant) its values.
struct LeafDraw {
  bool constant = false;
  OutputDef def;
  std::vector<double> values;
};
using Draw = std::vector<LeafDraw>;  // by plan entry (entries that are ops: unused)

/// Makes one failing constraint term true by changing a leaf of the draw (Drawer::repair): the
/// values of the term's operands come from the evaluators the rule's translation unit compiled
/// (engine/explain_nodes.hpp) on the draw's graph.
struct Solver {
  const optgrammar::dsl::FlatCopy& f;
  const std::vector<optgrammar::engine::NodeEval>& evals;
  optgrammar::engine::ExecState& s;
  const Plan& p;
  Draw& d;

  /// The value of node i: a constant as written, else what its evaluator computes.
  std::optional<optgrammar::engine::NodeValue> value(std::uint32_t i) const {
    const auto& n = f.nodes[i];
    optgrammar::engine::NodeValue v;
    switch (n.kind) {
      case Kind::Int: v.set(static_cast<int>(n.value)); return v;
      case Kind::Size: v.set(static_cast<std::size_t>(n.value)); return v;
      case Kind::Float: v.set(static_cast<float>(n.real)); return v;
      case Kind::DTypeConst: v.set(static_cast<DType>(n.value)); return v;
      default: break;
    }
    if (i < f.constraint || i >= f.replacement || evals[i - f.constraint].eval == nullptr) return std::nullopt;
    const bool failed = s.failed;
    s.failed = false;
    evals[i - f.constraint].eval(evals[i - f.constraint].node, s, v);
    const bool ok = !s.failed;
    s.failed = failed;
    if (!ok) return std::nullopt;
    return v;
  }
  std::optional<double> number(std::uint32_t i) const {
    const auto v = value(i);
    if (!v) return std::nullopt;
    switch (v->type) {
      case optgrammar::dsl::VType::Int: return v->i;
      case optgrammar::dsl::VType::Size: return static_cast<double>(v->z);
      case optgrammar::dsl::VType::Float: return v->f;
      case optgrammar::dsl::VType::Bool: return v->b ? 1.0 : 0.0;
      default: return std::nullopt;
    }
  }
  /// The leaf the tag at node i (the first operand of a property) names; nullptr for an op or "*".
  LeafDraw* leaf(std::uint32_t i) const {
    const auto& n = f.nodes[i];
    if (n.kind != Kind::Tag) return nullptr;
    const auto t = p.tags.find(std::string(n.str.view()));
    return t == p.tags.end() || !p.entries[t->second].leaf ? nullptr : &d[t->second];
  }
  std::uint32_t operand(std::uint32_t i, std::uint32_t k) const {
    return optgrammar::dsl::operand_at(f.nodes.data(), i, k);
  }

  /// The most elements a leaf is given.
  static constexpr std::size_t max_elements = 4096;
  /// A leaf's shape changed: a constant gets as many values (its first repeated). False (the leaf
  /// as it was) when it would hold more than max_elements.
  static bool reshape(LeafDraw& l, const OutputDef& was) {
    if (l.def.element_count() > max_elements) {
      l.def = was;
      return false;
    }
    if (l.constant) l.values.resize(l.def.element_count(), l.values.empty() ? 0.0 : l.values[0]);
    return true;
  }
  /// A constant as a vector of `count` elements (its values kept, the first repeated).
  static void resize(LeafDraw& l, std::size_t count) {
    if (l.def.rank > 1 || (count == 1 && l.def.rank == 0)) return;
    const OutputDef was = l.def;
    l.def.rank = 1;
    l.def.dims[0] = count;
    reshape(l, was);
  }

  /// Sets what node `target` reads (a leaf's dim, rank, dtype, step size or zero offset, or a
  /// constant's element) to the value of node `from`. False when it reads nothing settable.
  bool set(std::uint32_t target, std::uint32_t from) const {
    const auto& t = f.nodes[target];
    if (t.n == 0) return false;
    LeafDraw* l = leaf(operand(target, 0));
    if (l == nullptr) return false;
    if (t.kind == Kind::DTypeOf) {
      const auto v = value(from);
      if (!v || v->type != optgrammar::dsl::VType::DType || l->def.dtype == v->d) return false;
      l->def.dtype = v->d;
      if (l->constant && !optgrammar::is_floating(v->d))
        for (double& x : l->values) x = std::round(x);
      return true;
    }
    const auto v = number(from);
    if (!v || !std::isfinite(*v)) return false;
    switch (t.kind) {
      case Kind::ConstvalInt:
      case Kind::ConstvalFloat: {
        const auto k = t.n == 2 ? number(operand(target, 1)) : std::optional<double>(0.0);
        if (!l->constant || !k || *k < 0 || *k > 64) return false;
        const auto at = static_cast<std::size_t>(*k);
        if (at >= l->values.size()) resize(*l, at + 1);
        if (at >= l->values.size()) return false;
        l->values[at] = t.kind == Kind::ConstvalInt ? std::round(*v) : *v;
        return true;
      }
      case Kind::DimOf: {
        const auto k = t.n == 2 ? number(operand(target, 1)) : std::nullopt;
        if (!k || *k < 0 || *k >= 6 || *v < 1 || *v > 64) return false;
        const auto at = static_cast<std::uint32_t>(*k);
        const OutputDef was = l->def;
        while (l->def.rank <= at) l->def.dims[l->def.rank++] = 1;
        l->def.dims[at] = static_cast<std::size_t>(*v);
        return reshape(*l, was);
      }
      case Kind::RankOf: {
        if (*v < 0 || *v > 6) return false;
        const auto r = static_cast<std::uint32_t>(*v);
        const OutputDef was = l->def;
        while (l->def.rank < r) l->def.dims[l->def.rank++] = 2;
        l->def.rank = r;
        return reshape(*l, was);
      }
      case Kind::StepsizeOf:
        if (!optgrammar::is_quantized(l->def.dtype) || *v <= 0) return false;
        l->def.stepsize = static_cast<float>(*v);
        return true;
      case Kind::ZeroOffsetOf:
        if (!optgrammar::is_quantized(l->def.dtype)) return false;
        l->def.zero_offset = static_cast<std::int32_t>(*v);
        return true;
      default: return false;
    }
  }

  /// Makes the failing term at node i true, if it is of a form solved here.
  bool solve(std::uint32_t i) const {
    const auto& n = f.nodes[i];
    if ((n.kind == Kind::Eq || n.kind == Kind::Le || n.kind == Kind::Ge) && n.n == 2) {
      const std::uint32_t a = operand(i, 0), b = operand(i, 1);
      return set(a, b) || set(b, a);
    }
    const bool negated = n.kind == Kind::Not && n.n == 1;
    const std::uint32_t valid = negated ? operand(i, 0) : i;
    const auto& v = f.nodes[valid];
    if ((v.kind == Kind::ConstvalIntValid || v.kind == Kind::ConstvalFloatValid) && v.n == 2) {
      LeafDraw* l = leaf(operand(valid, 0));
      const auto k = number(operand(valid, 1));
      if (l == nullptr || !l->constant || !k || *k < 0 || *k > 64) return false;
      const std::size_t before = l->values.size();
      resize(*l, negated ? static_cast<std::size_t>(*k) : static_cast<std::size_t>(*k) + 1);
      return l->values.size() != before;
    }
    return false;
  }
};

/// Draws leaves for a plan: shapes around one base shape, dtypes the consumers' definitions
/// take, constants from the rule's numbers, their neighbours and a small pool.
class Drawer {
 public:
  Drawer(const Plan& p, std::uint64_t seed) : p_(p), rng_(seed) {
    for (const PlanEntry& e : p.entries)
      tied_.push_back(e.leaf ? std::vector<int>() : optgrammar::onnx_import::tied_types(e.name));
    for (double v : p.numbers)
      for (double d : {0.0, -1.0, 1.0}) pool_.push_back(v + d);
    for (double v : {0.0, 1.0, -1.0, 2.0, 0.5, 3.0}) pool_.push_back(v);
  }

  Draw draw() {
    const std::uint32_t rank = pick(2) ? 4 : 1 + pick(3);  // rank 4 most often: the layer ops are NHWC
    std::size_t base[4];
    for (auto& d : base) d = 1 + pick(4);
    const DType base_type = pick(3) == 0 && !p_.dtypes.empty() ? p_.dtypes[pick(p_.dtypes.size())]
                            : pick(6) == 0                     ? kinds_[pick(std::size(kinds_))]
                                                               : DType::Float32;
    Draw d(p_.entries.size());
    for (std::size_t i = 0; i < d.size(); ++i) {
      const PlanEntry& e = p_.entries[i];
      if (!e.leaf) continue;
      LeafDraw& l = d[i];
      DType t = base_type;
      if (e.spec && e.spec->rule == optgrammar::ops::TypeRule::in_set && !e.spec->types.contains(t))
        t = member(e.spec->types);
      const auto kind = optgrammar::dtype_info(t).kind;
      l.constant = e.constant_only || (e.spec && e.spec->must_be_constant) || kind == optgrammar::DTypeKind::integer ||
                   kind == optgrammar::DTypeKind::boolean || pick(4) == 0;
      l.def.dtype = t;
      // An integer constant is most often a vector as long as the base's rank (axes, a
      // permutation, a shape), a float one now and then (scales).
      // A constant the constraint reads is often one element.
      const unsigned shape = l.constant && (kind == optgrammar::DTypeKind::integer ? pick(2) : pick(8) == 0) ? 6
                             : e.constant_only && pick(3) == 0                                               ? 4
                                                                                                             : pick(8);
      if (shape < 4) {
        l.def.rank = rank;
        std::copy(base, base + rank, l.def.dims.begin());
      } else if (shape == 4) {  // one element: a scalar, [1], or the base's rank of 1s
        const unsigned r = pick(3);
        l.def.rank = r == 2 ? rank : r;
        std::fill(l.def.dims.begin(), l.def.dims.begin() + l.def.rank, std::size_t{1});
      } else if (shape == 5) {  // broadcast against the base
        l.def.rank = rank;
        for (std::uint32_t k = 0; k < rank; ++k) l.def.dims[k] = pick(2) ? 1 : base[k];
      } else if (shape == 6) {  // a vector as long as the base's rank (axes, permutations, shapes)
        l.def.rank = 1;
        l.def.dims[0] = rank;
      } else if (pick(2)) {  // a vector as long as one of the base's dims (per-channel parameters)
        l.def.rank = 1;
        l.def.dims[0] = base[pick(rank)];
      } else {
        l.def.rank = 1 + pick(4);
        for (std::uint32_t k = 0; k < l.def.rank; ++k) l.def.dims[k] = 1 + pick(4);
      }
      if (l.constant && p_.maybe_empty.count(e.name) && pick(2)) {  // no elements
        l.def.rank = 1;
        l.def.dims[0] = 0;
      }
      if (optgrammar::is_quantized(t)) {
        const bool is_signed = optgrammar::dtype_info(t).is_signed;
        l.def.zero_offset =
            t == DType::QInt32 || is_signed ? 0 : (pick(2) ? 128 : static_cast<std::int32_t>(pick(256)));
        constexpr float steps[] = {0.0625f, 0.1f, 0.25f, 1.0f};
        l.def.stepsize = steps[pick(4)];
      }
      if (l.constant && e.spec && e.spec->scalar && l.def.element_count() > 1) {  // a scalar parameter: one element
        l.def.rank = 0;
      }
      if (l.constant && e.spec && e.spec->choices != 0 && pick(8) != 0) {  // an index into its choices, mostly
        l.def.rank = 0;
        l.values.assign(1, static_cast<double>(pick(e.spec->choices)));
      } else if (l.constant) {
        fill(l);
      }
      // The values the constraint compares the elements with, most of the time; else a
      // neighbour (a near miss) or what fill drew.
      if (const auto h = p_.element_hints.find(e.name); l.constant && h != p_.element_hints.end())
        for (const auto& [k, v] : h->second)
          if (k < l.values.size() && pick(4) != 0) l.values[k] = pick(8) == 0 ? v + (pick(2) ? 1.0 : -1.0) : v;
    }
    // A leaf whose slot takes the dtype of another operand of its op (the definition's
    // same_as_operand, ONNX's type variables of an imported op) gets that operand's, when it is a leaf.
    for (std::size_t i = 0; i < p_.entries.size(); ++i) {
      const PlanEntry& op = p_.entries[i];
      const auto* def = op.leaf ? nullptr : optgrammar::ops::definitions().find(op.name);
      for (std::size_t k = 0; def && k < op.operands.size(); ++k) {
        const auto* spec = def->operand_spec(k);
        std::size_t tie = spec && spec->rule == optgrammar::ops::TypeRule::same_as_operand ? spec->like : k;
        if (tie == k && k < tied_[i].size() && tied_[i][k] >= 0) tie = static_cast<std::size_t>(tied_[i][k]);
        if (tie >= op.operands.size() || tie == k || !p_.entries[op.operands[k]].leaf ||
            !p_.entries[op.operands[tie]].leaf)
          continue;
        LeafDraw& l = d[op.operands[k]];
        const LeafDraw& like = d[op.operands[tie]];
        l.def.dtype = like.def.dtype;
        l.def.zero_offset = like.def.zero_offset;
        l.def.stepsize = like.def.stepsize;
        if (!optgrammar::is_floating(l.def.dtype))
          for (double& x : l.values) x = std::round(x);
      }
    }
    return d;
  }

  /// Changes the draw towards the rule's constraint: the rule is explained on the draw's graph
  /// (RuleInfo::explain, engine/explain.hpp) and the first failing term that compares a leaf's
  /// property or a constant's element with a value (EQ, LE, GE; CONSTVAL_*_VALID and its NOT) is
  /// made true by setting that property of the leaf, as often as it helps (at most 8 steps). A
  /// change that makes the graph invalid is undone. Draws are repaired 3 times in 4: the rest stay
  /// near misses.
  /// False when the draw makes no valid graph (nothing changed).
  bool repair(Draw& d, const optgrammar::RuleInfo& rule);

  /// Values for a constant leaf, one per element of its definition.
  void fill(LeafDraw& l) {
    const std::size_t n = l.def.element_count();
    l.values.assign(n, 0.0);
    const bool is_float = optgrammar::is_floating(l.def.dtype);
    const unsigned how = pick(4);
    if (how < 2 && !is_float) {  // a permutation of 0..n-1, the identity half of the time
      std::iota(l.values.begin(), l.values.end(), 0.0);
      if (pick(2)) std::shuffle(l.values.begin(), l.values.end(), rng_);
    } else if (how < 2) {  // one value everywhere
      std::fill(l.values.begin(), l.values.end(), pool_[pick(pool_.size())]);
    } else {
      for (double& v : l.values)
        v = pick(2)    ? pool_[pick(pool_.size())]
            : is_float ? static_cast<double>(static_cast<int>(pick(512)) - 256) / 64.0
                       : static_cast<double>(pick(8));
    }
  }

 private:
  unsigned pick(std::size_t n) { return static_cast<unsigned>(rng_() % n); }
  DType member(optgrammar::ops::DTypeSet s) {
    std::vector<DType> in;
    for (std::size_t k = 0; k < optgrammar::dtype_count; ++k)
      if (s.contains(static_cast<DType>(k))) in.push_back(static_cast<DType>(k));
    if (in.empty()) return DType::Float32;
    if (s.contains(DType::Float32) && pick(2)) return DType::Float32;
    return in[pick(in.size())];
  }

  static constexpr DType kinds_[] = {DType::Float16, DType::Int32, DType::QUInt8, DType::QInt8, DType::Int64};
  const Plan& p_;
  std::mt19937_64 rng_;
  std::vector<double> pool_;
  std::vector<std::vector<int>> tied_;               ///< per entry: onnx_import::tied_types of its op
  optgrammar::dsl::FlatCopy flat_;                   ///< repair: the rule's flat form
  std::vector<optgrammar::engine::NodeEval> evals_;  ///< repair: its constraint's evaluators
};

/// ONNX's inference of an imported op (onnx_import::infer_output), remembered by the op's name,
/// its operands' definitions and its constant operands' bytes: the repairs and the trials build
/// the same ops again and again. Cleared for each rule.
class OnnxInference {
 public:
  struct Result {
    std::optional<OutputDef> def;
    bool rejected = false;
  };
  const Result& operator()(const Graph& g, OpRef r) {
    key_.assign(g.name(r));
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) {
      const OpRef in = g.input(r, k);
      const OutputDef& d = g.output(in);
      key_ += fmt::format("|{}:{}", static_cast<int>(d.dtype), g.is_const(in) ? "c" : "i");
      if (optgrammar::is_quantized(d.dtype))
        key_ += fmt::format("q{}/{}", d.zero_offset, d.stepsize);  // (kept in the result)
      for (std::uint32_t j = 0; j < d.rank; ++j) key_ += fmt::format(",{}", d.dims[j]);
      if (g.is_const(in)) {
        const auto bytes = g.payload(in);
        key_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      }
    }
    if (const auto it = memo_.find(key_); it != memo_.end()) return it->second;
    Result res;
    std::string error;
    res.def = optgrammar::onnx_import::infer_output(g, r, &error);
    res.rejected = !res.def && !error.empty();
    return memo_.emplace(key_, std::move(res)).first->second;
  }
  void clear() { memo_.clear(); }

 private:
  std::string key_;
  std::unordered_map<std::string, Result> memo_;
};

inline OnnxInference& onnx_inference() {
  static OnnxInference memo;
  return memo;
}

/// A value a synthesized graph may hold: representable, of at most 2^16 elements.
inline bool storable(const OutputDef& d) { return d.unrepresentable() == nullptr && d.element_count() <= (1u << 16); }

/// The graph of a draw: its leaves, the pattern ops with inferred output definitions, an Output
/// of the root. False when the op definitions reject it.
inline bool build(const Plan& p, const Draw& d, Graph& g, OpRef* root = nullptr) {
  g = Graph();
  std::vector<OpRef> ref(p.entries.size());
  std::vector<optgrammar::ops::ValueView> buf;
  for (std::size_t i = 0; i < p.entries.size(); ++i) {
    const PlanEntry& e = p.entries[i];
    if (e.leaf) {
      const LeafDraw& l = d[i];
      if (!storable(l.def)) return false;
      if (!l.constant) {
        ref[i] = g.add_input(l.def);
        continue;
      }
      std::vector<std::byte> bytes(l.def.byte_size());
      for (std::size_t k = 0; k < l.values.size(); ++k)
        optgrammar::store_value(l.def.dtype, bytes.data(), k, l.values[k]);
      ref[i] = g.add_const(l.def, std::span<const std::byte>(bytes));
      continue;
    }
    std::vector<OpRef> ins;
    for (auto k : e.operands) ins.push_back(ref[k]);
    // The declared definition, for what inference leaves open: the first data operand's (an
    // imported ONNX op takes its attributes first, as constants), else the first that is no
    // constant.
    const auto* def = optgrammar::ops::definitions().find(e.name);
    OutputDef guess = ins.empty() ? OutputDef::make(DType::Float32, {}) : g.output(ins[0]);
    const auto data_operand = [&](std::size_t k) {
      const auto* spec = def ? def->operand_spec(k) : nullptr;
      return spec ? !spec->must_be_constant : !g.is_const(ins[k]);
    };
    for (std::size_t k = 0; k < ins.size(); ++k)
      if (data_operand(k)) {
        guess = g.output(ins[k]);
        break;
      }
    if (def && def->result.rule == optgrammar::ops::TypeRule::in_set && !def->result.types.contains(guess.dtype))
      for (std::size_t k = 0; k < optgrammar::dtype_count; ++k)
        if (def->result.types.contains(static_cast<DType>(k))) {
          guess.dtype = static_cast<DType>(k);
          break;
        }
    const OpRef r = g.add_op(optgrammar::intern_op_name(e.name), std::span<const OpRef>(ins), guess);
    // The definition's inference: what it decides of the output, false when it rejects the operands.
    const auto infer = [&] {
      if (!def || !def->infer || ins.size() < def->min_operands() || ins.size() > def->max_operands()) return true;
      const optgrammar::ops::Inferred inf = def->infer(optgrammar::ops::op_view(g, r, buf));
      if (!inf.error.empty()) return false;
      OutputDef out = g.output(r);
      if (inf.shape) {
        out.rank = inf.def.rank;
        out.dims = inf.def.dims;
      }
      if (inf.dtype) out.dtype = inf.def.dtype;
      if (inf.quant) {
        out.zero_offset = inf.def.zero_offset;
        out.stepsize = inf.def.stepsize;
      }
      if (!storable(out)) return false;
      g.set_output(r, out);
      return true;
    };
    if (!infer()) return false;
    // An imported op's output is the declared one, which ONNX's inference gives (after the
    // definition's check of the operands, which that inference relies on); checked again with it.
    if (def && def->infer_checks_only) {
      const OnnxInference::Result& onnx = onnx_inference()(g, r);
      if (onnx.def)
        g.set_output(r, *onnx.def);
      else if (onnx.rejected)
        return false;
      if (!storable(g.output(r)) || !infer()) return false;
    }
    ref[i] = r;
  }
  g.add_output(ref.back());
  if (root) *root = ref.back();
  return optgrammar::verify(g).empty() && optgrammar::ops::verify_ops(g).empty();
}

inline bool Drawer::repair(Draw& d, const optgrammar::RuleInfo& rule) {
  if (!rule.explain || !rule.flat || pick(4) == 0) return true;
  if (flat_.nodes.empty()) {  // the rule's flat form and evaluators, once per rule
    flat_ = rule.flat(rule.rule);
    evals_.resize(flat_.replacement - flat_.constraint);
    rule.explain.nodes(rule.rule, evals_.data());
  }
  const optgrammar::dsl::FlatCopy& f = flat_;
  Graph g;
  OpRef root;
  Draw before;
  for (int step = 0; step <= 8; ++step) {
    if (!build(p_, d, g, &root)) {
      if (step == 0) return false;
      d = std::move(before);  // the last change made it invalid: undone
      return true;
    }
    if (step == 8) return true;
    OpRef slots[optgrammar::dsl::max_tags];
    slots[0] = root;
    optgrammar::engine::MatchState m{rule.names.data(), slots};
    optgrammar::Explanation e;
    optgrammar::engine::explain_detail::Walk walk(f, g, e);
    if (!walk.op(f.match, root, OpRef{}, 0, m)) return true;
    optgrammar::Split_Context none[1];
    optgrammar::engine::ExecState s(g, m, root, none);
    if (walk.term(f.constraint, s, evals_.data()) && !s.failed) return true;  // it holds
    std::vector<std::uint32_t> failing;
    for (const auto& finding : e.findings)
      if (f.nodes[finding.node].kind != Kind::Or && f.nodes[finding.node].kind != Kind::And)
        failing.push_back(finding.node);
    if (!e.findings.empty() && f.nodes[e.findings.front().node].kind == Kind::Or)
      std::shuffle(failing.begin(), failing.end(), rng_);
    before = d;
    Solver solver{f, evals_, s, p_, d};
    if (std::none_of(failing.begin(), failing.end(), [&](std::uint32_t i) { return solver.solve(i); })) return true;
  }
  return true;
}

enum class Outcome { invalid, passed, mismatch, broke_definition, no_fixed_point, not_interpretable };

inline const char* outcome_words(Outcome o) {
  switch (o) {
    case Outcome::mismatch: return "the outputs differ beyond the tolerance";
    case Outcome::broke_definition: return "the rewrite breaks an op definition";
    case Outcome::no_fixed_point: return "the package does not reach a fixed point";
    case Outcome::not_interpretable: return "the result has an op without reference semantics";
    default: return "";
  }
}

struct Trial {
  Outcome outcome = Outcome::invalid;
  bool fired = false;
  std::string detail;  ///< what differed or broke, and the rules that fired
  Graph graph;         ///< the synthesized graph
};

/// An op of g the interpreter has no kernel for, or an empty string.
inline std::string op_without_eval(const Graph& g) {
  for (OpRef r : g.live_ops()) {
    const auto* def = optgrammar::ops::definitions().find(g.name_id(r));
    if (g.is_const(r) || g.name_id(r) == optgrammar::op_names::input || g.name_id(r) == optgrammar::op_names::output)
      continue;
    if (def == nullptr || (def->eval == nullptr && !def->has(optgrammar::ops::Trait::constant_like)))
      return std::string(g.name(r));
  }
  return {};
}

/// Builds the draw's graph, rewrites a copy by the package and compares.
inline Trial trial(const Plan& p, const Draw& d, const optgrammar::RuleSet& rules, const optgrammar::RuleInfo& rule,
                   const Options& o) {
  Trial t;
  if (!build(p, d, t.graph)) return t;
  CheckRun before;
  try {
    before = check_before(t.graph, 2);
  } catch (const std::exception&) {
    return t;  // the interpreter cannot run the draw (values out of an op's range): redrawn
  }
  Graph h = t.graph;
  RunResult result;
  std::string error;
  const bool ran = run(h, rules, o, nullptr, nullptr, result, &error);
  std::string fired_rules;
  for (std::size_t k = 0; k < result.report.rules.size(); ++k)
    if (result.report.stats[k].fired > 0) {
      if (result.report.rules[k] == &rule) t.fired = true;
      fired_rules += (fired_rules.empty() ? "" : ", ") + result.report.rules[k]->name;
    }
  const std::string by = fired_rules.empty() ? " (no rule fired)" : " (rules fired: " + fired_rules + ")";
  if (!ran) {
    t.outcome = Outcome::no_fixed_point;
    t.fired = true;  // (the run's counts are lost with it)
    t.detail = error;
    return t;
  }
  std::vector<OpRef> where;
  auto problems = optgrammar::verify(h, &where);
  if (problems.empty()) problems = optgrammar::ops::verify_ops(h, {}, &where);
  if (!problems.empty()) {
    t.outcome = Outcome::broke_definition;
    t.detail = problems.front() + by;
    return t;
  }
  try {
    const auto diffs = check_after(h, before, o.check_tolerance, o.check_atol);
    for (std::size_t k = 0; k < diffs.size(); ++k)
      if (!diffs[k].ok) {
        t.outcome = Outcome::mismatch;
        t.detail = diffs[k].problem.empty() ? fmt::format("output {}: max abs diff {:.3g}, max rel diff {:.3g}{}", k,
                                                          diffs[k].max_abs, diffs[k].max_rel, by)
                                            : fmt::format("output {}: {}{}", k, diffs[k].problem, by);
        return t;
      }
  } catch (const std::exception& e) {
    const std::string op = op_without_eval(h);
    t.outcome = op.empty() ? Outcome::mismatch : Outcome::not_interpretable;
    t.detail =
        op.empty() ? std::string("the result cannot be interpreted: ") + e.what() + by : op + " has no eval" + by;
    return t;
  }
  t.outcome = Outcome::passed;
  return t;
}

/// Shrinks a failing draw greedily while the failure persists: dims to 1, leading dims of 1
/// dropped, floats to Float32, constant elements to 0 or 1, then to values nearer 0.
inline Trial minimize(const Plan& p, Draw d, Trial failing, const optgrammar::RuleSet& rules,
                      const optgrammar::RuleInfo& rule, const Options& o) {
  std::size_t budget = 400;
  auto keeps = [&](const Draw& c) {
    if (budget == 0) return false;
    --budget;
    Trial t = trial(p, c, rules, rule, o);
    if (t.outcome != failing.outcome) return false;
    failing = std::move(t);
    return true;
  };
  for (bool changed = true; changed && budget > 0;) {
    changed = false;
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (!p.entries[i].leaf) continue;
      for (std::uint32_t k = 0; k < d[i].def.rank; ++k) {
        if (d[i].def.dims[k] <= 1) continue;
        Draw c = d;
        c[i].def.dims[k] = 1;
        if (c[i].constant) c[i].values.resize(c[i].def.element_count(), c[i].values.empty() ? 0.0 : c[i].values[0]);
        if (keeps(c)) d = std::move(c), changed = true;
      }
      if (d[i].def.rank > 0 && d[i].def.dims[0] == 1) {  // a leading dim of 1 dropped
        Draw c = d;
        std::copy(c[i].def.dims.begin() + 1, c[i].def.dims.end(), c[i].def.dims.begin());
        --c[i].def.rank;
        if (keeps(c)) d = std::move(c), changed = true;
      }
      if (d[i].def.dtype != DType::Float32 && optgrammar::is_floating(d[i].def.dtype)) {
        Draw c = d;
        c[i].def.dtype = DType::Float32;
        if (keeps(c)) d = std::move(c), changed = true;
      }
      for (std::size_t k = 0; k < d[i].values.size(); ++k)
        for (double smaller : {0.0, 1.0, std::trunc(d[i].values[k] / 2)}) {
          if (std::fabs(smaller) >= std::fabs(d[i].values[k])) continue;
          Draw c = d;
          c[i].values[k] = smaller;
          if (keeps(c)) {
            d = std::move(c), changed = true;
            break;
          }
        }
    }
  }
  return failing;
}

/// A file name for a rule's counterexample ("w1_rules.cpp:5" -> "w1_rules.cpp_5.ogt").
inline std::string counterexample_name(const std::string& rule) {
  std::string s;
  for (char c : rule) s += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return s + ".ogt";
}

struct RuleVerdict {
  std::string rule;
  std::size_t graphs = 0, fired = 0;
  std::string result;  ///< "ok", "FAILED", "never fired", "not verified"
  std::string detail;
  double seconds = 0;
};

}  // namespace verify_detail

/// --verify N: every rule of `loaded`, one line each, then the lists and a summary line to stdout.
/// Returns 0, 1 when a counterexample cannot be written, verify_failed_status when a rule fails.
inline int verify_package(const LoadedRules& loaded, const Options& o) {
  using namespace verify_detail;
  const std::filesystem::path dir =
      o.out_text.empty() ? std::filesystem::path("og-opt-verify") : std::filesystem::path(o.out_text);
  std::vector<RuleVerdict> verdicts;
  fmt::print("verify: {} rules, up to {} firing graphs each, seed {}\n", loaded.rules.size(), o.verify_n, o.seed);
  fmt::print("{:<28} {:>7} {:>6}  {:<12} {:>9}\n", "rule", "graphs", "fired", "result", "time (ms)");
  bool write_failed = false;
  for (const optgrammar::RuleInfo* rule : loaded.rules.rules()) {
    const auto start = std::chrono::steady_clock::now();
    RuleVerdict v;
    v.rule = rule->name;
    Plan plan;
    if (rule->flat) {
      const optgrammar::dsl::FlatCopy flat = rule->flat(rule->rule);
      Planner(flat, plan).plan();
    } else {
      plan.unsupported = "a rule made by hand: no structure to draw from";
    }
    if (!plan.no_eval.empty() || !plan.unsupported.empty()) {
      v.result = "not verified";
      v.detail = !plan.no_eval.empty() ? plan.no_eval : "beyond the synthesizer: " + plan.unsupported;
    } else {
      // Seeded by the canonical text: the same draws whatever the rule's file, line or compiler.
      onnx_inference().clear();
      Drawer drawer(plan, o.seed ^ optgrammar::fnv1a(std::as_bytes(std::span(rule->canonical))));
      const std::size_t budget = std::max<std::size_t>(200, 40 * o.verify_n);
      for (std::size_t k = 0; k < budget && v.fired < o.verify_n && v.result.empty(); ++k) {
        Draw d = drawer.draw();
        if (!drawer.repair(d, *rule)) continue;  // no valid graph
        Trial t = trial(plan, d, loaded.rules, *rule, o);
        if (t.outcome == Outcome::invalid) continue;
        ++v.graphs;
        v.fired += t.fired;
        if (t.outcome == Outcome::passed) continue;
        if (t.outcome == Outcome::not_interpretable) {
          v.result = "not verified";
          v.detail = t.detail;
          break;
        }
        const Outcome kind = t.outcome;
        t = minimize(plan, std::move(d), std::move(t), loaded.rules, *rule, o);
        v.result = "FAILED";
        const auto path = dir / counterexample_name(rule->name);
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        std::ofstream f(path);
        if (f) optgrammar::write_graph_text(f, t.graph);
        if (!f) {
          std::cerr << "og-opt: --verify: cannot write " << path.string() << "\n";
          write_failed = true;
        }
        v.detail = fmt::format("{}: {}; counterexample ({} ops): {}", outcome_words(kind), t.detail,
                               t.graph.live_count(), path.string());
      }
      if (v.result.empty()) {
        v.result = v.fired > 0 ? "ok" : "never fired";
        if (v.graphs == 0)
          v.detail = "no graph drawn from its pattern passed the op definitions (beyond the synthesizer)";
        else if (v.fired == 0)
          v.detail = "dead, unsatisfiable, or its constraint needs values the synthesizer does not draw";
      }
    }
    v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{:<28} {:>7} {:>6}  {:<12} {:>9.1f}\n", v.rule, v.graphs, v.fired, v.result, v.seconds * 1e3);
    std::fflush(stdout);
    verdicts.push_back(std::move(v));
  }
  std::size_t counts[4] = {};
  const char* results[4] = {"FAILED", "never fired", "not verified", "ok"};
  for (std::size_t r = 0; r < 3; ++r) {
    bool head = false;
    for (const auto& v : verdicts) {
      if (v.result != results[r]) continue;
      if (!head) fmt::print("\n{}:\n", results[r]);
      head = true;
      fmt::print("  {}: {}\n", v.rule, v.detail);
    }
  }
  for (const auto& v : verdicts)
    for (std::size_t r = 0; r < 4; ++r) counts[r] += v.result == results[r];
  fmt::print("\nverify: {} rules: {} verified, {} failed, {} never fired, {} not verified\n", verdicts.size(),
             counts[3], counts[0], counts[1], counts[2]);
  if (write_failed) return 1;
  return counts[0] > 0 ? verify_failed_status : 0;
}

}  // namespace og_opt
