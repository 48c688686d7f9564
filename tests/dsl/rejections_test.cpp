// Every annotated bad rule of rejections.inc, through the C++ front end's analysis at compile
// time: the rule is rejected with the family and the exact text written beside it, and its twin is
// accepted. One translation unit holds them all; a wrong entry fails the static_assert that names
// it, so the build of og_dsl_tests is the test. (tests/compile_fail keeps what only a compiler's own diagnostics can
// show.)
#include "analyzed.hpp"

namespace rejections {
using namespace optgrammar::dsl::test;

#define OG_REJECT(NAME, FAULT, TEXT, PASS, MATCH, CST, REPL) \
  OG_ANALYZED(NAME, PASS, MATCH, CST, REPL)                  \
  static_assert(says<NAME>(::optgrammar::dsl::Fault::FAULT, TEXT), #NAME);
#define OG_ACCEPT(NAME, PASS, MATCH, CST, REPL)    \
  OG_ANALYZED(NAME##_twin, PASS, MATCH, CST, REPL) \
  static_assert(info<NAME##_twin>().ok, #NAME "'s twin");
#define OG_REJECT_FLAGS(NAME, FAULT, TEXT, PASS, FLAGS, MATCH, CST, REPL) \
  OG_ANALYZED_FLAGS(NAME, PASS, FLAGS, MATCH, CST, REPL)                  \
  static_assert(says<NAME>(::optgrammar::dsl::Fault::FAULT, TEXT), #NAME);
#define OG_ACCEPT_FLAGS(NAME, PASS, FLAGS, MATCH, CST, REPL)    \
  OG_ANALYZED_FLAGS(NAME##_twin, PASS, FLAGS, MATCH, CST, REPL) \
  static_assert(info<NAME##_twin>().ok, #NAME "'s twin");
constexpr bool properties_say(std::string_view decl, ::optgrammar::dsl::Fault f, std::string_view text) {
  const auto v = ::optgrammar::package_glue::check_tensor_properties(decl);
  return v.fault == f && v.text.view() == text;
}
#define OG_REJECT_PROPERTIES(NAME, FAULT, TEXT, ...) \
  static_assert(properties_say(#__VA_ARGS__, ::optgrammar::dsl::Fault::FAULT, TEXT), #NAME);
#define OG_ACCEPT_PROPERTIES(NAME, ...) \
  static_assert(::optgrammar::package_glue::check_tensor_properties(#__VA_ARGS__).ok(), #NAME "'s twin");
#include "rejections.inc"
#undef OG_REJECT_PROPERTIES
#undef OG_ACCEPT_PROPERTIES
#undef OG_REJECT_FLAGS
#undef OG_ACCEPT_FLAGS
#undef OG_REJECT
#undef OG_ACCEPT
}  // namespace rejections
