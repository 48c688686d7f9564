// The host a benchmark ran on: the CPU model and the load average, which every benchmark prints
// beside its figures (docs/performance.md, "Hosts"). The shell scripts' counterpart is
// bench/common/host.sh.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>

namespace bench {

/// The first "model name" of /proc/cpuinfo, or "unknown".
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? "unknown" : line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown";
}

/// The 1, 5 and 15 minute load averages of /proc/loadavg ("0.52 0.60 0.71"), or "unknown".
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  if (!(in >> a >> b >> c)) return "unknown";
  return a + " " + b + " " + c;
}

/// Whether the kernel shares CPU time between sessions rather than threads
/// (/proc/sys/kernel/sched_autogroup_enabled): "1", "0", or "unknown". With it on, a process's
/// threads together get one session's share of a loaded machine, however many there are.
inline std::string sched_autogroup() {
  std::ifstream in("/proc/sys/kernel/sched_autogroup_enabled");
  std::string v;
  if (!(in >> v)) return "unknown";
  return v;
}

/// Prints the host lines on stderr, as bench/common/host.sh's host_lines does: "PROG: cpu model:
/// ..." and "PROG: load average before: ..." (`before`), or "PROG: load average after: ...".
inline void print_host(const char* prog, bool before) {
  if (before) std::fprintf(stderr, "%s: cpu model: %s\n", prog, cpu_model().c_str());
  std::fprintf(stderr, "%s: load average %s: %s\n", prog, before ? "before" : "after", load_average().c_str());
}

}  // namespace bench
