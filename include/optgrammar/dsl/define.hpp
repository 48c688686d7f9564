// DEF_PACKAGE_OPTIMIZATION: one constexpr analysis plus one registration per rule.
#pragma once

#include "optgrammar/core/registry.hpp"
#include "optgrammar/dsl/canonical.hpp"
#include "optgrammar/dsl/check.hpp"
#include "optgrammar/dsl/words.hpp"
#include "optgrammar/engine/execute.hpp"
#include "optgrammar/engine/rule.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace optgrammar::dsl {

namespace detail {
/// The pass of a rule; anything but a pass word (`3050`, a user's int) is an unknown pass, which
/// analysis reports by the text as written.
template <class P>
constexpr Pass to_pass(const P& p) {
  if constexpr (std::is_same_v<P, Pass>)
    return p;
  else
    return Pass{Str(), -1, 0, false};
}
}  // namespace detail

/// A rule's analysis, computed once per rule at compile time.
template <class Rule>
struct analyzed {
  static constexpr auto value = analyze(detail::to_pass(Rule::pass()), Rule::pass_text(), Rule::match(),
                                        Rule::constraint(), Rule::replacement(), Rule::file(), Rule::line);
};

/// The compile error of a rule. Its template argument is the message, so the compiler's first
/// error line reads "... RULE_ERROR<... "rule at x.cpp:12: tag \"y\" is used in ...">".
template <std::size_t N>
struct fixed_message {
  char s[N];
};
#if defined(__clang__)
template <char... Text>
struct RULE_ERROR;  // clang prints a class-type template argument as numbers, a char pack as text
#else
template <fixed_message Text>
struct RULE_ERROR;
#endif

namespace detail {
template <class Rule>
constexpr auto error_text() {
  constexpr auto& m = analyzed<Rule>::value.info.msg;
  fixed_message<m.len + 1> r{};
  for (std::size_t i = 0; i < m.len; ++i) r.s[i] = m.s[i];
  return r;
}
#if defined(__clang__)
template <class Rule, std::size_t... I>
void report(std::index_sequence<I...>) {
  constexpr auto text = error_text<Rule>();
  RULE_ERROR<text.s[I]...> rule_error;  // the one error: this type is never defined
  (void)rule_error;
}
#else
template <fixed_message Text, std::size_t... I>
void report(std::index_sequence<I...>) {
  RULE_ERROR<Text> rule_error;  // the one error: this type is never defined
  (void)rule_error;
}
#endif

/// The warning the grammar asks for on an octal constant >= 8. Deprecation is the portable way to
/// make a compiler warn; the message (a template argument) is in the warning's first line.
template <class Rule>
inline constexpr Message octal_finding = find_octal(Rule::text(), Rule::file(), Rule::line);

template <class Rule>
constexpr auto octal_text() {
  constexpr auto& m = octal_finding<Rule>;
  fixed_message<m.len + 1> r{};
  for (std::size_t i = 0; i < m.len; ++i) r.s[i] = m.s[i];
  return r;
}
#if defined(__clang__)
template <char... Text>
[[deprecated("a leading 0 makes an integer constant octal; write it in decimal")]] constexpr bool OCTAL_CONSTANT() {
  return true;
}
template <class Rule, std::size_t... I>
constexpr bool warn_octal(std::index_sequence<I...>) {
  constexpr auto text = octal_text<Rule>();
  return OCTAL_CONSTANT<text.s[I]...>();
}
#else
template <fixed_message Text>
[[deprecated("a leading 0 makes an integer constant octal; write it in decimal")]] constexpr bool OCTAL_CONSTANT() {
  return true;
}
template <class Rule>
constexpr bool warn_octal() {
  return OCTAL_CONSTANT<octal_text<Rule>()>();
}
#endif
}  // namespace detail

