// Writes a rule corpus over every construct family of the grammar (dsl/grammar.hpp), for the
// differential test of the two front ends (differential.cmake, with the texts compared): for
// each record, a well-formed rule that uses it, and for each family, rules that misuse it (an
// operand of a wrong type, a wrong place, a wrong count). The regular families' uses are made
// from their typing column; the families typed by code have uses written below, by family (one
// use serves each record of a family: `{N}` stands for the record's name). Families without a
// use of each kind fail the generator, so that a new family cannot be left out.
//   gen_families > families.cpp
#include <optgrammar/dsl/grammar.hpp>
#include <optgrammar/dsl/typing.hpp>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {
using namespace optgrammar::dsl;

/// One rule: its match, constraint and replacement, with `{N}` for the record's name.
struct Use {
  std::string_view match, constraint, replacement;
};
/// The default parts: a match binding "x", "y", "c" (an op) and "z".
constexpr std::string_view M = R"(Op("A", "x", "y", LET("c", Op("B", "z"))))";
constexpr std::string_view C = "OK";
constexpr std::string_view R = R"(Op("N", "x"))";

/// The uses of the families typed by code: well-formed ones, then ill-formed ones.
struct FamilyUses {
  std::vector<Use> good, bad;
};
const std::map<Family, FamilyUses>& coded() {
  static const std::map<Family, FamilyUses> uses = {
      {Family::Op,
       {{{M, C, R"({N}("N", "x", Op("P", "y")))"}},
        {{M, C, R"({N}("N", 3))"}, {M, C, R"({N}(3, "x"))"}, {M, R"(SAME_OP({N}("N", "x"), "x"))", R}}}},
      {Family::OpVarIn,
       {{{R"(Op("A", {N}("B", "x")))", C, R"("x")"}},
        {{M, C, R"({N}("N", "x"))"}, {R"({N}(3, "x"))", C, R}, {M, R"(SAME_OP({N}("B", "x"), "x"))", R}}}},
      {Family::LET,
       {{{R"(Op("A", {N}("l", Op("B", "x"))))", C, R"("l")"}},
        {{R"({N}("l", Op("B", "x")))", C, R"("x")"},
         {R"(Op("A", {N}("l", "x")))", C, R"("x")"},
         {R"(Op("A", {N}("*", Op("B", "x"))))", C, R"("x")"},
         {M, C, R"(Op("N", {N}("l", Op("B", "x"))))"}}}},
      {Family::OPCONST,
       {{{R"(Op("A", "x", {N}("k")))", R"(GT(CONSTVAL_FLOAT("k", 0), 0.5f))", R"("x")"}},
        {{R"({N}("k"))", C, R"("x")"}, {M, R"(GT(CONSTVAL_FLOAT({N}("k"), 0), 0.5f))", R}}}},
      {Family::FROM_DEFAULT_PACKAGE,
       {{{R"(Op({N}("A"), "x"))", C, R"(Op({N}("N"), "x"))"}},
        {{R"(Op({N}("A", "B"), "x"))", C, R}, {M, R"(SAME_OP({N}("x"), "q"))", R}}}},
      {Family::LAYOUT_CHUNKSIZE,
       {{{M, R"(GT({N}(Crouton, 1), 0U))", R}},
        {{M, R"(GT({N}("Crouton", 1), 0U))", R}, {R"(Op("A", {N}(Crouton, 1)))", C, R}}}},
      {Family::SELECT,
       {{{M, R"({N}(IS_FLOAT32("x"), OK, false))", R"({N}(OK, "x", Op("N", "y")))"}},
        {{M, R"({N}(1, OK, false))", R}, {M, R"(GT({N}(OK, 1, false), 0))", R}, {M, C, R"({N}(OK, "x", "*"))"}}}},
      {Family::EXTERNAL_CONSTRAINT,
       {{{M, R"({N}(ext_c, "x", 3))", R}},
        {{M, R"({N}(ext_c, "x", 0.5f))", R},
         {M, R"({N}(ext_c, "x"))", R},
         {M, R"({N}(ext_s, "x"))", R},
         {M, C, R"(Op("N", {N}(ext_c, "x", 3)))"}}}},
      {Family::MESSAGE,
       {{{M, R"(AND({N}("rank %d", RANK_OF("x")), OK))", R}}, {{M, C, R"({N}("x"))"}, {R"(Op("A", {N}("x")))", C, R}}}},
      {Family::IS_OP,
       {{{M, R"({N}("x", "Relu"))", R}},
        {{M, R"({N}(1, "Relu"))", R}, {M, R"({N}("x", ""))", R}, {M, R"({N}("x", 3))", R}}}},
      {Family::PRODUCER_FOR,
       {{{M, R"({N}(INPUT_OF("*", 0), "Add"))", R}},
        {{M, R"({N}(RANK_OF("x"), "Add"))", R}, {M, C, R"(Op("N", {N}("x", "Add")))"}}}},
      {Family::CAST, {{{M, R"(GT(RANK_OF("x"), {N}(3)))", R}}, {{M, R"(GT(RANK_OF("x"), {N}(RANK_OF("x"))))", R}}}},
      {Family::Operand, {{{M, C, R"(Op("N", {N}("x")))"}}, {{M, C, R"(Op("N", {N}("q")))"}, {M, C, R"({N}("*"))"}}}},
      {Family::WrapOp,
       {{{M, C, R"({N}("W", Op("N", "x")))"}}, {{M, C, R"({N}("W", 3))"}, {M, R"(SAME_OP({N}("W", "x"), "x"))", R}}}},
      {Family::WrapOpAlways, {{{M, C, R"({N}("W", "x"))"}}, {{M, C, R"({N}("W", OK))"}, {M, C, R"({N}("W", "q"))"}}}},
      {Family::gen_ShapeOf,
       {{{M, C, R"(WITH_SIZE({N}("x"), Op("N", "x")))"}},
        {{M, C, R"(WITH_SIZE({N}(Op("P", "x")), Op("N", "x")))"},
         {M, C, R"(WITH_SIZE({N}(3), Op("N", "x")))"},
         {M, R"(SAME_OP({N}("x"), "x"))", R}}}},
      {Family::AUTOSPLIT,
       {{{M, C, R"({N}(1, "I", 4, Op("N", TYPICAL_SLICE("x", "I"))))"}},
        {{M, C, R"({N}(1, "I", 4.5f, Op("N", TYPICAL_SLICE("x", "I"))))"},
         {M, C, R"({N}(1, "I", 4, Op("N", "x")))"},
         {M, C, R"(WITH_SAME_ID("*", {N}(1, "I", 4, Op("N", TYPICAL_SLICE("x", "I")))))"},
         {M, C, R"({N}(1, "I", 4, Op("N", {N}(2, "I", 4, Op("P", TYPICAL_SLICE("x", "I"))))))"}}}},
      {Family::OP_ITER,
       {{{M, C, R"({N}(Op("C"), "I", 0, 2, Op("D", ITER_INPUT_OF("x", "I"))))"}},
        {{M, C, R"({N}(Op("C"), "I", 0, 2.5f, Op("D", ITER_INPUT_OF("x", "I"))))"},
         {M, R"(SAME_OP({N}(Op("C"), "I", 0, 2, "x"), "x"))", R}}}},
      {Family::ITER_INPUT_OF,
       {{{M, C, R"(OP_ITER(Op("C"), "I", 0, 2, Op("D", {N}("x", "I"))))"}},
        {{M, C, R"(Op("D", {N}("x", "I")))"}, {M, C, R"(OP_ITER(Op("C"), "I", 0, 2, Op("D", {N}(3, "I"))))"}}}},
      {Family::AUTOSPLIT_SHAPEFN_APPLY,
       {{{M, C,
          R"(AUTOSPLIT(1, "I", 4, Op("N", AUTOSPLIT_SLICE("x", {N}(simple_split_start, "I", "x"), {N}(simple_split_size, "I", "x")))))"}},
        {{M, C,
          R"(AUTOSPLIT(1, "I", 4, Op("N", AUTOSPLIT_SLICE("x", {N}(simple_split_start, "I", "x", 2), {N}(simple_split_size, "I", "x")))))"},
         {M, C,
          R"(AUTOSPLIT(1, "I", 4, Op("N", AUTOSPLIT_SLICE("x", {N}(ext_s, "I", "x"), {N}(simple_split_size, "I", "x")))))"},
         {M, C, R"(Op("N", WITH_SIZE({N}(simple_split_size, "I", "x"), Op("P", "x"))))"}}}},
      {Family::WITH_SIZE,
       {{{M, C, R"({N}("x", Op("N", "x")))"}, {M, C, R"({N}(gen_Shape(1, 2, 3, 4), Op("N", "x")))"}},
        {{M, C, R"({N}(Op("P", "x"), Op("N", "x")))"},
         {M, C, R"({N}("x", "y"))"},
         {M, C, R"({N}(SELECT(OK, gen_ConstScalar_i32(1), "x"), Op("N", "x")))"}}}},
      {Family::WITH_TYPE,
       {{{M, C, R"({N}("x", Op("N", "x")))"}},
        {{M, C, R"({N}(Op("P", "x"), Op("N", "x")))"}, {M, C, R"({N}(gen_Shape(1), Op("N", "x")))"}}}},
      {Family::WITH_SAME_OUTPUT,
       {{{M, C, R"({N}("x", Op("N", "x")))"}},
        {{M, C, R"({N}("x", 3))"}, {M, R"(SAME_OP({N}("x", Op("N", "x")), "x"))", R}}}},
      {Family::WITH_OUTPUT_TYPE,
       {{{M, C, R"({N}(DType::QUInt8, 0, 1.0f, Op("N", "x")))"}},
        {{M, C, R"({N}(1, 0, 1.0f, Op("N", "x")))"},
         {M, C, R"({N}(DType::QUInt8, 0.5f, 1.0f, Op("N", "x")))"},
         {M, C, R"({N}(DType::QUInt8, 0, OK, Op("N", "x")))"}}}},
      {Family::WITH_MULTI_OUT,
       {{{M, C, R"(Op("M", {N}(2, Op("G", "x"))))"}},
        {{M, C, R"(Op("M", {N}(2, gen_ConstScalar_f32(1.0f))))"}, {M, C, R"(Op("M", {N}(2.0f, Op("G", "x"))))"}}}},
      {Family::ResizeDim,
       {{{M, C, R"({N}(1, 7, Op("N", "x")))"}},
        {{M, C, R"({N}(1.0f, 7, Op("N", "x")))"}, {M, C, R"({N}(1, 7, "x"))"}}}},
      {Family::WITH_SAME_ID, {{{M, C, R"({N}("x", Op("N", "x")))"}}, {{M, C, R"({N}(3, Op("N", "x")))"}}}},
      {Family::WITH_SPLIT_HISTORY,
       {{{M, C, R"({N}("x", 2, Op("N", "x")))"}, {M, C, R"({N}("x", Op("N", "x")))"}},
        {{M, C, R"({N}("x", RANK_OF("x"), Op("N", "x")))"}, {M, C, R"({N}("x", 2.5f, Op("N", "x")))"}}}},
      {Family::EXTERNAL_REPLACE,
       {{{M, C, R"({N}(ext_r))"}},
        {{M, C, R"(Op("N", {N}(ext_r)))"}, {M, C, R"({N}(ext_s))"}, {M, C, R"({N}("ext_r"))"}}}},
      {Family::SHAPEFN_APPLY,
       {{{M, C, R"(WITH_SIZE({N}(ext_s, "x"), Op("N", "x")))"}},
        {{M, C, R"(WITH_SIZE({N}(ext_s, 3), Op("N", "x")))"},
         {M, C, R"(WITH_SIZE({N}(ext_c, "x"), Op("N", "x")))"},
         {M, C, R"(WITH_SIZE({N}(ext_s, "x", 2), Op("N", "x")))"}}}},
      {Family::AUTOSPLIT_SLICE,
       {{{M, C,
          R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x", AUTOSPLIT_SHAPEFN_APPLY(simple_split_start, "I", "x"), AUTOSPLIT_SHAPEFN_APPLY(simple_split_size, "I", "x")))))"}},
        {{M, C,
          R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x", AUTOSPLIT_SHAPEFN_APPLY(simple_split_start, "I", "x"), Op("P", "x")))))"},
         {M, C,
          R"(AUTOSPLIT(1, "I", 4, Op("N", {N}(gen_Shape(1), AUTOSPLIT_SHAPEFN_APPLY(simple_split_start, "I", "x"), gen_Shape(1)))))"},
         {M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x", gen_Shape(1)))))"}}}},
      {Family::TYPICAL_SLICE,
       {{{M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x", "I"))))"}},
        {{M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}(gen_Shape(1, 8, 1, 1), "I"))))"},
         {M, C, R"(Op("N", {N}("x", "I")))"},
         {M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x"))))"}}}},
      {Family::CHANGEDIM_SLICE,
       {{{M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x", "I", 2))))"}},
        {{M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x", "I", 2.5f))))"},
         {M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}(3, "I", 2))))"}}}},
      {Family::TYPICAL_CONV_SLICE,
       {{{M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x", "I", 1, 3))))"}},
        {{M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}(3, "I", 1, 3))))"},
         {M, C, R"(AUTOSPLIT(1, "I", 4, Op("N", {N}("x", "I", gen_Shape(1)))))"},
         {M, C, R"(Op("N", {N}("x", "I", 1)))"}}}},
      {Family::OpMultiOut,
       {{{M, C, R"({N}(2, 1, "S", "x"))"}},
        {{M, C, R"({N}(2, 1))"},
         {M, R"(EQ(RANK_OF({N}(2, 1, "S", "x")), 4))", R},
         {R"({N}(2, 1, "S", "x"))", C, R},
         {M, C, R"({N}(2.5f, 1, "S", "x"))"}}}},
      {Family::NAMED_VALUE,
       {{{M, R"(GT(ADD(RANK_OF("x"), {N}), 0))", R}}, {{M, C, R"(Op("N", {N}))"}, {R"(Op("A", {N}))", C, R}}}},
  };
  return uses;
}

