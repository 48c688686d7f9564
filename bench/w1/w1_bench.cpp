// Workload W1 (shared/bench-spec/W1-redundant-chain.md) on optgrammar.
//
//   w1_bench [BLOCKS] [--engine dsl|handwritten] [--repeat N]
//
// Builds the graph, rewrites it to a fixed point with R1-R6 (the DSL rules of
// examples/w1/w1_rules.cpp, or the same rules hand-written against core/), checks the spec's
// expected result and prints the spec's JSON line last. Exit 1: wrong result; 2: bad arguments.
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
      std::fprintf(stderr, "usage: w1_bench [BLOCKS] [--engine dsl|handwritten] [--repeat N]\n");
      return 2;
    }
  }
  if (engine != "dsl" && engine != "handwritten") {
    std::fprintf(stderr, "w1_bench: --engine must be dsl or handwritten, not '%s'\n", engine.c_str());
    return 2;
  }
  if (repeat < 1) repeat = 1;
  optgrammar::RuleSet hand = w1::handwritten::rules();
  const optgrammar::RuleSet& rules = engine == "dsl" ? optgrammar::RuleSet::global() : hand;
  double best_build = 1e30, best_rewrite = 1e30;
  std::size_t before = 0, after = 0;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    optgrammar::Graph g = w1::build(blocks);
    auto t1 = std::chrono::steady_clock::now();
    before = g.live_count();
    optgrammar::RunReport rep = optgrammar::run_rules(g, rules);
    auto t2 = std::chrono::steady_clock::now();
    after = g.live_count();
    std::string problem = w1::check(g, blocks);
    if (!problem.empty()) {
      std::fprintf(stderr, "w1_bench: wrong result: %s\n", problem.c_str());
      return 1;
    }
    (void)rep;
    best_build = std::min(best_build, std::chrono::duration<double>(t1 - t0).count());
    best_rewrite = std::min(best_rewrite, std::chrono::duration<double>(t2 - t1).count());
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("{\"engine\": \"%s\", \"blocks\": %zu, \"ops_before\": %zu, \"ops_after\": %zu, \"build_seconds\": %.6f, "
              "\"rewrite_seconds\": %.6f, \"peak_rss_kb\": %ld}\n",
              engine == "dsl" ? "optgrammar" : "optgrammar-handwritten", blocks, before, after, best_build,
              best_rewrite, ru.ru_maxrss);
  return 0;
}
