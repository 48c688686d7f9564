// libFuzzer target: og-opt's pipeline on a text graph: read, verify (structure; the op
// definitions are checked but, as with --no-verify, do not stop it), interpret, rewrite with the shipped packages (W1
// and the example op package, compiled into this target) with folding and CSE, verify the result, interpret it, write
// text and DOT. Only a read or verification error may stop it; any other exception is a finding.
#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/ops/definition_verify.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace {
using namespace optgrammar;

/// Interpreting allocates every value: only graphs whose values stay small are interpreted.
bool small_values(const Graph& g) {
  std::uint64_t total = 0;
  for (OpRef r : g.live_ops()) total += g.output(r).byte_size();
  return total <= (std::uint64_t{1} << 20);
}

void interpret_if_possible(const Graph& g) {
  if (!small_values(g)) return;
  try {
    (void)engine::interpret(g, engine::random_inputs(g, 1));
  } catch (const engine::InterpretError&) {
    // an op without an evaluation, or operands its kernels do not take: reported, not a crash
  }
}

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "pipeline fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Graph g;
  try {
    g = from_text(text, "fuzz.ogt");
  } catch (const TextError&) {
    return 0;
  }
  if (!verify(g).empty()) return 0;  // og-opt stops here too
  // A graph that breaks its op definitions goes on, as with og-opt --no-verify: the example op
  // package's graphs use ops the definitions spell differently.
  (void)ops::verify_ops(g);
  interpret_if_possible(g);
  engine::ConstantFolder folder({.max_elements = 4096});
  engine::Cse cse({.merge_constants = size % 2 == 0});
  DriverOptions opt;
  opt.check_rules = true;
  opt.visit = folder.visitor();
  opt.between_passes = cse.hook();
  try {
    (void)run_rules(g, RuleSet::global(), opt);
  } catch (const CycleError&) {
    return 0;  // stopped with the rules named (og-opt's exit 3)
  } catch (const std::exception& e) {
    finding("rewriting threw", e.what());
  }
  if (auto p = verify(g); !p.empty()) finding("the result is not a sound graph", p.front());
  interpret_if_possible(g);
  std::ostringstream os;
  write_graph_text(os, g);
  write_dot(os, g);
  return 0;
}
