// The constructs of the rule language: one record per name a rule may write.
//
// Plain data (the standard library and core/dtype.hpp only), read by both front ends and the
// docs: where a construct may appear, how many operands it takes, which construct family it
// belongs to, and for the names defined as an expansion of others, the expansion (`$1`, `$2`,
// ... stand for the operands, as the canonical form prints them) and the reader of its text.
// og-parse builds its name table, its operand-count check and its place check from these
// records; the C++ front end's node kinds (dsl/node.hpp), their names and its words of regular
// form (dsl/words.hpp) are generated from the family table below; the pages of docs/grammar/ are
// generated from them.
#pragma once

#include "optgrammar/core/dtype.hpp"
#include "optgrammar/core/preprocessor.hpp"

#include <cstddef>
#include <string_view>

namespace optgrammar::dsl {

/// Where a construct may be written.
enum Place : unsigned char {
  in_match = 1,        ///< the match pattern
  in_constraint = 2,   ///< the constraint, and scalar operands anywhere
  in_replacement = 4,  ///< the replacement's constructions
};

/// The construct families: the constructs checked alike (IS_* names, DIM_* names and functional
/// casts each form one family, told apart by `extra`). EXPANDED is the family of names that are
/// nothing but their record's expansion, with no typing of their own: both front ends build them
/// from the record's text, with no code of their own per name. Each family is written
/// `X(family, topic, node, form, typing)`:
/// - topic: the page of the reference (docs/grammar/<topic>.md) that describes it;
/// - node: `node(K)` when the C++ front end makes rule nodes of kind K for it (dsl/node.hpp's
///   `Kind` is generated from this column), `none` for a family that is an expansion of others;
/// - form: how the C++ front end's word is written (dsl/words.hpp), derived from this column
///   for the regular forms: `unary`, `binary`, `fixed3`, `fixed4` (operands of any kind, that
///   many), `nary` (one or more), `variadic` (any number), `named` (one string: an option name or
///   a split tag); `own` words are written by hand. For a family of node `none` defined by
///   expansion (OPTGRAMMAR_EXPANSION_RECORDS), the form gives its names' operand counts and the
///   words are those of its records;
/// - typing: `typed(RESULT, KIND...)` for a regular family, which both front ends type from this
///   column alone (dsl/typing.hpp): the kind of each written operand in order (the last one also
///   stands for further operands of a nary family) and the rule for the result. The kinds:
///   `boolean` (bool), `number` (int, size or float), `numeric` (bool, int, size or float),
///   `integral` (int or size), `scalar` (bool, int, size, float or dtype), `comparable` (a
///   scalar; a dtype only with a dtype), `dtype_code` (int, size or dtype), `opref` (an existing
///   opref), and two strings the construct keeps rather than typed operands, `option_name` and
///   `split_tag`. The result: `bool_`, `int_`, `size`, `float_`, `dtype` or `opref` (that type),
///   `shape` or `constant` (a shape or constant construction), or `common` (the common type of
///   the operands, as C converts them: float, then size, then int). `code` marks a family typed
///   by code of its own in each front end (SELECT, Op, LET, the modifiers, the Op constructions,
///   the external functions, ...). The operand faults of a
///   regular family are derived from its kinds too (dsl/typing.hpp's type_operands).
// clang-format off
#define OPTGRAMMAR_CONSTRUCT_FAMILIES(X) \
  X(Op, match, node(Op), own, code) \
  X(OpVarIn, match, node(OpVarIn), own, code) \
  X(LET, match, node(Let), own, code) \
  X(OPCONST, match, none, own, code) \
  X(FROM_DEFAULT_PACKAGE, compat, none, own, code) \
  X(LAYOUT_CHUNKSIZE, constants, node(LayoutChunksize), own, code) \
  X(OPTION_INT, options, node(OptionInt), named, typed(int_, option_name)) \
  X(OPTION_UINT, options, node(OptionUint), named, typed(size, option_name)) \
  X(OPTION_BOOL, options, node(OptionBool), named, typed(bool_, option_name)) \
  X(OPTION_FLOAT, options, node(OptionFloat), named, typed(float_, option_name)) \
  X(INT, constraints, node(CastInt), unary, typed(int_, scalar)) \
  X(UINT, constraints, node(CastUint), unary, typed(size, numeric)) \
  X(FLOAT, constraints, node(CastFloat), unary, typed(float_, numeric)) \
  X(DTYPE, constraints, node(CastDType), unary, typed(dtype, dtype_code)) \
  X(NOT, constraints, node(Not), unary, typed(bool_, boolean)) \
  X(NEG, constraints, node(Neg), unary, typed(common, number)) \
  X(ABS, constraints, node(Abs), unary, typed(common, number)) \
  X(IS_POW2, constraints, node(IsPow2), unary, typed(bool_, integral)) \
  X(SELECT, constraints, node(Select), fixed3, code) \
  X(ROUNDUP, constraints, node(Roundup), binary, typed(common, integral, integral)) \
  X(LCM, constraints, node(Lcm), binary, typed(common, integral, integral)) \
  X(AND, constraints, node(And), nary, typed(bool_, boolean)) \
  X(OR, constraints, node(Or), nary, typed(bool_, boolean)) \
  X(XOR, constraints, node(Xor), nary, typed(bool_, boolean)) \
  X(ADD, constraints, node(Add), nary, typed(common, number)) \
  X(MUL, constraints, node(Mul), nary, typed(common, number)) \
  X(MIN, constraints, node(Min), nary, typed(common, number)) \
  X(MAX, constraints, node(Max), nary, typed(common, number)) \
  X(SUB, constraints, node(Sub), binary, typed(common, number, number)) \
  X(DIV, constraints, node(Div), binary, typed(common, number, number)) \
  X(REM, constraints, node(Rem), binary, typed(common, number, number)) \
  X(MOD, constraints, node(Mod), binary, typed(common, number, number)) \
  X(EQ, constraints, node(Eq), binary, typed(bool_, comparable, comparable)) \
  X(NE, constraints, node(Ne), binary, typed(bool_, comparable, comparable)) \
  X(LT, constraints, node(Lt), binary, typed(bool_, numeric, numeric)) \
  X(GT, constraints, node(Gt), binary, typed(bool_, numeric, numeric)) \
  X(LE, constraints, node(Le), binary, typed(bool_, numeric, numeric)) \
  X(GE, constraints, node(Ge), binary, typed(bool_, numeric, numeric)) \
  X(INPUT_OF, properties, node(InputOf), binary, typed(opref, opref, integral)) \
  X(OUTPUT_OF, properties, node(OutputOf), binary, typed(opref, opref, integral)) \
  X(RANK_OF, properties, node(RankOf), unary, typed(size, opref)) \
  X(DIM_OF, properties, node(DimOf), binary, typed(size, opref, integral)) \
  X(STEPSIZE_OF, properties, node(StepsizeOf), unary, typed(float_, opref)) \
  X(DTYPE_OF, properties, node(DTypeOf), unary, typed(dtype, opref)) \
  X(ELEMENTSIZE_OF, properties, node(ElementsizeOf), unary, typed(size, opref)) \
  X(INPUTS_OF, properties, node(InputsOf), unary, typed(size, opref)) \
  X(OUTPUTS_OF, properties, node(OutputsOf), unary, typed(size, opref)) \
  X(ZERO_OFFSET_OF, properties, node(ZeroOffsetOf), unary, typed(int_, opref)) \
  X(SAME_ENCODING, properties, node(SameEncoding), binary, typed(bool_, opref, opref)) \
  X(SAME_OP, properties, node(SameOp), binary, typed(bool_, opref, opref)) \
  X(IS_AUTOTHREADED, properties, node(IsAutothreaded), unary, typed(bool_, opref)) \
  X(DATA_SIZE, properties, node(DataSize), unary, typed(size, opref)) \
  X(IS_OP, properties, node(IsOp), own, code) \
  X(PRODUCER_FOR, properties, node(ProducerFor), own, code) \
  X(CONSTVAL_INT, constants, node(ConstvalInt), binary, typed(int_, opref, integral)) \
  X(CONSTVAL_INT_VALID, constants, node(ConstvalIntValid), binary, typed(bool_, opref, integral)) \
  X(CONSTVAL_FLOAT, constants, node(ConstvalFloat), binary, typed(float_, opref, integral)) \
  X(CONSTVAL_FLOAT_VALID, constants, node(ConstvalFloatValid), binary, typed(bool_, opref, integral)) \
  X(SPLIT_DIM, splitting, node(SplitDim), named, typed(int_, split_tag)) \
  X(SPLIT_START, splitting, node(SplitStart), named, typed(int_, split_tag)) \
  X(SPLIT_SIZE, splitting, node(SplitSize), named, typed(int_, split_tag)) \
  X(ITER_VAR, splitting, node(IterVar), named, typed(int_, split_tag)) \
  X(EXTERNAL_CONSTRAINT, external, node(ExternalConstraint), own, code) \
  X(MESSAGE, constraints, node(Message), own, code) \
  X(IS_QTYPE, compat, none, unary, typed(bool_, opref)) \
  X(DIM_N, compat, none, unary, typed(size, opref)) \
  X(SAME_SHAPE, compat, none, binary, typed(bool_, opref, opref)) \
  X(IS_SCALAR, compat, none, unary, typed(bool_, opref)) \
  X(IS_QUANT_TYPE, compat, none, unary, typed(bool_, opref)) \
  X(SAME_QUANT, compat, none, binary, typed(bool_, opref, opref)) \
  X(CEILDIV, compat, none, binary, typed(common, number, number)) \
  X(SHAPE_SIZE, compat, none, unary, typed(size, opref)) \
  X(BINARY_TEST, compat, none, fixed3, typed(bool_, opref, opref, opref)) \
  X(CAST, constants, none, own, code) \
  X(Operand, replacement, none, own, code) \
  X(WrapOp, replacement, node(WrapOp), own, code) \
  X(WrapOpAlways, replacement, node(WrapOpAlways), own, code) \
  X(gen_Shape, replacement, node(GenShape), variadic, typed(shape, integral)) \
  X(gen_ShapeOf, replacement, node(GenShapeOf), unary, code) \
  X(gen_ConstScalar_f32, replacement, node(GenConstScalarF32), unary, typed(constant, number)) \
  X(gen_ConstScalar_i32, replacement, node(GenConstScalarI32), unary, typed(constant, integral)) \
  X(gen_ConstArr_f32, replacement, node(GenConstArrF32), binary, typed(constant, number, integral)) \
  X(gen_ConstArr_i32, replacement, node(GenConstArrI32), binary, typed(constant, number, integral)) \
  X(gen_ConstArr_vals_i32, replacement, node(GenConstArrValsI32), variadic, typed(constant, integral)) \
  X(AUTOSPLIT, splitting, node(Autosplit), own, code) \
  X(OP_ITER, splitting, node(OpIter), own, code) \
  X(ITER_INPUT_OF, splitting, node(IterInputOf), own, code) \
  X(AUTOSPLIT_SHAPEFN_APPLY, splitting, node(AutosplitShapefnApply), own, code) \
  X(WITH_SIZE, modifiers, node(WithSize), binary, code) \
  X(WITH_TYPE, modifiers, node(WithType), binary, code) \
  X(WITH_SAME_OUTPUT, modifiers, node(WithSameOutput), binary, code) \
  X(WITH_OUTPUT_TYPE, modifiers, node(WithOutputType), fixed4, code) \
  X(WITH_MULTI_OUT, modifiers, node(WithMultiOut), binary, code) \
  X(ResizeDim, modifiers, node(ResizeDim), fixed3, code) \
  X(WITH_SAME_ID, modifiers, node(WithSameId), binary, code) \
  X(WITH_SPLIT_HISTORY, modifiers, node(WithSplitHistory), own, code) \
  X(EXTERNAL_REPLACE, external, node(ExternalReplace), own, code) \
  X(SHAPEFN_APPLY, external, node(ShapefnApply), own, code) \
  X(AUTOSPLIT_SLICE, splitting, none, own, code) \
  X(TYPICAL_SLICE, splitting, none, own, code) \
  X(CHANGEDIM_SLICE, splitting, none, own, code) \
  X(TYPICAL_CONV_SLICE, splitting, node(TypicalConvSlice), own, code) \
  X(OpMultiOut, replacement, none, own, code) \
  X(NAMED_VALUE, compat, none, own, code) \
  X(EXPANDED, compat, none, own, code)
// clang-format on

/// Reading the node column: OPTGRAMMAR_NODE_ENUM_##K gives `K,` for node(K) and nothing for
/// none; OPTGRAMMAR_NODE_IF_##K(x) gives `x,` for node(K) and nothing for none;
/// OPTGRAMMAR_NODE_KIND_##K gives K.
#define OPTGRAMMAR_NODE_ENUM_node(k) k,
#define OPTGRAMMAR_NODE_ENUM_none
#define OPTGRAMMAR_NODE_IF_node(k) OPTGRAMMAR_NODE_ITEM_
#define OPTGRAMMAR_NODE_IF_none(x)
#define OPTGRAMMAR_NODE_ITEM_(x) x,
#define OPTGRAMMAR_NODE_KIND_node(k) k
/// OPTGRAMMAR_NODE_KEEP_##K(x) gives x for node(K) and nothing for none.
#define OPTGRAMMAR_NODE_KEEP_node(k) OPTGRAMMAR_NODE_KEEP_ITEM_
#define OPTGRAMMAR_NODE_KEEP_none(x)
#define OPTGRAMMAR_NODE_KEEP_ITEM_(x) x

enum class Family : unsigned char {
#define OPTGRAMMAR_FAMILY_ENUM_(F, T, K, W, Y) F,
  OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_FAMILY_ENUM_)
#undef OPTGRAMMAR_FAMILY_ENUM_
};