/// The names of the family EXPANDED, each defined by a text of its own: uses by name.
const std::map<std::string_view, FamilyUses>& expanded() {
  static const std::map<std::string_view, FamilyUses> uses = {
      {"MIN_WIDTH_OF", {{{M, R"(GT({N}("x"), 2))", R}}, {{M, R"(GT({N}(3), 2))", R}}}},
      {"SUBS", {{{M, R"(GT({N}(RANK_OF("x"), 2), 0))", R}}, {{M, R"(GT({N}("x", 2), 0))", R}}}},
      {"WEIGHT_STORAGE", {{{M, R"(GT({N}("x", 32), 0))", R}}, {{M, R"(GT({N}("x", 0.5f), 0))", R}}}},
      {"ACT_STORAGE_EST", {{{M, R"(GT({N}("x", "y", 32), 0))", R}}, {{M, R"(GT({N}("x", 3, 32), 0))", R}}}},
      {"GOOD_WEIGHTS", {{{M, R"({N}("x", "y", 64))", R}}, {{M, R"({N}("x", "y", "z"))", R}}}},
      {"SMART_CHANNEL_SIZE", {{{M, R"(GT({N}("x", "y"), 32))", R}}, {{M, R"(GT({N}("x", 1), 32))", R}}}},
      {"ESTIMATE_SIZE", {{{M, R"(GT({N}("x", "y", "z"), 32))", R}}, {{M, R"(GT({N}("x", "y", 2), 32))", R}}}},
      {"CONST_ZERO_OFF", {{{M, C, R"(Op("N", "x", {N}("y")))"}}, {{M, R"(SAME_OP({N}("y"), "x"))", R}}}},
      {"FP16_CONST_CAST", {{{R"(Op("A", {N}("h", "x")))", C, R"("h")"}}, {{R"(Op("A", {N}("*", "x")))", C, R}}}},
      {"FP16_CONST_CASTSLICE",
       {{{R"(Op("A", {N}("h", "s", "x")))", C, R"("h")"}}, {{R"(Op("A", {N}("h", "h", "x")))", C, R}}}},
      {"CAST_TO_DTYPE", {{{M, C, R"({N}("x", DType::Float16))"}}, {{M, C, R"({N}("x", 3))"}}}},
      {"CAST_TO_FP16", {{{M, C, R"({N}("x"))"}}, {{M, C, R"({N}(3))"}}}},
      {"CAST_TO_FP32", {{{M, C, R"({N}("x"))"}}, {{M, R"(SAME_OP({N}("x"), "x"))", R}}}},
      {"MAKE_OP_FP16_AND_INSERT_CAST", {{{M, C, R"({N}(Op("N", "x")))"}}, {{M, C, R"({N}("x"))"}}}},
      {"AUTOTHREAD_HVX",
       {{{M, C, R"({N}(1, "I", Op("N", TYPICAL_SLICE("x", "I"))))"}}, {{M, C, R"({N}(1, "I", Op("N", "x")))"}}}},
      {"AUTOTHREAD_HMX",
       {{{M, C, R"({N}(2, "J", Op("N", TYPICAL_SLICE("x", "J"))))"}},
        {{M, C, R"({N}(0.5f, "J", Op("N", TYPICAL_SLICE("x", "J"))))"}}}},
      {"DWC_ACT_STORAGE_EST", {{{M, R"(GT({N}("y", "x", 32), 0))", R}}, {{M, R"(GT({N}("y", "x", 32, 3), 0))", R}}}},
      {"DWC_SMART_CHANNEL_SIZE", {{{M, R"(GT({N}("y", "x"), 0))", R}}, {{M, R"(GT({N}("y", "x", 3), 0))", R}}}},
      {"GET_IN_SIZE", {{{M, R"(GT({N}(8, 3, 2, 1), 0))", R}}, {{M, R"(GT({N}(8, 3, 2, 1, 3), 0))", R}}}},
      {"ESTIMATE_MIN_SIZE",
       {{{M, R"(GT({N}("x", "y", "*", 1, 2), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 1, 2, 3), 0))", R}}}},
      {"ESTIMATE_SIZE_ALIGNED_SLICE",
       {{{M, R"(GT({N}("x", "y", "*"), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 3), 0))", R}}}},
      {"MAX_GOOD_WIDTH_CONV",
       {{{M, R"(GT({N}("x", "y", "*", 2, 1, 4096), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 2, 1, 4096, 3), 0))", R}}}},
      {"MAX_GOOD_WIDTH",
       {{{M, R"(GT({N}("x", "y", "*", 4096), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 4096, 3), 0))", R}}}},
      {"EVEN_TILE_UNDER_CUSTOM", {{{M, R"(GT({N}(300, 256, 8), 0))", R}}, {{M, R"(GT({N}(300, 256, 8, 3), 0))", R}}}},
      {"EVEN_TILE_UNDER_CUTOFF2_CUSTOM",
       {{{M, R"(GT({N}(300, 256, 8), 0))", R}}, {{M, R"(GT({N}(300, 256, 8, 3), 0))", R}}}},
      {"SMART_EARLY_WIDTH_S2",
       {{{M, R"(GT({N}("x", "y", "*", 4096, 16), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 4096, 16, 3), 0))", R}}}},
      {"SMART_EARLY_WIDTH_ADAPTIVE_ROUNDING_S2",
       {{{M, R"(GT({N}("x", "y", "*", 4096), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 4096, 3), 0))", R}}}},
      {"MAX_GOOD_WIDTH_CHANSHUF",
       {{{M, R"(GT({N}("x", "*", 4096), 0))", R}}, {{M, R"(GT({N}("x", "*", 4096, 3), 0))", R}}}},
      {"MAX_GOOD_WIDTH_QUANTIZE",
       {{{M, R"(GT({N}("x", "*", 4096), 0))", R}}, {{M, R"(GT({N}("x", "*", 4096, 3), 0))", R}}}},
      {"MAX_GOOD_WIDTH_ELEMWISE",
       {{{M, R"(GT({N}("x", "y", "*", 4096), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 4096, 3), 0))", R}}}},
      {"MAX_GOOD_WIDTH_DILATION",
       {{{M, R"(GT({N}("x", "y", "*", 2, 4096), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 2, 4096, 3), 0))", R}}}},
      {"S2S2D_BYTESLEFT", {{{M, R"(GT({N}("y", "x", 4096), 0))", R}}, {{M, R"(GT({N}("y", "x", 4096, 3), 0))", R}}}},
      {"S2S2D_MAXWIDTH", {{{M, R"(GT({N}("y", "x", 4096), 0))", R}}, {{M, R"(GT({N}("y", "x", 4096, 3), 0))", R}}}},
      {"S2S2D_GOODWIDTH", {{{M, R"(GT({N}("y", "x", 4096), 0))", R}}, {{M, R"(GT({N}("y", "x", 4096, 3), 0))", R}}}},
      {"MAX_GOOD_WIDTH_S2D",
       {{{M, R"(GT({N}("x", "y", "*", 4096), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 4096, 3), 0))", R}}}},
      {"ESTIMATE_H1_MATMUL_SIZE", {{{M, R"(GT({N}("x", "y"), 0))", R}}, {{M, R"(GT({N}("x", "y", 3), 0))", R}}}},
      {"SMART_BATCHNORM_WIDTH",
       {{{M, R"(GT({N}("x", "y", "*", 256), 0))", R}}, {{M, R"(GT({N}("x", "y", "*", 256, 3), 0))", R}}}},
      {"SMART_WIDTH_DEPTHTOSPACE",
       {{{M, R"(GT({N}("x", "*", 128), 0))", R}}, {{M, R"(GT({N}("x", "*", 128, 3), 0))", R}}}},
      {"IS_EMPTY_DIM", {{{M, R"({N}("x", 2))", R}}, {{M, R"({N}("x", 2, 3))", R}}}},
      {"DWC_GOOD_WEIGHTS", {{{M, R"({N}("y", "x", 32))", R}}, {{M, R"({N}("y", "x", 32, 3))", R}}}},
      {"GOOD_WIDTH_DEPTHTOSPACE_CHECK", {{{M, R"({N}("x", "*", 64))", R}}, {{M, R"({N}("x", "*", 64, 3))", R}}}},
      {"SHOULD_TILE", {{{M, R"({N}(IS_FLOAT32("x"), GT(RANK_OF("x"), 1)))", R}}, {{M, R"({N}(3))", R}}}},
      {"MESSAGE_IF", {{{M, R"({N}(OK, "note"))", R}}, {{M, R"({N}(OK, 3))", R}}}},
      {"MESSAGE_IFNOT", {{{M, R"({N}(OK, "note"))", R}}, {{M, R"({N}(OK, 3))", R}}}},
      {"MESSAGE_VALUE", {{{M, R"(GT({N}(RANK_OF("x"), "rank"), 0))", R}}, {{M, R"(GT({N}(RANK_OF("x"), 3), 0))", R}}}},
      {"SHAPE_FROM_W1", {{{M, C, R"(WITH_SIZE({N}("x"), Op("N", "x")))"}}, {{M, R"(GT({N}("x"), 0))", R}}}},
      {"SHAPE_FROM_H1", {{{M, C, R"(WITH_SIZE({N}("x"), Op("N", "x")))"}}, {{M, R"(GT({N}("x"), 0))", R}}}},
      {"HEIGHTX_SHAPE", {{{M, C, R"(WITH_SIZE({N}("x"), Op("N", "x")))"}}, {{M, R"(GT({N}("x"), 0))", R}}}},
      {"HEIGHT84_SHAPE", {{{M, C, R"(WITH_SIZE({N}("x"), Op("N", "x")))"}}, {{M, R"(GT({N}("x"), 0))", R}}}},
      {"REARRANGE_FROM_W1", {{{M, C, R"({N}("x"))"}}, {{M, R"(SAME_OP({N}("x"), "x"))", R}}}},
      {"REARRANGE_FROM_W1_OP", {{{M, C, R"({N}("x"))"}}, {{M, R"(SAME_OP({N}("x"), "x"))", R}}}},
      {"REARRANGE_FROM_H1", {{{M, C, R"({N}("x"))"}}, {{M, R"(SAME_OP({N}("x"), "x"))", R}}}},
      {"REARRANGE_TO_W1", {{{M, C, R"({N}(Op("N", "x")))"}}, {{M, R"(SAME_OP({N}(Op("N", "x")), "x"))", R}}}},
      {"REARRANGE_TO_H1", {{{M, C, R"({N}(Op("N", "x")))"}}, {{M, R"(SAME_OP({N}(Op("N", "x")), "x"))", R}}}},
  };
  return uses;
}

