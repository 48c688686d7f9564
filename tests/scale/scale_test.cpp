// Deep and wide graphs through every path: a chain of 1,000,000 ops and an op with 65,535
// inputs. A recursion whose depth grew with the graph would overflow the stack here (8 MB
// stacks take about 100,000 frames). bench/scale times the same paths and reports peak memory.
#include "scale_graphs.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/ops/definition_verify.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

using namespace optgrammar;

namespace {
constexpr std::size_t deep = 1'000'000;
constexpr std::size_t wide = 65'535;

/// Read back what the writer wrote; verify; DOT; interpret; the round trip is exact.
void read_verify_dot_interpret(const Graph& g) {
  const std::string text = to_text(g);
  std::vector<int> lines;
  Graph back = from_text(text, "scale.ogt", &lines);
  CHECK(back.live_count() == g.live_count());
  CHECK(lines.back() == static_cast<int>(g.live_count()) + 1);  // line 1 is the header
  CHECK(to_text(back) == text);
  CHECK(verify(back).empty());
  CHECK(ops::verify_ops(back).empty());
  std::ostringstream dot;
  write_dot(dot, back);
  CHECK(dot.str().size() > g.live_count() * 10);
  auto ins = engine::random_inputs(back, 7);
  CHECK(engine::interpret(back, ins) == engine::interpret(g, ins));
}
}  // namespace

TEST_CASE("a chain of 1,000,000 ops: read, verify, DOT, interpret, rewrite, write") {
  Graph g = scale::relu_chain(deep);
  read_verify_dot_interpret(g);
  auto ins = engine::random_inputs(g, 1);
  auto before = engine::interpret(g, ins);
  const Graph input = g;  // for the region pictures below
  engine::ConstantFolder folder;
  engine::Cse cse;
  DriverOptions opt;
  opt.visit = folder.visitor();
  opt.between_passes = cse.hook();
  auto rep = run_rules(g, RuleSet::global(), opt);
  CHECK(rep.rewrites == deep - 1);  // R1 removes every Relu but one
  CHECK(g.live_count() == 3);
  CHECK(verify(g).empty());
  CHECK(engine::interpret(g, ins) == before);
  // Region pictures (og-opt --svg of a large graph): what changed, a capped region around it, and
  // a region as deep as the chain, grown without recursion, drawn with its boundary.
  const auto changes = graph_changes(input, g);
  CHECK(changes.removed.size() >= deep - 1);
  const auto capped = region_around(input, changes.removed, 2, 150);
  CHECK(capped.ops == 150);
  std::size_t seeds_shown = 0;
  for (auto i : changes.removed) seeds_shown += capped.in[i] ? 1 : 0;
  CHECK(seeds_shown >= 148);  // the first removed Relus; the graph's Input is context
  CHECK(capped.seeds_left_out == changes.removed.size() - seeds_shown);
  const std::uint32_t last[] = {static_cast<std::uint32_t>(input.size() - 1)};
  const auto all = region_around(input, last, static_cast<unsigned>(deep + 1));
  CHECK(all.ops == input.live_count());
  std::ostringstream dot;
  write_dot(dot, input, "region", DotView{capped.in, "changed region"});
  CHECK(dot.str().find("… 1 more consumer") != std::string::npos);
}

TEST_CASE("a chain of 1,000,000 ops folds to one constant") {
  Graph g = scale::neg_chain_of_const(deep);
  auto before = engine::interpret(g, {});
  engine::ConstantFolder folder;
  CHECK(folder.run(g) == deep);
  g.remove_dead();
  CHECK(g.live_count() == 2);
  CHECK(engine::interpret(g, {}) == before);
}

TEST_CASE("two equal chains of 1,000,000 ops merge by CSE, and dead-op removal of a 1,000,000 chain") {
  Graph g = scale::twin_neg_chains(deep);
  auto ins = engine::random_inputs(g, 3);
  auto before = engine::interpret(g, ins);
  engine::Cse cse;
  cse.run(g);
  CHECK(g.live_count() == deep + 3);
  CHECK(verify(g).empty());
  CHECK(engine::interpret(g, ins) == before);
  // Cutting the output's input leaves the whole chain dead: removed without recursion.
  Graph h = scale::relu_chain(deep);
  OpRef out = engine::ops_named(h, op_names::output).front();
  OpRef x = engine::ops_named(h, op_names::input).front();
  OpRef last = h.input(out, 0);
  h.set_input(out, 0, x);
  CHECK(h.erase_if_dead(last) == deep);
  CHECK(h.live_count() == 2);
}

TEST_CASE("an op with 65,535 inputs: read, verify, DOT, interpret, rewrite, CSE, fold") {
  Graph g = scale::wide_concat(wide);
  read_verify_dot_interpret(g);
  auto ins = engine::random_inputs(g, 5);
  auto before = engine::interpret(g, ins);
  engine::ConstantFolder folder;
  engine::Cse cse;
  DriverOptions opt;
  opt.visit = folder.visitor();
  opt.between_passes = cse.hook();
  auto rep = run_rules(g, RuleSet::global(), opt);
  CHECK(rep.rewrites >= 1);
  CHECK(g.live_count() == 4);  // Input, one Relu, the Concat, Output
  CHECK(verify(g).empty());
  CHECK(engine::interpret(g, ins) == before);

  Graph c = scale::wide_concat(wide, true);
  read_verify_dot_interpret(c);
  auto folded = engine::interpret(c, {});
  engine::ConstantFolder f2;
  CHECK(f2.run(c) == 1);
  c.remove_dead();
  CHECK(c.live_count() == 2);
  CHECK(engine::interpret(c, {}) == folded);
}
