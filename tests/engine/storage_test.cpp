// What a rewrite adds to the graph's storage: W1 (examples/w1) rewritten with its DSL rules and
// with the same rules hand-written makes one ConvBiasRelu per block, whose three input records
// come from the records of the ops the rewrite erased, not from new storage.
#include "w1/w1_graph.hpp"
#include "w1/w1_handwritten.hpp"

#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/engine/driver.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace optgrammar;

TEST_CASE("W1's pass has no guard or flag left to test, so the driver's plain loop runs it") {
  const std::vector<PassDispatch>& passes = RuleSet::global().dispatch();
  REQUIRE(passes.size() == 1);
  CHECK(passes[0].plain());
}

TEST_CASE("a W1 rewrite takes its new ops' input records from erased ops") {
  const RuleSet hand = w1::handwritten::rules();
  for (const RuleSet* rules : std::initializer_list<const RuleSet*>{&RuleSet::global(), &hand})
    for (std::size_t blocks : {1, 2, 50, 300}) {
      CAPTURE(blocks, rules == &hand);
      Graph g = w1::build(blocks);
      const std::size_t records = g.use_records(), slots = g.size();
      const RunReport rep = run_rules(g, *rules);
      REQUIRE(w1::check(g, blocks).empty());
      CHECK(rep.rewrites == 5 * blocks);
      CHECK(verify(g).empty());
      // Only the first block's ConvBiasRelu finds no erased op's records yet.
      CHECK(g.use_records() == records + 3);
      // Op slots are not reused: one new op per block, within the room W1's reserve made (so
      // the records did not move).
      CHECK(g.size() == slots + blocks);
      CHECK(g.size() <= g.op_capacity());
    }
}

namespace {
/// A rewritten graph by op id (ids are inherited by replacements, so they do not depend on where
/// an op is stored): each live op's name, output definition and inputs' ids.
std::map<std::uint64_t, std::tuple<std::string, std::uint32_t, std::vector<std::uint64_t>>> by_id(const Graph& g) {
  std::map<std::uint64_t, std::tuple<std::string, std::uint32_t, std::vector<std::uint64_t>>> m;
  for (OpRef r : g.live_ops()) {
    std::vector<std::uint64_t> in;
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) in.push_back(g.op_id(g.input(r, k)));
    m[g.op_id(r)] = {std::string(g.name(r)), g.output_index(r), in};
  }
  return m;
}
}  // namespace

TEST_CASE("rewriting W1 in place puts each ConvBiasRelu in its Relu's slot: no op record is added") {
  const RuleSet hand = w1::handwritten::rules();
  for (const RuleSet* rules : std::initializer_list<const RuleSet*>{&RuleSet::global(), &hand})
    for (std::size_t blocks : {1, 2, 50, 300}) {
      CAPTURE(blocks, rules == &hand);
      Graph appended = w1::build(blocks);
      std::ostringstream appended_trace;
      DriverOptions append_opt;
      append_opt.trace = &appended_trace;
      run_rules(appended, *rules, append_opt);
      Graph g = w1::build(blocks);
      // The Relu that reads each block's BiasAdd, by index: its slot is where the fusion goes.
      std::vector<OpRef> first_relus;
      for (OpRef r : g.live_ops())
        if (g.name(r) == "Relu" && g.name(g.input(r, 0)) == "BiasAdd") first_relus.push_back(r);
      const std::size_t records = g.use_records(), slots = g.size();
      std::ostringstream trace;
      DriverOptions opt;
      opt.rewrite_in_place = true;
      opt.check_rules = true;  // a root replaced in place stays alive: the check knows it
      opt.trace = &trace;
      const RunReport rep = run_rules(g, *rules, opt);
      REQUIRE(w1::check(g, blocks).empty());
      CHECK(rep.rewrites == 5 * blocks);
      CHECK(verify(g).empty());
      CHECK(g.size() == slots);               // nothing appended
      CHECK(g.use_records() == records + 3);  // the first fusion's records; the rest reuse
      REQUIRE(first_relus.size() == blocks);
      for (OpRef r : first_relus) CHECK(g.name(r) == "ConvBiasRelu");
      // The same graph as the appending run, op for op by id.
      CHECK(by_id(g) == by_id(appended));
      if (rules == &RuleSet::global()) {
        const std::string line = " %" + std::to_string(first_relus[0].index) + "(Relu) -> %" +
                                 std::to_string(first_relus[0].index) + "(ConvBiasRelu)\n";
        CHECK(trace.str().find(line) != std::string::npos);
        // The same rewrites in the same order: the traces differ only in the made ops' indices.
        const std::regex index("%[0-9]+");
        CHECK(std::regex_replace(trace.str(), index, "%") == std::regex_replace(appended_trace.str(), index, "%"));
        const std::string lines = trace.str();
        CHECK(std::count(lines.begin(), lines.end(), '\n') == static_cast<long>(5 * blocks));
      }
    }
}

TEST_CASE("a fusion whose inputs come after its root is appended, in place or not") {
  // Index order is topological only as far as the graph keeps it: here the root reads an op made
  // after it (set_input), so putting the fusion in the root's slot would put it before its
  // inputs. The driver appends it instead.
  Graph g;
  const OutputDef t = OutputDef::make(DType::Float32, {1, 32, 32, 16});
  const OpRef x = g.add_input(t);
  const float bias[16] = {};
  const OpRef b = g.add_const(OutputDef::make(DType::Float32, {1, 1, 1, 16}), std::span<const float>(bias, 16));
  const OpRef relu = g.add_op("Relu", {x}, t);
  const float weights[256] = {};
  const OpRef w = g.add_const(OutputDef::make(DType::Float32, {1, 1, 16, 16}), std::span<const float>(weights, 256));
  const OpRef conv = g.add_op("Conv2d", {x, w}, t);
  const OpRef add = g.add_op("BiasAdd", {conv, b}, t);
  g.set_input(relu, 0, add);
  g.add_output(relu);
  const std::size_t slots = g.size();
  DriverOptions opt;
  opt.rewrite_in_place = true;
  opt.check_rules = true;
  const RunReport rep = run_rules(g, RuleSet::global(), opt);
  CHECK(rep.rewrites == 1);
  CHECK_FALSE(g.alive(relu));
  CHECK(g.size() == slots + 1);
  const OpRef made{static_cast<std::uint32_t>(slots)};
  CHECK(g.name(made) == "ConvBiasRelu");
  CHECK(g.input(made, 1) == w);
  CHECK(verify(g).empty());
}
