// Lexical corners of the rule language that a C++ compiler alone would get wrong or reject:
// strings of any length, adjacent string constants, the pass spec NAME - N, and int constants at
// the edges of the grammar's 32-bit int.
#include "probe.hpp"

#include <catch2/catch.hpp>

#include <string>

// An op name and a tag longer than any fixed buffer, written as adjacent string constants that
// C++ concatenates (as the grammar says they must be).
DEF_PACKAGE_OPTIMIZATION(
    EARLY - 2,
    Op("L_Outer_op_with_a_long_name_that_goes_on_and_on_"
       "past_one_hundred_characters_to_test_that_nothing_is_cut",
       LET("a_tag_of_more_than_sixty_four_characters_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Op("L_Inner", "x"))),
    AND(EQ(RANK_OF("a_tag_of_more_than_sixty_four_characters_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 4),
        EQ(ADD(-2147483648, 2147483647), -1)),
    "x")

// WITH_SIZE takes its size from a SELECT of an existing opref and a shape construction (neither
// is an Op construction, which is all the spec forbids there).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("L_Size", "x", "y"), OK,
                         WITH_SIZE(SELECT(GT(RANK_OF("y"), 3), "y", gen_Shape(1, 1, 1, 5)), Op("L_Sized", "x")))

namespace {
using namespace optgrammar;
RuleSet this_file() {
  return RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("lexical_test.cpp") != std::string::npos; });
}
const std::string long_name =
    "L_Outer_op_with_a_long_name_that_goes_on_and_on_past_one_hundred_characters_to_test_that_nothing_is_cut";
}  // namespace

TEST_CASE("strings of any length, concatenated string constants, NAME - N, int edges") {
  RuleSet set = this_file().select([](const RuleInfo& r) { return r.pass_name == "EARLY-2"; });
  REQUIRE(set.size() == 1);
  const RuleInfo& r = *set.rules()[0];
  CHECK(r.pass_name == "EARLY-2");
  CHECK(r.priority == 3048);
  CHECK(op_name_of(r.root) == long_name);
  CHECK(r.canonical.find("\"" + long_name + "\"") != std::string::npos);
  CHECK(r.canonical.find("ADD(-2147483648,2147483647)") != std::string::npos);

  Graph g;
  const auto def = OutputDef::make(DType::Float32, {1, 2, 2, 3});
  auto x = g.add_input(def);
  auto inner = g.add_op("L_Inner", {x}, def);
  g.add_output(g.add_op(long_name, {inner}, def));
  auto rep = run_rules(g, set);
  CHECK(rep.rewrites == 1);
  CHECK(rep.ops_after == 2);  // the input and the graph output, which now reads the input
  for (auto op : g.live_ops())
    if (g.n_inputs(op) > 0) CHECK(g.input(op, 0) == x);
}

TEST_CASE("WITH_SIZE from a SELECT of an existing opref and a shape construction") {
  for (const bool rank4 : {true, false}) {
    Graph g;
    const auto xdef = OutputDef::make(DType::Float32, {1, 2, 2, 3});
    const auto ydef = rank4 ? OutputDef::make(DType::Float32, {1, 7, 6, 3}) : OutputDef::make(DType::Float32, {6, 3});
    auto x = g.add_input(xdef);
    auto y = g.add_input(ydef);
    g.add_output(g.add_op("L_Size", {x, y}, xdef));
    auto rep = run_rules(g, this_file());
    CHECK(rep.rewrites == 1);
    bool found = false;
    for (auto op : g.live_ops()) {
      if (g.name(op) != "L_Sized") continue;
      found = true;
      const OutputDef& d = g.output(op);
      CHECK(d.dtype == DType::Float32);  // the size changes, nothing else
      REQUIRE(d.rank == 4);
      if (rank4)
        CHECK((d.dims[0] == 1 && d.dims[1] == 7 && d.dims[2] == 6 && d.dims[3] == 3));
      else
        CHECK((d.dims[0] == 1 && d.dims[1] == 1 && d.dims[2] == 1 && d.dims[3] == 5));
    }
    CHECK(found);
  }
}
