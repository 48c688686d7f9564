// A package source in the original framework's style (package_style.cpp) through the
// compatibility header: its rules and registrations, and with PREPARE_DISABLED (this program is
// built twice; OG_PREPARE_DISABLED tells which) only its registrations.
#include <optgrammar/htp_compat.hpp>
#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace optgrammar;

namespace {
std::size_t package_rules() {
  std::size_t n = 0;
  for (const RuleInfo* r : RuleSet::global().rules())
    n += r->file.find("package_style.cpp") != std::string::npos ? 1 : 0;
  return n;
}
std::size_t registrations(std::string_view op) {
  std::size_t n = 0;
  for (const OpImplInfo& i : OpRegistry::instance().entries())
    if (i.name == intern_op_name(op)) ++n;
  return n;
}
}  // namespace

static const OpImplInfo* registration(std::string_view impl) {
  for (const OpImplInfo& i : OpRegistry::instance().entries())
    if (i.impl_name == impl) return &i;
  return nullptr;
}

TEST_CASE("a framework-style package source: registrations stay in every build") {
  CHECK(registrations("CompatRelu") == 2);
  CHECK(registrations("CompatClip") == 1);
  // the older headers' forms: the op name in a variable, the cost in quotes
  CHECK(registrations("CompatOld") == 2);
  const OpImplInfo* old_costed = registration("compatOldImpl<1>");
  REQUIRE(old_costed);
  CHECK(old_costed->name == intern_op_name("CompatOld"));
  CHECK(old_costed->cost == Cost::SNAIL);
  CHECK(old_costed->flags == Flags::RESOURCE_HVX);
  const ParamOrder* order = ParamOrderRegistry::instance().find("CompatOld");
  REQUIRE(order);
  REQUIRE(order->params.size() == 2);
  CHECK(order->params[0].name == "limit");
  CHECK(order->params[0].mandatory);
  CHECK(order->params[1].default_text == "0");
  // DEF_PACKAGE_OP's defaults are the framework's; template-ids need no parentheses.
  const OpImplInfo* plain = registration("compatReluImpl<Tensor>");
  REQUIRE(plain);
  CHECK(plain->cost == Cost::GLACIAL);
  CHECK(plain->flags == Flags::RESOURCE_HVX);
  CHECK(plain->arity == 2);
  const OpImplInfo* clip = registration("compatClipImpl<true>");
  REQUIRE(clip);
  CHECK(clip->name == intern_op_name("CompatClip"));
  const OpImplInfo* costed = registration("compatClipImpl<false>");
  REQUIRE(costed);
  CHECK(costed->cost_function == "compatCost");
  CHECK(costed->flags == Flags::RESOURCE_HVX);
  const OpImplInfo* snail = registration("compatReluImpl<PlainFloatTensor>");
  REQUIRE(snail);
  CHECK(snail->cost == Cost::SNAIL);
  CHECK(std::string(THIS_PKG_NAME_STR) == "optgrammar_package");
}

