// Random semantic check of workload W2's rules (bench/w2: F1, F2 and the generated decoys
// D_0 ... D_(W2_DECOYS-1), a package of W2_DECOYS + 2 rules).
//
// W2's ops are abstract; this test gives them a meaning under which the rules are meant to keep
// results: Bottom is Abs, Top is Neg, Fused is Neg(Abs(x)), Scale is Mul, and every U<i> is Neg
// (an involution, so U<a>(U<b>(x)) is x for every a and b, as the decoys assume).
#include "motifs.hpp"
#include "package_test.hpp"

#include <optgrammar/ops/builtin.hpp>

using namespace semantic;

namespace {
using ops::OpDefinition;
using ops::OpView;

constexpr std::array<std::string_view, 16> u_names = {"U0", "U1", "U2",  "U3",  "U4",  "U5",  "U6",  "U7",
                                                      "U8", "U9", "U10", "U11", "U12", "U13", "U14", "U15"};

OpDefinition renamed(std::string_view from, std::string_view to) {
  OpDefinition d = *ops::find_definition(from);
  d.name = to;
  return d;
}

bool fused(const OpView& v, std::span<std::byte> out, ops::Backend be) {
  std::vector<std::byte> tmp(out.size());
  if (!ops::find_definition("Abs")->eval(v, tmp, be)) return false;
  const ops::ValueView mid{v.declared, tmp, true, false};
  return ops::find_definition("Neg")->eval(OpView{std::span<const ops::ValueView>(&mid, 1), v.declared}, out, be);
}

void add_w2_semantics() {
  auto& t = ops::definitions();
  if (t.find("Fused")) return;
  t.add(renamed("Abs", "Bottom"));
  t.add(renamed("Neg", "Top"));
  OpDefinition f = renamed("Abs", "Fused");
  f.eval = fused;
  t.add(f);
  t.add(renamed("Mul", "Scale"));
  for (const auto& n : u_names) t.add(renamed("Neg", n));
}

/// Decoy D_j: U<a>(U<b>(x)) with dimension 3 of x equal to k (gen_w2_rules.py).
struct Decoy {
  std::size_t a, b, k;
};
Decoy decoy(std::size_t j) {
  const std::size_t a = j % 16, d = 3 + (j / 16) % 13;
  return {a, (a + 16 - d) % 16, 100 + j};
}

enum Kind { f1, f2, decoy_hit, decoy_miss, n_kinds };

void build(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  const DType t = m.variant % 2 ? DType::Int32 : DType::Float32;
  switch (m.kind) {
    case f1: {  // Top(Bottom(x))
      const auto d = shape_of(t, m, 1 + static_cast<std::uint32_t>(rng() % 4));
      OpRef bot = g.add_op("Bottom", {b.value(d, m.share, rng())}, d);
      if (m.fan_out) b.output(bot);
      b.output(g.add_op("Top", {bot}, d));
      break;
    }
    case f2: {  // Scale(x, c): c one element 1 (variants 0 to 3), two elements, or another value
      const auto d = shape_of(t, m, 4);
      OutputDef cd = rng() % 2 ? OutputDef::make(t, {1}) : OutputDef::make(t, {1, 1, 1, 1});
      double value = 1.0;
      if (m.variant >= 4) {
        if (d.dims[3] > 1 && rng() % 2)
          cd = OutputDef::make(t, {d.dims[3]});
        else
          value = static_cast<double>(rng() % 5) - 2.0;
      }
      OpRef r = g.add_op("Scale", {b.value(d, m.share, rng()), filled_const(g, cd, value)}, d);
      b.output(m.fan_out ? g.add_op("Top", {r}, d) : r);
      break;
    }
    case decoy_hit:
    case decoy_miss: {  // U<a>(U<b>(x)): a decoy's ops, dimension 3 its k (hit) or not
      const Decoy dc = decoy(m.dims[3] % W2_DECOYS);
      Motif shaped = m;
      if (m.kind == decoy_hit) shaped.dims[3] = dc.k;
      const auto d = shape_of(t, shaped, 4);
      const std::size_t bb = m.kind == decoy_hit || m.variant < 3 ? dc.b : rng() % 16;
      OpRef inner = g.add_op(u_names[bb], {b.value(d, m.share, rng())}, d);
      if (m.fan_out) b.output(inner);
      b.output(g.add_op(u_names[dc.a], {inner}, d));
      break;
    }
    default: break;
  }
}

Motif draw(std::mt19937_64& rng, int kind) {
  Motif m = random_motif(rng, kind, 4);
  if (kind == decoy_hit || kind == decoy_miss) m.dims[3] = rng() % 140;  // which decoy, or a dim near k
  if (kind == decoy_miss && m.dims[3] == 0) m.dims[3] = 1;
  if (kind == decoy_hit) m.dims[3] += 1;  // dims stay >= 1 (the decoy index is taken modulo)
  return m;
}

Package w2() {
  add_w2_semantics();
  return {.name = "W2", .rules = rules_from(""), .kinds = n_kinds, .draw = draw, .build = build};
}
}  // namespace

TEST_CASE("W2 rules preserve results on random graphs") {
  const Package p = w2();
  REQUIRE(p.rules.size() == W2_DECOYS + 2);
  check_package(p, 10);
}
