// Workload W2 (bench/w2/README.md) on optgrammar.
//
//   w2_bench [BLOCKS] [RULES] [--engine dsl|handwritten|floor] [--repeat N] [--in-place]
//
// Builds the graph, selects the package of RULES rules (2, 64, 256 or 1024, at most the
// W2_MAX_RULES this binary was built with) from the rules linked in, rewrites the graph to a fixed
// point, checks the spec's expected result and prints the spec's JSON line last.
// `--engine handwritten` runs the same package written by hand against core/ (w2_handwritten.hpp;
// its rules' guards are first compared with the DSL rules'); `--engine floor` times one
// read-only pass over the same graph instead (common/floor.hpp). `--in-place` lets a rewrite put
// its one new op in its root's slot (DriverOptions::rewrite_in_place). Exit 1: wrong result; 2: bad
// arguments.
#include "common/args.hpp"
#include "common/host.hpp"
#include "common/timed_runs.hpp"
#include "w2/w2_graph.hpp"
#include "w2/w2_package.hpp"

#include <optgrammar/engine/driver.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>

int main(int argc, char** argv) {
  bench::print_host("w2_bench", true);
  std::size_t sizes[2] = {50000, 256};
  int positional = 0;
  std::string engine = "dsl";
  optgrammar::DriverOptions opt;
  std::size_t repeat = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--engine" && i + 1 < argc)
      engine = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) {
      if (!bench::parse_count("w2_bench", "--repeat", argv[++i], bench::most_repeats, repeat)) return 2;
    } else if (a == "--in-place")
      opt.rewrite_in_place = true;
    else if (!a.empty() && a[0] != '-' && positional < 2) {
      if (!bench::parse_count("w2_bench", positional == 0 ? "BLOCKS" : "RULES", a, bench::most_blocks,
                              sizes[positional]))
        return 2;
      ++positional;
    } else {
      std::fprintf(stderr,
                   "usage: w2_bench [BLOCKS] [RULES] [--engine dsl|handwritten|floor] [--repeat N] [--in-place]\n");
      return 2;
    }
  }
  const std::size_t blocks = sizes[0], n_rules = sizes[1];
  if (engine != "dsl" && engine != "handwritten" && engine != "floor") {
    std::fprintf(stderr, "w2_bench: --engine must be dsl, handwritten or floor, not '%s'\n", engine.c_str());
    return 2;
  }
  if (n_rules < 2 || n_rules > W2_MAX_RULES) {
    std::fprintf(stderr, "w2_bench: RULES must be between 2 and %d (the rules built into this binary)\n", W2_MAX_RULES);
    return 2;
  }
  std::deque<w2::handwritten::Decoy> decoys;
  const optgrammar::RuleSet rules =
      engine == "handwritten" ? w2::handwritten::rules(n_rules, decoys) : w2::dsl_package(n_rules);
  if (rules.size() != n_rules) {
    std::fprintf(stderr, "w2_bench: found %zu of the package's %zu rules\n", rules.size(), n_rules);
    return 1;
  }
  if (engine == "handwritten") {
    if (const std::string diff = w2::guards_differ(rules, w2::dsl_package(n_rules)); !diff.empty()) {
      std::fprintf(stderr, "w2_bench: the hand-written package is not the DSL one: %s\n", diff.c_str());
      return 1;
    }
  }
  (void)rules.dispatch();  // rule order and dispatch tables settled before the clock starts
  const bool floor = engine == "floor";
  const bench::Timed t = bench::timed_runs(
      repeat, floor, [&] { return w2::build(blocks); },
      [&](optgrammar::Graph& g, std::chrono::steady_clock::time_point& done) {
        const optgrammar::RunReport rep = optgrammar::run_rules(g, rules, opt);
        done = std::chrono::steady_clock::now();
        return w2::check(g, blocks, rep.rewrites);
      });
  if (!t.problem.empty()) {
    std::fprintf(stderr, "w2_bench: wrong result: %s\n", t.problem.c_str());
    return 1;
  }
  bench::report_faults("w2_bench", t, floor);
  std::printf(
      "{\"engine\": \"%s\", \"blocks\": %zu, \"rules\": %zu, \"ops_before\": %zu, \"ops_after\": %zu, "
      "\"total_seconds\": %.6f, \"build_seconds\": %.6f, \"rewrite_seconds\": %.6f, %s, "
      "\"peak_rss_kb\": %ld}\n",
      bench::engine_name(engine, opt.rewrite_in_place).c_str(), blocks, n_rules, t.before, t.after, t.best_total,
      t.best_build, t.best_rewrite, bench::faults_json(t).c_str(), bench::peak_rss_kb());
  bench::print_host("w2_bench", false);
  return 0;
}
