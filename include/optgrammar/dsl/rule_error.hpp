// The compile errors the C++ front end raises for the message catalogue's faults
// (dsl/messages.hpp): one incomplete class template per family, `optgrammar::rule_error::<family>`,
// whose template argument carries the message (g++) or its subject (clang). Rules raise them
// (package/define.hpp), and so do the package declarations checked at compile time
// (package/tensor_properties.hpp). Plain templates over the catalogue: the standard library only.
#pragma once

#include "optgrammar/dsl/messages.hpp"

#include <cstddef>
#include <string_view>
#include <utility>

namespace optgrammar::dsl {

/// A message as a template argument: g++ prints it as a string in diagnostics.
template <std::size_t N>
struct fixed_message {
  char s[N];
};

}  // namespace optgrammar::dsl

/// The compile errors of ill-formed rules and declarations: one incomplete class template per
/// message family of the catalogue (dsl/messages.hpp), so that the error names the fault. g++ shows the message as
/// the template argument; clang, which prints such an argument as numbers, gets the message's
/// subject (the offending tag or construct) as characters.
namespace optgrammar::rule_error {
#if defined(__clang__)
#define OPTGRAMMAR_RULE_ERROR_(id, pages, text) \
  template <char... Subject>                    \
  struct id;
#else
#define OPTGRAMMAR_RULE_ERROR_(id, pages, text)       \
  template <::optgrammar::dsl::fixed_message Message> \
  struct id;
#endif
OPTGRAMMAR_RULE_MESSAGES(OPTGRAMMAR_RULE_ERROR_)
#undef OPTGRAMMAR_RULE_ERROR_
/// A pass spec `NAME + N` or `NAME - N` of an ill-formed rule (the rule macro makes NAME the
/// rule's error, package/define.hpp): the sum is the error again (found by argument-dependent
/// lookup, declared only), so that the compilers report it as for a plain NAME ("invalid use of
/// incomplete type ...") instead of "no match for operator+".
template <class Error>
Error& operator+(Error&, long long);
template <class Error>
Error& operator-(Error&, long long);
}  // namespace optgrammar::rule_error

namespace optgrammar::dsl {
namespace detail {
#if defined(__clang__)
template <Fault F, char... S>
struct error_of;
#define OPTGRAMMAR_ERROR_OF_(id, pages, text)        \
  template <char... S>                               \
  struct error_of<Fault::id, S...> {                 \
    using type = ::optgrammar::rule_error::id<S...>; \
  };
#else
template <Fault F, fixed_message M>
struct error_of;
#define OPTGRAMMAR_ERROR_OF_(id, pages, text)     \
  template <fixed_message M>                      \
  struct error_of<Fault::id, M> {                 \
    using type = ::optgrammar::rule_error::id<M>; \
  };
#endif
OPTGRAMMAR_RULE_MESSAGES(OPTGRAMMAR_ERROR_OF_)
#undef OPTGRAMMAR_ERROR_OF_

/// `t` as a message template argument.
template <std::size_t N>
constexpr fixed_message<N> to_fixed_message(std::string_view t) {
  fixed_message<N> r{};
  for (std::size_t i = 0; i < t.size() && i + 1 < N; ++i) r.s[i] = t[i];
  return r;
}

/// The compile error of a fault found at compile time. `Found` has static constexpr members
/// `fault` (the family), `text` (the message, filled in) and `subject` (the offending name or
/// construct, may be empty): g++ gets the rule_error with the message as its argument, clang
/// with the subject's characters.
#if defined(__clang__)
template <class Found, class I = std::make_index_sequence<Found::subject.size()>>
struct found_error;
template <class Found, std::size_t... I>
struct found_error<Found, std::index_sequence<I...>> {
  using type = typename error_of<Found::fault, Found::subject[I]...>::type;
};
#else
template <class Found>
struct found_error {
  using type = typename error_of<Found::fault, to_fixed_message<Found::text.size() + 1>(Found::text)>::type;
};
#endif
}  // namespace detail
}  // namespace optgrammar::dsl
