// Lexical corners of the rule language that a C++ compiler alone would get wrong or reject:
// strings of any length, adjacent string constants, the pass spec NAME - N, and int constants at
// the edges of the grammar's 32-bit int.
#include "probe.hpp"

#include <catch2/catch.hpp>

#include <string>

// An op name and a tag longer than any fixed buffer, written as adjacent string constants that
// C++ concatenates (as the grammar says they must be).
DEF_PACKAGE_OPTIMIZATION(EARLY - 2,
                         Op("L_Outer_op_with_a_long_name_that_goes_on_and_on_"
                            "past_one_hundred_characters_to_test_that_nothing_is_cut",
                            LET("a_tag_of_more_than_sixty_four_characters_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                                Op("L_Inner", "x"))),
                         AND(EQ(RANK_OF("a_tag_of_more_than_sixty_four_characters_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 4),
                             EQ(ADD(-2147483648, 2147483647), -1)),
                         "x")

namespace {
using namespace optgrammar;
RuleSet this_file() {
  return RuleSet::global().select([](const RuleInfo& r) { return r.file.find("lexical_test.cpp") != std::string::npos; });
}
const std::string long_name =
    "L_Outer_op_with_a_long_name_that_goes_on_and_on_past_one_hundred_characters_to_test_that_nothing_is_cut";
}  // namespace

TEST_CASE("strings of any length, concatenated string constants, NAME - N, int edges") {
  RuleSet set = this_file();
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
