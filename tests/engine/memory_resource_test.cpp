// Where a graph's records come from (Graph(RecordResource*)): W1 built with a counting resource
// takes its op and input records from it, keeps it through moves, copies and swaps, and rewrites
// to the same graph as with the default; with og-opt's huge-page resource
// (tools/common/huge_page_resource.hpp) and a std::pmr resource (core/pmr_records.hpp) too.
#include "huge_page_resource.hpp"
#include "w1/w1_graph.hpp"

#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/pmr_records.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/driver.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <string>
#include <utility>

using namespace optgrammar;

namespace {

// With OPTGRAMMAR_CHECK_RECORD_MOVES (the asan preset) appends move the records to fresh blocks
// (Graph::check_moves), from the same resource: more blocks are taken, as many are out.
#if defined(OPTGRAMMAR_CHECK_RECORD_MOVES)
constexpr bool moves_checked = true;
#else
constexpr bool moves_checked = false;
#endif

/// Passes every block to the default record resource and counts the blocks and bytes out.
class CountingResource final : public RecordResource {
 public:
  std::size_t allocations = 0, bytes = 0, outstanding = 0, outstanding_bytes = 0;

  void* allocate(std::size_t n, std::size_t align) override {
    ++allocations, ++outstanding;
    bytes += n;
    outstanding_bytes += n;
    return new_delete_records()->allocate(n, align);
  }
  void deallocate(void* p, std::size_t n, std::size_t align) noexcept override {
    --outstanding;
    outstanding_bytes -= n;
    new_delete_records()->deallocate(p, n, align);
  }
};

/// The same count as a std::pmr::memory_resource, for PmrRecords.
class CountingPmr final : public std::pmr::memory_resource {
 public:
  std::size_t allocations = 0, outstanding = 0;

 private:
  void* do_allocate(std::size_t n, std::size_t align) override {
    ++allocations, ++outstanding;
    return std::pmr::new_delete_resource()->allocate(n, align);
  }
  void do_deallocate(void* p, std::size_t n, std::size_t align) override {
    --outstanding;
    std::pmr::new_delete_resource()->deallocate(p, n, align);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
};

/// W1 of `blocks` blocks from `records`, rewritten to its fixed point, as text.
std::string rewritten(std::size_t blocks, RecordResource* records) {
  Graph g = w1::build(blocks, records);
  run_rules(g, RuleSet::global());
  REQUIRE(w1::check(g, blocks).empty());
  REQUIRE(verify(g).empty());
  return to_text(g);
}

}  // namespace

TEST_CASE("a graph built with a record resource takes its op and input records from it") {
  CountingResource counting;
  {
    Graph g = w1::build(40, &counting);
    CHECK(g.records_resource() == &counting);
    // One block for each vector (Graph::reserve sizes both for the build and its rewrite).
    CHECK(counting.outstanding == 2);
    CHECK(counting.outstanding_bytes >= g.op_capacity() * sizeof(OpDef) + g.use_records() * sizeof(Use));
    const std::size_t after_build = counting.allocations;
    run_rules(g, RuleSet::global());
    CHECK(w1::check(g, 40).empty());
    if (!moves_checked) CHECK(counting.allocations == after_build);  // the reserved room holds the rewrite
    CHECK(counting.outstanding == 2);

    // A moved graph keeps its records and their resource; a copy takes its records from it too.
    Graph moved = std::move(g);
    CHECK(moved.records_resource() == &counting);
    CHECK(counting.outstanding == 2);
    Graph copy = moved;
    CHECK(copy.records_resource() == &counting);
    CHECK(counting.outstanding == 4);
    Graph assigned;
    CHECK(assigned.records_resource() == new_delete_records());
    assigned = copy;
    CHECK(assigned.records_resource() == &counting);
    CHECK(to_text(assigned) == to_text(moved));

    // Swapped graphs swap their resources with their records.
    Graph other;
    other.add_input(OutputDef::make(DType::Float32, {4}));
    std::swap(other, assigned);
    CHECK(other.records_resource() == &counting);
    CHECK(assigned.records_resource() == new_delete_records());
    CHECK(to_text(other) == to_text(moved));
    CHECK(counting.outstanding == 6);
  }
  CHECK(counting.outstanding == 0);
  CHECK(counting.outstanding_bytes == 0);
}

TEST_CASE("a graph's records grown past its reserve stay in its resource") {
  CountingResource counting;
  {
    Graph g(&counting);  // no reserve: the vectors grow by doubling, each block from `counting`
    const OutputDef out = OutputDef::make(DType::Float32, {4});
    OpRef x = g.add_input(out);
    for (int i = 0; i < 1000; ++i) x = g.add_op("Relu", {x}, out);
    g.add_output(x);
    CHECK(counting.allocations >= 4);
    CHECK(counting.outstanding == 2);
    CHECK(verify(g).empty());
  }
  CHECK(counting.outstanding == 0);
}

TEST_CASE(
    "W1 rewrites to the same graph from a counting resource, og-opt's huge pages, a pmr resource and operator new") {
  for (std::size_t blocks : {1, 7, 300}) {
    CAPTURE(blocks);
    const std::string plain = rewritten(blocks, nullptr);
    CountingResource counting;
    CHECK(rewritten(blocks, &counting) == plain);
    CHECK(counting.allocations >= 2);
    CHECK(counting.outstanding == 0);
    CountingPmr pmr;
    PmrRecords from_pmr(&pmr);
    CHECK(rewritten(blocks, &from_pmr) == plain);
    CHECK(pmr.allocations >= 2);
    CHECK(pmr.outstanding == 0);
    // A threshold of one byte: every record block is mapped, 2 MB-aligned, even at one block.
    og_tools::HugePageResource huge(1);
    {
      Graph g = w1::build(blocks, &huge);
      CHECK(reinterpret_cast<std::uintptr_t>(&g.op_at(0)) % og_tools::HugePageResource::huge_page == 0);
    }
    CHECK(rewritten(blocks, &huge) == plain);
    if (!moves_checked) CHECK(huge.stats().mapped == 4);  // two graphs, two vectors each
    CHECK(huge.stats().advised + huge.stats().refused == huge.stats().mapped);
    CHECK(huge.stats().small == 0);
  }
}

TEST_CASE("the text reader takes the graph's records from the resource it is given") {
  const std::string text = to_text(w1::build(3));
  CountingResource counting;
  const Graph g = from_text(text, "<w1>", nullptr, &counting);
  CHECK(g.records_resource() == &counting);
  CHECK(counting.outstanding == 2);
  CHECK(to_text(g) == text);
}
