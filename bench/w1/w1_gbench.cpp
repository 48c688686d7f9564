// Google Benchmark cases for W1: build and rewrite, DSL and hand-written rules, and the floor (one
// read-only pass over the same graph: common/floor.hpp).
#include "common/host_context.hpp"

#include "common/floor.hpp"
#include "w1/w1_graph.hpp"
#include "w1/w1_handwritten.hpp"

#include <optgrammar/engine/driver.hpp>

#include <benchmark/benchmark.h>

static void rewrite(benchmark::State& st, bool dsl) {
  auto blocks = static_cast<std::size_t>(st.range(0));
  optgrammar::RuleSet hand = w1::handwritten::rules();
  const optgrammar::RuleSet& rules = dsl ? optgrammar::RuleSet::global() : hand;
  for (auto _ : st) {
    st.PauseTiming();
    optgrammar::Graph g = w1::build(blocks);
    st.ResumeTiming();
    auto rep = optgrammar::run_rules(g, rules);
    benchmark::DoNotOptimize(rep.ops_after);
    if (g.live_count() != 3 * blocks + 2) st.SkipWithError("wrong result");
  }
  st.counters["ops"] = static_cast<double>(14 * blocks + 2);
}
static void BM_w1_rewrite_dsl(benchmark::State& st) { rewrite(st, true); }
static void BM_w1_rewrite_handwritten(benchmark::State& st) { rewrite(st, false); }
static void BM_w1_build(benchmark::State& st) {
  for (auto _ : st) {
    optgrammar::Graph g = w1::build(static_cast<std::size_t>(st.range(0)));
    benchmark::DoNotOptimize(g.live_count());
  }
}
static void BM_w1_floor(benchmark::State& st) {
  const optgrammar::Graph g = w1::build(static_cast<std::size_t>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(bench::floor_pass(g));
}
BENCHMARK(BM_w1_build)->Arg(1000)->Arg(12500)->Arg(125000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_w1_rewrite_dsl)->Arg(1000)->Arg(12500)->Arg(125000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_w1_rewrite_handwritten)->Arg(1000)->Arg(12500)->Arg(125000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_w1_floor)->Arg(1000)->Arg(12500)->Arg(125000)->Unit(benchmark::kMillisecond);
OG_BENCHMARK_MAIN();
