// DEF_TENSOR_PROPERTIES: a package's declaration of the tensor properties of an op's operands and
// outputs, checked at compile time with the rule checker's message catalogue (dsl/messages.hpp:
// the same text og-parse gives, raised as the family's rule_error, dsl/rule_error.hpp) and
// recorded at static initialization in the registry of core/declarations.hpp.
//
//   DEF_TENSOR_PROPERTIES(Op("Conv2d", "in", "w"), Flat("*"), MainMemory("w"), Crouton("in"))
//   DEF_TENSOR_PROPERTIES(Op("Split2", "in"), Outputs("lo", "hi"), Flat("lo"), MainMemory("hi"))
#pragma once

#include "optgrammar/core/declarations.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/dsl/messages.hpp"
#include "optgrammar/dsl/rule_error.hpp"
#include "optgrammar/dsl/str.hpp"

#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace optgrammar::package_glue {

/// What the check says of one declaration: nothing (fault none), or the first fault in source
/// order with the catalogue's text filled in and the offending name.
struct PropertiesVerdict {
  dsl::Fault fault = dsl::Fault::none;
  dsl::Message text;
  dsl::Message subject;  ///< the offending name, when the fault has one

  constexpr bool ok() const noexcept { return fault == dsl::Fault::none; }
  constexpr PropertiesVerdict& fail(dsl::Fault f, std::string_view name = {}, std::string_view op = {}) {
    fault = f;
    const dsl::MessageArg args[] = {name, op};
    dsl::format_message(text, dsl::fault_text(f).text, args, 2);
    subject << name;
    return *this;
  }
};

/// Checks the text of a declaration (the macro's arguments as written): `Op("op", operands...)`,
/// then properties `Name("operand", ...)` naming operands of the Op, "*" (every output), or the
/// names an `Outputs(...)` right after the Op gives the outputs. A "..." operand stands for itself
/// and every later input, so it can only come last. A property may name "..." also when the Op has
/// none: the inputs that no other property singles out (TensorProperties::of_input). Names are non-empty and printable,
/// without spaces, quotes or escapes. Faults are reported in source order, as og-parse finds them.
constexpr PropertiesVerdict check_tensor_properties(std::string_view text) {
  using dsl::Fault;
  PropertiesVerdict v;
  ::optgrammar::detail::PropParser p{text};
  std::string_view name, op;
  std::string_view known[64];  // the Op's operands, then the names of Outputs(...)
  std::size_t n = 0;
  bool first = true, ellipsis_inside = false, unprintable = false;
  auto printable = [&](std::string_view s) {
    for (char c : s)
      if (c == '\\' || static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) >= 0x7f)
        unprintable = true;
  };
  if (!p.call(name,
              [&](std::string_view s) {
                printable(s);
                if (first) {
                  first = false;
                  op = s;
                  return;
                }
                if (n > 0 && known[n - 1] == "...") ellipsis_inside = true;
                if (n < 64) known[n++] = s;
              }) ||
      name != "Op" || first || unprintable)
    return v.fail(Fault::properties_form);
  if (ellipsis_inside) return v.fail(Fault::properties_ellipsis);
  for (bool after_op = true; p.eat(','); after_op = false) {
    Fault f = Fault::none;
    std::string_view who;
    bool named_any = false;
    const bool parsed = p.call(name, [&](std::string_view s) {
      named_any = true;
      printable(s);
      if (f != Fault::none) return;
      bool seen = false;
      for (std::size_t k = 0; k < n; ++k) seen = seen || known[k] == s;
      if (name != "Outputs") {
        if (!seen && s != "*" && s != "...") {  // ("..." without one in the Op: the inputs left over)
          f = Fault::properties_unknown_name;
          who = s;
        }
      } else if (!after_op) {
        f = Fault::outputs_place;
      } else if (seen || s == "*" || s == "...") {
        f = Fault::outputs_name;
        who = s;
      } else if (n < 64) {
        known[n++] = s;
      }
    });
    if (f == Fault::none && parsed && name == "Outputs")
      f = !after_op ? Fault::outputs_place : !named_any ? Fault::outputs_empty : Fault::none;
    if (f != Fault::none) return v.fail(f, who, op);
    if (!parsed || unprintable) return v.fail(Fault::properties_form);
  }
  p.skip();
  if (p.i != text.size()) return v.fail(Fault::properties_form);
  return v;
}