#ifndef OG_PREPARE_DISABLED
TEST_CASE("a framework-style package source: its rules run") {
  REQUIRE(package_rules() == 6);
  CHECK(TensorPropertyRegistry::instance().find("CompatRelu") != nullptr);
  // "..." stands for the Op's inputs from its place on.
  const TensorProperties* cat = TensorPropertyRegistry::instance().find("CompatCat");
  REQUIRE(cat);
  CHECK(cat->of_input(0) == std::vector<std::string>{"MainMemory"});
  CHECK(cat->of_input(1) == std::vector<std::string>{"Flat"});
  CHECK(cat->of_input(7) == std::vector<std::string>{"Flat"});
  CHECK(cat->of("*") == std::vector<std::string>{"Flat"});
  // Outputs(...) names a multi-output op's outputs; properties may name them.
  const TensorProperties* gen = TensorPropertyRegistry::instance().find("CompatGen");
  REQUIRE(gen);
  CHECK(gen->outputs == std::vector<std::string>{"out0", "out1"});
  CHECK(gen->of_output(0) == std::vector<std::string>{"Flat"});
  CHECK(gen->of_output(1) == std::vector<std::string>{"Flat", "MainMemory"});
  CHECK(gen->of_input(0).empty());
  // A property naming "..." when the Op has none: the inputs no other property singles out (Flat
  // names every input, so it singles out none; Tcm singles out the query).
  const TensorProperties* attn = TensorPropertyRegistry::instance().find("CompatAttn");
  REQUIRE(attn);
  CHECK(attn->of_input(0) == std::vector<std::string>{"Flat", "Tcm"});
  CHECK(attn->of_input(1) == std::vector<std::string>{"Flat", "MainMemory"});
  CHECK(attn->of_input(2) == std::vector<std::string>{"Flat", "MainMemory"});
  CHECK(attn->of_input(3).empty());
  CHECK(attn->of_output(0) == std::vector<std::string>{"Flat", "Tcm"});
  // With the Op's own "...", a property naming "..." keeps to the inputs from there on (a named
  // input that no property singles out does not get it).
  const TensorProperties* mixed = TensorPropertyRegistry::instance().find("CompatMixed");
  REQUIRE(mixed);
  CHECK(mixed->of_input(0) == std::vector<std::string>{"Flat"});
  CHECK(mixed->of_input(2) == std::vector<std::string>{"Flat", "MainMemory"});
  Graph g;
  auto x = g.add_input(OutputDef::make(DType::Float32, {1, 2, 2, 4}));
  auto r = g.add_op("CompatRelu", {g.add_op("CompatRelu", {x}, OutputDef::make(DType::Float32, {1, 2, 2, 4}))},
                    OutputDef::make(DType::Float32, {1, 2, 2, 4}));
  const OpRef o1 = g.add_output(r);
  const OpRef o2 = g.add_output(g.add_op("CompatClip", {x}, OutputDef::make(DType::Float32, {1, 2, 2, 4})));
  const OpRef o3 = g.add_output(g.add_op("CompatShape", {x}, OutputDef::make(DType::Float32, {1, 2, 2, 4})));
  const OpRef o4 =
      g.add_output(g.add_op("CompatNeg", {g.add_op("CompatNeg", {x}, OutputDef::make(DType::Float32, {1, 2, 2, 4}))},
                            OutputDef::make(DType::Float32, {1, 2, 2, 4})));
  const OpRef o5 = g.add_output(g.add_op("CompatSq", {x}, OutputDef::make(DType::Float32, {1, 2, 2, 4})));
  g.set_option("relaxed_precision_flag", true);
  run_rules(g, RuleSet::global());
  CHECK(verify(g).empty());
  CHECK(g.name(g.input(o1, 0)) == "CompatRelu");
  CHECK(g.input(g.input(o1, 0), 0) == x);
  CHECK(g.name(g.input(o2, 0)) == "QNN_Cast");
  CHECK(g.output(g.input(g.input(o2, 0), 0)).dtype == DType::Float16);
  CHECK(g.name(g.input(o3, 0)) == "CompatShaped");
  // DEF_OPT's rule and DEF_OPTIM's flagged one ran as the long macros' rules do.
  CHECK(g.input(o4, 0) == x);
  CHECK(g.name(g.input(o5, 0)) == "QNN_Cast");
  CHECK(g.name(g.input(g.input(o5, 0), 0)) == "CompatSq");
  CHECK(g.output(g.input(g.input(o5, 0), 0)).dtype == DType::Float16);
  // The sliced cast: one Cast of q, fp16, that both parts slice.
  Graph h;
  auto q = h.add_input(OutputDef::make(DType::Float32, {1, 4, 2, 8}));
  auto k = h.add_input(OutputDef::make(DType::Float32, {1, 1, 2, 8}));
  const OpRef o6 = h.add_output(h.add_op("CompatAttnF", {q, k}, OutputDef::make(DType::Float32, {1, 4, 2, 8})));
  run_rules(h, RuleSet::global());
  CHECK(verify(h).empty());
  const OpRef joined = h.input(o6, 0);
  REQUIRE(h.n_inputs(joined) == 3);  // the axis, two parts
  const OpRef s1 = h.input(h.input(joined, 1), 0), s2 = h.input(h.input(joined, 2), 0);
  REQUIRE(h.name(s1) == "Slice_shape");
  REQUIRE(h.name(s2) == "Slice_shape");
  const OpRef cast = h.input(s1, 0);
  CHECK(h.input(s2, 0) == cast);
  CHECK(h.name(cast) == "Cast");
  CHECK(h.input(cast, 0) == q);
  CHECK(h.output(cast).dtype == DType::Float16);
  CHECK(h.output(s1).dtype == DType::Float16);
  CHECK(h.output(s1).same_shape(OutputDef::make(DType::Float32, {1, 2, 2, 8})));
  CHECK(h.input(h.input(joined, 1), 1) == k);
}
#else
TEST_CASE("a framework-style package source under PREPARE_DISABLED: its rules vanish") {
  CHECK(package_rules() == 0);
  CHECK(TensorPropertyRegistry::instance().find("CompatRelu") == nullptr);
}
#endif

