// The example rules of the grammar reference. Each block that starts with a line
// `// example: TOPIC` and runs to the next blank line is quoted on docs/grammar/TOPIC.md by
// og_grammar_doc_gen; this file is compiled as ordinary rules, and the test below checks that
// every rule of a block was registered (so every quoted example passed the C++ front end's
// checker). The test dsl.examples_og_parse runs og-parse on this file: no error, no warning.
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

using namespace optgrammar;

// example: match
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("r", Op("Relu", "*"))), OK, "r")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Mul", "x", OPCONST("one")), EQ(CONSTVAL_FLOAT("one", 0), 1.0f), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, OpVarIn("Concat", "a"), EQ(INPUTS_OF("*"), 1U), "a")

// example: constraints
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Transpose", "x", "perm"),
                         AND(EQ(RANK_OF("x"), 4), NOT(IS_POW2(ADD(DIM_OF("x", 3), 1))),
                             LE(SELECT(GT(DIM_OF("x", 1), 8U), 8U, DIM_OF("x", 1)), MUL(DIM_OF("x", 2), 2))),
                         Op("Transpose_padded", "x", "perm"))

// example: constants
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "x", OPCONST("c")),
                         AND(CONSTVAL_INT_VALID("c", 0), EQ(CONSTVAL_INT("c", 0), 0), GT(RANK_OF("x"), 0U)), "x")

// example: options
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"),
                         AND(OPTION_BOOL("use_fast_conv"), LE(DIM_OF("w", 0), OPTION_UINT("fast_conv_max_filter"))),
                         Op("Conv2d_fast", "x", "w"))

// example: properties
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "a", "b"),
                         AND(SAME_ENCODING("a", "b"), EQ(DTYPE_OF("a"), DType::QUInt8), EQ(RANK_OF("a"), RANK_OF("b")),
                             EQ(STEPSIZE_OF("a"), STEPSIZE_OF("*"))),
                         Op("QuantizedAdd_8", "a", "b"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Identity", "*"), EQ(OUTPUTS_OF("*"), 1U), INPUT_OF("*", 0))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"),
                         AND(IS_OP("x", "Conv2d"), NOT(PRODUCER_FOR("x", "Add")), LE(DATA_SIZE("x"), 65536U)),
                         Op("Relu_small", "x"))

// example: replacement
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "x", "y"), EQ(DTYPE_OF("y"), DType::Float32),
                         Op("Add", "x", Op("Mul", "y", gen_ConstScalar_f32(-1.0f))))

// example: modifiers
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("Conv2d", "x", "w")), OK,
                         WITH_SIZE("*", WITH_TYPE("*", Op("Conv2d_relu", "x", "w"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Quantize", "x"), EQ(DTYPE_OF("x"), DType::Float32),
                         WITH_OUTPUT_TYPE(DType::QUInt8, 128, 0.0625f, Op("Quantize_u8", "x")))

// example: splitting
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Relu", "x"), GT(DIM_OF("x", 1), 4),
                         AUTOSPLIT(1, "I", 4, Op("Relu", TYPICAL_SLICE("x", "I"))))

// example: external
// :::EXTERNAL_SHAPEFN::: { bool depth_at_least(Constraint&, OpRef, int); }
static bool depth_at_least(Constraint& c, OpRef x, int depth) {
  return c.output(x).dim(3) >= static_cast<std::size_t>(depth);
}
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Softmax", "x"), EXTERNAL_CONSTRAINT(depth_at_least, "x", 32),
                         Op("Softmax_wide", "x"))

// example: compat
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "a", "b"),
                         AND(IS_QUINT8("a"), SAME_QUANT("a", "b"), SAME_SHAPE("a", "b"),
                             EQ(CEILDIV(DIM_DEPTH("a"), 32), 1)),
                         Op("QuantizedAdd_8x32", "a", "b"))
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(LATE, relaxed_precision_flag, Op("Softmax", "x"), IS_FLOAT32("x"),
                                    CAST_TO_FP32(Op("Softmax_fp16", CAST_TO_FP16("x"))))

// example: registration
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("Neg", Op("Neg", "x")), OK, "x")
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(LATE, cse_after_always | relaxed_precision_flag, Op("Gelu", "x"), IS_FLOAT32("x"),
                                    Op("Gelu_approx", "x"))

namespace {

struct Block {
  std::string topic;
  int first = 0, last = 0;  ///< lines of the block, 1-based, inclusive
  int rules = 0;            ///< rule macros in it
};

std::vector<Block> blocks() {
  std::ifstream is(__FILE__);
  std::vector<Block> r;
  std::string line;
  bool in = false;
  for (int n = 1; std::getline(is, line); ++n) {
    if (line.rfind("// example: ", 0) == 0) {
      r.push_back({line.substr(12), n + 1, n + 1, 0});
      in = true;
    } else if (in && line.empty()) {
      in = false;
    } else if (in) {
      r.back().last = n;
      if (line.rfind("DEF_PACKAGE_OPTIMIZATION", 0) == 0) ++r.back().rules;
    }
  }
  return r;
}

}  // namespace

TEST_CASE("every example rule of the grammar reference is registered") {
  const std::vector<Block> bs = blocks();
  REQUIRE(bs.size() >= 11);
  const RuleSet mine = RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("grammar_examples.cpp") != std::string::npos; });
  std::size_t want = 0;
  for (const Block& b : bs) {
    INFO("example block on " << b.topic << ".md, lines " << b.first << "-" << b.last);
    CHECK(b.rules >= 1);
    want += static_cast<std::size_t>(b.rules);
    int found = 0;
    for (const RuleInfo* r : mine.rules())
      if (r->line >= b.first && r->line <= b.last) {
        ++found;
        CHECK(!r->canonical.empty());
      }
    CHECK(found == b.rules);
  }
  CHECK(mine.rules().size() == want);
}
