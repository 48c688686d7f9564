// Ops of a package are the package's (docs/packages.md, "Op names"): an op name a package
// registers with DEF_PACKAGE_OP* is verified against the package's declarations, not against the
// built-in definition of the same name, and the built-in kernel does not fold it. Its own test
// program: the registration of "ReluMinMax" below would change every other test's view of it.
#include <optgrammar/core/declarations.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/ops/definition_verify.hpp>
#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {
int relu_minmax_impl() { return 0; }
int pad_impl() { return 0; }
}  // namespace

// The package's ReluMinMax takes its limits as one operand (the built-in one takes lo and hi).
DEF_PACKAGE_OP(relu_minmax_impl, "ReluMinMax")
DEF_TENSOR_PROPERTIES(Op("ReluMinMax", "x", "limits"), Flat("*", "x"))
// A package op whose last operand is an optional parameter.
DEF_PACKAGE_OP(pad_impl, "pkgtest.Pad")
DEF_TENSOR_PROPERTIES(Op("pkgtest.Pad", "in", "pads", "value"), Flat("*", "in"))
DEF_PACKAGE_PARAM_ORDER("pkgtest.Pad", "pads", true, nullptr, "value", false, nullptr)
// One pass that never fires, so that the driver visits every op (folding runs in the visit).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_PkgNever", "x"), OK, "x")

namespace {
using namespace optgrammar;
namespace o = optgrammar::ops;

OutputDef f32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Float32, s); }
OpRef constant(Graph& g, std::vector<float> v) { return g.add_const(f32({v.size()}), std::span<const float>(v)); }
/// A graph of one op `name` over an input and `extra` constant operands.
Graph one_op(std::string_view name, std::size_t extra) {
  Graph g;
  auto x = g.add_input(f32({1, 4}));
  std::vector<OpRef> ins{x};
  for (std::size_t k = 0; k < extra; ++k) ins.push_back(constant(g, {0.0f, 6.0f}));
  auto r = g.add_op(intern_op_name(name), std::span<const OpRef>(ins), f32({1, 4}));
  g.add_output(r);
  return g;
}
}  // namespace

TEST_CASE("an op name a package registers resolves to the package's op, not the built-in one") {
  const OpNameId id = intern_op_name("ReluMinMax");
  CHECK(o::find_definition("ReluMinMax") == nullptr);
  CHECK(o::find_definition(id) == nullptr);
  REQUIRE(o::builtin_definition(id) != nullptr);  // still there, under its own name
  CHECK(o::op_info(id).registration != nullptr);
  // Built-in ops no package registered are unchanged.
  CHECK(o::find_definition("Clamp") != nullptr);
  CHECK(o::find_definition("Clamp") == o::builtin_definition(intern_op_name("Clamp")));
}

TEST_CASE("a package op is verified against the package's DEF_TENSOR_PROPERTIES") {
  Graph ok = one_op("ReluMinMax", 1);
  CHECK(o::verify_ops(ok).empty());
  CHECK(o::verify_ops(ok, {.strict = true}).empty());  // registered: not an unknown op
  // The built-in definition would have refused it: it takes x, lo and hi.
  std::vector<std::string> against_builtin;
  std::vector<o::ValueView> buf;
  for (auto r : ok.live_ops())
    if (ok.name(r) == "ReluMinMax")
      o::verify_op(ok, r, *o::builtin_definition(intern_op_name("ReluMinMax")), against_builtin, buf);
  REQUIRE(against_builtin.size() == 1);
  CHECK(against_builtin[0].find("2 operands, the definition takes 3") != std::string::npos);

  Graph three = one_op("ReluMinMax", 2);  // right for the built-in op, wrong for the package's
  std::vector<OpRef> where;
  auto p = o::verify_ops(three, {}, &where);
  REQUIRE(p.size() == 1);
  CHECK(p[0].find("(ReluMinMax): 3 operands, the package's DEF_TENSOR_PROPERTIES (") != std::string::npos);
  CHECK(p[0].find("package_ops_test.cpp:22) declares 2") != std::string::npos);
  REQUIRE(where.size() == 1);
  CHECK(three.name(where[0]) == "ReluMinMax");
}

TEST_CASE("optional parameters of a package op may be left out at the end") {
  CHECK(o::verify_ops(one_op("pkgtest.Pad", 1)).empty());
  CHECK(o::verify_ops(one_op("pkgtest.Pad", 2)).empty());
  for (std::size_t extra : {0u, 3u}) {
    auto p = o::verify_ops(one_op("pkgtest.Pad", extra));
    REQUIRE(p.size() == 1);
    CHECK(p[0].find(std::to_string(extra + 1) + " operands, the package's DEF_TENSOR_PROPERTIES") != std::string::npos);
    CHECK(p[0].find("declares 2 to 3") != std::string::npos);
  }
}

TEST_CASE("the built-in kernel does not fold a package's op of the same name") {
  Graph g;
  auto c = constant(g, {-1.0f, 2.0f, 9.0f});
  auto lo = constant(g, {0.0f});
  auto hi = constant(g, {6.0f});
  auto pkg = g.add_op("ReluMinMax", {c, lo}, f32({3}));
  auto clamp = g.add_op("Clamp", {c, lo, hi}, f32({3}));  // built-in: folds
  g.add_output(pkg);
  g.add_output(clamp);
  engine::ConstantFolder folder;
  DriverOptions opt;
  opt.visit = folder.visitor();
  run_rules(g, RuleSet::global(), opt);
  CHECK(folder.stats().folded == 1);
  // the package's ReluMinMax: no kernel of its own, or (DEF_PACKAGE_OP's RESOURCE_HVX without
  // IS_CONST) not foldable by its flags; either way the built-in kernel is not used
  CHECK(folder.stats().no_kernel + folder.stats().inhibited >= 1);
  std::size_t relu_minmax = 0;
  for (auto r : g.live_ops()) relu_minmax += g.name(r) == "ReluMinMax";
  CHECK(relu_minmax == 1);
}