/// The topics of the reference, one page of docs/grammar/ each, in the order of its index. The
/// last two have no construct records: they describe the rule's frame (pass spec, flags) and names
/// kept for package sources written for the original framework.
// clang-format off
#define OPTGRAMMAR_CONSTRUCT_TOPICS(X) \
  X(match) X(constraints) X(constants) X(options) X(properties) X(replacement) X(modifiers) \
  X(splitting) X(external) X(compat) X(registration)
// clang-format on

enum class Topic : unsigned char {
#define OPTGRAMMAR_TOPIC_ENUM_(T) T,
  OPTGRAMMAR_CONSTRUCT_TOPICS(OPTGRAMMAR_TOPIC_ENUM_)
#undef OPTGRAMMAR_TOPIC_ENUM_
};

/// The topic's page name (`match` for docs/grammar/match.md).
constexpr std::string_view topic_name(Topic t) noexcept {
  constexpr std::string_view names[] = {
#define OPTGRAMMAR_TOPIC_NAME_(T) #T,
      OPTGRAMMAR_CONSTRUCT_TOPICS(OPTGRAMMAR_TOPIC_NAME_)
#undef OPTGRAMMAR_TOPIC_NAME_
  };
  return names[static_cast<std::size_t>(t)];
}

/// The topic a family is described under.
constexpr Topic topic_of(Family f) noexcept {
  constexpr Topic topics[] = {
#define OPTGRAMMAR_FAMILY_TOPIC_(F, T, K, W, Y) Topic::T,
      OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_FAMILY_TOPIC_)
#undef OPTGRAMMAR_FAMILY_TOPIC_
  };
  return topics[static_cast<std::size_t>(f)];
}

inline constexpr unsigned char any_count = 255;  ///< no upper bound on the operands

/// The form column of the families (see OPTGRAMMAR_CONSTRUCT_FAMILIES).
enum class WordForm : unsigned char { own, named, unary, binary, fixed3, fixed4, nary, variadic };

constexpr WordForm word_form(Family f) noexcept {
  constexpr WordForm forms[] = {
#define OPTGRAMMAR_FAMILY_FORM_(F, T, K, W, Y) WordForm::W,
      OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_FAMILY_FORM_)
#undef OPTGRAMMAR_FAMILY_FORM_
  };
  return forms[static_cast<std::size_t>(f)];
}

/// One name a rule may write.
struct Construct {
  std::string_view name;
  Family family;
  unsigned char places;  ///< Place bits
  unsigned char min_args;
  unsigned char max_args;  ///< any_count: no bound
  int extra = 0;           ///< the DType index of IS_*, the dimension of DIM_*, the cast's target ('i', 's', 'f')
  std::string_view expansion = {};  ///< for names defined by others: the canonical text, operands as $1, $2, ...
};

/// Reading the expansion texts of the records below, at compile time (the C++ front end's words,
/// dsl/words.hpp) or at run time (og-parse), so that both read them alike. A text is a term:
/// `$k` (the k-th written operand), `$k...` (the k-th written operand and all after it, as
/// operands of the enclosing name), a decimal integer, a decimal float (`1.0f`), a string in
/// double quotes (no escapes), `DType::Name`, a function's name (the framework's shape
/// functions), a name of a record followed by its operands in parentheses, separated by
/// commas, or a named value's name alone (OPTGRAMMAR_NAMED_VALUES).

/// The index of a name's record in `constructs` (defined after it).
constexpr std::size_t record_index(std::string_view name);
/// The record of a written name, or nullptr (defined after `constructs`).
constexpr const Construct* find_construct(std::string_view name) noexcept;
/// Whether `name` is one of OPTGRAMMAR_NAMED_VALUES (written without operands).
constexpr bool named_value(std::string_view name) noexcept;

/// One term of an expansion text.
struct ExpansionTerm {
  enum Form : unsigned char { operand, rest, integer, floating, string, dtype, function, call } form = integer;
  std::size_t value = 0;   ///< operand, rest: the operand's number (from 1); integer: the value;
                           ///< string, function: its length; dtype: the DType; call: the record
                           ///< of the name
  double real = 0;         ///< floating: the value
  std::size_t n = 0;       ///< call: the operand count
  std::size_t at[8] = {};  ///< call: where each operand's text starts
};

constexpr bool expansion_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
constexpr bool expansion_digit(char c) { return c >= '0' && c <= '9'; }

/// An operand of an expansion text, `$k` or `$k...`: its number k (0 when no digit follows the
/// `$`), whether `...` follows, and where its text ends.
struct ExpansionOperand {
  std::size_t k = 0;
  bool rest = false;
  std::size_t end = 0;
};
/// The operand whose `$` is p[i] in the text of `size` characters at `p`. Read through a
/// pointer, with no call per character: expansion() counts the operands of every text in every
/// translation unit, and a call of string_view's members costs the constant evaluator memory for
/// each.
constexpr ExpansionOperand expansion_operand(const char* p, std::size_t size, std::size_t i) {
  ExpansionOperand r;
  std::size_t k = i + 1;
  for (; k < size && p[k] >= '0' && p[k] <= '9'; ++k) r.k = r.k * 10 + static_cast<std::size_t>(p[k] - '0');
  r.rest = k + 2 < size && p[k] == '.' && p[k + 1] == '.' && p[k + 2] == '.';
  r.end = k;
  return r;
}

