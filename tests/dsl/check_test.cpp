// dsl/check.hpp: the analysis' own checks, on an Analysis of their own: strings of the grammar,
// pass specs, parentheses, octal constants, and how a fault is recorded.
#include <optgrammar/rules.hpp>

#include <string_view>

namespace {
using namespace optgrammar::dsl;

constexpr Analysis fresh() {
  Analysis a;
  a.file = "dir/pkg.cpp";
  a.line = 7;
  return a;
}

// A fault: its family, its catalogue text with the arguments, the prefix naming the rule's file
// (without directories) and line, and its subject, the first argument.
static_assert([] {
  Analysis a = fresh();
  a.fail(Fault::tag_not_bound, "y", "the constraint");
  a.fail(Fault::empty_string, "op name");  // only the first fault is kept
  return !a.ok && a.fault == Fault::tag_not_bound &&
         a.text() == "tag \"y\" is used in the constraint but never bound by the match" &&
         a.msg.view() == "rule at pkg.cpp:7: tag \"y\" is used in the constraint but never bound by the match" &&
         a.subject.view() == "y";
}());

// Strings: non-empty, printable, no space, quote or backslash.
constexpr Analysis after_string(Str s) {
  Analysis a = fresh();
  detail::check_string(a, s, "op name");
  return a;
}
static_assert(after_string(Str("Relu")).ok);
static_assert(after_string(Str("")).fault == Fault::empty_string &&
              after_string(Str("")).text() == "empty string as op name");
static_assert(after_string(Str("a b")).fault == Fault::bad_string &&
              after_string(Str("a b")).text() == "op name \"a b\" contains a space");
static_assert(after_string(Str("a\tb")).text().ends_with("contains an unprintable character"));

// Pass specs as written.
constexpr Analysis after_pass(std::string_view t) {
  Analysis a = fresh();
  detail::check_pass_text(a, t);
  return a;
}
static_assert(after_pass("EARLY").ok && after_pass("EARLY + 3").ok && after_pass(" LATE-2 ").ok);
static_assert(after_pass("EARLY + 3u").fault == Fault::pass_offset_form);
static_assert(after_pass("EARLY + 010").fault == Fault::pass_offset_octal);
static_assert(after_pass("EARLY + 1234567").fault == Fault::pass_offset_too_large);
static_assert(after_pass("EARLY * 2").fault == Fault::pass_spec_form &&
              after_pass("+ 1").fault == Fault::pass_spec_form);

// Parentheses that open no call: a C-style cast (named with its type) or a grouping.
constexpr Analysis after_parens(std::string_view t) {
  Analysis a = fresh();
  detail::check_parentheses(a, t);
  return a;
}
static_assert(after_parens("GT(DIM_OF(\"x\", 3), 1)").ok);
static_assert(after_parens("GT(DIM_OF(\"x\", (int)3), 1)").fault == Fault::c_style_cast &&
              after_parens("GT(DIM_OF(\"x\", (int)3), 1)").subject.view() == "int");
static_assert(after_parens("GT((unsigned long)x, 1)").subject.view() == "unsigned long");
static_assert(after_parens("GT((1), 1)").fault == Fault::stray_parenthesis);
static_assert(after_parens("Op(\"(x)\")").ok);  // inside a string: not C++

// Octal constants of value 8 or more are found (a warning); others are not.
static_assert(detail::find_octal("GT(x, 010)", "a/b.cpp", 3).view() ==
              "rule at b.cpp:3: octal constant 010 has the value 8 (a leading 0 means octal)");
static_assert(detail::find_octal("GT(x, 07) 0x10 0.5 \"010\"", "b.cpp", 3).len == 0);

// Which constructs keep a string, and which are modifiers.
static_assert(detail::keeps(Kind::OptionInt, OperandKind::option_name) &&
              detail::keeps(Kind::SplitStart, OperandKind::split_tag));
static_assert(!detail::keeps(Kind::DimOf, OperandKind::option_name));
static_assert(detail::is_modifier(Kind::WithSize) && !detail::is_modifier(Kind::Op));
}  // namespace
