// Random semantic check of workload W1's rules (examples/w1/w1_rules.cpp, R1-R6).
#include "motifs.hpp"
#include "package_test.hpp"

using namespace semantic;

namespace {
enum Kind { relu_chain, add_const, mul_const, transpose_pair, conv_block, cbr_relu, n_kinds };

constexpr DType elementwise_types[] = {DType::Float32, DType::Int32};

void build(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  switch (m.kind) {
    case relu_chain: {  // R1: Relu^n(x), n in 2..4
      const auto d = shape_of(elementwise_types[m.variant % 2], m, 1 + static_cast<std::uint32_t>(m.seed % 4));
      OpRef v = b.value(d, m.share, rng());
      const int n = 2 + static_cast<int>(rng() % 3);
      for (int i = 0; i < n; ++i) {
        v = g.add_op("Relu", {v}, d);
        if (m.fan_out && i == 0) b.output(v);
      }
      b.output(v);
      break;
    }
    case add_const:
    case mul_const: {  // R2 / R3: x + c, x * c; c the neutral value (variant 0, 1: -0), or not
      const auto d = shape_of(elementwise_types[(m.variant / 3) % 2], m, 4);
      const double neutral = m.kind == add_const ? 0.0 : 1.0;
      const double value = m.variant % 3 == 0 ? neutral : m.variant % 3 == 1 ? -0.0 + neutral * (m.kind == add_const ? 0 : 1)
                                                                              : static_cast<double>(rng() % 7) - 3.0;
      // c: one element of rank 1 or 4, or one per channel
      OutputDef cd = OutputDef::make(d.dtype, {1});
      if (rng() % 3 == 1) cd = OutputDef::make(d.dtype, {1, 1, 1, 1});
      else if (rng() % 2 == 0) cd = OutputDef::make(d.dtype, {d.dims[3]});
      OpRef x = b.value(d, m.share, rng());
      OpRef c = filled_const(g, cd, value == 0.0 && m.variant % 3 == 1 ? -0.0 : value);
      OpRef r = g.add_op(m.kind == add_const ? "Add" : "Mul", {x, c}, d);
      b.output(m.fan_out ? g.add_op("Relu", {r}, d) : r);
      break;
    }
    case transpose_pair: {  // R4: Transpose(Transpose(x, p), q), q the inverse of p (variant 0) or not
      constexpr DType types[] = {DType::Float32, DType::Int32, DType::QUInt8};
      const auto d = shape_of(types[m.variant % 3], m, 4, m.variant % 3 == 2 ? 7 : 0, m.variant % 3 == 2 ? 0.25f : 1.0f);
      const auto p = random_perm(rng, 4);
      std::vector<std::int32_t> q(4);
      if (m.variant / 3 == 0)
        for (std::int32_t i = 0; i < 4; ++i) q[static_cast<std::size_t>(p[static_cast<std::size_t>(i)])] = i;
      else
        q = random_perm(rng, 4);
      const auto pd = rng() % 2 ? OutputDef::make(DType::Int32, {4}) : OutputDef::make(DType::Int32, {1, 1, 1, 4});
      OutputDef t1 = d, t2 = d;
      for (std::size_t i = 0; i < 4; ++i) t1.dims[i] = d.dims[static_cast<std::size_t>(p[i])];
      for (std::size_t i = 0; i < 4; ++i) t2.dims[i] = t1.dims[static_cast<std::size_t>(q[i])];
      OpRef x = b.value(d, m.share, rng());
      OpRef a = g.add_op("Transpose", {x, g.add_const(pd, std::span<const std::int32_t>(p))}, t1);
      if (m.fan_out) b.output(a);
      b.output(g.add_op("Transpose", {a, g.add_const(pd, std::span<const std::int32_t>(q))}, t2));
      break;
    }
    case conv_block:
    case cbr_relu: {  // R5: Relu(BiasAdd(Conv2d(x, w), b)); R6: Relu(ConvBiasRelu(x, w, b))
      const auto xd = shape_of(DType::Float32, m, 4);
      const std::size_t kh = 1 + rng() % 3, kw = 1 + rng() % 3, cout = 1 + rng() % 4;
      const auto wd = OutputDef::make(DType::Float32, {kh, kw, xd.dims[3], cout});
      const auto bd = OutputDef::make(DType::Float32, {1, 1, 1, cout});
      const auto od = OutputDef::make(DType::Float32, {xd.dims[0], xd.dims[1], xd.dims[2], cout});
      OpRef x = b.value(xd, m.share, rng());
      OpRef w = m.variant % 2 ? g.add_input(wd) : g.add_const(wd, std::span<const float>(random_floats(rng, wd.element_count())));
      OpRef bias = m.variant / 2 % 2 ? g.add_input(bd) : g.add_const(bd, std::span<const float>(random_floats(rng, cout)));
      OpRef inner;
      if (m.kind == conv_block) {
        OpRef conv = g.add_op("Conv2d", {x, w}, od);
        if (m.fan_out) b.output(conv);
        inner = g.add_op("BiasAdd", {conv, bias}, od);
      } else {
        inner = g.add_op("ConvBiasRelu", {x, w, bias}, od);
        if (m.fan_out) b.output(inner);
      }
      b.output(g.add_op("Relu", {inner}, od));
      break;
    }
    default: break;
  }
}

Motif draw(std::mt19937_64& rng, int kind) {
  Motif m = random_motif(rng, kind, kind == conv_block || kind == cbr_relu ? 6 : 8);
  if (kind == conv_block || kind == cbr_relu) m.dims[0] = 1 + rng() % 2;
  return m;
}

Package w1() {
  return {.name = "W1", .rules = rules_from("w1_rules.cpp"), .kinds = n_kinds, .draw = draw, .build = build};
}
}  // namespace

TEST_CASE("W1 rules preserve results on random graphs") {
  const Package p = w1();
  REQUIRE(p.rules.size() == 6);
  check_package(p, 10);
}