/// The term of text `t` that starts at `i` (a name's record is looked up only for a call).
constexpr ExpansionTerm expansion_term(std::string_view t, std::size_t i) {
  ExpansionTerm r;
  if (t[i] == '$') {
    const ExpansionOperand o = expansion_operand(t.data(), t.size(), i);
    r.form = o.rest ? ExpansionTerm::rest : ExpansionTerm::operand;
    r.value = o.k;
    return r;
  }
  if (expansion_digit(t[i])) {
    r.form = ExpansionTerm::integer;
    std::size_t k = i;
    for (; k < t.size() && expansion_digit(t[k]); ++k) r.value = r.value * 10 + static_cast<std::size_t>(t[k] - '0');
    if (k < t.size() && t[k] == '.') {
      r.form = ExpansionTerm::floating;
      r.real = static_cast<double>(r.value);
      for (double scale = 0.1; ++k < t.size() && expansion_digit(t[k]); scale /= 10) r.real += scale * (t[k] - '0');
    }
    return r;
  }
  if (t[i] == '"') {
    r.form = ExpansionTerm::string;
    while (i + 1 + r.value < t.size() && t[i + 1 + r.value] != '"') ++r.value;
    return r;
  }
  std::size_t e = i;
  while (e < t.size() && expansion_name_char(t[e])) ++e;
  const std::string_view name = t.substr(i, e - i);
  if (name == "DType" && t.substr(e, 2) == "::") {
    std::size_t f = e + 2;
    while (f < t.size() && expansion_name_char(t[f])) ++f;
    const auto d = ::optgrammar::parse_dtype(t.substr(e + 2, f - e - 2));
    if (!d) throw "unknown DType in an expansion text";
    r.form = ExpansionTerm::dtype;
    r.value = static_cast<std::size_t>(*d);
    return r;
  }
  if (e >= t.size() || t[e] != '(') {
    if (named_value(name)) {  // TCM_MAXTENSOR_SIZE: a call of no operands
      r.form = ExpansionTerm::call;
      r.value = record_index(name);
      return r;
    }
    r.form = ExpansionTerm::function;
    r.value = name.size();
    return r;
  }
  r.form = ExpansionTerm::call;
  r.value = record_index(name);
  // the operands: each starts after '(' or after a ',' at depth one
  int depth = 0;
  for (std::size_t k = e; k < t.size(); ++k) {
    if (t[k] == '(' && depth++ == 0)
      r.at[r.n++] = k + 1;
    else if (t[k] == ',' && depth == 1) {
      if (r.n == 8) throw "more than 8 operands in an expansion text";
      r.at[r.n++] = k + 1;
    } else if (t[k] == ')' && --depth == 0)
      break;
  }
  if (r.n == 1 && t[r.at[0]] == ')') r.n = 0;
  return r;
}

