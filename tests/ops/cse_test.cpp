// Common-subexpression elimination (engine/cse.hpp): what merges and what never does, commutative
// operands, constants by payload, cascades, the driver hook, SAME_OP, and unchanged results.
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

#include <cstdint>

// SAME_OP sees two ops as one only after CSE merged them (CSE runs between passes, never inside).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_CsePair", "a", "b"), SAME_OP("a", "b"), Op("T_CseSame", "a"))

namespace {
using namespace optgrammar;

RuleSet this_file() {
  return RuleSet::global().select([](const RuleInfo& r) { return r.file.find("cse_test.cpp") != std::string::npos; });
}
OutputDef f32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Float32, s); }
OutputDef i32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Int32, s); }
std::size_t count(const Graph& g, std::string_view name) {
  std::size_t n = 0;
  for (OpRef r : g.live_ops()) n += g.name(r) == name;
  return n;
}
}  // namespace

TEST_CASE("pure ops with equal names, inputs and output definitions merge, commutative ones in either order") {
  Graph g;
  auto x = g.add_input(f32({4}));
  auto y = g.add_input(f32({4}));
  g.add_output(g.add_op("Add", {x, y}, f32({4})));
  g.add_output(g.add_op("Add", {y, x}, f32({4})));
  g.add_output(g.add_op("Sub", {x, y}, f32({4})));
  g.add_output(g.add_op("Sub", {y, x}, f32({4})));
  g.add_output(g.add_op("Max", {x, y}, f32({4})));
  g.add_output(g.add_op("Relu", {x}, f32({4})));
  g.add_output(g.add_op("Relu", {x}, f32({4})));
  g.add_output(g.add_op("Cast", {x}, i32({4})));
  g.add_output(g.add_op("Cast", {x}, OutputDef::make(DType::QInt8, {4})));  // another output definition
  const auto ins = engine::random_inputs(g, 3);
  const auto before = engine::interpret(g, ins);
  engine::Cse cse;
  CHECK(cse.run(g) == 2);
  CHECK(cse.stats().merged_ops == 2);
  CHECK(count(g, "Add") == 1);
  CHECK(count(g, "Sub") == 2);
  CHECK(count(g, "Max") == 1);
  CHECK(count(g, "Relu") == 1);
  CHECK(count(g, "Cast") == 2);
  CHECK(count(g, "Output") == 9);  // outputs are never merged
  CHECK(engine::interpret(g, ins) == before);
  CHECK(verify(g).empty());
}

TEST_CASE("never merged: unknown ops, side-effecting ops, inputs, outputs") {
  Graph g;
  auto x = g.add_input(f32({4}));
  auto x2 = g.add_input(f32({4}));
  g.add_output(g.add_op("T_CseUnknown", {x}, f32({4})));
  g.add_output(g.add_op("T_CseUnknown", {x}, f32({4})));
  g.add_output(x);
  g.add_output(x2);
  g.add_output(x);
  engine::Cse cse;
  CHECK(cse.run(g) == 0);
  CHECK(count(g, "T_CseUnknown") == 2);
  CHECK(count(g, "Input") == 2);
  CHECK(count(g, "Output") == 5);
}

TEST_CASE("constants merge by payload and output definition, and only when asked") {
  auto build = [](Graph& g) {
    auto x = g.add_input(i32({2}));
    std::int32_t a[2] = {1, 2}, b[2] = {1, 2};  // different buffers, equal bytes
    auto c1 = g.add_const(i32({2}), std::span<const std::int32_t>(a, 2));
    auto c2 = g.add_const(i32({2}), std::span<const std::int32_t>(b, 2));
    auto c3 = g.add_const(i32({1, 2}), std::span<const std::int32_t>(b, 2));  // same bytes, other shape
    g.add_output(g.add_op("Add", {x, c1}, i32({2})));
    g.add_output(g.add_op("Add", {c2, x}, i32({2})));
    g.add_output(g.add_op("Add", {x, c3}, i32({1, 2})));
  };
  Graph g;
  build(g);
  engine::Cse cse;
  cse.run(g);
  CHECK(cse.stats().merged_constants == 1);
  CHECK(cse.stats().merged_ops == 1);  // then the two Adds read the same constant: Add(x, c) = Add(c, x)
  CHECK(count(g, "$Const") == 2);
  CHECK(count(g, "Add") == 2);

  Graph h;
  build(h);
  engine::Cse keep_constants({.merge_constants = false});
  keep_constants.run(h);
  CHECK(keep_constants.stats().merged_constants == 0);
  CHECK(count(h, "$Const") == 3);
  CHECK(count(h, "Add") == 3);
}

TEST_CASE("merges cascade through users in one sweep") {
  Graph g;
  auto x = g.add_input(f32({8}));
  auto y = g.add_input(f32({8}));
  OpRef a = x, b = x;
  for (int i = 0; i < 5; ++i) {
    a = g.add_op("Relu", {g.add_op("Mul", {a, y}, f32({8}))}, f32({8}));
    b = g.add_op("Relu", {g.add_op("Mul", {y, b}, f32({8}))}, f32({8}));
  }
  g.add_output(g.add_op("Sub", {a, b}, f32({8})));
  engine::Cse cse;
  CHECK(cse.run(g) == 10);
  CHECK(g.live_count() == 2 + 10 + 1 + 1);
  CHECK(engine::inputs_first_order(g).size() == g.live_count());
}

TEST_CASE("quantized commutative ops merge across operand order with bit-identical results") {
  Graph g;
  auto a = g.add_input(OutputDef::make(DType::QUInt8, {3, 4}, 128, 0.05f));
  auto b = g.add_input(OutputDef::make(DType::QUInt8, {4}, 100, 0.02f));
  const auto out = OutputDef::make(DType::QUInt8, {3, 4}, 120, 0.08f);
  auto s1 = g.add_op("QuantizedAdd", {a, b}, out);
  auto s2 = g.add_op("QuantizedAdd", {b, a}, out);
  auto m1 = g.add_op("QuantizedMul", {s1, b}, out);
  auto m2 = g.add_op("QuantizedMul", {b, s2}, out);
  g.add_output(m1);
  g.add_output(m2);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Graph h = g;
    const auto ins = engine::random_inputs(h, seed);
    const auto before = engine::interpret(h, ins);
    REQUIRE(before[0] == before[1]);  // the commutative claim, checked on the kernels themselves
    engine::Cse cse;
    CHECK(cse.run(h) == 2);
    CHECK(engine::interpret(h, ins) == before);
  }
}

TEST_CASE("in the driver CSE runs before the first pass and after each one, never inside a pass") {
  Graph g;
  auto x = g.add_input(f32({4}));
  auto y = g.add_input(f32({4}));
  // Two distinct but equal Adds: SAME_OP is false for them until CSE has merged them.
  g.add_output(g.add_op("T_CsePair", {g.add_op("Add", {x, y}, f32({4})), g.add_op("Add", {y, x}, f32({4}))}, f32({4})));

  Graph without = g;
  auto rep0 = run_rules(without, this_file());
  CHECK(rep0.rewrites == 0);
  CHECK(count(without, "T_CsePair") == 1);

  engine::Cse cse;
  DriverOptions opt;
  opt.between_passes = cse.hook();
  auto rep = run_rules(g, this_file(), opt);
  CHECK(cse.stats().runs == rep.passes.size() + 1);
  CHECK(cse.stats().merged_ops == 1);
  CHECK(count(g, "T_CseSame") == 1);
  CHECK(count(g, "Add") == 1);
}
