// parallel_bench: W1 graphs optimized one after the other on one thread, and at once on T threads
// (docs/engine.md, "Threads").
//
//   parallel_bench [BLOCKS] [--threads T] [--rounds R]     (defaults: 125000 blocks, 2 threads, 5 rounds)
//
// Each round times both ways of building and rewriting T W1 graphs (examples/w1) with the same rule
// set, in alternating order (round 0 sequential first, round 1 threads first, ...), checks every
// result against the spec, and prints a line; the last line is JSON with the medians: the wall
// time of each way, their ratio (threads / sequential: 1 / T is perfect scaling), graphs per second
// each way, the CPU time (user and kernel), minor page faults and waits (voluntary context
// switches: a thread blocked on a lock) each way took, the CPU model, whether the kernel shares
// CPU time by session (sched_autogroup: then on a loaded machine the threads together get one
// session's share, and the ratio stays near 1 whatever the code does) and the load average before
// and after. On a shared machine the ratio is only as good as the cores the threads got:
// compare it with the load, and the CPU times with each other (equal CPU time both ways: the
// threads did not slow each other down). Exit 1: wrong result; 2: bad arguments.
#include "common/args.hpp"
#include "common/host.hpp"
#include "w1/w1_graph.hpp"

#include <optgrammar/engine/driver.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// What the calling thread used: CPU time in user mode and in the kernel (page faults), minor
/// page faults, and voluntary context switches (the times it waited: on a lock, or on the kernel's
/// memory map lock in a page fault or an munmap; involuntary ones are the scheduler's).
struct Cpu {
  double user = 0, sys = 0;
  long faults = 0, waits = 0;
  Cpu& operator+=(const Cpu& o) {
    user += o.user;
    sys += o.sys;
    faults += o.faults;
    waits += o.waits;
    return *this;
  }
  Cpu operator-(const Cpu& o) const { return {user - o.user, sys - o.sys, faults - o.faults, waits - o.waits}; }
};
Cpu thread_cpu() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  auto s = [](timeval t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return {s(ru.ru_utime), s(ru.ru_stime), ru.ru_minflt, ru.ru_nvcsw};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Builds one W1 graph, rewrites it, checks it; the check's finding ("" when right). Adds the
/// thread's CPU time to *cpu.
std::string one_graph(std::size_t blocks, const optgrammar::RuleSet& rules, Cpu* cpu) {
  const Cpu c0 = thread_cpu();
  std::string problem;
  {
    optgrammar::Graph g = w1::build(blocks);
    optgrammar::run_rules(g, rules);
    problem = w1::check(g, blocks);
  }
  *cpu += thread_cpu() - c0;
  return problem;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t blocks = 125'000, threads = 2, rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) {
      if (!bench::parse_count("parallel_bench", "--threads", argv[++i], 64, threads)) return 2;
    } else if (a == "--rounds" && i + 1 < argc) {
      if (!bench::parse_count("parallel_bench", "--rounds", argv[++i], bench::most_repeats, rounds)) return 2;
    } else if (!a.empty() && a[0] != '-') {
      if (!bench::parse_count("parallel_bench", "BLOCKS", a, bench::most_blocks, blocks)) return 2;
    } else {
      std::fprintf(stderr, "usage: parallel_bench [BLOCKS] [--threads T] [--rounds R]\n");
      return 2;
    }
  }
  // Packages are loaded and the rule set's tables built before threads start (docs/engine.md).
  const optgrammar::RuleSet& rules = optgrammar::RuleSet::global();
  rules.dispatch();
  const std::string load_before = bench::load_average();
  std::vector<double> seq, par, seq_user, seq_sys, par_user, par_sys, seq_faults, par_faults, seq_waits, par_waits;
  std::string problem;
  for (std::size_t r = 0; r < rounds && problem.empty(); ++r) {
    double seq_s = 0, par_s = 0;
    Cpu seq_cpu, par_cpu;
    auto sequential = [&] {
      const auto t0 = Clock::now();
      for (std::size_t k = 0; k < threads && problem.empty(); ++k) problem = one_graph(blocks, rules, &seq_cpu);
      seq_s = seconds_since(t0);
    };
    auto parallel = [&] {
      std::vector<std::string> problems(threads);
      std::vector<Cpu> cpus(threads);
      std::vector<std::thread> pool;
      const auto t0 = Clock::now();
      for (std::size_t k = 0; k < threads; ++k)
        pool.emplace_back([&, k] { problems[k] = one_graph(blocks, rules, &cpus[k]); });
      for (auto& t : pool) t.join();
      par_s = seconds_since(t0);
      for (std::size_t k = 0; k < threads; ++k) {
        par_cpu += cpus[k];
        if (problem.empty()) problem = problems[k];
      }
    };
    if (r % 2 == 0)
      sequential(), parallel();
    else
      parallel(), sequential();
    seq.push_back(seq_s);
    par.push_back(par_s);
    seq_user.push_back(seq_cpu.user);
    seq_sys.push_back(seq_cpu.sys);
    par_user.push_back(par_cpu.user);
    par_sys.push_back(par_cpu.sys);
    seq_faults.push_back(static_cast<double>(seq_cpu.faults));
    par_faults.push_back(static_cast<double>(par_cpu.faults));
    seq_waits.push_back(static_cast<double>(seq_cpu.waits));
    par_waits.push_back(static_cast<double>(par_cpu.waits));
    std::fprintf(stderr,
                 "parallel_bench: round %zu: %zu graphs one after the other %.3f s (CPU %.3f user + %.3f sys, "
                 "%ld minor faults, %ld waits), on %zu threads %.3f s (CPU %.3f user + %.3f sys, %ld minor faults, "
                 "%ld waits): %.2fx\n",
                 r, threads, seq_s, seq_cpu.user, seq_cpu.sys, seq_cpu.faults, seq_cpu.waits, threads, par_s,
                 par_cpu.user, par_cpu.sys, par_cpu.faults, par_cpu.waits, par_s / seq_s);
  }
  if (!problem.empty()) {
    std::fprintf(stderr, "parallel_bench: wrong result: %s\n", problem.c_str());
    return 1;
  }
  const double s = median(seq), p = median(par);
  std::printf(
      "{\"blocks\": %zu, \"graphs\": %zu, \"threads\": %zu, \"rounds\": %zu, \"sequential_seconds\": %.6f, "
      "\"parallel_seconds\": %.6f, \"ratio\": %.3f, \"graphs_per_second_1_thread\": %.3f, "
      "\"graphs_per_second_%zu_threads\": %.3f, \"sequential_cpu_user_sys\": [%.3f, %.3f], "
      "\"parallel_cpu_user_sys\": [%.3f, %.3f], \"sequential_minor_faults\": %.0f, "
      "\"parallel_minor_faults\": %.0f, \"sequential_waits\": %.0f, \"parallel_waits\": %.0f, "
      "\"cpu\": \"%s\", \"cores\": %u, \"sched_autogroup\": \"%s\", "
      "\"load_before\": \"%s\", \"load_after\": \"%s\"}\n",
      blocks, threads, threads, rounds, s, p, p / s, static_cast<double>(threads) / s, threads,
      static_cast<double>(threads) / p, median(seq_user), median(seq_sys), median(par_user), median(par_sys),
      median(seq_faults), median(par_faults), median(seq_waits), median(par_waits), bench::cpu_model().c_str(),
      std::thread::hardware_concurrency(), bench::sched_autogroup().c_str(), load_before.c_str(),
      bench::load_average().c_str());
  return 0;
}