// What DEF_TENSOR_PROPERTIES' compile-time check answers (package/tensor_properties.hpp; every fault with
// its text is an entry of tests/dsl/rejections.inc, checked by both front ends).
using package_glue::check_tensor_properties;
static_assert(check_tensor_properties(R"(Op("G", "a"), Outputs("lo", "hi"), Flat("lo", "a"), Tcm("*"))").ok());
static_assert(check_tensor_properties(R"(Op("G", "a"), Flat("lo"))").fault == dsl::Fault::properties_unknown_name);
static_assert(check_tensor_properties(R"(Op("G", "a"), Flat("lo"))").subject.view() == "lo");
static_assert(check_tensor_properties(R"(Op("G", "...", "a"), Flat("a"))").fault == dsl::Fault::properties_ellipsis);
static_assert(check_tensor_properties(R"(Op("G", "a", "b"), Tcm("a"), MainMemory("..."))").ok());
static_assert(check_tensor_properties(R"(Op("G", "a"), Flat("a"), Outputs("lo"))").fault == dsl::Fault::outputs_place);
static_assert(check_tensor_properties(R"(Op("G", "a"), Outputs("lo", "lo"))").fault == dsl::Fault::outputs_name);
static_assert(check_tensor_properties(R"(Op("G", "a"), Outputs("a"))").fault == dsl::Fault::outputs_name);
static_assert(check_tensor_properties(R"(Op("G", "a"), Outputs("*"))").fault == dsl::Fault::outputs_name);
static_assert(check_tensor_properties(R"(Op("G", "a"), Outputs())").fault == dsl::Fault::outputs_empty);
static_assert(check_tensor_properties(R"(Op("G", "a"), Outputs("lo"), Outputs("hi"))").fault ==
              dsl::Fault::outputs_place);
static_assert(check_tensor_properties(R"(Op("G", "a") Flat("a"))").fault == dsl::Fault::properties_form);
static_assert(check_tensor_properties(R"(Op("G", "a"), Flat(a))").fault == dsl::Fault::properties_form);
static_assert(check_tensor_properties(R"(Op("G", "a b"), Flat("a b"))").fault == dsl::Fault::properties_form);
static_assert(check_tensor_properties(R"(Op("G", "a"), Flat(""))").fault == dsl::Fault::properties_form);
// The first fault in source order, as og-parse reports it.
static_assert(check_tensor_properties(R"(Op("G", "a"), Flat("x"), Outputs("lo"))").fault ==
              dsl::Fault::properties_unknown_name);

// package_interface.cpp compiling is the check of its declarations and REGISTER_PACKAGE_*
// statements; what they record is checked here.
TEST_CASE("a framework-style interface file: its axis and per-channel lists are recorded") {
  const auto& lists = compat::package_lists();
  CHECK(lists.axis_params == std::vector<std::string>{"axis", "Axis"});
  CHECK(lists.per_channel_quantized_ops == std::vector<std::string>{"CompatRelu"});
}

TEST_CASE("the framework's logging: file:line, the level's word, the formatted text, up to the level set") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  std::FILE* const saved = compat::log_file();
  compat::log_file() = f;
  errlog("bad %s of %d", "count", 3);
  const int error_line = __LINE__ - 1;
  warnlog("late");
  debuglog("not shown at the default level %d", compat::log_level());
  logmsg(5, "nor this");
  compat::log_file() = saved;
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  REQUIRE(compat::log_level() == 1);  // OPTGRAMMAR_LOG_LEVEL is not set for the tests
  CHECK(text == std::string(__FILE__) + ":" + std::to_string(error_line) + ": error: bad count of 3\n" + __FILE__ +
                    ":" + std::to_string(error_line + 2) + ": warning: late\n");
}
