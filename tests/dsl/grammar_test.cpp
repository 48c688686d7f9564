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

// The words find the records of the names defined by expansion and of the named values by their
// position in their lists (grammar_detail::expanded_record): each position is its name's record.
constexpr bool expanded_positions_are_records() {
  using namespace grammar_detail;
#define OG_TEST_POSITION_(N, ...) \
  if (expanded_record(expanded_##N) != record_index(#N)) return false;
  OPTGRAMMAR_EXPANSION_RECORDS(OG_TEST_POSITION_)
  OPTGRAMMAR_NAMED_VALUES(OG_TEST_POSITION_)
#undef OG_TEST_POSITION_
  return expanded_record(expanded_count) == std::size(constructs) ||
         constructs[expanded_record(expanded_count)].expansion.empty();
}
static_assert(expanded_positions_are_records());

static_assert(find_construct("SAME_SHAPE")->min_args == 2 &&
              find_construct("SAME_SHAPE")->places == (in_constraint | in_replacement));
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
  std::string built;              ///< the canonical text of the C++ front end's tree
  std::vector<std::string> args;  ///< the operands' canonical texts
  bool typed = false;             ///< the tree types (its node is not ill-typed)
};

template <class T>
std::string text_of(const T& v) {
  return canonical_node(detail::to_node(v));
}
template <class N, class... A>
Sample sample(std::string_view name, const N& built, const A&... args) {
  return Sample{name, text_of(built), {text_of(args)...}, detail::node_t<N>::vtype != VType::Bad};
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
      sample("IS_QUANT_SIGNED", w::IS_QUANT_SIGNED("a"), "a"),
      sample("IS_SIGNED_SYMM", w::IS_SIGNED_SYMM("a"), "a"),
      sample("IS_QINT8_SYMM", w::IS_QINT8_SYMM("a"), "a"),
      sample("IS_QINT16_SYMM", w::IS_QINT16_SYMM("a"), "a"),
      sample("IS_QINT32_SYMM", w::IS_QINT32_SYMM("a"), "a"),
      sample("IS_FULLY_CONNECT_WEIGHT", w::IS_FULLY_CONNECT_WEIGHT("a"), "a"),
      sample("IS_FLOAT16_BOTH", w::IS_FLOAT16_BOTH("a", "b"), "a", "b"),
      sample("DIM_CHANNEL", w::DIM_CHANNEL("a"), "a"),
      sample("IS_EMPTY", w::IS_EMPTY("a"), "a"),
      sample("IS_EMPTY_DIM", w::IS_EMPTY_DIM("a", 2), "a", 2),
      sample("SHOULD_AUTOTHREAD1", w::SHOULD_AUTOTHREAD1("a"), "a"),
      sample("SHOULD_AUTOTHREAD2", w::SHOULD_AUTOTHREAD2("a", "b"), "a", "b"),
      sample("SHOULD_AUTOTHREAD3", w::SHOULD_AUTOTHREAD3("a", "b", "c"), "a", "b", "c"),
      sample("SHOULD_AUTOTHREAD_UNARY1", w::SHOULD_AUTOTHREAD_UNARY1("a"), "a"),
      sample("WIDTH_TO_HEIGHTX_CONSTRAINT", w::WIDTH_TO_HEIGHTX_CONSTRAINT("a"), "a"),
      sample("SHOULD_TILE", w::SHOULD_TILE(w::IS_FLOAT32("a"), true), w::IS_FLOAT32("a"), true),
      sample("MESSAGE_IF", w::MESSAGE_IF(w::IS_FLOAT32("a"), "note"), w::IS_FLOAT32("a"), "note"),
      sample("MESSAGE_IFNOT", w::MESSAGE_IFNOT(w::IS_FLOAT32("a"), "note"), w::IS_FLOAT32("a"), "note"),
      sample("MESSAGE_VALUE", w::MESSAGE_VALUE(w::RANK_OF("a"), "rank"), w::RANK_OF("a"), "rank"),
      sample("OPCONST_DDR", w::OPCONST_DDR("a"), "a"),
      sample("OPCONST_FLAT_DDR", w::OPCONST_FLAT_DDR("a"), "a"),
      sample("OPCONST_TCM", w::OPCONST_TCM("a"), "a"),
      sample("OPCONST_FLAT_TCM", w::OPCONST_FLAT_TCM("a"), "a"),
      sample("DWC_ACT_STORAGE_EST", w::DWC_ACT_STORAGE_EST("w", "a", 32), "w", "a", 32),
      sample("DWC_GOOD_WEIGHTS", w::DWC_GOOD_WEIGHTS("w", "a", 32), "w", "a", 32),
      sample("DWC_SMART_CHANNEL_SIZE", w::DWC_SMART_CHANNEL_SIZE("w", "a"), "w", "a"),
      sample("GET_IN_SIZE", w::GET_IN_SIZE(8, 3, 2, 1), 8, 3, 2, 1),
      sample("ESTIMATE_MIN_SIZE", w::ESTIMATE_MIN_SIZE("a", "w", "s", 1, 2), "a", "w", "s", 1, 2),
      sample("ESTIMATE_SIZE_ALIGNED_SLICE", w::ESTIMATE_SIZE_ALIGNED_SLICE("a", "s", "o"), "a", "s", "o"),
      sample("MAX_GOOD_WIDTH_CONV", w::MAX_GOOD_WIDTH_CONV("a", "w", "o", 2, 1, 4096), "a", "w", "o", 2, 1, 4096),
      sample("MAX_GOOD_WIDTH", w::MAX_GOOD_WIDTH("a", "w", "o", 4096), "a", "w", "o", 4096),
      sample("EVEN_TILE_UNDER_CUSTOM", w::EVEN_TILE_UNDER_CUSTOM(300, 256, 8), 300, 256, 8),
      sample("EVEN_TILE_UNDER_CUTOFF2_CUSTOM", w::EVEN_TILE_UNDER_CUTOFF2_CUSTOM(300, 256, 8), 300, 256, 8),
      sample("SMART_EARLY_WIDTH_S2", w::SMART_EARLY_WIDTH_S2("a", "w", "o", 4096, 16), "a", "w", "o", 4096, 16),
      sample("SMART_EARLY_WIDTH_ADAPTIVE_ROUNDING_S2", w::SMART_EARLY_WIDTH_ADAPTIVE_ROUNDING_S2("a", "w", "o", 4096),
             "a", "w", "o", 4096),
      sample("MAX_GOOD_WIDTH_CHANSHUF", w::MAX_GOOD_WIDTH_CHANSHUF("a", "o", 4096), "a", "o", 4096),
      sample("MAX_GOOD_WIDTH_QUANTIZE", w::MAX_GOOD_WIDTH_QUANTIZE("a", "o", 4096), "a", "o", 4096),
      sample("MAX_GOOD_WIDTH_ELEMWISE", w::MAX_GOOD_WIDTH_ELEMWISE("a", "b", "o", 4096), "a", "b", "o", 4096),
      sample("MAX_GOOD_WIDTH_DILATION", w::MAX_GOOD_WIDTH_DILATION("a", "w", "o", 2, 4096), "a", "w", "o", 2, 4096),
      sample("S2S2D_BYTESLEFT", w::S2S2D_BYTESLEFT("w", "a", 4096), "w", "a", 4096),
      sample("S2S2D_MAXWIDTH", w::S2S2D_MAXWIDTH("w", "a", 4096), "w", "a", 4096),
      sample("S2S2D_GOODWIDTH", w::S2S2D_GOODWIDTH("w", "a", 4096), "w", "a", 4096),
      sample("MAX_GOOD_WIDTH_S2D", w::MAX_GOOD_WIDTH_S2D("a", "w", "o", 4096), "a", "w", "o", 4096),
      sample("ESTIMATE_H1_MATMUL_SIZE", w::ESTIMATE_H1_MATMUL_SIZE("a", "b"), "a", "b"),
      sample("SMART_BATCHNORM_WIDTH", w::SMART_BATCHNORM_WIDTH("a", "w", "o", 256), "a", "w", "o", 256),
      sample("GOOD_WIDTH_DEPTHTOSPACE_CHECK", w::GOOD_WIDTH_DEPTHTOSPACE_CHECK("a", "o", 64), "a", "o", 64),
      sample("SMART_WIDTH_DEPTHTOSPACE", w::SMART_WIDTH_DEPTHTOSPACE("a", "o", 128), "a", "o", 128),
      sample("SHAPE_FROM_W1", w::SHAPE_FROM_W1("a"), "a"),
      sample("SHAPE_FROM_H1", w::SHAPE_FROM_H1("a"), "a"),
      sample("REARRANGE_FROM_W1", w::REARRANGE_FROM_W1("a"), "a"),
      sample("REARRANGE_FROM_W1_OP", w::REARRANGE_FROM_W1_OP("a"), "a"),
      sample("REARRANGE_TO_W1", w::REARRANGE_TO_W1(w::Op("X", "a")), w::Op("X", "a")),
      sample("REARRANGE_FROM_H1", w::REARRANGE_FROM_H1("a"), "a"),
      sample("REARRANGE_TO_H1", w::REARRANGE_TO_H1(w::Op("X", "a")), w::Op("X", "a")),
      sample("HEIGHTX_SHAPE", w::HEIGHTX_SHAPE("a"), "a"),
      sample("HEIGHT84_SHAPE", w::HEIGHT84_SHAPE("a"), "a"),
      sample("CHANNEL_SPLIT_SIZE", w::CHANNEL_SPLIT_SIZE),
      sample("MIN_CHANNEL_SPLIT_SIZE", w::MIN_CHANNEL_SPLIT_SIZE),
      sample("MIN_WIDTH", w::MIN_WIDTH),
      sample("TILE_HEIGHT", w::TILE_HEIGHT),
      sample("TCM_MAXTENSOR_SIZE", w::TCM_MAXTENSOR_SIZE),
      sample("TCM_MAXTENSOR_HALF_SIZE", w::TCM_MAXTENSOR_HALF_SIZE),
      sample("MAX_DIMENSIONS", w::MAX_DIMENSIONS),
      sample("CAN_FINE_SPLIT", w::CAN_FINE_SPLIT),
      sample("BIG_WIDTH_SIZE", w::BIG_WIDTH_SIZE),
      sample("DO_BIG_WIDTH_SPLIT", w::DO_BIG_WIDTH_SPLIT),
      sample("AUTOTHREAD_ENABLED", w::AUTOTHREAD_ENABLED),
      sample("SHOULD_AUTOTHREAD", w::SHOULD_AUTOTHREAD),
      sample("SHOULD_AUTOTHREAD_UNARY", w::SHOULD_AUTOTHREAD_UNARY),
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
    CHECK(it->typed);
    CHECK(it->built == expansion_text::fully_expanded(expansion_text::substituted(rec.expansion, it->args)));
  }
  for (const auto& s : all) {
    INFO(s.name);
    CHECK(find_construct(s.name) != nullptr);
  }
}
}  // namespace
