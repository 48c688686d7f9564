// The reference interpreter (engine/interpret.hpp) and results before/after rule packages on
// random inputs: W1's rules (f32, bits compared), a small integer and quantized package of this
// file (bit-exact), with folding and CSE in the loop.
#include "w1/w1_graph.hpp"

#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

// A small package over integer and quantized ops; each rule keeps results bit for bit.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Neg", "x")), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Abs", Op("Neg", "x")), OK, Op("Abs", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("inner", Op("Relu", "x"))), OK, "inner")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "x", LET("c", Op("$Const"))),
                         AND(EQ(CONSTVAL_INT("c", 0), 0), NOT(CONSTVAL_INT_VALID("c", 1)), SAME_SHAPE("x", "*"),
                             EQ(DTYPE_OF("x"), DType::Int32)),
                         "x")
// Cast through Int32 and back to the same encoding is the identity for 8/16-bit storage.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Cast", LET("wide", Op("Cast", "x"))),
                         AND(EQ(DTYPE_OF("wide"), DType::Int32), SAME_ENCODING("x", "*"), SAME_SHAPE("x", "*"),
                             OR(EQ(DTYPE_OF("x"), DType::QUInt8), EQ(DTYPE_OF("x"), DType::QInt16))),
                         "x")

namespace {
using namespace optgrammar;

RuleSet select(std::string_view file) {
  return RuleSet::global().select([&](const RuleInfo& r) { return r.file.find(file) != std::string::npos; });
}
OutputDef i32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Int32, s); }
OutputDef f32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Float32, s); }

/// Before and after `rules` (with folding and CSE in the loop when asked), on `seeds` random inputs.
void check_preserved(const Graph& original, const RuleSet& rules, bool fold_and_cse, int seeds = 5) {
  for (int s = 1; s <= seeds; ++s) {
    Graph g = original;
    const auto ins = engine::random_inputs(g, static_cast<std::uint64_t>(s));
    const auto before = engine::interpret(g, ins);
    engine::ConstantFolder folder;
    engine::Cse cse;
    DriverOptions opt;
    if (fold_and_cse) {
      opt.visit = folder.visitor();
      opt.between_passes = cse.hook();
    }
    run_rules(g, rules, opt);
    const auto after = engine::interpret(g, ins);
    REQUIRE(after.size() == before.size());
    for (std::size_t i = 0; i < after.size(); ++i) {
      INFO("output " << i << ", seed " << s);
      CHECK(after[i].def == before[i].def);
      CHECK(after[i].data == before[i].data);  // bytes: bit-exact
    }
  }
}
}  // namespace

TEST_CASE("the interpreter computes what the kernels define") {
  Graph g;
  auto x = g.add_input(i32({2, 2}));
  const std::int32_t c[2] = {10, 20};
  auto k = g.add_const(i32({2}), std::span<const std::int32_t>(c, 2));
  g.add_output(g.add_op("Max", {g.add_op("Add", {x, k}, i32({2, 2})), g.add_op("Neg", {x}, i32({2, 2}))}, i32({2, 2})));
  engine::Tensor in{i32({2, 2}), std::vector<std::byte>(16)};
  const std::int32_t xs[4] = {1, 2, -30, 2147483647};
  std::memcpy(in.data.data(), xs, 16);
  auto out = engine::interpret(g, {in});
  REQUIRE(out.size() == 1);
  std::int32_t r[4];
  std::memcpy(r, out[0].data.data(), 16);
  // max(x + c, -x), c broadcast along rows: max(11, -1), max(22, -2), max(-20, 30),
  // max(INT_MAX + 20 (wraps to INT_MIN + 19), -INT_MAX)
  CHECK(r[0] == 11);
  CHECK(r[1] == 22);
  CHECK(r[2] == 30);
  CHECK(r[3] == -2147483647 - 1 + 19);
  CHECK_THROWS_AS(engine::interpret(g, {}), engine::InterpretError);
  Graph u;
  u.add_output(u.add_op("T_NoDefinition", {u.add_input(i32({1}))}, i32({1})));
  CHECK_THROWS_WITH(engine::interpret(u, engine::random_inputs(u, 1)), Catch::Contains("no evaluation for this op"));
}

