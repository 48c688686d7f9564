// The timing loop w1_bench and w2_bench share: build the graph, then rewrite it (or run the floor
// pass over it), REPEAT times; keep the best build + rewrite time (one run's sum: what a user
// waits for), the best build and rewrite times, the op counts, the minor page faults of the last
// run's build and rewrite, and the floor's checksum. A wrong result ends the loop.
#pragma once

#include "common/floor.hpp"

#include <optgrammar/core/graph.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace bench {

inline long minor_faults() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}
inline long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

struct Timed {
  double best_total = 1e30, best_build = 1e30, best_rewrite = 1e30;
  std::size_t before = 0, after = 0;
  long build_faults = 0, faults = 0;  ///< minor page faults of the last build and rewrite
  std::uint64_t floor_sum = 0;
  std::string problem;  ///< the check's finding on a wrong result; empty when right
};

/// `build()` returns the graph; `rewrite(g)` rewrites it and returns the check's finding ("" when
/// the result is right). With `floor`, the floor pass stands in for the rewrite.
template <class Build, class Rewrite>
Timed timed_runs(std::size_t repeat, bool floor, Build build, Rewrite rewrite) {
  Timed t;
  for (std::size_t r = 0; r < std::max<std::size_t>(repeat, 1); ++r) {
    const long fb = minor_faults();
    const auto t0 = std::chrono::steady_clock::now();
    optgrammar::Graph g = build();
    t.before = g.live_count();
    const long f0 = minor_faults();
    t.build_faults = f0 - fb;
    const auto t1 = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point t2;
    if (floor) {
      t.floor_sum += floor_pass(g);
      t2 = std::chrono::steady_clock::now();
    } else {
      t2 = t1;
      t.problem = rewrite(g, t2);
      if (!t.problem.empty()) return t;
    }
    t.faults = minor_faults() - f0;
    t.after = g.live_count();
    t.best_build = std::min(t.best_build, std::chrono::duration<double>(t1 - t0).count());
    t.best_rewrite = std::min(t.best_rewrite, std::chrono::duration<double>(t2 - t1).count());
    t.best_total = std::min(t.best_total, std::chrono::duration<double>(t2 - t0).count());
  }
  return t;
}

/// The stderr lines about page faults in each phase (and the floor's checksum).
inline void report_faults(const char* who, const Timed& t, bool floor) {
  std::fprintf(stderr, "%s: %ld minor page faults during the build\n", who, t.build_faults);
  std::fprintf(stderr, "%s: %ld minor page faults during the %s", who, t.faults, floor ? "floor pass" : "rewrite");
  if (floor) std::fprintf(stderr, " (checksum %llx)", static_cast<unsigned long long>(t.floor_sum));
  std::fprintf(stderr, "\n");
}

/// The JSON line's fields for the minor page faults of the last run's build and of its rewrite
/// (with `--engine floor`, of its floor pass).
inline std::string faults_json(const Timed& t) {
  return "\"build_minor_faults\": " + std::to_string(t.build_faults) +
         ", \"rewrite_minor_faults\": " + std::to_string(t.faults);
}

/// The JSON line's engine name: "optgrammar" (DSL rules), "optgrammar-handwritten" or
/// "optgrammar-floor", with "-in-place" for a run with DriverOptions::rewrite_in_place.
inline std::string engine_name(const std::string& engine, bool in_place) {
  std::string n = engine == "dsl" ? "optgrammar" : "optgrammar-" + engine;
  if (in_place && engine != "floor") n += "-in-place";
  return n;
}

}  // namespace bench
