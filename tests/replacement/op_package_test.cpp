// The example op package (examples/op_package) on graphs, and its registry entries.
#include "../og-parse/source_rules.hpp"

#include <optgrammar/core/declarations.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <sstream>

using namespace optgrammar;

namespace {
RuleSet package() {
  return RuleSet::global().select([](const RuleInfo& r) { return r.file.find("op_package.cpp") != std::string::npos; });
}
std::size_t count(const Graph& g, std::string_view n) {
  std::size_t k = 0;
  for (auto r : g.live_ops()) k += g.name(r) == n;
  return k;
}
OutputDef q8(std::initializer_list<std::size_t> s, std::int32_t z = 128, float step = 0.5f) {
  return OutputDef::make(DType::QUInt8, s, z, step);
}
}  // namespace

TEST_CASE("example package: registries hold its ops, tensor properties and parameter order") {
  // Every rule of the package's source registered: as many as og-parse reads there.
  const auto in_source = og_test::rules_in_source(OG_OP_PACKAGE_SOURCE);
  REQUIRE(in_source);
  CHECK(*in_source > 0);
  CHECK(package().size() == *in_source);
  const auto* conv = OpRegistry::instance().find("pkg.Conv2d");
  REQUIRE(conv);
  CHECK(conv->impl_name == "conv_impl");
  const auto* rq = OpRegistry::instance().find("pkg.Requantize");
  REQUIRE(rq);
  CHECK(rq->cost == Cost::SNAIL);
  CHECK((rq->flags & Flags::RESOURCE_HVX) != 0);
  const auto* tp = TensorPropertyRegistry::instance().find("pkg.Conv2d");
  REQUIRE(tp);
  REQUIRE(tp->operands.size() == 3);
  CHECK(tp->operands[0] == "in");
  CHECK(tp->operands[2] == "stride");
  CHECK(tp->has("MainMemory", "stride"));
  auto of_in = tp->of("in"), of_out = tp->of("*");
  REQUIRE(of_in.size() == 2);
  CHECK(of_in[0] == "Flat");
  CHECK(of_in[1] == "Crouton");
  REQUIRE(of_out.size() == 1);
  CHECK(of_out[0] == "Flat");
  const auto* po = ParamOrderRegistry::instance().find("pkg.Conv2d");
  REQUIRE(po);
  REQUIRE(po->params.size() == 2);
  CHECK(po->params[0].name == "stride");
  CHECK(po->params[0].mandatory);
  CHECK(po->params[1].default_text == "nullptr");
  CHECK(po->index_of("pad") == 1);
  bool flagged = false;
  RuleSet set = package();
  for (auto* r : set.rules()) flagged |= r->flags == "relaxed_precision_flag";
  CHECK(flagged);
}

TEST_CASE("example package: a network is translated, tiled by rows and by channels") {
  set_autosplit_verify(true);
  Graph g;
  g.set_option("tile_height", std::uint64_t{4});
  g.set_option("relaxed_precision_flag", true);  // the package's Mul-by-one rule is flagged so
  auto in = g.add_input(OutputDef::make(DType::Float32, {1, 8, 8, 16}));
  auto filt = g.add_input(OutputDef::make(DType::Float32, {1, 3, 16, 16}));
  g.add_output(g.add_op("Conv2d", {in, filt}, OutputDef::make(DType::Float32, {1, 8, 8, 16})));
  auto r1 = g.add_op("Relu", {g.add_input(q8({1, 8, 8, 16}, 100, 0.25f))}, q8({1, 8, 8, 16}, 100, 0.25f));
  auto r2 = g.add_op("Relu", {r1}, q8({1, 8, 8, 16}, 100, 0.25f));
  g.add_output(r2);
  auto wide = g.add_input(q8({1, 2, 2, 512}));
  g.add_output(g.add_op("Relu", {wide}, q8({1, 2, 2, 512})));
  auto f = g.add_input(OutputDef::make(DType::Float32, {1, 2, 2, 8}));
  auto zero = g.add_const(OutputDef::make(DType::Float32, {1, 1, 1, 1}), {0.0f});
  auto one = g.add_const(OutputDef::make(DType::Float32, {1, 1, 1, 1}), {1.0f});
  g.add_output(g.add_op("Mul", {g.add_op("Add", {f, zero}, OutputDef::make(DType::Float32, {1, 2, 2, 8})), one},
                        OutputDef::make(DType::Float32, {1, 2, 2, 8})));
  g.add_output(g.add_op("Reshape", {g.add_input(OutputDef::make(DType::Float32, {4, 4}))},
                        OutputDef::make(DType::Float32, {4, 4})));
  g.add_output(g.add_op("Reshape", {f}, OutputDef::make(DType::Float32, {1, 32})));
  std::ostringstream trace;
  DriverOptions opt;
  opt.trace = &trace;
  run_rules(g, package(), opt);
  CHECK(verify(g).empty());
  CHECK(count(g, "Relu") == 0);
  CHECK(count(g, "Conv2d") == 0);
  CHECK(count(g, "pkg.Conv2d") == 2);       // 8 rows by 4
  CHECK(count(g, "pkg.Relu") == 2);         // 512 channels: 256 + 256
  CHECK(count(g, "pkg.Relu.padded") == 1);  // Relu(Relu(x)) became one Relu, its 16 channels padded
  CHECK(count(g, "Add") == 0);
  CHECK(count(g, "Mul") == 0);
  CHECK(count(g, "Reshape") == 1);  // the one that is flat already is left alone
  CHECK(count(g, "pkg.Flatten") == 1);
  CHECK(trace.str().find("MESSAGE: conv to pkg.Conv2d, filter height 1") != std::string::npos);
  for (auto r : g.live_ops())
    if (g.name(r) == "pkg.Conv2d") {
      CHECK(g.output(r).dtype == DType::Float32);
      CHECK(g.output(r).dim(1) == 4);
      CHECK(g.output(g.input(r, 0)).dim(1) == 4);  // rows 0..3 and 4..7 of the input
      CHECK(g.output(g.input(r, 2)).same_shape(OutputDef::make(DType::Int32, {1, 1, 1, 1})));  // the stride
    }
}

TEST_CASE("example package: OP_ITER requantizes the inputs of a quantized concatenation") {
  Graph g;
  auto axis = g.add_const(OutputDef::make(DType::Int32, {1, 1, 1, 1}), {std::int32_t{3}});
  auto a = g.add_input(q8({1, 2, 2, 4}, 0, 1.0f));
  auto b = g.add_input(q8({1, 2, 2, 6}, 3, 0.1f));
  g.add_output(g.add_op("Concat", {axis, a, b}, q8({1, 2, 2, 10})));
  run_rules(g, package());
  CHECK(verify(g).empty());
  CHECK(count(g, "pkg.Concat") == 1);
  CHECK(count(g, "pkg.Requantize") == 2);
  for (auto r : g.live_ops())
    if (g.name(r) == "pkg.Requantize") {
      CHECK(g.output(r).zero_offset == 128);
      CHECK(g.output(r).dim(3) == g.output(g.input(r, 0)).dim(3));
    }
}
