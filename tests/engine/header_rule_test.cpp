// A rule in a header that two translation units include is one rule: registered once, listed
// once, counted once.
#include "header_rule.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace optgrammar;

TEST_CASE("a rule in a header included by two translation units is registered once") {
  RuleSet set = RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("header_rule.hpp") != std::string::npos; });
  REQUIRE(set.size() == 1);
  const RuleInfo& r = *set.rules()[0];
  CHECK(r.name.rfind("header_rule.hpp:", 0) == 0);
  CHECK(op_name_of(r.root) == "H_Twice");

  Graph g;
  const auto def = OutputDef::make(DType::Float32, {1, 1, 1, 4});
  auto x = g.add_input(def);
  g.add_output(g.add_op("H_Twice", {x}, def));
  auto rep = run_rules(g, set);
  CHECK(rep.rewrites == 1);
  REQUIRE(rep.stats.size() == 1);
  CHECK(rep.stats[0].tried == 1);
  CHECK(rep.stats[0].fired == 1);
  bool once = false;
  for (auto op : g.live_ops()) once = once || g.name(op) == "H_Once";
  CHECK(once);
}

TEST_CASE("add_once keeps distinct rules: another line, file name or text is another rule") {
  RuleSet set;
  RuleInfo a;
  a.file = "dir/a.hpp";
  a.line = 3;
  a.canonical = "DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"A\",\"x\"),true,\"x\")";
  CHECK(set.add_once(a));
  CHECK_FALSE(set.add_once(a));
  RuleInfo b = a;
  b.line = 4;
  CHECK(set.add_once(b));
  RuleInfo c = a;
  c.file = "dir/c.hpp";
  CHECK(set.add_once(c));
  RuleInfo d = a;
  d.canonical = "DEF_PACKAGE_OPTIMIZATION(EARLY+1,Op(\"A\",\"x\"),true,\"x\")";
  CHECK(set.add_once(d));
  CHECK(set.size() == 4);
}

TEST_CASE("add_once: one header reached under two path spellings is one rule") {
  RuleSet set;
  RuleInfo a;
  a.file = "/src/pkg/include/rules/a.hpp";
  a.line = 7;
  a.canonical = "DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"A\",\"x\"),true,\"x\")";
  CHECK(set.add_once(a));
  for (const char* spelling : {"include/rules/a.hpp", "/src/pkg/src/../include/rules/a.hpp",
                               "../include/rules/./a.hpp", "a.hpp"}) {
    RuleInfo b = a;
    b.file = spelling;
    CHECK_FALSE(set.add_once(b));
  }
  CHECK(set.size() == 1);
  REQUIRE(set.rules().size() == 1);
  CHECK(set.rules()[0]->file == a.file);
}