namespace detail {
template <class Decl>
inline constexpr PropertiesVerdict properties_verdict = check_tensor_properties(Decl::text());

/// What a well-formed declaration's check names: a complete type, made from the declaration's
/// text.
struct PropertiesAccepted {
  constexpr PropertiesAccepted(const char*) {}  // NOLINT: implicit on purpose (see properties_scope)
};

/// The declaration's verdict as a type: PropertiesAccepted, or the incomplete rule_error of its
/// fault (g++ shows the message as its argument, clang the offending name).
template <class Decl, bool Ok = properties_verdict<Decl>.ok()>
struct properties_check {
  using type = PropertiesAccepted;
};
/// An ill-formed declaration's fault, as found_error (dsl/rule_error.hpp) reads it.
template <class Decl>
struct properties_found {
  static constexpr dsl::Fault fault = properties_verdict<Decl>.fault;
  static constexpr std::string_view text = properties_verdict<Decl>.text.view();
  static constexpr std::string_view subject = properties_verdict<Decl>.subject.view();
};
template <class Decl>
struct properties_check<Decl, false> {
  using type = typename dsl::detail::found_error<properties_found<Decl>>::type;
};
/// The scope in which DEF_TENSOR_PROPERTIES raises an ill-formed declaration's one error where
/// the declaration is written: `accept` takes the verdict, and the macro passes it the
/// declaration's text as a string literal made by `#`, which both compilers place on the
/// declaration's line. The incomplete rule_error of a fault cannot be made from it: g++ says so
/// naming the family with its message, clang naming the family with the offending name. (Its
/// operands are not evaluated, so a name written without quotes gets the catalogue's message too.)
template <class Decl>
struct properties_scope {
  static bool accept(typename properties_check<Decl>::type);
};

/// The number of operands written after DEF_PACKAGE_PARAM_ORDER's op name (declared only: read in
/// decltype, where the package's default values need not be constants).
template <class... A>
std::integral_constant<std::size_t, sizeof...(A)> param_order_operands(const A&...);
/// A parameter order's form as a type, as for tensor properties: one or more whole triples
/// after the op name, else the incomplete rule_error of param_order_form.
struct param_order_found {
  static constexpr dsl::Fault fault = dsl::Fault::param_order_form;
  static constexpr std::string_view text = dsl::fault_text(fault).text;
  static constexpr std::string_view subject = "DEF_PACKAGE_PARAM_ORDER";
};
template <std::size_t N, bool Ok = (N >= 3 && N % 3 == 0)>
struct param_order_check {
  using type = PropertiesAccepted;
};
template <std::size_t N>
struct param_order_check<N, false> {
  using type = typename dsl::detail::found_error<param_order_found>::type;
};
/// The scope in which DEF_PACKAGE_PARAM_ORDER raises a malformed call's one error on its own
/// line (the op name's text, made by `#`, is the argument), as properties_scope does.
template <std::size_t N>
struct param_order_scope {
  static bool accept(typename param_order_check<N>::type);
};
}  // namespace detail
}  // namespace optgrammar::package_glue

/// DEF_TENSOR_PROPERTIES(Op("Conv2d", "in", "w"), Flat("*"), MainMemory("w")): an ill-formed
/// declaration is one compile error, optgrammar::rule_error::<family> of the message catalogue.
#define DEF_TENSOR_PROPERTIES(...) \
  OPTGRAMMAR_TENSOR_PROPERTIES_(OPTGRAMMAR_CAT(og_tensor_props_, __COUNTER__), __VA_ARGS__)
#define OPTGRAMMAR_TENSOR_PROPERTIES_(NAME, ...)                                                       \
  struct NAME {                                                                                        \
    static constexpr std::string_view text() { return OPTGRAMMAR_STRINGIFY(__VA_ARGS__); }             \
  };                                                                                                   \
  struct OPTGRAMMAR_CAT(NAME, _verdict) : ::optgrammar::package_glue::detail::properties_scope<NAME> { \
    static_assert(sizeof(accept(OPTGRAMMAR_STRINGIFY(__VA_ARGS__))));                                  \
  };                                                                                                   \
  static const ::optgrammar::detail::TensorPropertiesRegistrar OPTGRAMMAR_CAT(NAME, _registered){      \
      OPTGRAMMAR_STRINGIFY(__VA_ARGS__), __FILE__, __LINE__};

/// DEF_PACKAGE_PARAM_ORDER("Conv2d", "stride", true, nullptr, "pad", false, nullptr): the op name
/// (a string or a variable holding one), then one or more triples of parameter name, whether it
/// is mandatory, and its default; another form is one compile error,
/// optgrammar::rule_error::param_order_form.
#define DEF_PACKAGE_PARAM_ORDER(OP, ...) \
  OPTGRAMMAR_PARAM_ORDER_(OPTGRAMMAR_CAT(og_param_order_, __COUNTER__), OP, __VA_ARGS__)
#define OPTGRAMMAR_PARAM_ORDER_(NAME, OP, ...)                                                        \
  struct OPTGRAMMAR_CAT(NAME, _verdict)                                                               \
      : ::optgrammar::package_glue::detail::param_order_scope<                                        \
            decltype(::optgrammar::package_glue::detail::param_order_operands(__VA_ARGS__))::value> { \
    static_assert(sizeof(accept(OPTGRAMMAR_STRINGIFY(OP))));                                          \
  };                                                                                                  \
  OPTGRAMMAR_PARAM_ORDER_REGISTER_(NAME, OP, __VA_ARGS__)
