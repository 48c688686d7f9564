// Taking N registered rules into a set the way RuleSet::global() does (RuleSet::add_once).
// The rules are spread over files of 100 rules each with the same lines in every file, so many
// rules share a line and only their canonical text tells them apart.
#include "common/host_context.hpp"

#include <optgrammar/engine/rule_set.hpp>

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

static std::vector<optgrammar::RuleInfo> package(int n) {
  std::vector<optgrammar::RuleInfo> rules;
  for (int i = 0; i < n; ++i) {
    optgrammar::RuleInfo r;
    r.file = std::string("/src/pkg/rules/file").append(std::to_string(i / 100)).append(".cpp");
    r.line = 10 + (i % 100) * 3;
    r.canonical = std::string("DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"Relu\",LET(\"r\",Op(\"Relu\",\"x")
                      .append(std::to_string(i))
                      .append("\"))),GT(DIM_WIDTH(\"*\"),32),\"r\")");
    rules.push_back(std::move(r));
  }
  return rules;
}

static void BM_register_rules(benchmark::State& st) {
  const auto rules = package(static_cast<int>(st.range(0)));
  for (auto _ : st) {
    st.PauseTiming();
    auto copy = rules;
    optgrammar::RuleSet set;
    st.ResumeTiming();
    for (auto& r : copy) set.add_once(std::move(r));
    st.PauseTiming();
    if (set.size() != rules.size()) st.SkipWithError("a distinct rule was dropped");
    set = optgrammar::RuleSet{};  // freed outside the timed part
    st.ResumeTiming();
  }
  st.counters["rules"] = static_cast<double>(rules.size());
}
BENCHMARK(BM_register_rules)->Arg(1000)->Arg(5000)->Arg(20000)->Unit(benchmark::kMillisecond);
OG_BENCHMARK_MAIN();
