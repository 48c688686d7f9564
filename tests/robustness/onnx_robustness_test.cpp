// Regression tests of the ONNX importer's fuzzing findings (bench/fuzz/run.sh, og_onnx_fuzz).
#include "onnx_import.hpp"
#include "optgrammar/ops/definition_verify.hpp"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace optgrammar;

TEST_CASE("ONNX import: a Gemm whose A or B is not 2-d is an error, not a crash") {
  // As found (og_onnx_fuzz, 839,796 executions from the seed corpus): a Gemm of a [2,10] A and a
  // rank-0 B, in a model importing opsets 116 and 6: a SEGV in ONNX's shape inference.
  try {
    (void)onnx_import::import_file(std::string(OPTGRAMMAR_ROBUSTNESS_DIR) + "/onnx_crash_gemm_scalar_b.onnx");
    FAIL("the model was accepted");
  } catch (const onnx_import::ImportError& e) {
    CHECK(e.kind == onnx_import::ImportError::Kind::invalid);
    CHECK(std::string(e.what()).find("node 0 (Gemm): input B has rank 0, Gemm takes rank 2") != std::string::npos);
  }
}

TEST_CASE("ONNX import: a Conv whose input rank or strides do not fit is an error, not a crash") {
  // As found: ONNX's Conv shape inference read past the input's 2-d shape (SEGV in libonnx), and
  // divided by a stride of 0 (SIGFPE); again by a stride of 0 of a Conv that reads its own output
  // (the only value whose rank the model gives is that graph output's).
  for (const char* file : {"/onnx_crash_conv_input_rank.onnx", "/onnx_crash_conv_zero_stride.onnx",
                           "/onnx_crash_conv_reads_output.onnx"}) {
    INFO(file);
    try {
      (void)onnx_import::import_file(std::string(OPTGRAMMAR_ROBUSTNESS_DIR) + file);
      FAIL("the model was accepted");
    } catch (const onnx_import::ImportError& e) {
      CHECK(e.kind == onnx_import::ImportError::Kind::invalid);
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("node 0 (Conv)") != std::string::npos);
      CHECK((what.find("rank") != std::string::npos || what.find("strides has the entry 0") != std::string::npos));
    }
  }
}

TEST_CASE("ONNX import: Resize with an infinite coordinate or an empty input is no undefined behaviour") {
  // As found: a scale that makes the source coordinate infinite was converted to an integer
  // (float-to-integer overflow), and an empty input resized to a non-empty output was read
  // (an offset added to a null pointer); UBSan reported both in the asan preset. The kernel keeps
  // the coordinate near the input, refuses a declared output its scales do not give (this model's)
  // and refuses the empty input.
  const auto load = [](const char* file) {
    return onnx_import::import_file(std::string(OPTGRAMMAR_ROBUSTNESS_DIR) + file);
  };
  SECTION("infinite coordinate: the declared output is not what the scales give; refused, naming the op") {
    const auto m = load("/onnx_crash_resize_infinite_coordinate.onnx");
    CHECK_THROWS_WITH(engine::interpret(m.graph, engine::random_inputs(m.graph, 1)),
                      Catch::Contains("(onnx.Resize): the kernels do not take these operand types or shapes"));
  }
  SECTION("empty input: the interpreter refuses it, naming the op") {
    const auto m = load("/onnx_crash_resize_empty_input.onnx");
    CHECK_THROWS_WITH(engine::interpret(m.graph, engine::random_inputs(m.graph, 1)),
                      Catch::Contains("(onnx.Resize): the kernels do not take these operand types or shapes"));
  }
}

namespace {
/// A model of one Identity node whose input is an initializer of the given dims (float, no data).
std::string model_with_initializer(std::initializer_list<std::int64_t> dims) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* t = g->add_initializer();
  t->set_name("c");
  t->set_data_type(onnx::TensorProto_DataType_FLOAT);
  for (auto d : dims) t->add_dims(d);
  auto* n = g->add_node();
  n->set_op_type("Identity");
  // std::string arguments: g++-12 -O3 warns wrongly (-Wrestrict, GCC bug 105329) about the
  // const char* overloads when this function is inlined into the test below.
  n->add_input(std::string("c"));
  n->add_output(std::string("y"));
  auto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  return m.SerializeAsString();
}
}  // namespace

TEST_CASE("ONNX import: a shape whose element count or byte size overflows, or a dim beyond the limit, is an error") {
  // [2^32, 2^32] has 2^64 elements: the count wrapped to 0 and passed the size check before.
  for (auto dims :
       {std::vector<std::int64_t>{std::int64_t{1} << 32, std::int64_t{1} << 32},
        std::vector<std::int64_t>{std::int64_t{1} << 31, 1}, std::vector<std::int64_t>{1 << 20, 1 << 20, 1 << 20}}) {
    onnx::ModelProto m;
    REQUIRE(m.ParseFromString(model_with_initializer({})));
    auto* t = m.mutable_graph()->mutable_initializer(0);
    for (auto d : dims) t->add_dims(d);
    try {
      (void)onnx_import::import_bytes(m.SerializeAsString(), "big.onnx");
      FAIL("accepted");
    } catch (const onnx_import::ImportError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("shape cannot be represented") != std::string::npos);
    }
  }
}

TEST_CASE("ONNX import: a Conv whose bias is shorter than its output channels is not read past its end") {
  // As found (og_onnx_fuzz in CI): the definitions accepted the model and the Conv kernel read one
  // bias value per output channel from a shorter bias (heap-buffer-overflow under ASan). Now the
  // definition refuses such a Conv (here its kernel_shape also disagrees with the weights), and so
  // does the kernel when asked anyway.
  const auto m = onnx_import::import_file(std::string(OPTGRAMMAR_ROBUSTNESS_DIR) + "/onnx_crash_conv_short_bias.onnx");
  const auto problems = ops::verify_ops(m.graph, {});
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], Catch::Contains("(onnx.Conv): kernel_shape [3,3] disagrees with the weight W [1,1,2,3]"));
  CHECK_THROWS_AS(engine::interpret(m.graph, engine::random_inputs(m.graph, 1)), engine::InterpretError);
}
