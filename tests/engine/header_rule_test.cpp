// A rule in a header that two translation units include is one rule: registered once, listed
// once, counted once.
#include "header_rule.hpp"

#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace optgrammar;

TEST_CASE("a rule in a header included by two translation units is registered once") {
  RuleSet set =
      RuleSet::global().select([](const RuleInfo& r) { return r.file.find("header_rule.hpp") != std::string::npos; });
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

namespace {
// A hand-made rule record with just what add_once compares.
RuleInfo rule_at(const char* file, int line) {
  RuleInfo r;
  r.file = file;
  r.line = line;
  r.canonical = "DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"A\",\"x\"),true,\"x\")";
  return r;
}
}  // namespace

TEST_CASE("add_once keeps distinct rules: another line, file name or text is another rule") {
  RuleSet set;
  const RuleInfo a = rule_at("dir/a.hpp", 3);
  CHECK(set.add_once(a));
  CHECK_FALSE(set.add_once(a));
  CHECK(set.add_once(rule_at("dir/a.hpp", 4)));
  CHECK(set.add_once(rule_at("dir/c.hpp", 3)));
  RuleInfo d = a;
  d.canonical = "DEF_PACKAGE_OPTIMIZATION(EARLY+1,Op(\"A\",\"x\"),true,\"x\")";
  CHECK(set.add_once(d));
  CHECK(set.size() == 4);
}

TEST_CASE("add_once sees rules that add() put in, also after the set moved") {
  RuleSet set;
  set.add(rule_at("dir/a.hpp", 3));
  set.add(rule_at("dir/b.hpp", 3));
  CHECK(set.rules().size() == 2);
  RuleSet moved = std::move(set);
  CHECK_FALSE(moved.add_once(rule_at("other/a.hpp", 3)));
  CHECK_FALSE(moved.add_once(rule_at("b.hpp", 3)));
  CHECK(moved.add_once(rule_at("dir/a.hpp", 5)));
  REQUIRE(moved.rules().size() == 3);
  CHECK(moved.rules()[0]->file == "dir/a.hpp");
  CHECK(moved.rules()[0]->line == 3);
  CHECK(moved.rules()[1]->line == 5);
  CHECK(moved.rules()[2]->file == "dir/b.hpp");
}

TEST_CASE("add_once: one header reached under two path spellings is one rule") {
  RuleSet set;
  CHECK(set.add_once(rule_at("/src/pkg/include/rules/a.hpp", 7)));
  for (const char* spelling :
       {"include/rules/a.hpp", "/src/pkg/src/../include/rules/a.hpp", "../include/rules/./a.hpp", "a.hpp"})
    CHECK_FALSE(set.add_once(rule_at(spelling, 7)));
  CHECK(set.size() == 1);
  REQUIRE(set.rules().size() == 1);
  CHECK(set.rules()[0]->file == "/src/pkg/include/rules/a.hpp");
}

TEST_CASE("add_once: rules of one name (one macro use that defines several) are numbered") {
  RuleSet set;
  auto named = [](const char* file, int line, const char* match) {
    RuleInfo r = rule_at(file, line);
    r.name = std::string(file) + ":" + std::to_string(line);
    r.canonical = std::string("DEF_PACKAGE_OPTIMIZATION(EARLY,") + match + ",true,\"x\")";
    return r;
  };
  CHECK(set.add_once(named("p.cpp", 9, "Op(\"A\",\"x\")")));
  CHECK(set.add_once(named("p.cpp", 10, "Op(\"A\",\"x\")")));
  CHECK(set.add_once(named("p.cpp", 9, "Op(\"B\",\"x\")")));
  CHECK(set.add_once(named("p.cpp", 9, "Op(\"C\",\"x\")")));
  CHECK_FALSE(set.add_once(named("p.cpp", 9, "Op(\"B\",\"x\")")));  // the same rule again
  REQUIRE(set.rules().size() == 4);
  std::vector<std::string> names;
  for (const RuleInfo* r : set.rules()) names.push_back(r->name);
  CHECK(names == std::vector<std::string>{"p.cpp:9#1", "p.cpp:9#2", "p.cpp:9#3", "p.cpp:10"});
}
