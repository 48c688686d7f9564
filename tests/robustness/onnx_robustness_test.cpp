// Regression tests of the ONNX importer's fuzzing findings (bench/fuzz/run.sh, og_onnx_fuzz).
#include "onnx_import.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace optgrammar;

TEST_CASE("ONNX import: a Conv whose input rank does not fit its weight and attributes is an error, not a crash") {
  // As found: ONNX's Conv shape inference read past the input's 2-d shape (SEGV in libonnx).
  const std::string found = std::string(OPTGRAMMAR_ROBUSTNESS_DIR) + "/onnx_crash_conv_input_rank.onnx";
  try {
    (void)onnx_import::import_file(found);
    FAIL("the model was accepted");
  } catch (const onnx_import::ImportError& e) {
    CHECK(e.kind == onnx_import::ImportError::Kind::invalid);
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("node 0 (Conv)") != std::string::npos);
    CHECK(what.find("rank") != std::string::npos);
  }
}

TEST_CASE("ONNX import: Resize with an infinite source coordinate reads the edge (no float-to-integer overflow)") {
  // As found: a scale that makes the coordinate infinite was converted to an integer (undefined
  // behaviour; UBSan in the asan preset). The coordinate is now kept near the input first.
  const std::string found = std::string(OPTGRAMMAR_ROBUSTNESS_DIR) + "/onnx_crash_resize_infinite_coordinate.onnx";
  onnx_import::Imported m;
  try {
    m = onnx_import::import_file(found);
  } catch (const onnx_import::ImportError& e) {
    FAIL(e.what());
  }
  CHECK(m.graph.live_count() > 0);
  try {
    const auto out = engine::interpret(m.graph, engine::random_inputs(m.graph, 1));
    CHECK(out.size() == m.outputs.size());
  } catch (const engine::InterpretError& e) {
    SUCCEED(e.what());  // rejected as not evaluable is fine too; only undefined behaviour is not
  }
}
