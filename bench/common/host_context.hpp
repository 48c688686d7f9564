// Google Benchmark programs: main() that records the host (bench/common/host.hpp) in the
// benchmark's context: `cpu_model` and `load_before` before the runs, and prints `load_after`
// after them (the context is written before the first run, so the load after goes to stderr and,
// with --benchmark_out, stays out of the file). Use OG_BENCHMARK_MAIN() in place of
// BENCHMARK_MAIN().
#pragma once

#include "common/host.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>

namespace bench {

/// Initializes Google Benchmark with the host in its context and runs the registered benchmarks.
inline int run_benchmarks(int argc, char** argv) {
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("load_before", load_average());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::fprintf(stderr, "load_after: %s\n", load_average().c_str());
  return 0;
}

}  // namespace bench

/// BENCHMARK_MAIN() with the host recorded (a macro because main() must be defined once, in the
/// benchmark's own file).
#define OG_BENCHMARK_MAIN() \
  int main(int argc, char** argv) { return bench::run_benchmarks(argc, argv); }