/// Checks a rule; on success registers it in RuleSet::global() and returns true. On failure the
/// only error is the one `report` raises: nothing else about the rule is instantiated.
template <class Rule>
bool define_rule() {
  constexpr auto& a = analyzed<Rule>::value;
  if constexpr (!a.info.ok) {
#if defined(__clang__)
    detail::report<Rule>(std::make_index_sequence<a.info.msg.len>{});
#else
    detail::report<detail::error_text<Rule>()>(std::index_sequence<>{});
#endif
    return false;
  } else {
    if constexpr (detail::octal_finding<Rule>.len > 0) {
#if defined(__clang__)
      (void)detail::warn_octal<Rule>(std::make_index_sequence<detail::octal_finding<Rule>.len>{});
#else
      (void)detail::warn_octal<Rule>();
#endif
    }
    RuleInfo info;
    info.file = std::string(Rule::file());
    info.line = Rule::line;
    info.name = std::string(file_base_name(Rule::file()))
                    .append(":")
                    .append(std::to_string(Rule::line));
    info.priority = a.pass.priority();
    info.pass_name = std::string(a.pass.name.view());
    if (a.pass.offset > 0) info.pass_name += std::string("+").append(std::to_string(a.pass.offset));
    if (a.pass.offset < 0) info.pass_name += std::to_string(a.pass.offset);
    for (int i = 0; i < a.info.n_names; ++i) info.names.push_back(intern_op_name(a.info.names[i].view()));
    info.root = info.names[static_cast<std::size_t>(a.match.leaf.index)];
    info.flags = Rule::flags;
    info.canonical = canonical_text(a, info.flags);
    info.warn_nested_split = a.info.warn_nested_split;
    info.apply = &engine::apply_rule<analyzed<Rule>>;
    RuleSet::global().add_once(std::move(info));  // once, also when a header holds the rule
    return true;
  }
}

}  // namespace optgrammar::dsl

// A macro because a rule must (1) be evaluated where the rule words (Op, AND, ...) are visible
// without a using-directive, which a class derived from `words` gives, (2) capture __FILE__ and
// __LINE__, and (3) create a uniquely named registration object at namespace scope.
#define OPTGRAMMAR_RULE_(NAME, FLAGS, PASS, PASS_TEXT, MATCH, CST, REPL)                               \
  namespace {                                                                                          \
  struct NAME : ::optgrammar::dsl::words {                                                             \
    static constexpr auto pass() { return PASS; }                                                      \
    static constexpr std::string_view pass_text() { return PASS_TEXT; }                                \
    static constexpr std::string_view text() { return #CST " " #REPL; }                                \
    static constexpr auto match() { return ::optgrammar::dsl::detail::to_node(MATCH); }                \
    static constexpr auto constraint() { return ::optgrammar::dsl::detail::to_node(CST); }             \
    static constexpr auto replacement() { return ::optgrammar::dsl::detail::to_node(REPL); }           \
    static constexpr std::string_view file() { return __FILE__; }                                      \
    static constexpr int line = __LINE__;                                                              \
    static constexpr const char* flags = FLAGS;                                                        \
  };                                                                                                   \
  [[maybe_unused]] const bool OPTGRAMMAR_CAT(NAME, _registered) = ::optgrammar::dsl::define_rule<NAME>(); \
  }

/// DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
#define DEF_PACKAGE_OPTIMIZATION(PASS, MATCH, CST, REPL) \
  OPTGRAMMAR_RULE_(OPTGRAMMAR_CAT(og_rule_, __COUNTER__), "", PASS, #PASS, MATCH, CST, REPL)

/// DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precision_flag, match, constraint, replacement)
#define DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(PASS, FLAGS, MATCH, CST, REPL) \
  OPTGRAMMAR_RULE_(OPTGRAMMAR_CAT(og_rule_, __COUNTER__), #FLAGS, PASS, #PASS, MATCH, CST, REPL)

// The words that name a C++ function or a tensor class are macros, so that the name as written is
// known for the canonical form and for messages (the function itself is called through a pointer
// and its parameters are checked at compile time). They forward to members of `words` with a
// trailing underscore; outside rules they expand to names that do not exist.
#define EXTERNAL_CONSTRAINT(FN, ...) EXTERNAL_CONSTRAINT_(#FN, FN, __VA_ARGS__)
#define EXTERNAL_REPLACE(FN) EXTERNAL_REPLACE_(#FN, FN)
#define SHAPEFN_APPLY(FN, ...) SHAPEFN_APPLY_(#FN, FN __VA_OPT__(, ) __VA_ARGS__)
#define AUTOSPLIT_SHAPEFN_APPLY(FN, ...) AUTOSPLIT_SHAPEFN_APPLY_(#FN, FN, __VA_ARGS__)
#define LAYOUT_CHUNKSIZE(CLS, ...) LAYOUT_CHUNKSIZE_(#CLS, __VA_ARGS__)
