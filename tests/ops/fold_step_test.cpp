// Constant folding in the rewrite loop (engine/fold_step.hpp): what folds, through which kernels,
// the element bound, the flags, and that folded graphs compute what the unfolded ones did.
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <sstream>

// One pass that never fires, so that the driver visits every op (visit runs per pass).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_FoldNever", "x"), OK, "x")

namespace {
using namespace optgrammar;
namespace o = optgrammar::ops;

void neg_impl() {}
}  // namespace

// An op whose package registration forbids constant propagation.
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(neg_impl, "T_NegInhibited", FAST, Flags::INHIBIT_CONST_PROP)

namespace {
RuleSet never() {
  return RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("fold_step_test.cpp") != std::string::npos; });
}
RuleSet w1_rules() {
  return RuleSet::global().select([](const RuleInfo& r) { return r.file.find("w1_rules.cpp") != std::string::npos; });
}
OutputDef f32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Float32, s); }
OutputDef i32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Int32, s); }
template <class T>
OpRef constant(Graph& g, const OutputDef& d, std::vector<T> v) {
  return g.add_const(d, std::span<const T>(v));
}
std::size_t count(const Graph& g, std::string_view name) {
  std::size_t n = 0;
  for (OpRef r : g.live_ops()) n += g.name(r) == name;
  return n;
}
/// Input x, a chain Relu(Neg(Mul(Add(c1, c2), c3))) of constants, Output(Add(x, chain)): four
/// folds leave one constant. Returns the Relu.
OpRef constant_chain(Graph& g) {
  auto x = g.add_input(f32({2, 4}));
  auto c1 = constant<float>(g, f32({4}), {1.5f, -2.0f, 0.25f, 8.0f});
  auto c2 = constant<float>(g, f32({1}), {0.5f});
  auto c3 = constant<float>(g, f32({2, 1}), {3.0f, -1.0f});
  auto s = g.add_op("Add", {c1, c2}, f32({4}));
  auto m = g.add_op("Mul", {s, c3}, f32({2, 4}));
  auto r = g.add_op("Relu", {g.add_op("Neg", {m}, f32({2, 4}))}, f32({2, 4}));
  g.add_output(g.add_op("Add", {x, r}, f32({2, 4})));
  return r;
}
RunReport run_folding(Graph& g, engine::ConstantFolder& f, const RuleSet& rules) {
  DriverOptions opt;
  opt.visit = f.visitor();
  return run_rules(g, rules, opt);
}
}  // namespace

TEST_CASE("constant subgraphs fold to one constant inside the driver, results do not change") {
  Graph g;
  constant_chain(g);
  const auto ins = engine::random_inputs(g, 1);
  const auto before = engine::interpret(g, ins);

  engine::ConstantFolder folder;
  auto rep = run_folding(g, folder, never());
  CHECK(folder.stats().folded == 4);  // Add, Mul, Neg, Relu
  CHECK(rep.rewrites == 4);
  CHECK(g.live_count() == 4);  // Input, the folded $Const, Add, Output
  CHECK(count(g, "$Const") == 1);
  CHECK(engine::interpret(g, ins) == before);
  CHECK(o::verify_ops(g, {true}).empty());
  CHECK(verify(g).empty());
}

TEST_CASE("quantized chains fold bit for bit like the reference interpreter computes them") {
  Graph g;
  const auto q8a = OutputDef::make(DType::QUInt8, {3, 5}, 128, 0.05f),
             q8b = OutputDef::make(DType::QUInt8, {5}, 100, 0.02f);
  const auto q8o = OutputDef::make(DType::QUInt8, {3, 5}, 120, 0.08f);
  std::vector<float> vals;
  for (int i = 0; i < 15; ++i) vals.push_back(static_cast<float>(i * 37 % 23) * 0.3f - 3.0f);
  auto fa = constant<float>(g, f32({3, 5}), vals);
  auto qa = g.add_op("Quantize", {fa}, q8a);
  auto qb = constant<std::uint8_t>(g, q8b, {0, 1, 127, 200, 255});
  auto qs = g.add_op("QuantizedAdd", {qa, qb}, q8o);
  auto qm = g.add_op("QuantizedMul", {qs, qb}, OutputDef::make(DType::QUInt8, {3, 5}, 7, 0.3f));
  auto r16 = g.add_op("Requantize", {qm}, OutputDef::make(DType::QInt16, {3, 5}, -5, 0.001f));
  auto deq = g.add_op("Dequantize", {r16}, f32({3, 5}));
  auto x = g.add_input(f32({3, 5}));
  g.add_output(g.add_op("Add", {x, deq}, f32({3, 5})));
  auto ci = g.add_op("Cast", {g.add_op("Neg", {constant<std::int32_t>(g, i32({2}), {-2147483647 - 1, 300})}, i32({2}))},
                     OutputDef::make(DType::QInt8, {2}));
  g.add_output(ci);
  REQUIRE(o::verify_ops(g, {true}).empty());
  const auto ins = engine::random_inputs(g, 7);
  const auto before = engine::interpret(g, ins);

  engine::ConstantFolder folder;
  run_folding(g, folder, never());
  CHECK(folder.stats().folded == 7);  // Quantize, QuantizedAdd, QuantizedMul, Requantize, Dequantize, Neg, Cast
  CHECK(count(g, "$Const") == 2);
  CHECK(engine::interpret(g, ins) == before);
  // INT_MIN negates to itself and casts to -128; 300 to -300, then -128.
  auto out = engine::interpret(g, ins);
  REQUIRE(out[1].data.size() == 2);
  CHECK(static_cast<std::int8_t>(out[1].data[0]) == -128);
  CHECK(static_cast<std::int8_t>(out[1].data[1]) == -128);
}

