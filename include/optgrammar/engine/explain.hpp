// Explaining a rule on one op: which part of its match pattern, or which term of its constraint,
// failed there, with what was found (og-opt --why-not). The walk is not a template and is compiled
// only where a program explains (RuleInfo::explain's call operator, defined here): it reads the
// rule's flat form (RuleInfo::flat, dsl/flat.hpp), following the match as engine/match.hpp does,
// recording where it stops, and the constraint's top-level ANDs and ORs as eval's short circuit
// does. Every other term, and every operand value a failing term shows, is evaluated through the
// evaluators the rule's translation unit compiled (engine/explain_nodes.hpp), which call `eval`
// (engine/constraint_eval.hpp), so that each construct has one semantics. Nodes are named by their preorder
// index in the flat form; node_text() gives their canonical text. Nothing here runs unless a tool
// asks for an explanation.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/dsl/canonical.hpp"
#include "optgrammar/dsl/flat.hpp"
#include "optgrammar/engine/exec_state.hpp"
#include "optgrammar/engine/explain_nodes.hpp"
#include "optgrammar/engine/rewriter.hpp"
#include "optgrammar/engine/rule.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace optgrammar::engine {

/// The canonical text of node `index` of rule `r` and its subtree, from the rule's flat form
/// (RuleInfo::flat); empty for a hand-made rule or past the rule's last node.
inline std::string node_text(const RuleInfo& r, std::uint32_t index) {
  return r.flat ? dsl::node_text(r.flat(r.rule), index) : std::string();
}

/// One failing node of a rule on one op: its preorder index in the rule's flat form, what was
/// found there in words, and the values the node's operands computed (their indices and values).
struct Finding {
  std::uint32_t node = 0;
  std::string found;
  std::vector<std::pair<std::uint32_t, std::string>> values;
};

/// A rule explained on one op: how far it got, and the failing nodes, the first failure first (an
/// OR that is false gives itself, then each of its false operands).
struct Explanation {
  enum class Verdict : std::uint8_t {
    match_failed,      ///< the match pattern does not match the op
    constraint_false,  ///< the match holds; the constraint is false or could not be evaluated
    passes,            ///< match and constraint hold: `rewrite` says what the replacement does
  };
  Verdict verdict = Verdict::passes;
  std::vector<Finding> findings;
  std::string rewrite;  ///< for `passes`: whether the rule fires, or why its replacement failed
  bool fires = false;   ///< for `passes`: the rule changes the graph there
};

namespace explain_detail {

/// "%7 (onnx.Add)".
inline std::string op_words(const Graph& g, OpRef o) {
  if (!o.valid()) return "no op";
  std::string s = "%" + std::to_string(o.index);
  if (!g.alive(o)) return s + " (erased)";
  return s.append(" (").append(g.name(o)).append(")");
}

/// "input 1 of %3 (onnx.Conv)", or "the root" for the op the rule is tried on.
inline std::string place_words(const Graph& g, OpRef parent, std::uint32_t slot) {
  if (!parent.valid()) return "the root";
  return "input " + std::to_string(slot) + " of " + op_words(g, parent);
}

[[gnu::noinline]] inline void wrong_name(Explanation& e, const Graph& g, std::uint32_t node, OpRef o, OpRef parent,
                                         std::uint32_t slot) {
  e.findings.push_back({node, place_words(g, parent, slot) + " is " + op_words(g, o), {}});
}

[[gnu::noinline]] inline void wrong_count(Explanation& e, const Graph& g, std::uint32_t node, OpRef o,
                                          std::uint32_t found, std::size_t wanted, bool exact) {
  e.findings.push_back({node,
                        op_words(g, o) + " has " + std::to_string(found) + " operand" + (found == 1 ? "" : "s") +
                            "; the pattern allows " + (exact ? "exactly " : "at least ") + std::to_string(wanted),
                        {}});
}

[[gnu::noinline]] inline void bound_twice(Explanation& e, const Graph& g, std::uint32_t node, OpRef here, OpRef bound,
                                          OpRef parent, std::uint32_t slot) {
  e.findings.push_back(
      {node,
       place_words(g, parent, slot) + " is " + op_words(g, here) + ", but the tag is bound to " + op_words(g, bound),
       {}});
}

/// A value in words.
inline std::string value_words(const Graph& g, const NodeValue& v) {
  switch (v.type) {
    case VType::Bool: return v.b ? "true" : "false";
    case VType::Int: return std::to_string(v.i);
    case VType::Size: return std::to_string(v.z);
    case VType::Float: {
      std::string s;
      dsl::print_float(s, v.f);
      return s;
    }
    case VType::DType: return "DType::" + std::string(dtype_name(v.d));
    default: return op_words(g, v.o);
  }
}

/// The walk of one explanation over the rule's flat form.
class Walk {
 public:
  Walk(const dsl::FlatCopy& f, Graph& g, Explanation& e) : f_(f), g_(g), e_(e) {}

