// Workload W1 (examples/w1/w1_graph.hpp) on optgrammar.
//
//   w1_bench [BLOCKS] [--engine dsl|handwritten|floor] [--repeat N] [--in-place] [--huge-pages on|off]
//
// Builds the graph, rewrites it to a fixed point with R1-R6 (the DSL rules of
// examples/w1/w1_rules.cpp, or the same rules hand-written against core/), checks the spec's
// expected result and prints the spec's JSON line last. `--engine floor` times one read-only
// pass over the same graph instead (bench/common/floor.hpp): the cost no engine can beat.
// `--in-place` lets a rewrite put its one new op in its root's slot (DriverOptions::rewrite_in_place).
// `--huge-pages on` (the default, as og-opt's) takes the graph's op and input records from
// tools/common/huge_page_resource.hpp (2 MB-aligned blocks advised to transparent huge pages),
// for every engine; `off` from operator new. The JSON line says which ("huge_pages") and whether
// the kernel took the advice ("huge_page_blocks": blocks advised, "huge_page_refusals"; taken is
// not backed: the build's minor faults say whether huge pages came).
// The JSON line's total_seconds is the best run's build + rewrite (what a user waits for), beside
// the spec's build_seconds and rewrite_seconds (each the best over the runs), and the minor page
// faults of the last run's build and rewrite (getrusage; also on stderr). Exit 1: wrong result;
// 2: bad arguments.
#include "common/args.hpp"
#include "common/host.hpp"
#include "common/timed_runs.hpp"
#include "huge_page_resource.hpp"
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
  bench::print_host("w1_bench", true);
  std::size_t blocks = 12500;
  std::string engine = "dsl";
  optgrammar::DriverOptions opt;
  std::size_t repeat = 1;
  bool huge_pages = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--engine" && i + 1 < argc)
      engine = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) {
      if (!bench::parse_count("w1_bench", "--repeat", argv[++i], bench::most_repeats, repeat)) return 2;
    } else if (a == "--in-place")
      opt.rewrite_in_place = true;
    else if (a == "--huge-pages" && i + 1 < argc &&
             (std::strcmp(argv[i + 1], "on") == 0 || std::strcmp(argv[i + 1], "off") == 0))
      huge_pages = std::strcmp(argv[++i], "on") == 0;
    else if (!a.empty() && a[0] != '-') {
      if (!bench::parse_count("w1_bench", "BLOCKS", a, bench::most_blocks, blocks)) return 2;
    } else {
      std::fprintf(stderr,
                   "usage: w1_bench [BLOCKS] [--engine dsl|handwritten|floor] [--repeat N] [--in-place] [--huge-pages "
                   "on|off]\n");
      return 2;
    }
  }
  if (engine != "dsl" && engine != "handwritten" && engine != "floor") {
    std::fprintf(stderr, "w1_bench: --engine must be dsl, handwritten or floor, not '%s'\n", engine.c_str());
    return 2;
  }
  optgrammar::RuleSet hand = w1::handwritten::rules();
  const optgrammar::RuleSet& rules = engine == "dsl" ? optgrammar::RuleSet::global() : hand;
  const bool floor = engine == "floor";
  og_tools::HugePageResource huge;
  optgrammar::RecordResource* const records = huge_pages ? &huge : nullptr;
  const bench::Timed t = bench::timed_runs(
      repeat, floor, [&] { return w1::build(blocks, records); },
      [&](optgrammar::Graph& g, std::chrono::steady_clock::time_point& done) {
        optgrammar::run_rules(g, rules, opt);
        done = std::chrono::steady_clock::now();
        return w1::check(g, blocks);
      });
  if (!t.problem.empty()) {
    std::fprintf(stderr, "w1_bench: wrong result: %s\n", t.problem.c_str());
    return 1;
  }
  bench::report_faults("w1_bench", t, floor);
  std::printf(
      "{\"engine\": \"%s\", \"blocks\": %zu, \"ops_before\": %zu, \"ops_after\": %zu, "
      "\"total_seconds\": %.6f, \"build_seconds\": %.6f, "
      "\"rewrite_seconds\": %.6f, %s, \"peak_rss_kb\": %ld, \"huge_pages\": \"%s\", "
      "\"huge_page_blocks\": %zu, \"huge_page_refusals\": %zu}\n",
      bench::engine_name(engine, opt.rewrite_in_place).c_str(), blocks, t.before, t.after, t.best_total, t.best_build,
      t.best_rewrite, bench::faults_json(t).c_str(), bench::peak_rss_kb(), huge_pages ? "on" : "off",
      huge.stats().advised, huge.stats().refused);
  bench::print_host("w1_bench", false);
  return 0;
}