TEST_CASE("layout ops fold: Transpose by its permutation, Concat and Slice_shape by their $Shape parameters") {
  Graph g;
  std::vector<std::int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[static_cast<std::size_t>(i)] = i;
  auto c = constant<std::int32_t>(g, i32({2, 3, 4}), v);
  auto perm = constant<std::int32_t>(g, i32({3}), {2, 0, 1});
  auto t = g.add_op("Transpose", {c, perm}, i32({4, 2, 3}));
  auto cat = g.add_op("Concat", {t, t}, i32({4, 2, 6}));
  auto start = g.add_op(op_names::shape, {}, i32({1, 1, 2}));
  auto size = g.add_op(op_names::shape, {}, i32({2, 1, 3}));
  auto sl = g.add_op("Slice_shape", {cat, start, size}, i32({2, 1, 3}));
  auto rs = g.add_op("Reshape", {sl}, i32({6}));
  g.add_output(rs);
  REQUIRE(o::verify_ops(g, {true}).empty());
  engine::ConstantFolder folder;
  run_folding(g, folder, never());
  CHECK(folder.stats().folded == 4);
  REQUIRE(g.live_count() == 2);
  OpRef k = g.input(engine::ops_named(g, op_names::output)[0], 0);
  REQUIRE(g.is_const(k));
  std::int32_t got[6];
  std::memcpy(got, g.payload(k).data(), sizeof got);
  // t[a][b][c] = v[b][c][a]; cat[a][b][c'] = t[a][b][c' mod 3]; slice a in 1..2, b = 1, c' in 2..4.
  auto tv = [&](int a, int b, int cc) { return v[static_cast<std::size_t>(b * 12 + cc * 4 + a)]; };
  const std::int32_t want[6] = {tv(1, 1, 2), tv(1, 1, 0), tv(1, 1, 1), tv(2, 1, 2), tv(2, 1, 0), tv(2, 1, 1)};
  CHECK(std::equal(got, got + 6, want));
}

TEST_CASE("folds over the element bound are skipped and counted, never attempted") {
  Graph g;
  std::vector<float> big(5000, 1.0f);
  auto a = constant<float>(g, f32({50, 100}), big);
  auto s = g.add_op("Add", {a, a}, f32({50, 100}));
  auto small = g.add_op("Neg", {constant<float>(g, f32({2}), {1.0f, 2.0f})}, f32({2}));
  g.add_output(s);
  g.add_output(small);
  engine::ConstantFolder folder({.max_elements = 1000});
  run_folding(g, folder, never());
  CHECK(folder.stats().folded == 1);
  CHECK(folder.stats().skipped_too_large == 1);
  CHECK(count(g, "Add") == 1);
  CHECK(count(g, "Neg") == 0);
}

TEST_CASE("flags and definitions decide: INHIBIT_CONST_PROP and unknown ops are not folded, and counted") {
  o::OpDefinition d = *o::find_definition("Neg");
  d.name = "T_NegInhibited";
  o::definitions().add(d);
  d.name = "T_NegAllowed";
  o::definitions().add(d);
  Graph g;
  auto c = constant<std::int32_t>(g, i32({2}), {5, -7});
  g.add_output(g.add_op("T_NegInhibited", {c}, i32({2})));
  g.add_output(g.add_op("T_NegAllowed", {c}, i32({2})));
  g.add_output(g.add_op("T_Unknown", {c}, i32({2})));
  engine::ConstantFolder folder;
  run_folding(g, folder, never());
  CHECK(o::op_info("T_NegInhibited").flags == Flags::INHIBIT_CONST_PROP);
  CHECK(folder.stats().folded == 1);
  CHECK(folder.stats().inhibited >= 1);
  CHECK(folder.stats().no_kernel >= 1);
  CHECK(count(g, "T_NegInhibited") == 1);
  CHECK(count(g, "T_NegAllowed") == 0);
  CHECK(count(g, "T_Unknown") == 1);
}