/// The names defined as an expansion of others: `X(name, family, places, expansion)`, the
/// operands written `$1`, `$2`, ... in the text (their count is the highest; `$k...` admits any
/// number more). For a family with a typing (IS_*, DIM_*, SAME_SHAPE, ...), both front ends first
/// check the written operands against it, under the name as written; the casts of the EXPANDED
/// family are checked as their expansion; the other families (OPCONST, the *_SLICE names,
/// OpMultiOut, ...) are typed by code of each front end, which names the construct as written.
/// Both front ends build the expansion from its text (the C++ front end at compile time,
/// dsl/words.hpp; og-parse when it checks the rule); this list makes the names' records and their
/// C++ words. (The casts around an op are written as packages write them for relaxed precision:
/// the replaced op's size unless said otherwise; CAST_TO_FP16 takes its operand's.) The names
/// after AUTOTHREAD_HMX are the rest of the framework's rule headers (docs/htp-compat.md): its
/// constant placements (OPCONST_TCM, ...) steer only its device's memory, so each matches the
/// constant itself; its size heuristics are its 2023 headers' formulas, and those of its 2020
/// headers only (MAX_GOOD_WIDTH_DILATION, S2S2D_*, MAX_GOOD_WIDTH_S2D) the 2020 ones.
// clang-format off
#define OPTGRAMMAR_EXPANSION_RECORDS(X) \
  X(IS_FLOAT32, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::Float32)") \
  X(IS_FLOAT, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::Float32)") \
  X(IS_FLOAT16, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::Float16)") \
  X(IS_QUINT8, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::QUInt8)") \
  X(IS_QINT8, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::QInt8)") \
  X(IS_QUINT16, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::QUInt16)") \
  X(IS_QINT16, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::QInt16)") \
  X(IS_QINT32, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::QInt32)") \
  X(IS_INT32, IS_QTYPE, CR, "EQ(DTYPE_OF($1),DType::Int32)") \
  X(DIM_BATCHES, DIM_N, CR, "DIM_OF($1,0)") \
  X(DIM_HEIGHT, DIM_N, CR, "DIM_OF($1,1)") \
  X(DIM_WIDTH, DIM_N, CR, "DIM_OF($1,2)") \
  X(DIM_DEPTH, DIM_N, CR, "DIM_OF($1,3)") \
  X(DIM_FILTHEIGHT, DIM_N, CR, "DIM_OF($1,0)") \
  X(DIM_FILTWIDTH, DIM_N, CR, "DIM_OF($1,1)") \
  X(DIM_FILTDEPTH, DIM_N, CR, "DIM_OF($1,2)") \
  X(DIM_NFILTS, DIM_N, CR, "DIM_OF($1,3)") \
  X(SAME_SHAPE, SAME_SHAPE, CR, "AND(EQ(DIM_OF($1,3),DIM_OF($2,3)),EQ(DIM_OF($1,2),DIM_OF($2,2)),EQ(DIM_OF($1,1),DIM_OF($2,1)),EQ(DIM_OF($1,0),DIM_OF($2,0)))") \
  X(IS_SCALAR, IS_SCALAR, CR, "AND(EQ(DIM_OF($1,0),1),EQ(DIM_OF($1,1),1),EQ(DIM_OF($1,2),1),EQ(DIM_OF($1,3),1))") \
  X(IS_NOT_SCALAR, IS_SCALAR, CR, "OR(NE(DIM_OF($1,0),1),NE(DIM_OF($1,1),1),NE(DIM_OF($1,2),1),NE(DIM_OF($1,3),1))") \
  X(IS_SHAPE_1x1x1xd, IS_SCALAR, CR, "AND(EQ(DIM_OF($1,0),1),EQ(DIM_OF($1,1),1),EQ(DIM_OF($1,2),1),NE(RANK_OF($1),5))") \
  X(IS_SHAPE_1x1x1x1xc, IS_SCALAR, CR, \
    "AND(EQ(RANK_OF($1),5),EQ(DIM_OF($1,0),1),EQ(DIM_OF($1,1),1),EQ(DIM_OF($1,2),1),EQ(DIM_OF($1,3),1))") \
  X(IS_QUANT_TYPE, IS_QUANT_TYPE, CR, "OR(EQ(DTYPE_OF($1),DType::QUInt8),EQ(DTYPE_OF($1),DType::QInt8),EQ(DTYPE_OF($1),DType::QUInt16),EQ(DTYPE_OF($1),DType::QInt16),EQ(DTYPE_OF($1),DType::QInt32))") \
  X(SAME_QUANT, SAME_QUANT, CR, \
    "OR(AND(EQ(STEPSIZE_OF($1),STEPSIZE_OF($2)),EQ(ZERO_OFFSET_OF($1),ZERO_OFFSET_OF($2)))," \
    "AND(EQ(DTYPE_OF($1),DType::Float16),EQ(DTYPE_OF($2),DType::Float16))," \
    "AND(EQ(DTYPE_OF($1),DType::Float32),EQ(DTYPE_OF($2),DType::Float32)))") \
  X(IS_1HD_H1D, SAME_SHAPE, CR, \
    "AND(EQ(DIM_OF($1,1),1),NE(DIM_OF($1,2),1),EQ(DIM_OF($2,2),1),EQ(DIM_OF($1,2),DIM_OF($2,1)),EQ(DIM_OF($1,3),DIM_OF($2,3)))") \
  X(SAME_DTYPE_QUANT, SAME_QUANT, CR, \
    "AND(EQ(DTYPE_OF($1),DTYPE_OF($2)),EQ(STEPSIZE_OF($1),STEPSIZE_OF($2)),EQ(ZERO_OFFSET_OF($1),ZERO_OFFSET_OF($2)))") \
  X(IS_BINARY_FP16, BINARY_TEST, CR, \
    "AND(EQ(DTYPE_OF($1),DType::Float16),EQ(DTYPE_OF($2),DType::Float16),EQ(DTYPE_OF($3),DType::Float16))") \
  X(IS_BINARY_FP32, BINARY_TEST, CR, \
    "AND(EQ(DTYPE_OF($1),DType::Float32),EQ(DTYPE_OF($2),DType::Float32),EQ(DTYPE_OF($3),DType::Float32))") \
  X(CEILDIV, CEILDIV, CR, "DIV(SUB(ADD($1,$2),1),$2)") \
  X(FLAT_TENSOR_SIZE, SHAPE_SIZE, CR, "MUL(ELEMENTSIZE_OF($1),DIM_OF($1,0),DIM_OF($1,1),DIM_OF($1,2),DIM_OF($1,3))") \
  X(ESTIMATE_TENSOR_SIZE, SHAPE_SIZE, CR, \
    "MUL(DIM_OF($1,0),ROUNDUP(DIM_OF($1,1),TILE_HEIGHT),ROUNDUP(MUL(DIM_OF($1,2),ELEMENTSIZE_OF($1)),8),ROUNDUP(DIM_OF($1,3),32))") \
  X(ELEMWISE_TILE_SIZE, SHAPE_SIZE, CR, "MUL(TILE_HEIGHT,ROUNDUP(MUL(DIM_OF($1,2),ELEMENTSIZE_OF($1)),8),ROUNDUP(MIN(256,DIM_OF($1,3)),32))") \
  X(ELEMWISE_TOOBIG, BINARY_TEST, CR, \
    "GT(ADD(ELEMWISE_TILE_SIZE($1),ELEMWISE_TILE_SIZE($2),ELEMWISE_TILE_SIZE($3)),TCM_MAXTENSOR_SIZE)") \
  X(MAX_CHANNEL_SIZE, SHAPE_SIZE, CR, \
    "ROUNDUP(MAX(1,DIV(TCM_MAXTENSOR_HALF_SIZE,MUL(ROUNDUP(DIM_OF($1,1),8),ROUNDUP(MUL(DIM_OF($1,2),ELEMENTSIZE_OF($1)),8)))),32)") \
  X(MIN_WIDTH_OF, EXPANDED, CR, "SELECT(EQ(ELEMENTSIZE_OF($1),1),8,SELECT(EQ(ELEMENTSIZE_OF($1),2),4,2))") \
  X(SUBS, EXPANDED, CR, "SELECT(GT($1,$2),SUB($1,$2),0)") \
  X(WEIGHT_STORAGE, EXPANDED, CR, "MUL(ELEMENTSIZE_OF($1),DIM_OF($1,0),DIM_OF($1,1),DIM_OF($1,2),MIN($2,DIM_OF($1,3)))") \
  X(ACT_STORAGE_EST, EXPANDED, CR, \
    "ADD(MUL(ROUNDUP(ADD(7,DIM_OF($1,0)),8),ROUNDUP(MUL(DIM_OF($2,2),ELEMENTSIZE_OF($2)),8),ROUNDUP(DIM_OF($2,3),32))," \
    "MUL(8,ROUNDUP(MUL(DIM_OF(\"*\",2),ELEMENTSIZE_OF(\"*\")),8),$3))") \
  X(GOOD_WEIGHTS, EXPANDED, CR, \
    "LT(ADD(WEIGHT_STORAGE($1,$3),ACT_STORAGE_EST($1,$2,$3))," \
    "SELECT(EQ(ELEMENTSIZE_OF($1),1),TCM_MAXTENSOR_HALF_SIZE,MUL(DIV(TCM_MAXTENSOR_SIZE,2048),1041)))") \
  X(SMART_CHANNEL_SIZE, EXPANDED, CR, \
    "SELECT(GOOD_WEIGHTS($1,$2,256),256,SELECT(GOOD_WEIGHTS($1,$2,128),128,SELECT(GOOD_WEIGHTS($1,$2,64),64,32)))") \
  X(ESTIMATE_SIZE, EXPANDED, CR, \
    "ADD(MUL(DIM_OF($1,0),ROUNDUP(ADD(DIM_OF($1,1),SELECT(EQ(DIM_OF($2,0),1),0,8)),TILE_HEIGHT)," \
    "ROUNDUP(ADD(MUL(DIM_OF($1,2),ELEMENTSIZE_OF($1)),SELECT(EQ(DIM_OF($2,1),1),0,8)),8),ROUNDUP(DIM_OF($1,3),32))," \
    "ROUNDUP(WEIGHT_STORAGE($2,DIM_OF($2,3)),2048),ESTIMATE_TENSOR_SIZE($3),ROUNDUP(MUL(8,ROUNDUP(DIM_OF($3,3),32)),2048))") \
  X(CONST_ZERO_OFF, EXPANDED, R, "gen_ConstScalar_i32(ZERO_OFFSET_OF($1))") \
  X(FP16_CONST_CAST, EXPANDED, M, "LET($1,Op(\"Cast_fp32_to_fp16_plain\",$2))") \
  X(FP16_CONST_CASTSLICE, EXPANDED, M, \
    "LET($1,Op(\"SlicePad_shape_inplace\",LET($2,Op(\"Cast_fp32_to_fp16_plain\",$3)),\"Before\",\"Start\",\"Out\",\"Zero\"))") \
  X(CAST_TO_DTYPE, EXPANDED, R, "WITH_OUTPUT_TYPE($2,0,1.0f,Op(\"QNN_Cast\",$1))") \
  X(CAST_TO_FP16, EXPANDED, R, "WITH_SIZE($1,WITH_OUTPUT_TYPE(DType::Float16,0,1.0f,Op(\"QNN_Cast\",$1)))") \
  X(CAST_TO_FP32, EXPANDED, R, "WITH_OUTPUT_TYPE(DType::Float32,0,1.0f,Op(\"QNN_Cast\",$1))") \
  X(MAKE_OP_FP16_AND_INSERT_CAST, EXPANDED, R, \
    "WITH_OUTPUT_TYPE(DType::Float32,0,1.0f,Op(\"QNN_Cast\",WITH_SIZE(\"*\",WITH_OUTPUT_TYPE(DType::Float16,0,1.0f,$1))))") \
  X(OPCONST, OPCONST, M, "LET($1,Op(\"$Const\"))") \
  X(FROM_DEFAULT_PACKAGE, FROM_DEFAULT_PACKAGE, MCR, "$1") \
  X(AUTOSPLIT_SLICE, AUTOSPLIT_SLICE, R, "WITH_SIZE($3,WITH_TYPE($1,Op(\"Slice_shape\",$1,$2,$3)))") \
  X(TYPICAL_SLICE, TYPICAL_SLICE, R, \
    "WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(simple_split_size,$2,$1),WITH_TYPE($1,Op(\"Slice_shape\",$1," \
    "AUTOSPLIT_SHAPEFN_APPLY(simple_split_start,$2,$1),AUTOSPLIT_SHAPEFN_APPLY(simple_split_size,$2,$1))))") \
  X(CHANGEDIM_SLICE, CHANGEDIM_SLICE, R, \
    "WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size,$2,$1,$3),WITH_TYPE($1,Op(\"Slice_shape\",$1," \
    "AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_start,$2,$1,$3),AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size,$2,$1,$3))))") \
  X(OpMultiOut, OpMultiOut, R, "Op(\"$Out\",WITH_MULTI_OUT($1,Op($3,$4...)),gen_Shape(0,0,$1,$2))") \
  X(AUTOTHREAD_HVX, EXPANDED, R, OPTGRAMMAR_AUTOTHREAD_TEXT_("autothread_hvx_ntiles")) \
  X(AUTOTHREAD_HMX, EXPANDED, R, OPTGRAMMAR_AUTOTHREAD_TEXT_("autothread_hmx_ntiles")) \
  X(IS_QUANT_SIGNED, IS_QUANT_TYPE, CR, "OR(EQ(DTYPE_OF($1),DType::QInt32),EQ(DTYPE_OF($1),DType::QInt16),EQ(DTYPE_OF($1),DType::QInt8))") \
  X(IS_SIGNED_SYMM, IS_QUANT_TYPE, CR, "AND(IS_QUANT_SIGNED($1),EQ(ZERO_OFFSET_OF($1),0))") \
  X(IS_QINT8_SYMM, IS_QUANT_TYPE, CR, "AND(EQ(DTYPE_OF($1),DType::QInt8),EQ(ZERO_OFFSET_OF($1),0))") \
  X(IS_QINT16_SYMM, IS_QUANT_TYPE, CR, "AND(EQ(DTYPE_OF($1),DType::QInt16),EQ(ZERO_OFFSET_OF($1),0))") \
  X(IS_QINT32_SYMM, IS_QUANT_TYPE, CR, "AND(EQ(DTYPE_OF($1),DType::QInt32),EQ(ZERO_OFFSET_OF($1),0))") \
  X(IS_FULLY_CONNECT_WEIGHT, IS_QUANT_TYPE, CR, "OR(EQ(DTYPE_OF($1),DType::QUInt8),IS_QINT8_SYMM($1))") \
  X(IS_FLOAT16_BOTH, SAME_QUANT, CR, "AND(EQ(DTYPE_OF($1),DType::Float16),EQ(DTYPE_OF($2),DType::Float16))") \
  X(DIM_CHANNEL, DIM_N, CR, "DIM_OF($1,4)") \
  X(IS_EMPTY, IS_SCALAR, CR, "AND(EQ(DIM_OF($1,0),0),EQ(DIM_OF($1,1),0),EQ(DIM_OF($1,2),0),EQ(DIM_OF($1,3),0))") \
  X(IS_EMPTY_DIM, EXPANDED, CR, "EQ(DIM_OF($1,$2),0)") \
  X(SHOULD_AUTOTHREAD1, IS_SCALAR, CR, "AND(SHOULD_AUTOTHREAD,EQ(ELEMENTSIZE_OF(\"*\"),ELEMENTSIZE_OF($1)))") \
  X(SHOULD_AUTOTHREAD2, SAME_SHAPE, CR, "AND(SHOULD_AUTOTHREAD1($1),EQ(ELEMENTSIZE_OF(\"*\"),ELEMENTSIZE_OF($2)))") \
  X(SHOULD_AUTOTHREAD3, BINARY_TEST, CR, "AND(SHOULD_AUTOTHREAD2($1,$2),EQ(ELEMENTSIZE_OF(\"*\"),ELEMENTSIZE_OF($3)))") \
  X(SHOULD_AUTOTHREAD_UNARY1, IS_SCALAR, CR, "AND(SHOULD_AUTOTHREAD_UNARY,EQ(ELEMENTSIZE_OF(\"*\"),ELEMENTSIZE_OF($1)))") \
  X(WIDTH_TO_HEIGHTX_CONSTRAINT, IS_SCALAR, CR, \
    "OR(AND(GT(DIM_OF($1,2),TILE_HEIGHT),EQ(REM(DIM_OF($1,2),TILE_HEIGHT),0))," \
    "AND(IS_QUINT16($1),GT(DIM_OF($1,2),4),LT(DIM_OF($1,2),32),EQ(REM(DIM_OF($1,2),4),0)))") \
  X(SHOULD_TILE, EXPANDED, CR, "AND($1...)") \
  X(MESSAGE_IF, EXPANDED, CR, "AND($1,MESSAGE($2))") \
  X(MESSAGE_IFNOT, EXPANDED, CR, "OR($1,NOT(MESSAGE($2)))") \
  X(MESSAGE_VALUE, EXPANDED, CR, "SELECT(MESSAGE($2,$1),INT($1),INT($1))") \
  X(OPCONST_DDR, OPCONST, M, "LET($1,Op(\"$Const\"))") \
  X(OPCONST_FLAT_DDR, OPCONST, M, "LET($1,Op(\"$Const\"))") \
  X(OPCONST_TCM, OPCONST, M, "LET($1,Op(\"$Const\"))") \
  X(OPCONST_FLAT_TCM, OPCONST, M, "LET($1,Op(\"$Const\"))") \
  X(DWC_ACT_STORAGE_EST, EXPANDED, CR, \
    "ADD(MUL(ROUNDUP(ADD(7,DIM_OF($1,0)),8),ROUNDUP(MUL(DIM_OF($2,2),ELEMENTSIZE_OF($2)),8),$3)," \
    "MUL(8,ROUNDUP(MUL(DIM_OF(\"*\",2),ELEMENTSIZE_OF(\"*\")),8),$3))") \
  X(DWC_GOOD_WEIGHTS, EXPANDED, CR, "LT(ADD(WEIGHT_STORAGE($1,$3),DWC_ACT_STORAGE_EST($1,$2,$3)),DIV(TCM_MAXTENSOR_SIZE,2))") \
  X(DWC_SMART_CHANNEL_SIZE, EXPANDED, CR, \
    "SELECT(DWC_GOOD_WEIGHTS($1,$2,256),256,SELECT(DWC_GOOD_WEIGHTS($1,$2,128),128,SELECT(DWC_GOOD_WEIGHTS($1,$2,64),64,32)))") \
  X(GET_IN_SIZE, EXPANDED, CR, "ADD(MUL(SUB($1,1),$3),MUL(SUB($2,1),$4),1)") \
  X(ESTIMATE_MIN_SIZE, EXPANDED, CR, \
    "ADD(MUL(ROUNDUP(ADD(GET_IN_SIZE(8,DIM_OF($2,0),DIM_OF($3,1),$4),SELECT(EQ(DIM_OF($2,0),1),0,8)),8)," \
    "ROUNDUP(ADD(MUL(GET_IN_SIZE(MIN_WIDTH_OF($1),DIM_OF($2,1),DIM_OF($3,2),$5),ELEMENTSIZE_OF($1))," \
    "SELECT(EQ(DIM_OF($2,1),1),0,8)),8),ROUNDUP(DIM_OF($1,3),32)),ROUNDUP(WEIGHT_STORAGE($2,32),2048),2048,2048)") \
  X(ESTIMATE_SIZE_ALIGNED_SLICE, EXPANDED, CR, \
    "ADD(SELECT(EQ(DIM_OF($2,2),0),ESTIMATE_TENSOR_SIZE($1),MUL(ESTIMATE_TENSOR_SIZE($1),2)),ESTIMATE_TENSOR_SIZE($3))") \
  X(MAX_GOOD_WIDTH_CONV, EXPANDED, CR, \
    "MAX(ROUNDUP(DIV(SUBS(DIV(MUL($6,7),8),ADD(ROUNDUP(WEIGHT_STORAGE($2,DIM_OF($2,3)),2048)," \
    "MUL(ROUNDUP(DIM_OF($1,1),8),ROUNDUP(DIM_OF($1,3),32),SUB(DIM_OF($2,1),1),$5,ELEMENTSIZE_OF($1))))," \
    "MUL(4,ADD(MUL(ELEMENTSIZE_OF($3),ROUNDUP(DIM_OF($3,3),32),ROUNDUP(DIM_OF($3,1),8))," \
    "MUL(ELEMENTSIZE_OF($1),ROUNDUP(DIM_OF($1,1),8),$4,ROUNDUP(DIM_OF($1,3),32))))),MIN_WIDTH_OF($3)),MIN_WIDTH_OF($3))") \
  X(MAX_GOOD_WIDTH, EXPANDED, CR, "MAX_GOOD_WIDTH_CONV($1,$2,$3,1,1,$4)") \
  X(EVEN_TILE_UNDER_CUSTOM, EXPANDED, CR, "ROUNDUP(DIV($1,ADD(DIV($1,$2),1)),$3)") \
  X(EVEN_TILE_UNDER_CUTOFF2_CUSTOM, EXPANDED, CR, "SELECT(GT($1,MUL(2,$2)),$2,EVEN_TILE_UNDER_CUSTOM($1,$2,$3))") \
  X(SMART_EARLY_WIDTH_S2, EXPANDED, CR, \
    "EVEN_TILE_UNDER_CUTOFF2_CUSTOM(DIM_OF($3,2),MIN(256,ROUNDUP(MAX(16,DIV(SUBS(DIV(MUL($4,7),16)," \
    "ROUNDUP(WEIGHT_STORAGE($2,MIN(DIM_OF($2,3),CHANNEL_SPLIT_SIZE)),2048))," \
    "ADD(MUL(2,ELEMENTSIZE_OF($1),DIM_OF($1,0),MUL(TILE_HEIGHT,2),ROUNDUP(DIM_OF($1,3),32))," \
    "MUL(ELEMENTSIZE_OF($3),DIM_OF($1,0),TILE_HEIGHT,MIN_CHANNEL_SPLIT_SIZE)))),$5)),$5)") \
  X(SMART_EARLY_WIDTH_ADAPTIVE_ROUNDING_S2, EXPANDED, CR, \
    "SELECT(AND(IS_QUINT8($2),IS_QUINT16($1)),SMART_EARLY_WIDTH_S2($1,$2,$3,$4,8),SMART_EARLY_WIDTH_S2($1,$2,$3,$4,16))") \
  X(MAX_GOOD_WIDTH_CHANSHUF, EXPANDED, CR, \
    "MAX(MIN_WIDTH,ROUNDUP(DIV(DIV(MUL($3,6),8),MUL(4,ADD(MUL(ELEMENTSIZE_OF($1),ROUNDUP(DIM_OF($1,1),8),ROUNDUP(DIM_OF($1,3),32))," \
    "MUL(ELEMENTSIZE_OF($2),ROUNDUP(DIM_OF($2,1),8),ROUNDUP(DIM_OF($2,3),32))))),8))") \
  X(MAX_GOOD_WIDTH_QUANTIZE, EXPANDED, CR, \
    "MAX(MIN_WIDTH_OF($2),DIV($3,MUL(4,ADD(MUL(ELEMENTSIZE_OF($1),ROUNDUP(DIM_OF($1,1),8),ROUNDUP(DIM_OF($1,3),32))," \
    "MUL(ELEMENTSIZE_OF($2),ROUNDUP(DIM_OF($2,1),8),ROUNDUP(DIM_OF($1,3),32))))))") \
  X(MAX_GOOD_WIDTH_ELEMWISE, EXPANDED, CR, \
    "MAX(MIN_WIDTH,ROUNDUP(DIV(DIV(MUL($4,6),8),MUL(4,ADD(MUL(ELEMENTSIZE_OF($1),ROUNDUP(DIM_OF($1,1),8),ROUNDUP(DIM_OF($1,3),32))," \
    "MUL(ELEMENTSIZE_OF($2),ROUNDUP(DIM_OF($2,1),8),ROUNDUP(DIM_OF($2,3),32))," \
    "MUL(ELEMENTSIZE_OF($3),ROUNDUP(DIM_OF($3,1),8),ROUNDUP(DIM_OF($3,3),32))))),8))") \
  X(MAX_GOOD_WIDTH_DILATION, EXPANDED, CR, \
    "MAX(MIN_WIDTH,ROUNDUP(DIV(SUB(DIV(MUL($5,7),8),ADD(ROUNDUP(MUL(DIM_OF($2,0),DIM_OF($2,1),DIM_OF($2,2),DIM_OF($2,3)),2048)," \
    "MUL(ROUNDUP(DIM_OF($1,1),8),DIM_OF($1,3),ROUNDUP(ADD(1,MUL(SUB(DIM_OF($2,1),1),$4)),8))))," \
    "MUL(4,ADD(MUL(ELEMENTSIZE_OF($3),ROUNDUP(DIM_OF($3,3),32),ROUNDUP(DIM_OF($3,1),8))," \
    "MUL(ELEMENTSIZE_OF($3),ROUNDUP(DIM_OF($1,1),8),ROUNDUP(DIM_OF($1,3),32))))),8))") \
  X(S2S2D_BYTESLEFT, EXPANDED, CR, \
    "SUB($3,ADD(ROUNDUP(MUL(DIM_OF($1,0),DIM_OF($1,1),DIM_OF($1,2),DIM_OF($1,3)),2048),MUL(ROUNDUP(DIM_OF($1,3),32),8),32768))") \
  X(S2S2D_MAXWIDTH, EXPANDED, CR, "DIV(S2S2D_BYTESLEFT($1,$2,$3),MUL(ELEMENTSIZE_OF(\"*\"),16,MUL(4,ROUNDUP(DIM_OF($2,3),32))))") \
  X(S2S2D_GOODWIDTH, EXPANDED, CR, "MAX(MIN_WIDTH,ROUNDUP(DIV(S2S2D_MAXWIDTH($1,$2,$3),6),8))") \
  X(MAX_GOOD_WIDTH_S2D, EXPANDED, CR, \
    "MAX(MIN_WIDTH,ROUNDUP(DIV(SUB(DIV(MUL($4,6),8),ROUNDUP(MUL(DIM_OF($2,0),DIM_OF($2,1),DIM_OF($2,2),DIM_OF($2,3)),2048))," \
    "MUL(4,ADD(MUL(DIM_OF($3,3),ROUNDUP(DIM_OF($3,1),8)),MUL(ELEMENTSIZE_OF($3),2,ROUNDUP(DIM_OF($3,1),8),ROUNDUP(DIM_OF($1,3),32))))),8))") \
  X(ESTIMATE_H1_MATMUL_SIZE, EXPANDED, CR, \
    "ADD(MUL(8,ROUNDUP(DIM_OF($1,2),8),ROUNDUP(DIM_OF($1,3),32),ELEMENTSIZE_OF($1))," \
    "MUL(ROUNDUP(DIM_OF($2,2),32),ROUNDUP(DIM_OF($2,3),32),ELEMENTSIZE_OF($2))," \
    "MUL(8,ROUNDUP(DIM_OF(\"*\",2),8),ROUNDUP(DIM_OF(\"*\",3),32),ELEMENTSIZE_OF(\"*\")))") \
  X(SMART_BATCHNORM_WIDTH, EXPANDED, CR, \
    "SELECT(OR(GT(DIM_OF($1,2),$4),NOT(AND(GT(DIM_OF($1,2),DIV($4,2))," \
    "GT(ADD(ESTIMATE_TENSOR_SIZE($3),ESTIMATE_TENSOR_SIZE($1),ESTIMATE_TENSOR_SIZE($2)),TCM_MAXTENSOR_SIZE)))),$4,DIV($4,2))") \
  X(GOOD_WIDTH_DEPTHTOSPACE_CHECK, EXPANDED, CR, \
    "AND(GT(DIM_OF($2,2),$3),GT(ADD(ESTIMATE_TENSOR_SIZE($1),ESTIMATE_TENSOR_SIZE($2)),TCM_MAXTENSOR_SIZE))") \
  X(SMART_WIDTH_DEPTHTOSPACE, EXPANDED, CR, \
    "SELECT(GOOD_WIDTH_DEPTHTOSPACE_CHECK($1,$2,$3),$3,SELECT(GOOD_WIDTH_DEPTHTOSPACE_CHECK($1,$2,DIV($3,2)),DIV($3,2),DIV($3,4)))") \
  X(SHAPE_FROM_W1, EXPANDED, R, \
    "SELECT(IS_QUINT8($1),gen_Shape(DIM_OF($1,0),DIV(ADD(DIM_OF($1,1),7),8),8,DIM_OF($1,3))," \
    "gen_Shape(DIM_OF($1,0),DIV(ADD(DIM_OF($1,1),3),4),4,DIM_OF($1,3)))") \
  X(SHAPE_FROM_H1, EXPANDED, R, \
    "SELECT(IS_QUINT8($1),gen_Shape(DIM_OF($1,0),MIN(8,DIV(ADD(DIM_OF($1,2),7),8)),MUL(DIV(ADD(DIM_OF($1,2),63),64),8),DIM_OF($1,3))," \
    "gen_Shape(DIM_OF($1,0),MIN(8,DIV(ADD(DIM_OF($1,2),3),4)),MUL(DIV(ADD(DIM_OF($1,2),31),32),4),DIM_OF($1,3)))") \
  X(REARRANGE_FROM_W1, EXPANDED, R, "WITH_SIZE(SHAPE_FROM_W1($1),WITH_TYPE($1,Op(\"space_rearrange\",$1)))") \
  X(REARRANGE_FROM_W1_OP, EXPANDED, R, "WITH_SIZE(SHAPE_FROM_W1($1),WITH_TYPE($1,Op(\"space_rearrange\",$1)))") \
  X(REARRANGE_TO_W1, EXPANDED, R, "Op(\"space_rearrange\",WITH_SIZE(SHAPE_FROM_W1(\"*\"),WITH_TYPE(\"*\",$1)))") \
  X(REARRANGE_FROM_H1, EXPANDED, R, "WITH_SIZE(SHAPE_FROM_H1($1),WITH_TYPE($1,Op(\"space_rearrange\",$1)))") \
  X(REARRANGE_TO_H1, EXPANDED, R, "Op(\"space_rearrange\",WITH_SIZE(SHAPE_FROM_H1(\"*\"),WITH_TYPE(\"*\",$1)))") \
  X(HEIGHTX_SHAPE, EXPANDED, R, \
    "SELECT(EQ(REM(DIM_OF($1,2),TILE_HEIGHT),0),gen_Shape(DIM_OF($1,0),MUL(DIM_OF($1,1),TILE_HEIGHT),DIV(DIM_OF($1,2),TILE_HEIGHT),DIM_OF($1,3))," \
    "SELECT(EQ(REM(DIM_OF($1,2),4),0),gen_Shape(DIM_OF($1,0),MUL(DIM_OF($1,1),4),DIV(DIM_OF($1,2),4),DIM_OF($1,3))," \
    "gen_Shape(DIM_OF($1,0),DIM_OF($1,1),DIM_OF($1,2),DIM_OF($1,3))))") \
  X(HEIGHT84_SHAPE, EXPANDED, R, \
    "SELECT(EQ(REM(DIM_OF($1,2),TILE_HEIGHT),0),gen_Shape(DIM_OF($1,0),TILE_HEIGHT,DIV(DIM_OF($1,2),TILE_HEIGHT),DIM_OF($1,3))," \
    "gen_Shape(DIM_OF($1,0),4,DIV(DIM_OF($1,2),4),DIM_OF($1,3)))")
