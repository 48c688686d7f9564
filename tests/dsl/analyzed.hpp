// Test helpers: a rule declared as DEF_PACKAGE_OPTIMIZATION declares it, but neither registered
// nor raising its error, so that the analysis of an ill-formed rule can be looked at.
#pragma once

#include <optgrammar/rules.hpp>

#include <string_view>

#define OG_ANALYZED_(NAME, PASS, FLAGS_TEXT, MATCH, CST, REPL)                               \
  struct NAME : ::optgrammar::dsl::words {                                                   \
    static constexpr std::string_view pass_text() { return #PASS; }                          \
    static constexpr std::string_view text() { return #MATCH " " #CST " " #REPL; }           \
    static constexpr auto match() { return ::optgrammar::dsl::detail::to_node(MATCH); }      \
    static constexpr auto constraint() { return ::optgrammar::dsl::detail::to_node(CST); }   \
    static constexpr auto replacement() { return ::optgrammar::dsl::detail::to_node(REPL); } \
    static constexpr std::string_view file() { return "t.cpp"; }                             \
    static constexpr int line = 1;                                                           \
    static constexpr const char* flags = FLAGS_TEXT;                                         \
  };

#define OG_ANALYZED(NAME, PASS, MATCH, CST, REPL) OG_ANALYZED_(NAME, PASS, "", MATCH, CST, REPL)
/// The same with DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS' flags.
#define OG_ANALYZED_FLAGS(NAME, PASS, FLAGS, MATCH, CST, REPL) OG_ANALYZED_(NAME, PASS, #FLAGS, MATCH, CST, REPL)

namespace optgrammar::dsl::test {
template <class R>
constexpr const Analysis& info() {
  return analyzed<R>::value.info;
}
/// The rule is rejected with family `f` and exactly `text` (without the "rule at" prefix).
template <class R>
constexpr bool says(Fault f, std::string_view text) {
  return !info<R>().ok && info<R>().fault == f && info<R>().text() == text;
}
}  // namespace optgrammar::dsl::test
