// The compile-time strings of the front end (dsl/str.hpp): rule strings, the message buffer and
// the catalogue's formatting, as static_assert tables (compiling this file is the test).
#include <optgrammar/dsl/str.hpp>

#include <string_view>

namespace {
using namespace optgrammar::dsl;

// A rule string is the literal as written, up to an embedded NUL.
static_assert(Str("Conv2d").view() == "Conv2d");
static_assert(Str("").len == 0);
static_assert(Str("ab\0cd").view() == "ab");
static_assert(Str("x") == Str("x") && !(Str("x") == Str("y")) && Str("q::Add") == std::string_view("q::Add"));

constexpr bool writes(long long v, std::string_view want) {
  Message m;
  m << v;
  return m.view() == want;
}
constexpr bool numbers_written() {
  return writes(0, "0") && writes(-17, "-17") && writes(4096, "4096") &&
         writes(-9223372036854775807LL - 1, "-9223372036854775808");
}
static_assert(numbers_written());

// A message longer than the buffer ends in "..." instead of being cut silently.
constexpr bool long_message_ends_in_dots() {
  Message m;
  for (int i = 0; i < 100; ++i) m << "0123456789";
  const std::string_view v = m.view();
  return v.size() == Message::capacity && v.substr(v.size() - 3) == "..." && v.substr(0, 10) == "0123456789";
}
static_assert(long_message_ends_in_dots());

constexpr bool formats(std::string_view text, std::initializer_list<MessageArg> args, std::string_view want) {
  Message m;
  format_message(m, text, args.begin(), args.size());
  return m.view() == want;
}
static_assert(formats("tag \"{}\" is used in {}", {"y", "the constraint"}, "tag \"y\" is used in the constraint"));
static_assert(formats("'{}' takes {} operand{}", {"RANK_OF", 1, ""}, "'RANK_OF' takes 1 operand"));
static_assert(formats("{} and {}", {"only one"}, "only one and "), "a slot without an argument stays empty");
static_assert(formats("no slots {", {"unused"}, "no slots {"), "a lone brace is text");

// A rule's name and the rule order use a file's base name, whatever path spelling reached it.
static_assert(file_base_name("/src/../inc/x.hpp") == "x.hpp");
static_assert(file_base_name("x.hpp") == "x.hpp");
static_assert(file_base_name("dir/") == "");
}  // namespace
