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