// ---- the regular families, from their typing column ---------------------------------------------
/// A value of type t, written as a rule writes it.
std::string_view sample(VType t) {
  switch (t) {
    case VType::Bool: return R"(IS_FLOAT32("x"))";
    case VType::Int: return "4";
    case VType::Size: return R"(RANK_OF("x"))";
    case VType::Float: return R"(STEPSIZE_OF("x"))";
    case VType::DType: return R"(DTYPE_OF("x"))";
    case VType::OpRef: return R"("x")";
    case VType::OpBuild: return R"(Op("P", "x"))";
    case VType::Shape: return "gen_Shape(1, 2, 3, 4)";
    case VType::NewConst: return "gen_ConstScalar_i32(1)";
    default: return R"("x")";
  }
}
/// A type an operand of kind k takes, and one it does not.
VType fitting(OperandKind k) {
  switch (k) {
    case OperandKind::boolean: return VType::Bool;
    case OperandKind::number:
    case OperandKind::numeric:
    case OperandKind::integral:
    case OperandKind::scalar:
    case OperandKind::comparable:
    case OperandKind::dtype_code: return VType::Int;
    case OperandKind::opref: return VType::OpRef;
    default: return VType::Bad;
  }
}
VType misfitting(OperandKind k) {
  switch (k) {
    case OperandKind::boolean: return VType::Int;
    case OperandKind::number: return VType::Bool;
    case OperandKind::integral: return VType::Float;
    case OperandKind::numeric:
    case OperandKind::comparable:
    case OperandKind::dtype_code: return VType::OpRef;
    case OperandKind::scalar: return VType::Shape;
    case OperandKind::opref: return VType::Int;
    default: return VType::Bad;
  }
}