  /// match_op's walk (engine/match.hpp) of the match node at `i`, the root's name included,
  /// recording the first failure.
  bool op(std::uint32_t i, OpRef o, OpRef parent, std::uint32_t slot, MatchState& s) {
    const dsl::FlatNode& n = f_.nodes[i];
    if (g_.name_id(o) != s.ids[n.index]) {
      wrong_name(e_, g_, i, o, parent, slot);
      return false;
    }
    const std::uint32_t k = g_.n_inputs(o);
    const bool exact = n.kind == Kind::Op;
    if (exact ? k != n.n : k < n.n) {
      wrong_count(e_, g_, i, o, k, n.n, exact);
      return false;
    }
    for (std::uint32_t j = 0, at = i + 1; j < n.n; ++j, at = f_.nodes[at].end)
      if (!operand(at, o, j, s)) return false;
    return true;
  }

  /// The constraint term at `i`: its value as eval gives it, with the failing terms recorded. AND
  /// and OR stop where eval's short circuit does, so the same terms are evaluated.
  bool term(std::uint32_t i, ExecState& s, const NodeEval* nodes) {
    const dsl::FlatNode& n = f_.nodes[i];
    if (n.kind == Kind::And) {
      for (std::uint32_t j = 0, at = i + 1; j < n.n; ++j, at = f_.nodes[at].end)
        if (!term(at, s, nodes)) return false;
      return true;
    }
    if (n.kind == Kind::Or) {
      const std::size_t mark = e_.findings.size();
      e_.findings.push_back({i, "none of its " + std::to_string(n.n) + " terms holds", {}});
      bool any = false;
      for (std::uint32_t j = 0, at = i + 1; j < n.n && !any; ++j, at = f_.nodes[at].end) any = term(at, s, nodes);
      if (any) e_.findings.resize(mark);  // (a false operand before a true one is no failure)
      return any;
    }
    const bool failed_before = s.failed;
    const NodeEval& ne = nodes[i - f_.constraint];
    NodeValue v;
    ne.eval(ne.node, s, v);
    if (!failed_before && s.failed)
      term_failed(i, s, nodes, true);
    else if (!v.b)
      term_failed(i, s, nodes, false);
    return v.b;
  }

 private:
  bool operand(std::uint32_t i, OpRef parent, std::uint32_t slot, MatchState& s) {
    const OpRef in = g_.input(parent, slot);
    const dsl::FlatNode& n = f_.nodes[i];
    OpRef& bound = s.slot[n.slot];
    if (n.kind == Kind::Tag) {
      if (n.wildcard) return true;
      if (n.first) {
        bound = in;
        return true;
      }
      if (bound == in) return true;
      bound_twice(e_, g_, i, in, bound, parent, slot);
      return false;
    }
    if (n.kind == Kind::Let) {
      if (!n.first && bound != in) {
        bound_twice(e_, g_, i, in, bound, parent, slot);
        return false;
      }
      bound = in;
      return op(i + 1, in, parent, slot, s);
    }
    return op(i, in, parent, slot, s);
  }

