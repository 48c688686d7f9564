// What a rewrite adds to the graph's storage: W1 (examples/w1) rewritten with its DSL rules and
// with the same rules hand-written makes one ConvBiasRelu per block, whose three input records
// come from the records of the ops the rewrite erased, not from new storage.
#include "w1/w1_graph.hpp"
#include "w1/w1_handwritten.hpp"

#include <optgrammar/core/verify.hpp>
#include <optgrammar/engine/driver.hpp>

#include <catch2/catch.hpp>

#include <initializer_list>

using namespace optgrammar;

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
      // Op slots are not reused: one new op per block, within the head block W1's reserve made.
      CHECK(g.size() == slots + blocks);
      CHECK(g.size() <= g.op_head_capacity());
    }
}
