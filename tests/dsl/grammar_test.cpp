// The construct records (dsl/grammar.hpp) against the C++ front end: every construct the C++
// front end builds a node for is a record of the grammar, under the same name, allowed where the
// C++ front end allows it.
#include "analyzed.hpp"
#include "expansion_text.hpp"

#include <optgrammar/dsl/grammar.hpp>

#include <optgrammar/dsl/canonical.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace {
using namespace optgrammar::dsl;

constexpr bool internal(std::string_view name) {
  return name.find(' ') != std::string_view::npos;  // "operand tag", "int constant", "function name", ...
}

constexpr bool every_kind_is_a_record() {
  for (int k = 0; k < static_cast<int>(Kind::Count_); ++k) {
    const std::string_view name = kind_name(static_cast<Kind>(k));
    if (!internal(name) && find_construct(name) == nullptr) return false;
  }
  return true;
}
static_assert(every_kind_is_a_record(), "a node kind of the C++ front end is missing from dsl/grammar.hpp");

constexpr bool names_distinct() {
  for (const auto& a : constructs)
    if (find_construct(a.name) != &a) return false;
  return true;
}
static_assert(names_distinct());

static_assert(find_construct("SAME_SHAPE")->min_args == 2 && find_construct("SAME_SHAPE")->places == (in_constraint | in_replacement));
static_assert(find_construct("WITH_SPLIT_HISTORY")->max_args == 3);
static_assert(find_construct("AUTOSPLIT")->places == in_replacement);
static_assert(find_construct("LET")->places == in_match);
static_assert(find_construct("OpMultiOut")->max_args == any_count);

// Where the records say a construct may not appear, the C++ front end rejects it.
using namespace optgrammar::dsl::test;
OG_ANALYZED(let_in_constraint, EARLY, Op("A", "x"), NOT(LET("a", Op("B"))), "x")
static_assert(!info<let_in_constraint>().ok);
OG_ANALYZED(split_in_constraint, EARLY, Op("A", "x"), EQ(gen_ShapeOf("x"), 1), "x")
static_assert(info<split_in_constraint>().fault == Fault::replacement_only);
OG_ANALYZED(property_in_replacement, EARLY, Op("A", "x"), OK, Op("B", "x", gen_ConstScalar_i32(RANK_OF("x"))))
static_assert(info<property_in_replacement>().ok);

TEST_CASE("the construct records cover every name the C++ front end builds") {
  int n = 0;
  for (int k = 0; k < static_cast<int>(Kind::Count_); ++k) n += internal(kind_name(static_cast<Kind>(k))) ? 0 : 1;
  CHECK(n >= 80);
  CHECK(std::size(constructs) >= static_cast<std::size_t>(n));
}

// ---- expansions written once --------------------------------------------------------------------
// A record's expansion is the meaning of its name. The C++ front end builds every name of
// OPTGRAMMAR_EXPANSION_RECORDS from its text at compile time (dsl/words.hpp). Each sample below
// is such a word called on some operands; the canonical text of what it builds must be the
// record's expansion with the operands' canonical texts put for $1, $2, ... ($N... for all
// operands from the N-th on), which checks the compile-time reading against the printer. Every
// record with an expansion needs a sample, so a new one cannot be forgotten here.
struct Sample {
  std::string_view name;
  std::string built;               ///< the canonical text of the C++ front end's tree
  std::vector<std::string> args;   ///< the operands' canonical texts
};

template <class T>
std::string text_of(const T& v) {
  return canonical_node(detail::to_node(v));
}
template <class N, class... A>
Sample sample(std::string_view name, const N& built, const A&... args) {
  return Sample{name, text_of(built), {text_of(args)...}};
}

