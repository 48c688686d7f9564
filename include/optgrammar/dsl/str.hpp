// Fixed-capacity strings usable in constant evaluation: rule strings (op names, tags) and the
// text of compile-time diagnostics.
#pragma once

#include <cstddef>
#include <string_view>

namespace optgrammar::dsl {

/// A string constant of a rule ("Conv2d", "x"). Capacity 63 characters; longer is a rule error.
struct Str {
  static constexpr std::size_t capacity = 63;
  char s[capacity + 1]{};
  std::size_t len = 0;
  bool overflow = false;

  constexpr Str() = default;
  template <std::size_t N>
  constexpr Str(const char (&lit)[N]) {  // NOLINT: implicit on purpose, "x" in rules
    for (std::size_t i = 0; i + 1 < N && lit[i]; ++i) push(lit[i]);
  }
  constexpr void push(char c) {
    if (len < capacity)
      s[len++] = c;
    else
      overflow = true;
  }
  constexpr std::string_view view() const { return {s, len}; }
  constexpr bool operator==(const Str& o) const { return view() == o.view(); }
  constexpr bool operator==(std::string_view o) const { return view() == o; }
};

/// Text buffer for compile-time messages.
struct Message {
  static constexpr std::size_t capacity = 255;
  char s[capacity + 1]{};
  std::size_t len = 0;

  constexpr Message& operator<<(std::string_view v) {
    for (char c : v)
      if (len < capacity) s[len++] = c;
    return *this;
  }
  constexpr Message& operator<<(long long v) {
    char buf[24]{};
    int n = 0;
    bool neg = v < 0;
    unsigned long long u = neg ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    do {
      buf[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u);
    if (neg) *this << "-";
    while (n) {
      char c[1] = {buf[--n]};
      *this << std::string_view(c, 1);
    }
    return *this;
  }
  constexpr Message& operator<<(int v) { return *this << static_cast<long long>(v); }
  constexpr Message& operator<<(std::size_t v) { return *this << static_cast<long long>(v); }
  constexpr std::string_view view() const { return {s, len}; }
};

}  // namespace optgrammar::dsl
