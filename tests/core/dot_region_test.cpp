// Pictures of large graphs: what changed between two states of a graph, the region around it,
// and the region drawn with its boundary.
#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/graph.hpp>

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

using namespace optgrammar;

namespace {
OutputDef f32(std::initializer_list<std::size_t> d) { return OutputDef::make(DType::Float32, d); }

/// Input -> n Relu -> Output, each Relu also read by a side Neg that feeds an Add into the next
/// Relu's chain (so ops have two consumers): a long chain of 3n + 2 ops.
struct Chain {
  Graph g;
  std::vector<OpRef> relu;
  explicit Chain(std::size_t n) {
    OpRef x = g.add_input(f32({1, 8}));
    for (std::size_t i = 0; i < n; ++i) {
      OpRef r = g.add_op("Relu", {x}, f32({1, 8}));
      OpRef s = g.add_op("Neg", {r}, f32({1, 8}));
      x = g.add_op("Add", {r, s}, f32({1, 8}));
      relu.push_back(r);
    }
    g.add_output(x);
  }
};

bool has_node(const std::string& dot, std::uint32_t i) {
  return dot.find("  n" + std::to_string(i) + " [label=") != std::string::npos;
}

/// Replaces op `r` (one input) by a new op of the same shape named `name`; returns the new op.
OpRef replace(Graph& g, OpRef r, const char* name) {
  OpRef n = g.add_op(name, {g.input(r, 0)}, g.output(r));
  g.replace_all_uses(r, n);
  g.erase(r);
  return n;
}
}  // namespace

TEST_CASE("graph_changes: the ops removed and created, by graph index") {
  Chain c(400);  // 1202 ops
  const Graph before = c.g;
  const OpRef old = c.relu[200];
  const OpRef added = replace(c.g, old, "Sigmoid");
  const auto ch = graph_changes(before, c.g);
  // The Relu is gone; its Sigmoid is new; the Neg and Add that read it now read the Sigmoid.
  CHECK(ch.removed == std::vector<std::uint32_t>{old.index, old.index + 1, old.index + 2});
  CHECK(ch.created == std::vector<std::uint32_t>{old.index + 1, old.index + 2, added.index});
  SECTION("an unchanged graph has no changes") {
    const auto none = graph_changes(before, before);
    CHECK(none.removed.empty());
    CHECK(none.created.empty());
  }
}

TEST_CASE("region picture of a large graph: the changed ops, their context, not far-away ops") {
  Chain c(400);
  const Graph before = c.g;
  const OpRef old = c.relu[200];
  const OpRef added = replace(c.g, old, "Sigmoid");
  const auto ch = graph_changes(before, c.g);

  const auto reg = region_around(c.g, ch.created, 1, 150);
  CHECK(reg.seeds_left_out == 0);
  // Seeds: the Sigmoid, the Neg and the Add; one hop: the previous Add (the Sigmoid's input) and
  // the next Relu (the Add's reader).
  CHECK(reg.ops == 5);
  DotView view{reg.in, "changed region: 5 of 1202 ops"};
  std::ostringstream os;
  write_dot(os, c.g, "after", view);
  const std::string dot = os.str();
  CHECK(has_node(dot, added.index));
  CHECK(has_node(dot, old.index + 1));            // the Neg
  CHECK(has_node(dot, old.index + 2));            // the Add
  CHECK(has_node(dot, old.index - 1));            // the producer: the previous Add
  CHECK(has_node(dot, c.relu[201].index));        // a consumer of the Add
  CHECK_FALSE(has_node(dot, old.index));          // dead
  CHECK_FALSE(has_node(dot, c.relu[100].index));  // far away
  CHECK_FALSE(has_node(dot, 0));                  // the input
  CHECK(dot.find("label=\"changed region: 5 of 1202 ops\"") != std::string::npos);
  // The boundary: the previous Add's two inputs, the next Relu's two readers (its Neg and Add).
  CHECK(dot.find("  i" + std::to_string(old.index - 1) + " [label=\"… 2 more inputs\", style=dashed") !=
        std::string::npos);
  CHECK(dot.find("  c" + std::to_string(c.relu[201].index) + " [label=\"… 2 more consumers\", style=dashed") !=
        std::string::npos);
  CHECK(dot.find("more consumer") == dot.rfind("more consumer"));  // the only op with readers left out

  SECTION("the before picture shows the removed Relu with its neighbours") {
    const auto rb = region_around(before, ch.removed, 1, 150);
    std::ostringstream ob;
    write_dot(ob, before, "before", DotView{rb.in, ""});
    CHECK(has_node(ob.str(), old.index));
    CHECK_FALSE(has_node(ob.str(), added.index));
    CHECK_FALSE(has_node(ob.str(), c.relu[300].index));
  }
  SECTION("more context steps, more ops") {
    CHECK(region_around(c.g, ch.created, 3, 0).ops > reg.ops);
    CHECK(region_around(c.g, ch.created, 0, 0).ops == 3);
  }
}

TEST_CASE("region: a huge changed set is capped, the rest counted as left out") {
  Chain c(100000);  // 300,002 ops, all changed as far as the picture knows
  std::vector<std::uint32_t> all;
  for (auto r : c.g.live_ops()) all.push_back(r.index);
  const auto reg = region_around(c.g, all, 2, 150);
  CHECK(reg.ops == 150);
  CHECK(reg.seeds_left_out == all.size() - 150);
  CHECK(reg.in[0]);  // the first seeds, in the order given
  CHECK_FALSE(reg.in[all.back()]);
  // Seeds within reach of a long chain: the work follows the region, not the graph's depth.
  const std::uint32_t last[] = {all.back()};
  CHECK(region_around(c.g, last, 64, 0).ops > 64);
}

TEST_CASE("a graph pictured whole has no stubs and no caption") {
  Chain c(3);
  std::ostringstream os;
  write_dot(os, c.g, "small");
  const std::string dot = os.str();
  for (auto r : c.g.live_ops()) CHECK(has_node(dot, r.index));
  CHECK(dot.find("more input") == std::string::npos);
  CHECK(dot.find("label=\"changed") == std::string::npos);
}
