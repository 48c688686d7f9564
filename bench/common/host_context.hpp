// Google Benchmark programs: main() that adds the CPU model (bench/common/host.hpp) to the
// benchmark's context, beside the load average Google Benchmark records there itself
// (`load_avg`, read before the first run), and prints the load after the runs on stderr (the
// context is written before the first run). Use OG_BENCHMARK_MAIN() in place of BENCHMARK_MAIN().
#pragma once

#include "common/host.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>

namespace bench {

/// Initializes Google Benchmark with the host in its context and runs the registered benchmarks.
inline int run_benchmarks(int argc, char** argv) {
  benchmark::AddCustomContext("cpu_model", cpu_model());
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
