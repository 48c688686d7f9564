// Termination under attack: rule sets that ping-pong, grow the graph, or fire without changing
// anything. Each pass stops with CycleError naming the rules after at most
// rewrite_budget_per_op * (live ops at the pass's start) + 1000 rewrites, so the time is bounded
// by that many rewrites and the memory by that many replacements (each creates at most the ops
// its replacement spells, AUTOSPLIT at most 65534 parts). docs/engine.md states the bound.
#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

#include <string>

// Ping-pong through three rules: A -> B -> C -> A.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("T_A", "x"), OK, Op("T_B", "x"))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("T_B", "x"), OK, Op("T_C", "x"))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("T_C", "x"), OK, Op("T_A", "x"))
// Growth: every rewrite puts two new ops under a new root that matches again.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("T_Grow", "x"), OK, Op("T_Grow", Op("T_Pad", Op("T_Pad", "x"))))
// Firing without changing anything: the replacement is a copy of the root.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("T_Same", "x"), OK, Op("T_Same", "x"))
// Two rules undoing each other through a bypass: Wrap(x) -> Wrap(Id(x)), Id(x) -> x.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("T_Wrap", "x"), OK, Op("T_Wrap", Op("T_Id", "x")))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("T_Id", "x"), OK, "x")

namespace {
using namespace optgrammar;

RuleSet this_file() {
  return RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("termination_test.cpp") != std::string::npos; });
}
OutputDef f32() { return OutputDef::make(DType::Float32, {1, 4}); }

/// n independent ops named `name` over one input; returns the error of the run.
struct Attack {
  std::string message;
  std::vector<std::string> rules;
  std::size_t stored_ops = 0;  // every op ever created (the graph does not reuse slots)
  std::uint64_t budget = 0;
};
Attack attack(const char* name, std::size_t n) {
  Graph g;
  OpRef x = g.add_input(f32());
  for (std::size_t i = 0; i < n; ++i) g.add_output(g.add_op(name, {x}, f32()));
  DriverOptions opt;
  Attack a;
  a.budget = opt.rewrite_budget_per_op * g.live_count() + 1000;
  try {
    run_rules(g, this_file(), opt);
  } catch (const CycleError& e) {
    a.message = e.what();
    a.rules = e.rules();
  }
  a.stored_ops = g.size();
  CHECK(verify(g).empty());  // stopped between rewrites: the graph is sound
  return a;
}
}  // namespace

TEST_CASE("ping-pong rules are stopped, all three named") {
  for (std::size_t n : {1, 1000}) {
    Attack a = attack("T_A", n);
    INFO(a.message);
    REQUIRE(a.rules.size() == 3);
    for (int line : {15, 16, 17})
      CHECK(a.message.find("termination_test.cpp:" + std::to_string(line)) != std::string::npos);
    CHECK(a.message.find("no fixed point in pass LATE after " + std::to_string(a.budget) + " rewrites") == 0);
    // One new op per rewrite: at most budget + 1 rewrites happened.
    CHECK(a.stored_ops <= 1 + 2 * n + a.budget + 1);
  }
}

TEST_CASE("a growing rule is stopped, the ops it made bounded by the budget") {
  Attack a = attack("T_Grow", 100);
  INFO(a.message);
  REQUIRE(a.rules.size() == 1);
  CHECK(a.rules[0] == "termination_test.cpp:19");
  CHECK(a.stored_ops <= 1 + 2 * 100 + 3 * (a.budget + 1));
}

TEST_CASE("a rule that fires without changing anything is stopped") {
  Attack a = attack("T_Same", 10);
  INFO(a.message);
  REQUIRE(a.rules.size() == 1);
  CHECK(a.rules[0] == "termination_test.cpp:21");
  CHECK(a.stored_ops <= 1 + 2 * 10 + a.budget + 1);
}

TEST_CASE("two rules undoing each other are stopped, both named") {
  Attack a = attack("T_Wrap", 10);
  INFO(a.message);
  REQUIRE(a.rules.size() == 2);
  CHECK(a.message.find("termination_test.cpp:23") != std::string::npos);
  CHECK(a.message.find("termination_test.cpp:24") != std::string::npos);
  CHECK(a.stored_ops <= 1 + 2 * 10 + 2 * (a.budget + 1));
}
