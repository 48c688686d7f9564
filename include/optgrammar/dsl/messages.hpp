// The message catalogue of the rule checker: every diagnostic about a rule or a package declaration
// checked with it (DEF_TENSOR_PROPERTIES), defined once. Most are errors; octal_constant (the
// grammar's warning), shape_of_shape and cast_accepted are warnings, and the *_strict entries are
// the "should" restrictions: warnings in og-parse, errors in strict mode. The last group are the
// faults a C++ compiler reports in its own words (an unknown name, a functional cast): og-parse
// gives these.
//
// Each entry is a family: an identifier (the name of the compile error the C++ front end raises
// for it, `optgrammar::rule_error::<family>`), the grammar reference pages it concerns
// (docs/grammar/<page>.md, the first is its home) and a text in the grammar's words with `{}` slots
// for the offending tag, construct, type or number, filled in order. The C++ front end formats it
// at compile time (dsl/check.hpp); og-parse formats the same text with {fmt}. Plain data: this
// header needs only the standard library.
#pragma once

#include <cstddef>
#include <string_view>

// clang-format off
#define OPTGRAMMAR_RULE_MESSAGES(X)                                                                                   \
  /* strings */                                                                                                       \
  X(empty_string,            "match options", "empty string as {}")                                                   \
  X(bad_string,              "match options", "{} \"{}\" contains {}")                                                \
  /* limits of one rule */                                                                                            \
  X(too_many_op_names,       "match replacement", "more than 32 distinct op names in one rule")                       \
  X(too_many_tags,           "match", "more than 31 tags in one match")                                               \
  X(too_many_splits,         "splitting", "more than 8 AUTOSPLIT/OP_ITER in one rule")                                \
  X(integer_out_of_range,    "constants", "integer constant {} does not fit in int (add a U suffix for a size)")      \
  X(octal_constant,          "constants", "octal constant {} has the value {} (a leading 0 means octal)")             \
  X(c_style_cast,            "constants", "C-style cast '({})' is not allowed in a rule; write a functional cast {}(...) or INT(...)/UINT(...)/FLOAT(...)") \
  X(stray_parenthesis,       "constraints", "unexpected '(': parentheses are only allowed around the arguments of a name") \
  /* pass specs */                                                                                                    \
  X(pass_spec_form,          "registration", "the pass spec must be a pass name or NAME + N, not \"{}\"")             \
  X(pass_offset_form,        "registration", "the pass offset '{}' must be a decimal constant with no sign or suffix") \
  X(pass_offset_octal,       "registration", "the pass offset '{}' must be a decimal constant, not octal")            \
  X(pass_offset_too_large,   "registration", "the pass offset '{}' is too large")                                     \
  X(unknown_pass,            "registration", "unknown pass name \"{}\"")                                              \
  X(unknown_rule_flag,       "registration", "unknown rule flag '{}'")                                                \
  /* the match */                                                                                                     \
  X(match_root,              "match", "the match must be Op(...) or OpVarIn(...), not {}")                            \
  X(let_at_root,             "match", "LET(\"{}\", ...) is the root of the match; LET may only wrap an inner Op")     \
  X(let_binds_star,          "match", "LET cannot bind the tag \"*\", which names the matched op")                    \
  X(let_twice,               "match", "tag \"{}\" is the first operand of two LETs")                                  \
  X(tag_inside_own_let,      "match", "tag \"{}\" appears inside its own LET")                                        \
  X(let_operand,             "match", "LET(\"{}\", ...) must wrap Op(...) or OpVarIn(...), not {}")                   \
  X(not_in_match,            "match", "{} cannot appear in a match (match operands are operand tags, Op, OpVarIn and LET)") \
  X(match_only,              "match", "{} can only appear in a match, not in {}")                                     \
  /* tags and places */                                                                                               \
  X(tag_not_bound,           "match constraints replacement", "tag \"{}\" is used in {} but never bound by the match") \
  X(op_in_constraint,        "constraints", "Op(\"{}\", ...) cannot appear in a constraint")                          \
  X(replacement_only,        "constraints replacement", "{} cannot appear in a constraint (it is a replacement construct)") \
  X(constraint_not_bool,     "constraints", "the constraint must be bool, but {} gives {}")                              \
  X(star_replacement,        "replacement", "the replacement may not be \"{}\" (or a SELECT that can yield it): the rule would replace the op by itself") \
  X(replacement_kind,        "replacement", "the replacement must be an operand or a construction, not a {} expression") \
  X(replacement_has_match,   "replacement", "the replacement contains LET or OpVarIn, which belong in a match")       \
  /* operand types */                                                                                                 \
  X(operand_type,            "constraints replacement modifiers", "{}'s {} operand must be {}, not {}")               \
  X(needs_operand,           "constraints", "{} needs at least one operand")                                          \
  X(operand_count,           "constraints replacement", "'{}' takes {} operand{}, {} given")                          \
  X(operand_count_at_least,  "constraints replacement", "'{}' takes at least {} operand{}, {} given")                 \
  X(op_operand_kind,         "replacement", "{}'s operand {} is of type {}, but an operand must be an operand tag, an opref or a construction (gen_ConstScalar_i32/_f32 make a constant)") \
  X(op_name_not_string,      "match replacement", "{}'s first operand must be the op name as a string constant (\"Relu\"), not a C++ variable or expression") \
  X(let_in_construction,     "replacement", "LET and OpVarIn belong in a match, not in an Op construction of the replacement") \
  X(let_second_operand,      "match", "LET's second operand must be Op(...) or OpVarIn(...)")                         \
  X(select_condition,        "constraints", "SELECT's condition must be bool, not {}")                                \
  X(select_branches,         "constraints replacement", "SELECT's second and third operands have incompatible types {} and {}") \
  X(needs_bool,              "constraints", "{} needs bool operands, but operand {} is {}")                           \
  X(dtype_compare,           "constraints", "{} compares a dtype with {} (a dtype can only be compared with a dtype)") \
  X(dtype_use,               "constraints", "{} cannot take a dtype (operand {}): a dtype can only be used with EQ, NE, SELECT, INT and DTYPE_OF") \
  X(needs_integral,          "constraints", "{} takes int or size operands, but operand {} is {}")                    \
  X(needs_opref,             "properties", "{}'s operand {} must be an operand tag or opref, not {}")                 \
  X(opref_as_value,          "properties", "{}'s operand {} is {} where a value is expected")                         \
  X(cannot_compare,          "constraints", "{} cannot compare {} with {}")                                           \
  X(wrong_operand_types,     "constraints", "{} is applied to operands of the wrong type ({})")                       \
  X(roundup_pow2,            "constraints", "ROUNDUP's second operand must be a power of two, not {}")                \
  X(split_history_constant,  "modifiers", "WITH_SPLIT_HISTORY's second operand must be an integer constant, not {}")  \
  X(modifier_constant_strict, "modifiers", "{}'s last operand is a constant construction: the grammar wants an Op construction (an error in strict mode)") \
  X(shape_of_shape,          "replacement", "gen_ShapeOf of a shape construction ({}) is that shape construction: gen_ShapeOf adds nothing") \
  X(with_size_select_const,  "modifiers", "WITH_SIZE's first operand must be an existing opref or a shape construction, not a SELECT that can yield a constant") \
  /* splitting */                                                                                                     \
  X(autosplit_place,         "splitting", "AUTOSPLIT may only be the root of a replacement or inside a SELECT at the root") \
  X(autosplit_nested_strict, "splitting", "AUTOSPLIT nested inside an Op operand: the grammar wants it at the root of the replacement or in a root SELECT (an error in strict mode)") \
  X(slice_operand_strict,    "splitting", "{}'s first operand is an Op construction: the grammar wants an existing opref (an error in strict mode)") \
  X(slice_operand_kind_strict, "splitting", "{}'s {} operand is {}: the grammar wants an existing opref or a shape construction (an error in strict mode)") \
  X(op_iter_base_strict,     "splitting", "OP_ITER's first operand is {}: the grammar wants Op(...) or an existing opref (an error in strict mode)") \
  X(split_tag_twice,         "splitting", "split tag \"{}\" is used by two AUTOSPLIT/OP_ITER in one rule")            \
  X(split_tag_unused,        "splitting", "AUTOSPLIT with split tag \"{}\" never refers to it in its last operand")   \
  X(split_var_scope,         "splitting", "{}(\"{}\") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag \"{}\"") \
  X(typical_conv_operands,   "splitting", "TYPICAL_CONV_SLICE's {} must be {}")                                       \
  /* external functions */                                                                                            \
  X(external_replace_place,  "external", "EXTERNAL_REPLACE({}) may only be the root of a replacement or inside a SELECT at the root") \
  X(external_not_function,   "external", "{}({}, ...): {} is not a function")                                         \
  X(external_too_few_params, "external", "{}({}, ...): {} has too few parameters for {}")                             \
  X(external_framework_param,"external splitting", "{}({}, ...): the {} parameter of {} must be {}")                  \
  X(external_replace_signature, "external", "EXTERNAL_REPLACE({}): {} must be OpRef {}(Replacement&, OpDef const&)")  \
  X(external_result,         "external", "{}({}, ...): {} must return {}")                                            \
  X(external_arg_count,      "external", "{}({}, ...) passes {} argument{} but {} takes {} after its framework parameters") \
  X(external_arg_type,       "external", "{}({}, ...): argument {} is {} but parameter {} of {} is {}")           \
  /* DEF_TENSOR_PROPERTIES */                                                                                         \
  X(properties_form,         "registration", "DEF_TENSOR_PROPERTIES takes Op(\"op\", \"operand\", ...) and then properties such as Flat(\"operand\", ...), all of non-empty strings") \
  X(properties_ellipsis,     "registration", "\"...\" (this operand and all later ones) must be the last operand of Op(...) in DEF_TENSOR_PROPERTIES") \
  X(properties_unknown_name, "registration", "\"{}\" is neither an operand of Op(\"{}\", ...), an output named by Outputs(...), nor \"*\"") \
  X(param_order_form,        "registration", "DEF_PACKAGE_PARAM_ORDER takes the op name, then one or more triples of (\"param\", mandatory, default)") \
  X(outputs_place,           "registration", "Outputs(...) names the op's outputs right after Op(...), before any tensor property") \
  X(outputs_name,            "registration", "\"{}\" cannot name an output: it is \"*\", \"...\", an operand or a name given twice") \
  X(outputs_empty,           "registration", "Outputs(...) names at least one output") \
  /* what a C++ compiler reports in its own words, and og-parse in these */                                          \
  X(unknown_function,        "constraints", "unknown function '{}'{}")                                               \
  X(unknown_name,            "constraints", "unknown name '{}'{}")                                                   \
  X(not_a_dtype,             "constants", "'{}' is not a DType tag")                                                  \
  X(named_value_call,        "compat", "'{}' is a value: write it without parentheses")                               \
  X(function_as_value,       "external", "'{}' is a function: only EXTERNAL_CONSTRAINT, EXTERNAL_REPLACE, SHAPEFN_APPLY and AUTOSPLIT_SHAPEFN_APPLY take one") \
  X(expected_string,         "match", "expected {} (a string constant), found {}")                                    \
  X(op_without_name,         "match replacement", "'{}' needs an op name")                                            \
  X(message_escape,          "constraints", "unknown escape sequence '\\{}' in a MESSAGE string")                     \
  X(message_hex_escape,      "constraints", "'\\x' used with no following hex digits in a MESSAGE string")            \
  X(cast_accepted,           "constants", "functional cast '{}(...)' is outside the grammar; accepted as the constant {}") \
  X(cast_not_constant,       "constants", "functional cast '{}(...)' of a non-constant is outside the grammar; use {}(...)") \
  X(cast_negative,           "constants", "functional cast '{}(...)' of a negative or too large constant")           \
  X(cast_int_range,          "constants", "functional cast '{}(...)' of a constant that does not fit in int")        \
  X(rule_too_large,          "compat", "the rule is too large once its macros are expanded (more than {} nodes)")