/// A use of a regular family's record: its operands, then the use in a rule for its result type
/// (a constraint where it may stand in one, else a replacement).
struct Written {
  std::string match = std::string(M), constraint = std::string(C), replacement = std::string(R);
};
Written in_rule(const Construct& rec, const std::string& e) {
  Written w;
  const Typing& t = typing_of(rec.family);
  const bool splits = t.names() > 0 && t.kinds[0] == OperandKind::split_tag;
  std::string value;
  switch (t.result) {
    case ResultRule::bool_: value = e; break;
    case ResultRule::dtype: value = "EQ(" + e + ", DType::QUInt8)"; break;
    case ResultRule::opref: value = "SAME_OP(" + e + ", \"x\")"; break;
    case ResultRule::shape: w.replacement = "WITH_SIZE(" + e + ", Op(\"N\", \"x\"))"; return w;
    case ResultRule::constant: w.replacement = "Op(\"N\", \"x\", " + e + ")"; return w;
    default: value = "GT(" + e + ", 0)";
  }
  if (splits)  // a split variable: in the last operand of its AUTOSPLIT
    w.replacement = "AUTOSPLIT(1, \"I\", 4, Op(\"N\", TYPICAL_SLICE(\"x\", \"I\"), gen_ConstScalar_i32(SELECT(" +
                    value + ", 1, 2))))";
  else if (rec.places & in_constraint)
    w.constraint = value;
  else
    w.replacement = "Op(\"N\", \"x\", gen_ConstScalar_i32(SELECT(" + value + ", 1, 2)))";
  return w;
}
std::string call(std::string_view name, const std::vector<std::string>& ops) {
  std::string s(name);
  s += '(';
  for (std::size_t i = 0; i < ops.size(); ++i) s += (i ? ", " : "") + ops[i];
  return s + ')';
}
/// The operands of a well-formed use: each of a type its kind takes.
std::vector<std::string> good_operands(const Construct& rec) {
  const Typing& t = typing_of(rec.family);
  std::vector<std::string> ops;
  for (std::size_t i = 0; i < rec.min_args; ++i) {
    const OperandKind k = t.kind(i);
    if (k == OperandKind::option_name)
      ops.emplace_back("\"opt\"");
    else if (k == OperandKind::split_tag)
      ops.emplace_back("\"I\"");
    else
      ops.emplace_back(sample(fitting(k)));
  }
  return ops;
}

