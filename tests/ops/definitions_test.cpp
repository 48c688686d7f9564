// Op definitions: the records, the verifier against them, registrations attached to them,
// indexing maps and the generated reference.
#include "w1/w1_graph.hpp"

#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/ops/ops.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <span>

namespace {
using namespace optgrammar;
namespace o = optgrammar::ops;

void fused_impl(int) {}
}  // namespace

// A package's implementation of a test op, with flags: op_info reports it next to the definition.
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(fused_impl, "T_DefFused", SNAIL, Flags::INHIBIT_CONST_PROP, Flags::RESOURCE_HVX)

namespace {
bool mentions(const std::vector<std::string>& v, std::string_view what) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(what) != std::string::npos; });
}
OutputDef f32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Float32, s); }
OutputDef i32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Int32, s); }
}  // namespace

TEST_CASE("every op the project uses has a definition") {
  for (const char* name :
       {"Input",     "Output",  "$Const",   "$Shape",     "$Out",         "Add",          "Sub",
        "Mul",       "Max",     "Min",      "Neg",        "Abs",          "Relu",         "ReluMinMax",
        "Clamp",     "Cast",    "Quantize", "Dequantize", "Requantize",   "QuantizedAdd", "QuantizedMul",
        "Transpose", "Reshape", "Conv2d",   "BiasAdd",    "ConvBiasRelu", "Concat",       "Slice_shape"}) {
    INFO(name);
    const o::OpDefinition* d = o::find_definition(name);
    REQUIRE(d != nullptr);
    CHECK(d->name == name);
    CHECK(!d->summary.empty());
    CHECK(!d->description.empty());
  }
  CHECK(o::find_definition("NoSuchOp") == nullptr);
}

TEST_CASE("traits say what CSE and folding may do") {
  auto def = [](const char* n) { return o::find_definition(n); };
  CHECK(def("Add")->has(o::Trait::commutative));
  CHECK(def("Mul")->has(o::Trait::commutative));
  CHECK(def("QuantizedAdd")->has(o::Trait::commutative));
  CHECK_FALSE(def("Sub")->has(o::Trait::commutative));
  CHECK(def("Add")->has(o::Trait::pure));
  CHECK_FALSE(def("Input")->has(o::Trait::pure));
  CHECK(def("Output")->has(o::Trait::side_effecting));
  CHECK(def("$Const")->has(o::Trait::constant_like));
  CHECK(def("Relu")->has(o::Trait::elementwise));
  CHECK(def("Add")->fold_kernel);
  CHECK(def("Conv2d")->eval != nullptr);
  CHECK(def("$Out")->eval == nullptr);
}

TEST_CASE("operand counts: fixed, optional, variadic") {
  const auto* add = o::find_definition("Add");
  CHECK(add->min_operands() == 2);
  CHECK(add->max_operands() == 2);
  const auto* reshape = o::find_definition("Reshape");
  CHECK(reshape->min_operands() == 1);
  CHECK(reshape->max_operands() == 2);
  const auto* concat = o::find_definition("Concat");
  CHECK(concat->min_operands() == 1);
  CHECK(concat->max_operands() == static_cast<std::size_t>(-1));
  CHECK(concat->operand_spec(7) == &concat->operands[0]);
  CHECK(add->operand_spec(2) == nullptr);
}

TEST_CASE("the W1 graph satisfies its definitions before and after the W1 rules, strict mode too") {
  Graph g = w1::build(3);
  CHECK(o::verify_ops(g, {true}).empty());
  auto w1_rules =
      RuleSet::global().select([](const RuleInfo& r) { return r.file.find("w1_rules.cpp") != std::string::npos; });
  REQUIRE(w1_rules.size() == 6);
  run_rules(g, w1_rules);
  CHECK(w1::check(g, 3).empty());
  auto problems = o::verify_ops(g, {true});
  INFO((problems.empty() ? std::string() : problems.front()));
  CHECK(problems.empty());
}