// clang-format on

/// The split-history entry that marks the parts AUTOTHREAD_HVX and AUTOTHREAD_HMX make, and the
/// ops that replace them (IS_AUTOTHREADED reads it).
#define OPTGRAMMAR_AUTOTHREAD_MARK 65536
/// AUTOTHREAD_HVX(dim, "I", op) and AUTOTHREAD_HMX: an AUTOSPLIT of the root's dimension dim into
/// at most n parts, n the graph option named, each part's op marked. With n below 2 (the option
/// not set), or on a part of an earlier one (IS_AUTOTHREADED), the chunk is 0, so the replacement
/// fails and the rule does not apply: nothing to thread, and parts are not threaded again.
#define OPTGRAMMAR_AUTOTHREAD_TEXT_(OPTION)                                   \
  "AUTOSPLIT($1,$2,SELECT(OR(IS_AUTOTHREADED(\"*\"),LT(OPTION_UINT(\"" OPTION \
  "\"),2)),0,"                                                                \
  "CEILDIV(DIM_OF(\"*\",$1),OPTION_UINT(\"" OPTION                            \
  "\"))),"                                                                    \
  "WITH_SPLIT_HISTORY(\"*\"," OPTGRAMMAR_STRINGIFY(OPTGRAMMAR_AUTOTHREAD_MARK) ",$3))"

