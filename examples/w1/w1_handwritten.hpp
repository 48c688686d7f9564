// Rules R1-R6 of workload W1 written by hand against core/, for comparison with the DSL rules.
#pragma once

#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/rule.hpp>

#include <cstring>

namespace w1::handwritten {
using namespace optgrammar;

struct Names {
  OpNameId relu = intern_op_name("Relu"), add = intern_op_name("Add"), mul = intern_op_name("Mul"),
           tr = intern_op_name("Transpose"), bias = intern_op_name("BiasAdd"), conv = intern_op_name("Conv2d"),
           cbr = intern_op_name("ConvBiasRelu");
};
inline const Names& names() {
  static const Names n;
  return n;
}

inline bool single_f32(const Graph& g, OpRef c, float want) {
  if (!g.is_const(c) || g.output(c).dtype != DType::Float32 || g.output(c).element_count() != 1) return false;
  float v;
  std::memcpy(&v, g.payload(c).data(), 4);
  return v == want;
}
inline bool perm(const Graph& g, OpRef c, std::int32_t out[4]) {
  if (!g.is_const(c) || g.output(c).dtype != DType::Int32 || g.output(c).element_count() != 4) return false;
  std::memcpy(out, g.payload(c).data(), 16);
  return true;
}

inline bool r1(Rewriter& rw, const RuleInfo& self, OpRef root) {
  const Graph& g = rw.graph();
  ++rw.stats(self).tried;
  if (g.n_inputs(root) != 1) return false;
  OpRef inner = g.input(root, 0);
  if (g.name_id(inner) != names().relu || g.n_inputs(inner) != 1) return false;
  ++rw.stats(self).matched;
  ++rw.stats(self).fired;
  rw.replace(root, inner);
  return true;
}
template <int Which>
inline bool r23(Rewriter& rw, const RuleInfo& self, OpRef root) {
  const Graph& g = rw.graph();
  ++rw.stats(self).tried;
  if (g.n_inputs(root) != 2) return false;
  OpRef x = g.input(root, 0), c = g.input(root, 1);
  if (!g.is_const(c)) return false;
  ++rw.stats(self).matched;
  if (!single_f32(g, c, Which == 2 ? 0.0f : 1.0f) || !g.output(x).same_shape(g.output(root))) return false;
  ++rw.stats(self).fired;
  rw.replace(root, x);
  return true;
}
inline bool r4(Rewriter& rw, const RuleInfo& self, OpRef root) {
  const Graph& g = rw.graph();
  ++rw.stats(self).tried;
  if (g.n_inputs(root) != 2) return false;
  OpRef inner = g.input(root, 0), q = g.input(root, 1);
  if (g.name_id(inner) != names().tr || g.n_inputs(inner) != 2 || !g.is_const(q)) return false;
  OpRef x = g.input(inner, 0), p = g.input(inner, 1);
  if (!g.is_const(p)) return false;
  ++rw.stats(self).matched;
  std::int32_t pv[4], qv[4];
  if (!perm(g, p, pv) || !perm(g, q, qv)) return false;
  for (int d = 0; d < 4; ++d)
    if (qv[d] < 0 || qv[d] > 3 || pv[qv[d]] != d) return false;
  ++rw.stats(self).fired;
  rw.replace(root, x);
  return true;
}
inline bool r5(Rewriter& rw, const RuleInfo& self, OpRef root) {
  Graph& g = rw.graph();
  ++rw.stats(self).tried;
  if (g.n_inputs(root) != 1) return false;
  OpRef b = g.input(root, 0);
  if (g.name_id(b) != names().bias || g.n_inputs(b) != 2) return false;
  OpRef c = g.input(b, 0);
  if (g.name_id(c) != names().conv || g.n_inputs(c) != 2) return false;
  ++rw.stats(self).matched;
  OpRef in[3] = {g.input(c, 0), g.input(c, 1), g.input(b, 1)};
  ++rw.stats(self).fired;
  const OpDef& was = g.op_at(root.index);
  rw.replace_by_new(root, names().cbr, in, was.output, was.id);
  return true;
}
inline bool r6(Rewriter& rw, const RuleInfo& self, OpRef root) {
  const Graph& g = rw.graph();
  ++rw.stats(self).tried;
  if (g.n_inputs(root) != 1) return false;
  OpRef c = g.input(root, 0);
  if (g.name_id(c) != names().cbr || g.n_inputs(c) != 3) return false;
  ++rw.stats(self).matched;
  ++rw.stats(self).fired;
  rw.replace(root, c);
  return true;
}

/// The six rules as a rule set, in the same pass and order as the DSL version.
inline RuleSet rules() {
  RuleSet s;
  auto add = [&](const char* name, int line, OpNameId root, bool (*fn)(Rewriter&, const RuleInfo&, OpRef)) {
    RuleInfo r;
    r.name = name;
    r.file = "w1_handwritten.hpp";
    r.line = line;
    r.pass_name = "EARLY";
    r.priority = 3050;
    r.root = root;
    r.apply = fn;
    s.add(std::move(r));
  };
  add("R1", 1, names().relu, r1);
  add("R2", 2, names().add, r23<2>);
  add("R3", 3, names().mul, r23<3>);
  add("R4", 4, names().tr, r4);
  add("R5", 5, names().relu, r5);
  add("R6", 6, names().relu, r6);
  return s;
}

}  // namespace w1::handwritten