TEST_CASE("the verifier names wrong counts, dtypes, shapes and parameters") {
  Graph g;
  auto x = g.add_input(f32({2, 3}));
  auto y = g.add_input(i32({2, 3}));
  auto one = g.add_op("Add", {x}, f32({2, 3}));
  auto mixed = g.add_op("Add", {x, y}, f32({2, 3}));
  auto shape = g.add_op("Mul", {x, x}, f32({3, 2}));
  auto nobcast = g.add_op("Sub", {x, g.add_input(f32({4}))}, f32({2, 3}));
  const std::int32_t perm[2] = {1, 0};
  auto p = g.add_const(i32({2}), std::span<const std::int32_t>(perm, 2));
  auto tr_ok = g.add_op("Transpose", {x, p}, f32({3, 2}));
  auto tr_bad = g.add_op("Transpose", {x, p}, f32({2, 3}));
  auto tr_var = g.add_op("Transpose", {x, y}, f32({3, 2}));
  auto deq = g.add_op("Dequantize", {x}, f32({2, 3}));
  auto unknown = g.add_op("T_NotDefined", {x}, f32({2, 3}));
  for (auto r : {one, mixed, shape, nobcast, tr_ok, tr_bad, tr_var, deq, unknown}) g.add_output(r);
  auto problems = o::verify_ops(g);
  auto at = [](OpRef r) { return o::cat("%", r.index, " "); };
  CHECK(mentions(problems, o::cat(at(one), "(Add): 1 operands, the definition takes 2")));
  CHECK(mentions(problems, o::cat(at(mixed), "(Add): operand 1 (b) is i32, the definition takes operand 0's dtype")));
  CHECK(mentions(problems, o::cat(at(shape), "(Mul): output shape [3,2] differs from the inferred [2,3]")));
  CHECK(mentions(problems, o::cat(at(nobcast), "(Sub): operand shapes [2,3] and [4] do not broadcast")));
  CHECK_FALSE(mentions(problems, at(tr_ok)));
  CHECK(mentions(problems, o::cat(at(tr_bad), "(Transpose): output shape [2,3] differs from the inferred [3,2]")));
  CHECK(mentions(problems, o::cat(at(tr_var), "(Transpose): operand 1 (perm) must be a $Const or $Shape")));
  CHECK(
      mentions(problems,
               o::cat(at(deq), "(Dequantize): operand 0 (x) is f32, the definition takes qu8, qi8, qu16, qi16, qi32")));
  CHECK_FALSE(mentions(problems, "unknown op"));
  auto strict = o::verify_ops(g, {true});
  CHECK(mentions(strict, o::cat(at(unknown), "(T_NotDefined): unknown op (no definition)")));
}

TEST_CASE("quantized ops: operands keep their own quantization, dtypes must agree") {
  Graph g;
  auto a = g.add_input(OutputDef::make(DType::QUInt8, {4}, 128, 0.05f));
  auto b = g.add_input(OutputDef::make(DType::QUInt8, {1}, 100, 0.02f));
  auto c = g.add_input(OutputDef::make(DType::QInt8, {4}, 0, 0.1f));
  g.add_output(g.add_op("QuantizedAdd", {a, b}, OutputDef::make(DType::QUInt8, {4}, 120, 0.08f)));
  auto bad = g.add_op("QuantizedMul", {a, c}, OutputDef::make(DType::QUInt8, {4}, 120, 0.08f));
  g.add_output(bad);
  auto q = g.add_op("Quantize", {g.add_input(f32({4}))}, OutputDef::make(DType::QInt16, {4}, 3, 0.5f));
  g.add_output(g.add_op("Requantize", {q}, OutputDef::make(DType::QUInt8, {4}, 128, 0.25f)));
  auto problems = o::verify_ops(g);
  REQUIRE(problems.size() == 1);
  CHECK(mentions(problems, o::cat("%", bad.index, " (QuantizedMul): operand 1 (b) is qi8")));
}