TEST_CASE("W1: the rules keep the results, with and without folding and CSE") {
  const Graph g = w1::build(2);
  check_preserved(g, select("w1_rules.cpp"), false, 3);
  check_preserved(g, select("w1_rules.cpp"), true, 3);
}

TEST_CASE("an integer and quantized package keeps the results bit for bit") {
  Graph g;
  auto x = g.add_input(i32({3, 4}));
  auto q = g.add_input(OutputDef::make(DType::QUInt8, {3, 4}, 128, 0.05f));
  const std::int32_t zeros[4] = {0, 0, 0, 0};
  auto z = g.add_const(i32({4}), std::span<const std::int32_t>(zeros, 4));
  const std::int32_t zero = 0;
  auto z1 = g.add_const(i32({1}), std::span<const std::int32_t>(&zero, 1));
  auto n2 = g.add_op("Neg", {g.add_op("Neg", {x}, i32({3, 4}))}, i32({3, 4}));
  auto ab = g.add_op("Abs", {g.add_op("Neg", {n2}, i32({3, 4}))}, i32({3, 4}));
  auto rr = g.add_op("Relu", {g.add_op("Relu", {ab}, i32({3, 4}))}, i32({3, 4}));
  auto s1 = g.add_op("Sub", {rr, z1}, i32({3, 4}));
  auto s2 = g.add_op("Sub", {s1, z}, i32({3, 4}));  // four elements: the rule does not apply
  g.add_output(s2);
  auto dq = g.add_op("Dequantize", {q}, f32({3, 4}));
  auto rq = g.add_op("Dequantize", {g.add_op("Quantize", {dq}, OutputDef::make(DType::QInt16, {3, 4}, 7, 0.01f))},
                     f32({3, 4}));
  g.add_output(g.add_op("QuantizedAdd",
                        {q, g.add_op("Quantize", {rq}, OutputDef::make(DType::QUInt8, {3, 4}, 128, 0.05f))},
                        OutputDef::make(DType::QUInt8, {3, 4}, 100, 0.1f)));
  auto back =
      g.add_op("Cast", {g.add_op("Cast", {q}, i32({3, 4}))}, OutputDef::make(DType::QUInt8, {3, 4}, 128, 0.05f));
  g.add_output(g.add_op("QuantizedMul", {back, q}, OutputDef::make(DType::QUInt8, {3, 4}, 3, 0.4f)));
  const std::size_t before_ops = g.live_count();
  check_preserved(g, select("interpret_test.cpp"), false);
  check_preserved(g, select("interpret_test.cpp"), true);
  Graph h = g;
  run_rules(h, select("interpret_test.cpp"));
  CHECK(h.live_count() < before_ops);
}

TEST_CASE("fast and reference backends agree inside the interpreter") {
  Graph g;
  auto a = g.add_input(OutputDef::make(DType::QInt8, {257}, -3, 0.07f));
  auto b = g.add_input(OutputDef::make(DType::QInt8, {257}, 5, 0.03f));
  auto s = g.add_op("QuantizedAdd", {a, b}, OutputDef::make(DType::QInt8, {257}, 1, 0.09f));
  auto m = g.add_op("QuantizedMul", {s, b}, OutputDef::make(DType::QInt8, {257}, 0, 0.2f));
  g.add_output(g.add_op("Dequantize", {m}, f32({257})));
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto ins = engine::random_inputs(g, seed);
    CHECK(engine::interpret(g, ins, {ops::Backend::fast}) == engine::interpret(g, ins, {ops::Backend::reference}));
  }
}