/// The names a rule writes without operands for a value (packages take them from the framework's
/// headers): `X(name, expansion)`, the expansion an expansion text without operands, which both
/// front ends build where the name is written, as for the names above. Their records are of the
/// family NAMED_VALUE; an expansion text may name them too.
// clang-format off
#define OPTGRAMMAR_NAMED_VALUES(X) \
  X(CHANNEL_SPLIT_SIZE, "256") \
  X(MIN_CHANNEL_SPLIT_SIZE, "32") \
  X(MIN_WIDTH, "8") \
  X(TILE_HEIGHT, "OPTION_UINT(\"tile_height\")") \
  X(TCM_MAXTENSOR_SIZE, "OPTION_UINT(\"tcm_size_for_tiling\")") \
  X(TCM_MAXTENSOR_HALF_SIZE, "DIV(TCM_MAXTENSOR_SIZE,2)") \
  X(MAX_DIMENSIONS, "8") \
  X(CAN_FINE_SPLIT, "EQ(OPTION_UINT(\"can_fine_split\"),1)") \
  X(BIG_WIDTH_SIZE, "OPTION_UINT(\"big_width_split\")") \
  X(DO_BIG_WIDTH_SPLIT, "AND(GT(DIM_OF(\"*\",2),BIG_WIDTH_SIZE),CAN_FINE_SPLIT,GE(DIM_OF(\"*\",3),4),GT(DIM_OF(\"*\",1),1))") \
  X(AUTOTHREAD_ENABLED, "OPTION_INT(\"enable_autothread\")") \
  X(SHOULD_AUTOTHREAD, "GT(DATA_SIZE(\"*\"),MUL(OPTION_INT(\"autothread_size_kb\"),1024))") \
  X(SHOULD_AUTOTHREAD_UNARY, "GT(MUL(3,DATA_SIZE(\"*\")),MUL(OPTION_INT(\"autothread_size_kb\"),2048))")
// clang-format on

namespace grammar_detail {
constexpr unsigned char M = in_match, C = in_constraint, R = in_replacement, CR = C | R, MR = M | R, MCR = M | C | R;
constexpr unsigned char N = any_count;
using F = Family;
/// The record of a name of a family of regular form: its operand counts are the form's.
constexpr Construct regular(std::string_view name, Family f, unsigned char places, std::string_view expansion = {}) {
  switch (word_form(f)) {
    case WordForm::named:
    case WordForm::unary: return {name, f, places, 1, 1, 0, expansion};
    case WordForm::binary: return {name, f, places, 2, 2, 0, expansion};
    case WordForm::fixed3: return {name, f, places, 3, 3, 0, expansion};
    case WordForm::fixed4: return {name, f, places, 4, 4, 0, expansion};
    case WordForm::nary:
    case WordForm::variadic: return {name, f, places, 1, any_count, 0, expansion};
    case WordForm::own: break;
  }
  throw "a family written by hand gives its records' operand counts";  // not a constant: compile error
}
/// The record of a name defined by expansion: as many operands as the highest `$k` of its text
/// (which must be the form's count for a family of regular form), and any number more if the
/// text has `$k...` (k then one more than that count).
constexpr Construct expansion(std::string_view name, Family f, unsigned char places, std::string_view text) {
  unsigned char n = 0;
  std::size_t rest = 0;
  const char* const p = text.data();
  const std::size_t size = text.size();
  for (std::size_t i = 0; i < size; ++i) {
    if (p[i] != '$') continue;
    const ExpansionOperand o = expansion_operand(p, size, i);
    if (o.rest)
      rest = o.k;
    else if (o.k > n)
      n = static_cast<unsigned char>(o.k);
    i = o.end - 1;
  }
  if (rest != 0 && rest != n + 1u) throw "`$k...` must follow the highest single operand";
  if (word_form(f) != WordForm::own && (rest != 0 || regular(name, f, places).min_args != n))
    throw "the expansion's operands are not the count of its family's form";
  return {name, f, places, n, rest != 0 ? any_count : n, 0, text};
}
}  // namespace grammar_detail

