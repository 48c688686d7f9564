// The W2 package (README.md here) written by hand against core/, for comparison with the DSL
// rules of w2_rules.cpp and the generated decoys: the same matches, constraints, replacements,
// counters and rule order. A hand-made RuleInfo is tried on every op of its root name unless it
// says what it needs (engine/rule.hpp); these say what the DSL rules' analysis finds for their
// DSL twins (the inner op's name, the guarded dimension), as an author writing a large package
// by hand for this engine would, so the comparison is of the rule code, not of the dispatch.
#pragma once

#include "w2/w2_graph.hpp"

#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/rule.hpp>

#include <cstring>
#include <deque>
#include <string>

namespace w2::handwritten {
using namespace optgrammar;

/// What sets one decoy apart: its inner op and the value its constraint wants.
struct Decoy {
  OpNameId inner = 0;
  std::size_t k = 0;
};

/// F1: Top(Bottom(x)) -> Fused(x).
inline bool f1(Rewriter& rw, const RuleInfo& self, OpRef root) {
  Graph& g = rw.graph();
  ++rw.stats(self).tried;
  if (g.n_inputs(root) != 1) return false;
  const OpRef b = g.input(root, 0);
  if (g.name_id(b) != names().bottom || g.n_inputs(b) != 1) return false;
  ++rw.stats(self).matched;
  const OpRef x = g.input(b, 0);
  ++rw.stats(self).fired;
  const OpDef& was = g.op_at(root.index);
  rw.replace_by_new(root, names().fused, std::span<const OpRef>(&x, 1), was.output, was.id);
  return true;
}

/// F2: Scale(x, c) -> x when c is a constant of exactly one element, 1.0.
inline bool f2(Rewriter& rw, const RuleInfo& self, OpRef root) {
  const Graph& g = rw.graph();
  ++rw.stats(self).tried;
  if (g.n_inputs(root) != 2) return false;
  const OpRef x = g.input(root, 0), c = g.input(root, 1);
  if (!g.is_const(c)) return false;
  ++rw.stats(self).matched;
  if (g.output(c).dtype != DType::Float32 || g.output(c).element_count() != 1) return false;
  float v;
  std::memcpy(&v, g.payload(c).data(), sizeof v);
  if (v != 1.0f) return false;
  ++rw.stats(self).fired;
  rw.replace(root, x);
  return true;
}

/// D_j: U<a>(U<b>(x)) -> x when dimension 3 of x is k (never, in the W2 graph).
inline bool decoy(Rewriter& rw, const RuleInfo& self, OpRef root) {
  const Graph& g = rw.graph();
  const Decoy& d = *static_cast<const Decoy*>(self.rule);
  ++rw.stats(self).tried;
  if (g.n_inputs(root) != 1) return false;
  const OpRef in = g.input(root, 0);
  if (g.name_id(in) != d.inner || g.n_inputs(in) != 1) return false;
  ++rw.stats(self).matched;
  const OpRef x = g.input(in, 0);
  if (g.output(x).dim(3) != d.k) return false;
  ++rw.stats(self).fired;
  rw.replace(root, x);
  return true;
}

/// The package of `n_rules` rules (F1, F2, D_0 ... D_(n_rules - 3)) in the DSL package's rule
/// order (the decoys' files sort before w2_rules.cpp). `decoys` keeps what the decoys read.
inline RuleSet rules(std::size_t n_rules, std::deque<Decoy>& decoys) {
  const Names& n = names();
  RuleSet s;
  auto add = [&](int line, OpNameId root, bool (*fn)(Rewriter&, const RuleInfo&, OpRef)) -> RuleInfo {
    RuleInfo r;
    r.file = line < 1000 ? "w2_handwritten_f.hpp" : "w2_handwritten_d.hpp";
    r.name = r.file + ":" + std::to_string(line);
    r.line = line;
    r.pass_name = "EARLY";
    r.priority = 3050;
    r.root = root;
    r.apply = fn;
    return r;
  };
  for (std::size_t j = 0; j + 2 < n_rules; ++j) {
    const std::size_t a = j % 16, dist = 3 + (j / 16) % 13, b = (a + 16 - dist) % 16;
    decoys.push_back({n.u[b], 100 + j});
    RuleInfo r = add(1000 + static_cast<int>(j), n.u[a], decoy);
    r.rule = &decoys.back();
    r.guards = {{0, n.u[b]}};
    TermGuard& t = r.term_guards.emplace_back();
    t.active = true;
    t.depth = 2;
    t.path[0] = t.path[1] = 0;
    t.dim = 3;
    t.value = 100 + j;
    s.add(std::move(r));
  }
  RuleInfo r1 = add(1, n.top, f1);
  r1.guards = {{0, n.bottom}};
  s.add(std::move(r1));
  RuleInfo r2 = add(2, n.scale, f2);
  r2.guards = {{1, op_names::const_op}};
  s.add(std::move(r2));
  return s;
}

}  // namespace w2::handwritten