  void term_failed(std::uint32_t i, ExecState& s, const NodeEval* nodes, bool could_not) {
    Finding& f = e_.findings.emplace_back();
    f.node = i;
    f.found = could_not ? "could not be evaluated (an operand out of range, a division by zero, ...)" : "is false";
    values(i, s, nodes, f);
  }

  /// The values of the operands of node `i` and of their subterms, in preorder.
  void values(std::uint32_t i, ExecState& s, const NodeEval* nodes, Finding& f) {
    const dsl::FlatNode& n = f_.nodes[i];
    for (std::uint32_t j = 0, at = i + 1; j < n.n; ++j, at = f_.nodes[at].end) {
      const NodeEval& ne = nodes[at - f_.constraint];
      if (!ne.eval) continue;
      const bool failed = s.failed;
      s.failed = false;
      NodeValue v;
      ne.eval(ne.node, s, v);
      f.values.emplace_back(at, s.failed ? std::string("(could not be evaluated)") : value_words(g_, v));
      s.failed = failed;
      if (f_.nodes[at].kind != Kind::Tag) values(at, s, nodes, f);
    }
  }

  const dsl::FlatCopy& f_;
  Graph& g_;
  Explanation& e_;
};

/// What the replacement does where match and constraint hold: the rule's own apply function run
/// on the graph inside a checkpoint that is rolled back (core/graph.hpp: every edit made while a
/// checkpoint is open is undone; interned output definitions and constant data it added stay,
/// unread), with a trace for its reason when it fails.
struct TraceText {
  std::string text;
  void write(const char* p, long n) { text.append(p, static_cast<std::size_t>(n)); }
};
[[gnu::noinline]] inline void explain_rewrite(const RuleInfo& self, Graph& g, OpRef root, Explanation& e) {
  std::vector<RuleStats> stats(self.index + 1);
  TraceText trace;
  const Graph::Checkpoint cp = g.checkpoint();
  try {
    Rewriter rw(g, stats);
    rw.set_trace(&trace);
    e.fires = self.apply(rw, self, root);
  } catch (...) {
    g.rollback(cp);
    throw;
  }
  g.rollback(cp);
  const RuleStats& st = stats[self.index];
  if (e.fires) {
    e.rewrite = "the rule fires here";
  } else if (st.failed > 0) {
    const std::size_t at = trace.text.find(" failed: ");
    std::string reason = at == std::string::npos ? trace.text : trace.text.substr(at + 9);
    while (!reason.empty() && reason.back() == '\n') reason.pop_back();
    e.rewrite = "the replacement failed and was rolled back: " + reason;
  } else {
    e.rewrite = "the replacement is the root itself: nothing changes";
  }
}

}  // namespace explain_detail

/// The rule explained on `root` into `e`: the walk over its flat form (RuleInfo::flat), with the
/// evaluators of its constraint's nodes that its translation unit compiled (explain_nodes<A>).
inline void Explainer::operator()(const RuleInfo& self, Graph& g, OpRef root, Explanation& e) const {
  e = {};
  const dsl::FlatCopy f = self.flat(self.rule);
  std::vector<NodeEval> evals(f.replacement - f.constraint);
  nodes(self.rule, evals.data());
  OpRef slots[dsl::max_tags];
  slots[0] = root;
  MatchState m{self.names.data(), slots};
  explain_detail::Walk walk(f, g, e);
  if (!walk.op(f.match, root, OpRef{}, 0, m)) {
    e.verdict = Explanation::Verdict::match_failed;
    return;
  }
  Split_Context none[1];
  ExecState s(g, m, root, none);
  const bool ok = walk.term(f.constraint, s, evals.data());
  if (!ok || s.failed) {
    e.verdict = Explanation::Verdict::constraint_false;
    if (e.findings.empty())  // (an operand of a true OR failed)
      e.findings.push_back({f.constraint, "could not be evaluated", {}});
    return;
  }
  e.findings.clear();
  e.verdict = Explanation::Verdict::passes;
  explain_detail::explain_rewrite(self, g, root, e);
}

}  // namespace optgrammar::engine

namespace optgrammar {
using engine::Explanation;
}  // namespace optgrammar
