// Rule code (docs/engine.md, "Rule code"): rules of one shape share one apply function and each
// reads its own op names, slots and constants; a rule written while OPTGRAMMAR_SPECIALIZE_RULES
// is 1 gets its own function. Both kinds give the same results.
#include <optgrammar/rules.hpp>
#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

// One shape, two rules: other op names and other constants.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("RC_A", "x", LET("c", Op("$Const"))),
                         AND(EQ(DIM_OF("x", 3), 3), EQ(CONSTVAL_INT("c", 0), 7)), Op("RC_ThreeSeven", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("RC_B", "x", LET("c", Op("$Const"))),
                         AND(EQ(DIM_OF("x", 3), 5), EQ(CONSTVAL_INT("c", 0), 9)), Op("RC_FiveNine", "x"))
// One shape and layout, two tag patterns: input 0 is input 2, or input 1 is input 2.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("RC_C", "x", "y", "x"), OK, Op("RC_SameFirst", "y"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("RC_D", "x", "y", "y"), OK, Op("RC_SameSecond", "x"))

#undef OPTGRAMMAR_SPECIALIZE_RULES
#define OPTGRAMMAR_SPECIALIZE_RULES 1
// RC_A's shape again, with its own function.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("RC_E", "x", LET("c", Op("$Const"))),
                         AND(EQ(DIM_OF("x", 3), 4), EQ(CONSTVAL_INT("c", 0), 8)), Op("RC_FourEight", "x"))
#undef OPTGRAMMAR_SPECIALIZE_RULES
#define OPTGRAMMAR_SPECIALIZE_RULES 0

namespace {
using namespace optgrammar;

RuleSet this_file() {
  return RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("rule_code_test.cpp") != std::string::npos; });
}
const RuleInfo& rule_rooted(const RuleSet& set, std::string_view root) {
  for (const RuleInfo* r : set.rules())
    if (OpNames::instance().name(r->root) == root) return *r;
  FAIL("no rule rooted on " << root);
  throw;
}

/// The name of the op the graph's output reads after the rules ran on `root(x, c)`, with x of
/// depth `depth` and c a constant holding `value`.
std::string const_rule(std::string_view root, std::size_t depth, int value) {
  Graph g;
  OpRef x = g.add_input(OutputDef::make(DType::Float32, {1, 2, 2, depth}));
  OpRef c = g.add_const(OutputDef::make(DType::Int32, {1, 1, 1, 1}), {value});
  const OpRef out = g.add_output(g.add_op(root, {x, c}, g.output(x)));
  run_rules(g, this_file());
  return std::string(g.name(g.input(out, 0)));
}

/// The same for `root(a, b, d)` where the three inputs are the ops `pick` names out of {p, q}.
std::string tag_rule(std::string_view root, const char* pick) {
  Graph g;
  const OpRef in[] = {g.add_input(OutputDef::make(DType::Float32, {1, 1, 1, 4})),
                      g.add_input(OutputDef::make(DType::Float32, {1, 1, 1, 4}))};
  std::vector<OpRef> args;
  for (const char* p = pick; *p; ++p) args.push_back(in[*p - 'p']);
  const OpRef out = g.add_output(g.add_op(intern_op_name(root), std::span<const OpRef>(args), g.output(in[0])));
  run_rules(g, this_file());
  return std::string(g.name(g.input(out, 0)));
}
}  // namespace

TEST_CASE("rules of one shape share their apply function, a specialized rule has its own") {
  const RuleSet set = this_file();
  REQUIRE(set.rules().size() == 5);
  CHECK(rule_rooted(set, "RC_A").apply == rule_rooted(set, "RC_B").apply);
  CHECK(rule_rooted(set, "RC_C").apply == rule_rooted(set, "RC_D").apply);
  CHECK(rule_rooted(set, "RC_A").apply != rule_rooted(set, "RC_C").apply);
  CHECK(rule_rooted(set, "RC_E").apply != rule_rooted(set, "RC_A").apply);
  CHECK(rule_rooted(set, "RC_A").rule != rule_rooted(set, "RC_B").rule);
}

TEST_CASE("a shared apply function reads each rule's own constants") {
  CHECK(const_rule("RC_A", 3, 7) == "RC_ThreeSeven");
  CHECK(const_rule("RC_A", 5, 9) == "RC_A");  // RC_B's values do not make RC_A fire
  CHECK(const_rule("RC_A", 3, 9) == "RC_A");
  CHECK(const_rule("RC_B", 5, 9) == "RC_FiveNine");
  CHECK(const_rule("RC_B", 3, 7) == "RC_B");
  CHECK(const_rule("RC_B", 5, 7) == "RC_B");
}

TEST_CASE("a shared apply function reads each rule's own tag pattern") {
  CHECK(tag_rule("RC_C", "pqp") == "RC_SameFirst");
  CHECK(tag_rule("RC_C", "pqq") == "RC_C");
  CHECK(tag_rule("RC_D", "pqq") == "RC_SameSecond");
  CHECK(tag_rule("RC_D", "pqp") == "RC_D");
}

TEST_CASE("a specialized rule behaves as a shared one") {
  CHECK(const_rule("RC_E", 4, 8) == "RC_FourEight");
  CHECK(const_rule("RC_E", 3, 7) == "RC_E");
  CHECK(const_rule("RC_E", 4, 7) == "RC_E");
}
