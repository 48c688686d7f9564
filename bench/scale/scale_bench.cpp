// scale_bench PATH [N]: time and peak memory of one path on a deep or wide graph (the graphs of
// tests/scale). One path per process, so that the peak resident size is that path's:
//   chain paths (N ops, default 1,000,000): write read verify verify_ops dot interpret rewrite fold cse
//   wide paths (one Concat of N <= 65535 inputs): wide_read wide_verify wide_interpret wide_rewrite
// Prints one JSON line: path, n, seconds (the path alone), build_mb (peak after building the
// graph), peak_mb (peak at the end).
#include "common/host.hpp"
#include "scale_graphs.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/ops/definition_verify.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

using namespace optgrammar;

namespace {
double peak_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}
}  // namespace

int main(int argc, char** argv) {
  bench::print_host("scale_bench", true);
  if (argc < 2) {
    std::fprintf(stderr, "usage: scale_bench PATH [N]\n");
    return 2;
  }
  const std::string path = argv[1];
  const bool wide = path.rfind("wide_", 0) == 0;
  const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (wide ? 65535 : 1'000'000);
  Graph g = path == "fold"  ? scale::neg_chain_of_const(n)
            : path == "cse" ? scale::twin_neg_chains(n)
            : wide          ? scale::wide_concat(n)
                            : scale::relu_chain(n);
  std::string text;
  if (path == "read" || path == "wide_read") text = to_text(g);
  const double build_mb = peak_mb();
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t check = 0;  // a result of the path, printed so that nothing is optimized away
  if (path == "write")
    check = to_text(g).size();
  else if (path == "read" || path == "wide_read")
    check = from_text(text).live_count();
  else if (path == "verify" || path == "wide_verify")
    check = verify(g).size() + 1;
  else if (path == "verify_ops")
    check = ops::verify_ops(g).size() + 1;
  else if (path == "dot") {
    std::ostringstream os;
    write_dot(os, g);
    check = os.str().size();
  } else if (path == "interpret" || path == "wide_interpret") {
    check = engine::interpret(g, engine::random_inputs(g, 1)).size();
  } else if (path == "rewrite" || path == "wide_rewrite") {
    engine::ConstantFolder folder;
    engine::Cse cse;
    DriverOptions opt;
    opt.visit = folder.visitor();
    opt.between_passes = cse.hook();
    check = run_rules(g, RuleSet::global(), opt).rewrites;
  } else if (path == "fold") {
    check = engine::ConstantFolder{}.run(g);
  } else if (path == "cse") {
    check = engine::Cse{}.run(g);
  } else {
    std::fprintf(stderr, "scale_bench: unknown path '%s'\n", path.c_str());
    return 2;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"path\":\"%s\",\"n\":%zu,\"seconds\":%.3f,\"build_mb\":%.0f,\"peak_mb\":%.0f,\"result\":%zu}\n",
              path.c_str(), n, s, build_mb, peak_mb(), check);
  bench::print_host("scale_bench", false);
  return check ? 0 : 1;
}
