// Google Benchmark cases for W2 (README.md here): the rewrite of B = 50,000 blocks with packages of
// 64 and 256 rules, DSL and hand-written, and the floor (one read-only pass over the same graph).
#include "common/host_context.hpp"

#include "common/floor.hpp"
#include "w2/w2_graph.hpp"
#include "w2/w2_package.hpp"

#include <optgrammar/engine/driver.hpp>

#include <benchmark/benchmark.h>

#include <deque>

namespace {

constexpr std::size_t blocks = 50000;

void rewrite(benchmark::State& st, bool dsl) {
  const auto n_rules = static_cast<std::size_t>(st.range(0));
  std::deque<w2::handwritten::Decoy> decoys;
  const optgrammar::RuleSet rules = dsl ? w2::dsl_package(n_rules) : w2::handwritten::rules(n_rules, decoys);
  if (rules.size() != n_rules) {
    st.SkipWithError("the package's rules are not all linked in");
    return;
  }
  (void)rules.dispatch();
  for (auto _ : st) {
    st.PauseTiming();
    optgrammar::Graph g = w2::build(blocks);
    st.ResumeTiming();
    const optgrammar::RunReport rep = optgrammar::run_rules(g, rules);
    st.PauseTiming();
    if (!w2::check(g, blocks, rep.rewrites).empty()) st.SkipWithError("wrong result");
    st.ResumeTiming();
  }
  st.counters["ops"] = static_cast<double>(w2::ops_per_block * blocks + 2);
}
void BM_w2_rewrite_dsl(benchmark::State& st) { rewrite(st, true); }
void BM_w2_rewrite_handwritten(benchmark::State& st) { rewrite(st, false); }
void BM_w2_floor(benchmark::State& st) {
  const optgrammar::Graph g = w2::build(blocks);
  for (auto _ : st) benchmark::DoNotOptimize(bench::floor_pass(g));
}

}  // namespace

BENCHMARK(BM_w2_rewrite_dsl)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_w2_rewrite_handwritten)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_w2_floor)->Unit(benchmark::kMillisecond);
OG_BENCHMARK_MAIN();
