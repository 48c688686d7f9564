// Findings of the fuzzers (bench/fuzz) and the kernels' trust in their operands: an op that
// breaks its definition (a graph loaded with og-opt --no-verify) is an error for the interpreter
// and is not folded, instead of a read out of bounds.
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/engine/interpret.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

using namespace optgrammar;

namespace {
std::string interpret_error(const Graph& g) {
  try {
    (void)engine::interpret(g, engine::random_inputs(g, 1));
  } catch (const engine::InterpretError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("og_pipeline_fuzz finding: the interpreter on a Relu without its operand") {
  // The fuzzer's input as found (UBSan: a reference through a null pointer in Relu's kernel).
  std::ifstream is(std::string(OPTGRAMMAR_ROBUSTNESS_DIR) + "/pipeline_crash_relu_without_operand.ogt");
  REQUIRE(is);
  Graph found = read_graph_text(is, "crash.ogt");
  CHECK(interpret_error(found) == "%5 (Relu): 0 operands, the definition takes 1");
  // The smallest form of it.
  Graph g = from_text("%0 = Input() : f32[1,4]\n%1 = Relu() : f32[1,4]\n%2 = Output(%1) : f32[1,4]\n");
  CHECK(interpret_error(g) == "%1 (Relu): 0 operands, the definition takes 1");
}

TEST_CASE("the interpreter rejects an op whose operand is smaller than its definition says") {
  Graph g = from_text("%0 = Input() : f32[1]\n%1 = Neg(%0) : f32[1000]\n%2 = Output(%1) : f32[1000]\n");
  CHECK(interpret_error(g).find("%1 (Neg): ") == 0);
}

TEST_CASE("constant folding leaves an op that breaks its definition alone, and counts it") {
  Graph g = from_text("%0 = $Const() : f32[1] data=[2]\n%1 = Neg(%0) : f32[1000]\n%2 = Output(%1) : f32[1000]\n");
  engine::ConstantFolder folder;
  CHECK(folder.run(g) == 0);
  CHECK(folder.stats().invalid == 1);
  CHECK(folder.stats().folded == 0);
  // The same op with the shape its definition gives folds.
  Graph ok = from_text("%0 = $Const() : f32[1] data=[2]\n%1 = Neg(%0) : f32[1]\n%2 = Output(%1) : f32[1]\n");
  engine::ConstantFolder f2;
  CHECK(f2.run(ok) == 1);
  CHECK(f2.stats().invalid == 0);
}

TEST_CASE("text written with the graph's own op numbers reads back as the same graph") {
  std::istringstream in(
      "# optgrammar graph\n%0 = Input() : f32[1,4] id=1\n%1 = Relu(%0) : f32[1,4] id=2\n"
      "%2 = Neg(%1) : f32[1,4] id=3\n%3 = Output(%2) : f32[1,4] id=4\n");
  Graph g = read_graph_text(in);
  // Rewire Neg to read the input directly: the Relu dies, and a new op gets a higher index.
  const OpRef neg = OpRef{2};
  const OpRef abs = g.add_op("Abs", {OpRef{0}}, g.output(OpRef{0}));
  g.replace_all_uses(neg, abs, [](OpRef) {});
  g.remove_dead();
  WriteOptions keep;
  keep.graph_numbers = true;
  const std::string numbered = to_text(g, keep);
  CHECK(numbered.find("%4 = Abs(%0)") != std::string::npos);  // the index the trace would name
  CHECK(numbered.find("= Output(%4)") != std::string::npos);
  std::istringstream back(numbered);
  CHECK(to_text(read_graph_text(back)) == to_text(g));  // same graph, densely renumbered
}