void print(const Written& w) {
  std::printf("DEF_PACKAGE_OPTIMIZATION(EARLY, %s, %s, %s)\n", w.match.c_str(), w.constraint.c_str(),
              w.replacement.c_str());
}
std::string with_name(std::string_view part, std::string_view name) {
  std::string s(part);
  for (std::size_t at; (at = s.find("{N}")) != std::string::npos;) s.replace(at, 3, name);
  return s;
}
void print(const Use& u, std::string_view name) {
  print(Written{with_name(u.match, name), with_name(u.constraint, name), with_name(u.replacement, name)});
}
}  // namespace

int main() {
  std::puts(
      "// Generated by tests/og-parse/differential/gen_families.cpp: every construct family, used well and misused.");
  std::puts("#include <optgrammar/rules.hpp>");
  std::puts("[[maybe_unused]] static bool ext_c(optgrammar::Constraint &c, optgrammar::OpRef x, int depth) {");
  std::puts("  (void)c, (void)x;");
  std::puts("  return depth > 0;");
  std::puts("}");
  std::puts(
      "[[maybe_unused]] static optgrammar::QuickShape ext_s(optgrammar::Replacement &rpx, optgrammar::OpRef x) {");
  std::puts("  (void)rpx, (void)x;");
  std::puts("  return {};");
  std::puts("}");
  std::puts(
      "[[maybe_unused]] static optgrammar::OpRef ext_r(optgrammar::Replacement &rpx, optgrammar::OpDef const &def) {");
  std::puts("  (void)def;");
  std::puts("  return rpx.root();");
  std::puts("}");
  std::set<Family> good, bad;
  for (const Construct& rec : constructs) {
    const Family f = rec.family;
    const Typing& t = typing_of(f);
    if (f == Family::EXPANDED) {
      const auto it = expanded().find(rec.name);
      if (it == expanded().end()) {
        std::fprintf(stderr, "gen_families: no use of the EXPANDED name %.*s\n", static_cast<int>(rec.name.size()),
                     rec.name.data());
        return 1;
      }
      for (const Use& u : it->second.good) print(u, rec.name);
      for (const Use& u : it->second.bad) print(u, rec.name);
      good.insert(f), bad.insert(f);
      continue;
    }
    if (!t.regular()) {
      const auto it = coded().find(f);
      if (it == coded().end()) continue;  // reported below
      for (const Use& u : it->second.good) print(u, rec.name);
      good.insert(f);
      if (bad.insert(f).second)  // the misuses, once per family
        for (const Use& u : it->second.bad) print(u, rec.name);
      continue;
    }
    // a regular family: its operands of fitting types, then each operand of a type it does not
    // take (once per family), the construct in the match, and one operand too many
    const std::vector<std::string> ops = good_operands(rec);
    print(in_rule(rec, call(rec.name, ops)));
    good.insert(f);
    if (!bad.insert(f).second) continue;
    for (std::size_t i = t.names(); i < ops.size(); ++i) {
      std::vector<std::string> wrong = ops;
      wrong[i] = std::string(sample(misfitting(t.kind(i))));
      print(in_rule(rec, call(rec.name, wrong)));
    }
    print(Written{"Op(\"A\", \"x\", " + call(rec.name, ops) + ")", std::string(C), std::string(R)});
    if (rec.max_args != any_count) {
      std::vector<std::string> more = ops;
      more.emplace_back("3");
      print(in_rule(rec, call(rec.name, more)));
    }
  }
  int missing = 0;
  for (int i = 0; i <= static_cast<int>(Family::EXPANDED); ++i) {
    const auto f = static_cast<Family>(i);
    if (good.count(f) && bad.count(f)) continue;
    const std::string_view n = family_name(f);
    std::fprintf(stderr, "gen_families: the family %.*s has no use\n", static_cast<int>(n.size()), n.data());
    ++missing;
  }
  return missing == 0 ? 0 : 1;
}