// clang-format off
inline constexpr Construct constructs[] = {
    // the match (Op and FROM_DEFAULT_PACKAGE also build ops in a replacement)
    {"Op", grammar_detail::F::Op, grammar_detail::MR, 1, grammar_detail::N},
    {"OpVarIn", grammar_detail::F::OpVarIn, grammar_detail::M, 1, grammar_detail::N},
    {"LET", grammar_detail::F::LET, grammar_detail::M, 2, 2},
    // constants and options
    {"LAYOUT_CHUNKSIZE", grammar_detail::F::LAYOUT_CHUNKSIZE, grammar_detail::CR, 2, 2},
    grammar_detail::regular("OPTION_INT", grammar_detail::F::OPTION_INT, grammar_detail::CR),
    grammar_detail::regular("OPTION_UINT", grammar_detail::F::OPTION_UINT, grammar_detail::CR),
    grammar_detail::regular("OPTION_BOOL", grammar_detail::F::OPTION_BOOL, grammar_detail::CR),
    grammar_detail::regular("OPTION_FLOAT", grammar_detail::F::OPTION_FLOAT, grammar_detail::CR),
    // operators
    grammar_detail::regular("INT", grammar_detail::F::INT, grammar_detail::CR),
    grammar_detail::regular("UINT", grammar_detail::F::UINT, grammar_detail::CR),
    grammar_detail::regular("FLOAT", grammar_detail::F::FLOAT, grammar_detail::CR),
    grammar_detail::regular("DTYPE", grammar_detail::F::DTYPE, grammar_detail::CR),
    grammar_detail::regular("NOT", grammar_detail::F::NOT, grammar_detail::CR),
    grammar_detail::regular("NEG", grammar_detail::F::NEG, grammar_detail::CR),
    grammar_detail::regular("ABS", grammar_detail::F::ABS, grammar_detail::CR),
    grammar_detail::regular("IS_POW2", grammar_detail::F::IS_POW2, grammar_detail::CR),
    grammar_detail::regular("SELECT", grammar_detail::F::SELECT, grammar_detail::CR),
    grammar_detail::regular("ROUNDUP", grammar_detail::F::ROUNDUP, grammar_detail::CR),
    grammar_detail::regular("LCM", grammar_detail::F::LCM, grammar_detail::CR),
    grammar_detail::regular("AND", grammar_detail::F::AND, grammar_detail::CR),
    grammar_detail::regular("OR", grammar_detail::F::OR, grammar_detail::CR),
    grammar_detail::regular("XOR", grammar_detail::F::XOR, grammar_detail::CR),
    grammar_detail::regular("ADD", grammar_detail::F::ADD, grammar_detail::CR),
    grammar_detail::regular("MUL", grammar_detail::F::MUL, grammar_detail::CR),
    grammar_detail::regular("MIN", grammar_detail::F::MIN, grammar_detail::CR),
    grammar_detail::regular("MAX", grammar_detail::F::MAX, grammar_detail::CR),
    grammar_detail::regular("SUB", grammar_detail::F::SUB, grammar_detail::CR),
    grammar_detail::regular("DIV", grammar_detail::F::DIV, grammar_detail::CR),
    grammar_detail::regular("REM", grammar_detail::F::REM, grammar_detail::CR),
    grammar_detail::regular("MOD", grammar_detail::F::MOD, grammar_detail::CR),
    grammar_detail::regular("EQ", grammar_detail::F::EQ, grammar_detail::CR),
    grammar_detail::regular("NE", grammar_detail::F::NE, grammar_detail::CR),
    grammar_detail::regular("LT", grammar_detail::F::LT, grammar_detail::CR),
    grammar_detail::regular("GT", grammar_detail::F::GT, grammar_detail::CR),
    grammar_detail::regular("LE", grammar_detail::F::LE, grammar_detail::CR),
    grammar_detail::regular("GE", grammar_detail::F::GE, grammar_detail::CR),
    // operand references and properties
    grammar_detail::regular("INPUT_OF", grammar_detail::F::INPUT_OF, grammar_detail::CR),
    grammar_detail::regular("OUTPUT_OF", grammar_detail::F::OUTPUT_OF, grammar_detail::CR),
    grammar_detail::regular("RANK_OF", grammar_detail::F::RANK_OF, grammar_detail::CR),
    grammar_detail::regular("DIM_OF", grammar_detail::F::DIM_OF, grammar_detail::CR),
    grammar_detail::regular("STEPSIZE_OF", grammar_detail::F::STEPSIZE_OF, grammar_detail::CR),
    grammar_detail::regular("DTYPE_OF", grammar_detail::F::DTYPE_OF, grammar_detail::CR),
    grammar_detail::regular("ELEMENTSIZE_OF", grammar_detail::F::ELEMENTSIZE_OF, grammar_detail::CR),
    grammar_detail::regular("INPUTS_OF", grammar_detail::F::INPUTS_OF, grammar_detail::CR),
    grammar_detail::regular("OUTPUTS_OF", grammar_detail::F::OUTPUTS_OF, grammar_detail::CR),
    grammar_detail::regular("ZERO_OFFSET_OF", grammar_detail::F::ZERO_OFFSET_OF, grammar_detail::CR),
    grammar_detail::regular("SAME_ENCODING", grammar_detail::F::SAME_ENCODING, grammar_detail::CR),
    grammar_detail::regular("SAME_OP", grammar_detail::F::SAME_OP, grammar_detail::CR),
    grammar_detail::regular("IS_AUTOTHREADED", grammar_detail::F::IS_AUTOTHREADED, grammar_detail::CR),
    grammar_detail::regular("DATA_SIZE", grammar_detail::F::DATA_SIZE, grammar_detail::CR),
    // an opref and an op name (a string the construct keeps)
    {"IS_OP", grammar_detail::F::IS_OP, grammar_detail::CR, 2, 2},
    {"PRODUCER_FOR", grammar_detail::F::PRODUCER_FOR, grammar_detail::CR, 2, 2},
    grammar_detail::regular("CONSTVAL_INT", grammar_detail::F::CONSTVAL_INT, grammar_detail::CR),
    grammar_detail::regular("CONSTVAL_INT_VALID", grammar_detail::F::CONSTVAL_INT_VALID, grammar_detail::CR),
    grammar_detail::regular("CONSTVAL_FLOAT", grammar_detail::F::CONSTVAL_FLOAT, grammar_detail::CR),
    grammar_detail::regular("CONSTVAL_FLOAT_VALID", grammar_detail::F::CONSTVAL_FLOAT_VALID, grammar_detail::CR),
    // split variables (int expressions inside the last operand of their AUTOSPLIT/OP_ITER)
    grammar_detail::regular("SPLIT_DIM", grammar_detail::F::SPLIT_DIM, grammar_detail::CR),
    grammar_detail::regular("SPLIT_START", grammar_detail::F::SPLIT_START, grammar_detail::CR),
    grammar_detail::regular("SPLIT_SIZE", grammar_detail::F::SPLIT_SIZE, grammar_detail::CR),
    grammar_detail::regular("ITER_VAR", grammar_detail::F::ITER_VAR, grammar_detail::CR),
    // external functions and messages in constraints
    {"EXTERNAL_CONSTRAINT", grammar_detail::F::EXTERNAL_CONSTRAINT, grammar_detail::CR, 2, grammar_detail::N},
    {"MESSAGE", grammar_detail::F::MESSAGE, grammar_detail::CR, 1, grammar_detail::N},
    // compatibility names defined by others
#define OPTGRAMMAR_EXPANSION_RECORD_(N, FAM, PLACES, TEXT) \
    grammar_detail::expansion(#N, grammar_detail::F::FAM, grammar_detail::PLACES, TEXT),
    OPTGRAMMAR_EXPANSION_RECORDS(OPTGRAMMAR_EXPANSION_RECORD_)
#undef OPTGRAMMAR_EXPANSION_RECORD_
#define OPTGRAMMAR_NAMED_VALUE_RECORD_(N, TEXT) \
    grammar_detail::expansion(#N, grammar_detail::F::NAMED_VALUE, grammar_detail::CR, TEXT),
    OPTGRAMMAR_NAMED_VALUES(OPTGRAMMAR_NAMED_VALUE_RECORD_)
#undef OPTGRAMMAR_NAMED_VALUE_RECORD_
    // functional casts of constants: size_t(256)
    {"size_t", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 's'},
    {"unsigned", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 's'},
    {"uint32_t", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 's'},
    {"uint64_t", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 's'},
    {"int", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 'i'},
    {"int32_t", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 'i'},
    {"int64_t", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 'i'},
    {"long", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 'i'},
    {"float", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 'f'},
    {"double", grammar_detail::F::CAST, grammar_detail::CR, 1, 1, 'f'},
    // replacement constructions
    {"Operand", grammar_detail::F::Operand, grammar_detail::R, 1, 1},
    {"WrapOp", grammar_detail::F::WrapOp, grammar_detail::R, 2, 2},
    {"WrapOpAlways", grammar_detail::F::WrapOpAlways, grammar_detail::R, 2, 2},
    grammar_detail::regular("gen_Shape", grammar_detail::F::gen_Shape, grammar_detail::R),
    grammar_detail::regular("gen_ShapeOf", grammar_detail::F::gen_ShapeOf, grammar_detail::R),
    grammar_detail::regular("gen_ConstScalar_f32", grammar_detail::F::gen_ConstScalar_f32, grammar_detail::R),
    grammar_detail::regular("gen_ConstScalar_i32", grammar_detail::F::gen_ConstScalar_i32, grammar_detail::R),
    grammar_detail::regular("gen_ConstArr_f32", grammar_detail::F::gen_ConstArr_f32, grammar_detail::R),
    grammar_detail::regular("gen_ConstArr_i32", grammar_detail::F::gen_ConstArr_i32, grammar_detail::R),
    grammar_detail::regular("gen_ConstArr_vals_i32", grammar_detail::F::gen_ConstArr_vals_i32, grammar_detail::R),
    {"AUTOSPLIT", grammar_detail::F::AUTOSPLIT, grammar_detail::R, 4, 4},
    {"OP_ITER", grammar_detail::F::OP_ITER, grammar_detail::R, 5, 5},
    {"ITER_INPUT_OF", grammar_detail::F::ITER_INPUT_OF, grammar_detail::R, 2, 2},
    {"AUTOSPLIT_SHAPEFN_APPLY", grammar_detail::F::AUTOSPLIT_SHAPEFN_APPLY, grammar_detail::R, 2, grammar_detail::N},
    grammar_detail::regular("WITH_SIZE", grammar_detail::F::WITH_SIZE, grammar_detail::R),
    grammar_detail::regular("WITH_TYPE", grammar_detail::F::WITH_TYPE, grammar_detail::R),
    grammar_detail::regular("WITH_SAME_OUTPUT", grammar_detail::F::WITH_SAME_OUTPUT, grammar_detail::R),
    grammar_detail::regular("WITH_OUTPUT_TYPE", grammar_detail::F::WITH_OUTPUT_TYPE, grammar_detail::R),
    grammar_detail::regular("WITH_MULTI_OUT", grammar_detail::F::WITH_MULTI_OUT, grammar_detail::R),
    grammar_detail::regular("ResizeDim", grammar_detail::F::ResizeDim, grammar_detail::R),
    grammar_detail::regular("WITH_SAME_ID", grammar_detail::F::WITH_SAME_ID, grammar_detail::R),
    {"WITH_SPLIT_HISTORY", grammar_detail::F::WITH_SPLIT_HISTORY, grammar_detail::R, 2, 3},
    {"EXTERNAL_REPLACE", grammar_detail::F::EXTERNAL_REPLACE, grammar_detail::R, 1, 1},
    {"SHAPEFN_APPLY", grammar_detail::F::SHAPEFN_APPLY, grammar_detail::R, 1, grammar_detail::N},
    {"TYPICAL_CONV_SLICE", grammar_detail::F::TYPICAL_CONV_SLICE, grammar_detail::R, 2, grammar_detail::N},
};
// clang-format on

constexpr std::size_t record_index(std::string_view name) {
  for (std::size_t i = 0; i < sizeof(constructs) / sizeof(constructs[0]); ++i)
    if (constructs[i].name == name) return i;
  throw "no record of this name";  // not a constant: a compile error
}

namespace grammar_detail {
/// The names defined by expansion, then the named values, by their position in
/// OPTGRAMMAR_EXPANSION_RECORDS and OPTGRAMMAR_NAMED_VALUES: `constructs` holds their records in
/// that order, one after another, so a word finds its record by position (expanded_record) rather
/// than by name, which costs every translation unit a search per word.
enum ExpandedPosition : std::size_t {
#define OPTGRAMMAR_EXPANDED_POSITION_(N, FAM, PLACES, TEXT) expanded_##N,
  OPTGRAMMAR_EXPANSION_RECORDS(OPTGRAMMAR_EXPANDED_POSITION_)
#undef OPTGRAMMAR_EXPANDED_POSITION_
#define OPTGRAMMAR_NAMED_POSITION_(N, TEXT) expanded_##N,
      OPTGRAMMAR_NAMED_VALUES(OPTGRAMMAR_NAMED_POSITION_)
#undef OPTGRAMMAR_NAMED_POSITION_
          expanded_count
};
/// The index in `constructs` of the first name defined by expansion (the first record with a text).
inline constexpr std::size_t expanded_first = [] {
  std::size_t i = 0;
  while (constructs[i].expansion.empty()) ++i;
  return i;
}();
/// The index in `constructs` of the record at position p (tests/dsl/grammar_test.cpp checks each
/// against record_index of its name).
constexpr std::size_t expanded_record(ExpandedPosition p) noexcept { return expanded_first + p; }
}  // namespace grammar_detail

/// The rule flags DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS may name (joined with '|'): name, bit, and
/// the graph option a rule with the flag waits for ("": the flag is accepted and changes nothing
/// in this engine, which runs CSE and constant folding between all passes anyway). The bits are
/// the framework's OptimFlags, but for ordered_autosplit_flag (which its DEF_AUTOSPLIT_ORDERED
/// names; the headers read do not give its bit), which has the next free one.
// clang-format off
#define OPTGRAMMAR_RULE_FLAGS(X)                                  \
  X(any_rule,                      0,  "")                        \
  X(cse_after_always,              1,  "")                        \
  X(cse_after_if,                  2,  "")                        \
  X(cse_set_triggerA,              3,  "")                        \
  X(cse_before_if_triggerA,        4,  "")                        \
  X(cse_set_triggerB,              5,  "")                        \
  X(cse_before_if_triggerB,        6,  "")                        \
  X(fold_relu_flag,                7,  "fold_relu_flag")          \
  X(cp_after_always,               8,  "")                        \
  X(hmx_short_conv_flag,           9,  "hmx_short_conv_flag")     \
  X(relaxed_precision_flag,        10, "relaxed_precision_flag")  \
  X(explicit_autosplit_flag,       11, "")                        \
  X(central_autosplit_flag,        12, "")                        \
  X(central_only_autosplit_flag,   13, "")                        \
  X(central_ignore_autosplit_flag, 14, "")                        \
  X(tcm_migration_old_flag,        15, "")                        \
  X(tcm_migration_new_flag,        16, "")                        \
  X(ordered_autosplit_flag,        17, "")
// clang-format on

struct RuleFlag {
  std::string_view name;
  unsigned bit;
  std::string_view option;  ///< the graph option (bool) the rule waits for, or ""
};

inline constexpr RuleFlag rule_flags[] = {
#define OPTGRAMMAR_RULE_FLAG_(name, bit, option) {#name, bit, option},
    OPTGRAMMAR_RULE_FLAGS(OPTGRAMMAR_RULE_FLAG_)
#undef OPTGRAMMAR_RULE_FLAG_
};

/// The flags as written, read: `relaxed_precision_flag`, `a | b`, a decimal constant, or nothing.
struct RuleFlagsRead {
  unsigned long bits = 0;
  std::string_view unknown = {};  ///< the first word that is not a flag name (then bits is partial)
  bool ok = true;
};
constexpr RuleFlagsRead read_rule_flags(std::string_view t) noexcept {
  RuleFlagsRead r;
  std::size_t i = 0;
  auto space = [&] {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  };
  auto word_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
  };
  space();
  while (i < t.size()) {
    const std::size_t b = i;
    while (i < t.size() && word_char(t[i])) ++i;
    std::string_view w = t.substr(b, i - b);
    if (w.empty()) w = t.substr(b, 1);
    // The framework's own spelling of a flag: hnnx::OptimFlags::name or OptimFlags::name.
    if (const std::size_t q = w.rfind("::"); q != std::string_view::npos) w = w.substr(q + 2);
    bool known = false;
    if (!w.empty() && w[0] >= '0' && w[0] <= '9') {
      known = true;
      unsigned long v = 0;
      for (char c : w) {
        if (c < '0' || c > '9')
          known = false;
        else
          v = v * 10 + static_cast<unsigned long>(c - '0');
      }
      r.bits |= v;
    }
    for (const auto& f : rule_flags)
      if (f.name == w) known = true, r.bits |= 1ul << f.bit;
    if (!known) {
      r.ok = false;
      r.unknown = w;
      return r;
    }
    space();
    if (i < t.size() && t[i] == '|') {
      ++i;
      space();
      if (i == t.size()) {
        r.ok = false;
        r.unknown = "|";
        return r;
      }
    } else if (i < t.size()) {
      r.ok = false;
      r.unknown = t.substr(i, 1);
      return r;
    }
  }
  return r;
}

/// The record of a written name, or nullptr.
constexpr const Construct* find_construct(std::string_view name) noexcept {
  for (const auto& c : constructs)
    if (c.name == name) return &c;
  return nullptr;
}

constexpr bool named_value(std::string_view name) noexcept {
  const Construct* c = find_construct(name);
  return c && c->family == Family::NAMED_VALUE;
}

/// The family's name as written (the first record's, for the families of several names).
constexpr std::string_view family_name(Family f) noexcept {
  constexpr std::string_view names[] = {
#define OPTGRAMMAR_FAMILY_NAME_(F, T, K, W, Y) #F,
      OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_FAMILY_NAME_)
#undef OPTGRAMMAR_FAMILY_NAME_
  };
  return names[static_cast<std::size_t>(f)];
}

}  // namespace optgrammar::dsl