TEST_CASE("folding in the loop enables rules in the same pass: W1's R2 sees Add(x, 0) once 0 + 0 folds") {
  Graph g;
  auto x = g.add_input(f32({1, 4, 4, 2}));
  auto z1 = constant<float>(g, f32({1, 1, 1, 1}), {0.0f});
  auto z2 = constant<float>(g, f32({1, 1, 1, 1}), {-0.0f});
  auto zero = g.add_op("Add", {z1, z2}, f32({1, 1, 1, 1}));  // 0 + -0 = +0
  g.add_output(g.add_op("Add", {x, zero}, f32({1, 4, 4, 2})));
  engine::ConstantFolder folder;
  std::ostringstream trace;
  DriverOptions opt;
  opt.visit = folder.visitor();
  opt.trace = &trace;
  auto rep = run_rules(g, w1_rules(), opt);
  CHECK(folder.stats().folded == 1);
  CHECK(rep.passes.size() == 1);
  CHECK(g.live_count() == 2);  // Input -> Output
  CHECK(trace.str().find("fold %") != std::string::npos);
}

TEST_CASE("the folder runs outside the driver too, to a fixed point") {
  Graph g;
  auto c = constant<float>(g, f32({3}), {1.0f, -2.0f, 3.0f});
  OpRef v = c;
  for (int i = 0; i < 10; ++i) v = g.add_op(i % 2 ? "Abs" : "Neg", {v}, f32({3}));
  g.add_output(v);
  engine::ConstantFolder folder;
  CHECK(folder.run(g) == 10);
  CHECK(g.live_count() == 2);
}

TEST_CASE("with rewrite_in_place each folded constant takes its op's slot and the result is the appending run's") {
  // The graph of the first test case, twice: folded appending, and folded in place.
  Graph a, b;
  constant_chain(a);
  const OpRef relu = constant_chain(b);
  const auto ins = engine::random_inputs(a, 1);
  const auto before = engine::interpret(a, ins);
  const std::uint32_t relu_id = static_cast<std::uint32_t>(b.op_id(relu));

  engine::ConstantFolder fa, fb;
  auto ra = run_folding(a, fa, never());
  DriverOptions opt;
  opt.visit = fb.visitor();
  opt.rewrite_in_place = true;
  std::ostringstream trace;
  opt.trace = &trace;
  const std::size_t size0 = b.size(), records0 = b.use_records();
  auto rb = run_rules(b, never(), opt);

  CHECK(fb.stats().folded == fa.stats().folded);
  CHECK(rb.rewrites == ra.rewrites);
  CHECK(b.size() == size0);            // no op appended
  CHECK(b.use_records() == records0);  // no input record either
  CHECK(a.size() == size0 + 4);        // the appending run made four constants
  // The last fold turned the Relu into the one constant left, in the Relu's slot, with its op id.
  REQUIRE(b.alive(relu));
  CHECK(b.name(relu) == "$Const");
  CHECK(b.is_const(relu));
  CHECK(b.op_id(relu) == relu_id);
  CHECK(trace.str().find("fold %" + std::to_string(relu.index) + "(Relu) -> %" + std::to_string(relu.index) +
                         "($Const)") != std::string::npos);
  CHECK(b.live_count() == a.live_count());
  CHECK(count(b, "$Const") == 1);
  CHECK(engine::interpret(b, ins) == before);
  CHECK(engine::interpret(a, ins) == before);
  CHECK(verify(b).empty());
  CHECK(o::verify_ops(b, {true}).empty());
}

TEST_CASE("an op turned into a constant in place holds its data and an op made in place over a constant holds none") {
  Graph g;
  auto c1 = constant<float>(g, f32({2}), {1.0f, 2.0f});
  auto c2 = constant<float>(g, f32({2}), {3.0f, 4.0f});
  auto s = g.add_op("Add", {c1, c2}, f32({2}));
  g.add_output(s);
  const std::array<float, 2> sum{4.0f, 6.0f};
  REQUIRE(g.can_reform(s, op_names::const_op, {}));
  CHECK(g.reform_const(s, std::as_bytes(std::span(sum))) == 2);  // c1 and c2 lost their reader
  CHECK(g.is_const(s));
  CHECK(g.n_inputs(s) == 0);
  REQUIRE(g.payload(s).size() == sizeof sum);
  CHECK(std::memcmp(g.payload(s).data(), sum.data(), sizeof sum) == 0);
  CHECK_FALSE(g.alive(c1));
  CHECK_FALSE(g.alive(c2));
  CHECK(verify(g).empty());
  // Data that does not fill the output definition is refused before anything changes.
  const std::array<float, 1> one{1.0f};
  CHECK_THROWS_AS(g.reform_const(s, std::as_bytes(std::span(one))), GraphError);
  CHECK(g.payload(s).size() == sizeof sum);

  // A constant's slot reformed into another op leaves no data behind.
  Graph h;
  auto x = h.add_input(f32({2}));
  auto k = constant<float>(h, f32({2}), {1.0f, 2.0f});
  auto n = h.add_op("Neg", {k}, f32({2}));
  h.add_output(h.add_op("Add", {x, n}, f32({2})));
  REQUIRE(h.can_reform(k, intern_op_name("Abs"), {}));
  h.reform(k, intern_op_name("Abs"), {}, h.output_index(k), static_cast<std::uint32_t>(h.op_id(k)));
  CHECK_FALSE(h.is_const(k));
  CHECK(h.payload(k).empty());
}