TEST_CASE("Concat(axis, parts...), AUTOSPLIT's join, verifies and runs in the interpreter") {
  Graph g;
  auto a = g.add_input(f32({1, 2, 3}));
  auto b = g.add_input(f32({1, 1, 3}));
  const std::int32_t one = 1, zero = 0;
  auto axis1 = g.add_const(i32({1, 1, 1, 1}), std::span<const std::int32_t>(&one, 1));
  auto axis0 = g.add_const(i32({1}), std::span<const std::int32_t>(&zero, 1));
  auto ok = g.add_op("Concat", {axis1, a, b}, f32({1, 3, 3}));
  auto wrong_axis = g.add_op("Concat", {axis0, a, b}, f32({1, 3, 3}));
  g.add_output(ok);
  auto problems = o::verify_ops(g);
  CHECK_FALSE(mentions(problems, o::cat("%", ok.index, " ")));
  // An axis that does not join the parts into the declared shape: no form fits.
  CHECK(mentions(problems, o::cat("%", wrong_axis.index, " (Concat): operands do not concatenate to [1,3,3]")));
  CHECK(problems.size() == 1);
  g.erase(wrong_axis);
  auto ins = engine::random_inputs(g, 7);
  auto out = engine::interpret(g, ins);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].data.size() == 9 * sizeof(float));
  // Rows of a, then the row of b.
  CHECK(std::equal(ins[0].data.begin(), ins[0].data.end(), out[0].data.begin()));
  CHECK(std::equal(ins[1].data.begin(), ins[1].data.end(), out[0].data.begin() + 6 * sizeof(float)));
  // Parts of Int32 are joined without an axis operand when the first one is not an axis.
  Graph h;
  auto p = h.add_input(i32({1}));
  auto q = h.add_input(i32({2}));
  auto joined = h.add_op("Concat", {p, q}, i32({3}));
  h.add_output(joined);
  CHECK(o::verify_ops(h).empty());
}

TEST_CASE("Concat(axis, one part) verifies whatever other axis the part also joins along") {
  // One part [1,1] joins into [1,1] along axis 0 and along axis 1: the given axis 1 counts (a
  // lowered ONNX Concat of one input).
  Graph g;
  auto a = g.add_input(f32({1, 1}));
  const std::int32_t one = 1;
  auto axis1 = g.add_const(i32({1}), std::span<const std::int32_t>(&one, 1));
  auto c = g.add_op("Concat", {axis1, a}, f32({1, 1}));
  g.add_output(c);
  CHECK(o::verify_ops(g).empty());
  auto ins = engine::random_inputs(g, 3);
  auto out = engine::interpret(g, ins);
  REQUIRE(out.size() == 1);
  CHECK(out[0].data == ins[0].data);
}

TEST_CASE("Concat finds its axis from the declared shape, Slice_shape reads its $Shape operands") {
  Graph g;
  auto a = g.add_input(f32({2, 3}));
  auto b = g.add_input(f32({2, 5}));
  auto ok = g.add_op("Concat", {a, b}, f32({2, 8}));
  auto bad = g.add_op("Concat", {a, b}, f32({4, 3}));
  auto start = g.add_op(op_names::shape, {}, i32({0, 2}));
  auto size = g.add_op(op_names::shape, {}, i32({2, 4}));
  auto sl = g.add_op("Slice_shape", {ok, start, size}, f32({2, 4}));
  auto sl_out = g.add_op("Slice_shape", {ok, size, size}, f32({2, 4}));
  for (auto r : {ok, bad, sl, sl_out}) g.add_output(r);
  auto problems = o::verify_ops(g);
  CHECK(mentions(problems, o::cat("%", bad.index, " (Concat): operands do not concatenate to [4,3]")));
  CHECK_FALSE(mentions(problems, o::cat("%", ok.index, " ")));
  CHECK_FALSE(mentions(problems, o::cat("%", sl.index, " ")));
  CHECK(mentions(problems, o::cat("%", sl_out.index, " (Slice_shape): slice leaves dimension 0")));
  CHECK(problems.size() == 2);
}