// clang-format on

namespace optgrammar::dsl {

/// One value per message family, in catalogue order.
enum class Fault : unsigned char {
  none,
#define OPTGRAMMAR_FAULT_ENUM_(id, pages, text) id,
  OPTGRAMMAR_RULE_MESSAGES(OPTGRAMMAR_FAULT_ENUM_)
#undef OPTGRAMMAR_FAULT_ENUM_
};

/// A catalogue entry: the family's identifier, the grammar reference pages it concerns (names of
/// docs/grammar/*.md, space-separated, the first its home) and its text with `{}` slots.
struct FaultText {
  std::string_view id;
  std::string_view pages;
  std::string_view text;
};

inline constexpr FaultText fault_texts[] = {{"none", "", ""},
#define OPTGRAMMAR_FAULT_TEXT_(id, pages, text) {#id, pages, text},
                                            OPTGRAMMAR_RULE_MESSAGES(OPTGRAMMAR_FAULT_TEXT_)
#undef OPTGRAMMAR_FAULT_TEXT_
};

constexpr const FaultText& fault_text(Fault f) noexcept { return fault_texts[static_cast<std::size_t>(f)]; }

/// The number of `{}` slots of a family's text.
constexpr std::size_t fault_slots(Fault f) noexcept {
  std::size_t n = 0;
  const std::string_view t = fault_text(f).text;
  for (std::size_t i = 0; i + 1 < t.size(); ++i)
    if (t[i] == '{' && t[i + 1] == '}') ++n;
  return n;
}

/// The family whose identifier is `id`, or Fault::none.
constexpr Fault fault_by_id(std::string_view id) noexcept {
  for (std::size_t i = 1; i < sizeof(fault_texts) / sizeof(fault_texts[0]); ++i)
    if (fault_texts[i].id == id) return static_cast<Fault>(i);
  return Fault::none;
}

/// The words for value types in messages, in the order of the C++ front end's VType
/// (dsl/node.hpp); og-parse maps its own types onto the same words.
inline constexpr std::string_view value_type_words[] = {"bool",
                                                        "int",
                                                        "size",
                                                        "float",
                                                        "dtype",
                                                        "opref",
                                                        "Op construction",
                                                        "shape construction",
                                                        "constant construction",
                                                        "SELECT of different operand kinds",
                                                        "match pattern",
                                                        "string",
                                                        "ill-typed"};

/// The words for what an operand of a regular family must be, in the order of OperandKind
/// (dsl/typing.hpp), and the ordinal words of operand positions.
inline constexpr std::string_view operand_kind_words[] = {
    "bool",     "int, size or float", "bool, int, size or float", "int or size",    "a scalar",
    "a scalar", "int, size or dtype", "an operand tag or opref",  "an option name", "a split tag"};
constexpr std::string_view ordinal_word(std::size_t i) {
  constexpr std::string_view w[] = {"first", "second",  "third",  "fourth", "fifth",
                                    "sixth", "seventh", "eighth", "ninth",  "tenth"};
  return i < sizeof(w) / sizeof(w[0]) ? w[i] : std::string_view("later");
}

/// The words for the kinds of an external function's parameters, in the order of the C++ front
/// end's ParamKind (dsl/flat.hpp).
inline constexpr std::string_view param_kind_words[] = {
    "OpRef", "OpDef const&",        "bool",        "an integer",   "a float",
    "DType", "an unsupported type", "Constraint&", "Replacement&", "Split_Context const&"};

}  // namespace optgrammar::dsl
