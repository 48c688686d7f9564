// libFuzzer target: the ONNX importer (tools/og-onnx) on a serialized model, then what og-opt
// does with an imported graph before rewriting: structural verification (an imported graph must
// be sound), the op definitions' check, interpretation (when the values are small) and text
// output. An ImportError is the expected answer to a bad model; any other exception is a finding.
#include "onnx_import.hpp"

#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/text_io.hpp>
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

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "onnx fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  onnx_import::Imported m;
  try {
    m = onnx_import::import_bytes(bytes, "fuzz.onnx");
  } catch (const onnx_import::ImportError&) {
    return 0;
  } catch (const std::exception& e) {
    finding("the importer threw something other than ImportError", e.what());
  }
  const Graph& g = m.graph;
  if (auto p = verify(g); !p.empty()) finding("the imported graph is not sound", p.front());
  if (ops::verify_ops(g).empty()) {
    std::uint64_t total = 0;
    for (OpRef r : g.live_ops()) total += g.output(r).byte_size();
    if (total <= (std::uint64_t{1} << 20)) {
      try {
        (void)engine::interpret(g, engine::random_inputs(g, 1));
      } catch (const engine::InterpretError&) {
        // an op the kernels do not take: reported by og-opt, not a crash
      }
    }
  }
  std::ostringstream os;
  write_graph_text(os, g);
  return 0;
}