TEST_CASE("registrations attach to definitions") {
  auto info = o::op_info("T_DefFused");
  CHECK(info.definition == nullptr);
  REQUIRE(info.registration != nullptr);
  CHECK(info.cost == Cost::SNAIL);
  CHECK(info.flags == (Flags::INHIBIT_CONST_PROP | Flags::RESOURCE_HVX));
  CHECK(info.registration->impl_name == "fused_impl");

  o::OpDefinition d;
  d.name = "T_DefFused";
  d.summary = "A package op.";
  d.description = "Defined by a test.";
  d.operands = {{"x", o::Arity::single, o::TypeRule::in_set, o::dtypes::f32, "input"}};
  d.traits = o::Trait::pure;
  o::definitions().add(d);
  info = o::op_info("T_DefFused");
  REQUIRE(info.definition != nullptr);
  CHECK(info.definition->summary == "A package op.");
  CHECK(info.flags == (Flags::INHIBIT_CONST_PROP | Flags::RESOURCE_HVX));
  // Without a registration: the registry's defaults.
  auto add = o::op_info("Add");
  CHECK(add.definition == o::find_definition("Add"));
  CHECK(add.registration == nullptr);
  CHECK(add.flags == Flags::IS_CONST);
  CHECK(add.cost == Cost::FAST);
}

TEST_CASE("indexing maps come from index/ through the definitions") {
  Graph g = w1::build(1);
  std::vector<o::ValueView> buf;
  OpRef tr{}, conv{}, add{};
  for (OpRef r : g.live_ops()) {
    if (g.name(r) == "Transpose" && !tr) tr = r;
    if (g.name(r) == "Conv2d") conv = r;
    if (g.name(r) == "Add") add = r;
  }
  auto tmaps = o::find_definition("Transpose")->indexing(o::op_view(g, tr, buf));
  REQUIRE(tmaps[0]);
  CHECK(tmaps[0]->to_string().rfind("(d0, d1, d2, d3) -> (d0, d2, d3, d1)", 0) == 0);
  CHECK_FALSE(tmaps[1]);
  auto amaps = o::find_definition("Add")->indexing(o::op_view(g, add, buf));
  REQUIRE(amaps[1]);
  INFO(amaps[1]->to_string());
  CHECK(amaps[1]->to_string().rfind("(d0, d1, d2, d3) -> (d0, 0, 0, 0)", 0) == 0);
  auto cmaps = o::find_definition("Conv2d")->indexing(o::op_view(g, conv, buf));
  REQUIRE(cmaps[0]);
  REQUIRE(cmaps[1]);
  // A 1x1 filter: the input element is (d0, d1, d2, s2); the filter's (0, 0, s2, d3).
  const std::int64_t d[4] = {0, 5, 7, 3}, s[3] = {0, 0, 11};
  CHECK(cmaps[0]->apply(d, s) == std::vector<std::int64_t>{0, 5, 7, 11});
  CHECK(cmaps[1]->apply(d, s) == std::vector<std::int64_t>{0, 0, 11, 3});
}

TEST_CASE("the generated reference lists every definition with its operands and traits") {
  std::ostringstream os;
  std::vector<const o::OpDefinition*> defs{o::find_definition("Add"), o::find_definition("Concat")};
  o::write_ops_markdown(os, defs);
  const std::string md = os.str();
  CHECK(md.find("## `Add`") != std::string::npos);
  CHECK(md.find("| `parts` | 1 or more | any |") != std::string::npos);
  CHECK(md.find("pure, commutative, elementwise, broadcasting, same-operands-and-result-type") != std::string::npos);
  CHECK(md.find("## `Sub`") == std::string::npos);
}