std::vector<Sample> samples() {
  using w = words;
  using optgrammar::DType;
  return {
      sample("OPCONST", w::OPCONST("a"), "a"),
      sample("FROM_DEFAULT_PACKAGE", w::FROM_DEFAULT_PACKAGE("a"), "a"),
      sample("IS_FLOAT32", w::IS_FLOAT32("a"), "a"),
      sample("IS_FLOAT", w::IS_FLOAT("a"), "a"),
      sample("IS_FLOAT16", w::IS_FLOAT16("a"), "a"),
      sample("IS_QUINT8", w::IS_QUINT8("a"), "a"),
      sample("IS_QINT8", w::IS_QINT8("a"), "a"),
      sample("IS_QUINT16", w::IS_QUINT16("a"), "a"),
      sample("IS_QINT16", w::IS_QINT16("a"), "a"),
      sample("IS_QINT32", w::IS_QINT32("a"), "a"),
      sample("IS_INT32", w::IS_INT32("a"), "a"),
      sample("DIM_BATCHES", w::DIM_BATCHES("a"), "a"),
      sample("DIM_HEIGHT", w::DIM_HEIGHT("a"), "a"),
      sample("DIM_WIDTH", w::DIM_WIDTH("a"), "a"),
      sample("DIM_DEPTH", w::DIM_DEPTH("a"), "a"),
      sample("DIM_FILTHEIGHT", w::DIM_FILTHEIGHT("a"), "a"),
      sample("DIM_FILTWIDTH", w::DIM_FILTWIDTH("a"), "a"),
      sample("DIM_FILTDEPTH", w::DIM_FILTDEPTH("a"), "a"),
      sample("DIM_NFILTS", w::DIM_NFILTS("a"), "a"),
      sample("SAME_SHAPE", w::SAME_SHAPE("a", "b"), "a", "b"),
      sample("IS_SCALAR", w::IS_SCALAR("a"), "a"),
      sample("IS_QUANT_TYPE", w::IS_QUANT_TYPE("a"), "a"),
      sample("SAME_QUANT", w::SAME_QUANT("a", "b"), "a", "b"),
      sample("CEILDIV", w::CEILDIV(7, 3U), 7, 3U),
      sample("IS_NOT_SCALAR", w::IS_NOT_SCALAR("a"), "a"),
      sample("IS_SHAPE_1x1x1xd", w::IS_SHAPE_1x1x1xd("a"), "a"),
      sample("IS_SHAPE_1x1x1x1xc", w::IS_SHAPE_1x1x1x1xc("a"), "a"),
      sample("IS_1HD_H1D", w::IS_1HD_H1D("a", "b"), "a", "b"),
      sample("MIN_WIDTH_OF", w::MIN_WIDTH_OF("a"), "a"),
      sample("SUBS", w::SUBS(7, 3U), 7, 3U),
      sample("SAME_DTYPE_QUANT", w::SAME_DTYPE_QUANT("a", "b"), "a", "b"),
      sample("IS_BINARY_FP16", w::IS_BINARY_FP16("a", "b", "c"), "a", "b", "c"),
      sample("IS_BINARY_FP32", w::IS_BINARY_FP32("a", "b", "c"), "a", "b", "c"),
      sample("FLAT_TENSOR_SIZE", w::FLAT_TENSOR_SIZE("a"), "a"),
      sample("ESTIMATE_TENSOR_SIZE", w::ESTIMATE_TENSOR_SIZE("a"), "a"),
      sample("ELEMWISE_TILE_SIZE", w::ELEMWISE_TILE_SIZE("a"), "a"),
      sample("ELEMWISE_TOOBIG", w::ELEMWISE_TOOBIG("a", "b", "c"), "a", "b", "c"),
      sample("MAX_CHANNEL_SIZE", w::MAX_CHANNEL_SIZE("a"), "a"),
      sample("WEIGHT_STORAGE", w::WEIGHT_STORAGE("w", 32), "w", 32),
      sample("ACT_STORAGE_EST", w::ACT_STORAGE_EST("w", "a", 32), "w", "a", 32),
      sample("GOOD_WEIGHTS", w::GOOD_WEIGHTS("w", "a", 32), "w", "a", 32),
      sample("SMART_CHANNEL_SIZE", w::SMART_CHANNEL_SIZE("w", "a"), "w", "a"),
      sample("ESTIMATE_SIZE", w::ESTIMATE_SIZE("a", "w", "o"), "a", "w", "o"),
      sample("CONST_ZERO_OFF", w::CONST_ZERO_OFF("a"), "a"),
      sample("FP16_CONST_CAST", w::FP16_CONST_CAST("c", "a"), "c", "a"),
      sample("FP16_CONST_CASTSLICE", w::FP16_CONST_CASTSLICE("c", "d", "a"), "c", "d", "a"),
      sample("AUTOSPLIT_SLICE", w::AUTOSPLIT_SLICE("a", "b", "c"), "a", "b", "c"),
      sample("TYPICAL_SLICE", w::TYPICAL_SLICE("a", "I"), "a", "I"),
      sample("CHANGEDIM_SLICE", w::CHANGEDIM_SLICE("a", "I", 2), "a", "I", 2),
      sample("OpMultiOut", w::OpMultiOut(2, 1, "X", "a", "b"), 2, 1, "X", "a", "b"),
      sample("CAST_TO_DTYPE", w::CAST_TO_DTYPE("a", DType::QUInt8), "a", DType::QUInt8),
      sample("CAST_TO_FP16", w::CAST_TO_FP16("a"), "a"),
      sample("CAST_TO_FP32", w::CAST_TO_FP32("a"), "a"),
      sample("MAKE_OP_FP16_AND_INSERT_CAST", w::MAKE_OP_FP16_AND_INSERT_CAST(w::Op("X", "a")), w::Op("X", "a")),
      sample("AUTOTHREAD_HVX", w::AUTOTHREAD_HVX(1, "I", w::Op("X", w::TYPICAL_SLICE("a", "I"))), 1, "I",
             w::Op("X", w::TYPICAL_SLICE("a", "I"))),
      sample("AUTOTHREAD_HMX", w::AUTOTHREAD_HMX(2, "J", w::Op("X", "a")), 2, "J", w::Op("X", "a")),
      sample("CHANNEL_SPLIT_SIZE", w::CHANNEL_SPLIT_SIZE),
      sample("MIN_CHANNEL_SPLIT_SIZE", w::MIN_CHANNEL_SPLIT_SIZE),
      sample("MIN_WIDTH", w::MIN_WIDTH),
      sample("TILE_HEIGHT", w::TILE_HEIGHT),
      sample("TCM_MAXTENSOR_SIZE", w::TCM_MAXTENSOR_SIZE),
      sample("TCM_MAXTENSOR_HALF_SIZE", w::TCM_MAXTENSOR_HALF_SIZE),
  };
}

TEST_CASE("every expansion of the records is what the C++ front end builds for that name") {
  const auto all = samples();
  for (const auto& rec : constructs) {
    if (rec.expansion.empty()) continue;
    INFO(rec.name);
    const auto it = std::find_if(all.begin(), all.end(), [&](const Sample& s) { return s.name == rec.name; });
    REQUIRE(it != all.end());
    CHECK(it->args.size() >= rec.min_args);
    CHECK(it->built == expansion_text::fully_expanded(expansion_text::substituted(rec.expansion, it->args)));
  }
  for (const auto& s : all) {
    INFO(s.name);
    CHECK(find_construct(s.name) != nullptr);
  }
}
}  // namespace
