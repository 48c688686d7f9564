// Workload W1 (examples/w1/w1_graph.hpp) on optgrammar.
//
//   w1_bench [BLOCKS] [--engine dsl|handwritten|floor] [--repeat N]
//
// Builds the graph, rewrites it to a fixed point with R1-R6 (the DSL rules of
// examples/w1/w1_rules.cpp, or the same rules hand-written against core/), checks the spec's
// expected result and prints the spec's JSON line last. `--engine floor` times one read-only
// pass over the same graph instead (bench/common/floor.hpp): the cost no engine can beat.
// stderr reports the minor page faults during the rewrite (getrusage). Exit 1: wrong result;
// 2: bad arguments.
#include "common/floor.hpp"
#include "w1/w1_graph.hpp"
#include "w1/w1_handwritten.hpp"

#include <optgrammar/engine/driver.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  std::size_t blocks = 12500;
  std::string engine = "dsl";
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--engine" && i + 1 < argc) engine = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (!a.empty() && a[0] != '-') {
      char* end = nullptr;
      long long v = std::strtoll(a.c_str(), &end, 10);
      if (*end || v <= 0) {
        std::fprintf(stderr, "w1_bench: BLOCKS must be a positive integer, not '%s'\n", a.c_str());
        return 2;
      }
      blocks = static_cast<std::size_t>(v);
    } else {
      std::fprintf(stderr, "usage: w1_bench [BLOCKS] [--engine dsl|handwritten|floor] [--repeat N]\n");
      return 2;
    }
  }
  if (engine != "dsl" && engine != "handwritten" && engine != "floor") {
    std::fprintf(stderr, "w1_bench: --engine must be dsl, handwritten or floor, not '%s'\n", engine.c_str());
    return 2;
  }
  if (repeat < 1) repeat = 1;
  optgrammar::RuleSet hand = w1::handwritten::rules();
  const optgrammar::RuleSet& rules = engine == "dsl" ? optgrammar::RuleSet::global() : hand;
  double best_build = 1e30, best_rewrite = 1e30;
  std::size_t before = 0, after = 0;
  long faults = 0;
  std::uint64_t floor_sum = 0;
  auto minor_faults = [] {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
  };
  (void)rules.dispatch();  // rule order and dispatch tables settled before the clock starts
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    optgrammar::Graph g = w1::build(blocks);
    before = g.live_count();
    const long f0 = minor_faults();
    auto t1 = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point t2;
    if (engine == "floor") {
      floor_sum += bench::floor_pass(g);
      t2 = std::chrono::steady_clock::now();
    } else {
      optgrammar::run_rules(g, rules);
      t2 = std::chrono::steady_clock::now();
      std::string problem = w1::check(g, blocks);
      if (!problem.empty()) {
        std::fprintf(stderr, "w1_bench: wrong result: %s\n", problem.c_str());
        return 1;
      }
    }
    faults = minor_faults() - f0;
    after = g.live_count();
    best_build = std::min(best_build, std::chrono::duration<double>(t1 - t0).count());
    best_rewrite = std::min(best_rewrite, std::chrono::duration<double>(t2 - t1).count());
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::fprintf(stderr, "w1_bench: %ld minor page faults during the %s", faults, engine == "floor" ? "floor pass" : "rewrite");
  if (engine == "floor") std::fprintf(stderr, " (checksum %llx)", static_cast<unsigned long long>(floor_sum));
  std::fprintf(stderr, "\n");
  std::printf("{\"engine\": \"%s\", \"blocks\": %zu, \"ops_before\": %zu, \"ops_after\": %zu, \"build_seconds\": %.6f, "
              "\"rewrite_seconds\": %.6f, \"peak_rss_kb\": %ld}\n",
              engine == "dsl" ? "optgrammar" : engine == "floor" ? "optgrammar-floor" : "optgrammar-handwritten", blocks, before, after, best_build,
              best_rewrite, ru.ru_maxrss);
  return 0;
}
