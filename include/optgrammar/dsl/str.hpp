// Strings usable in constant evaluation: rule strings (op names, tags) and the text of
// compile-time diagnostics.
#pragma once

#include <cstddef>
#include <string_view>

namespace optgrammar::dsl {

/// A string constant of a rule ("Conv2d", "x"): a view of the string literal as written. String
/// literals have static storage, so a rule's analysis (a constexpr object) may keep the view; there
/// is no length limit. Text after an embedded NUL is not part of the string.
struct Str {
  const char* p = "";
  std::size_t len = 0;

  constexpr Str() = default;
  template <std::size_t N>
  constexpr Str(const char (&lit)[N]) : p(lit) {  // NOLINT: implicit on purpose, "x" in rules
    while (len + 1 < N && lit[len]) ++len;
  }
  constexpr std::string_view view() const { return {p, len}; }
  constexpr bool operator==(const Str& o) const { return view() == o.view(); }
  constexpr bool operator==(std::string_view o) const { return view() == o; }
};

/// Text buffer for compile-time messages.
struct Message {
  static constexpr std::size_t capacity = 511;
  char s[capacity + 1]{};
  std::size_t len = 0;

  constexpr Message& operator<<(std::string_view v) {
    for (char c : v) {
      if (len == capacity) {  // a message this long ends in "..." rather than silently cut
        s[capacity - 3] = s[capacity - 2] = s[capacity - 1] = '.';
        break;
      }
      s[len++] = c;
    }
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

/// One argument of a catalogue message: text or a number.
struct MessageArg {
  std::string_view s;
  long long i = 0;
  bool number = false;
  constexpr MessageArg(std::string_view v) : s(v) {}         // NOLINT: implicit, for fail(f, args...)
  constexpr MessageArg(const char* v) : s(v) {}              // NOLINT
  constexpr MessageArg(const Str& v) : s(v.view()) {}        // NOLINT
  constexpr MessageArg(long long v) : i(v), number(true) {}  // NOLINT
  constexpr MessageArg(int v) : i(v), number(true) {}        // NOLINT
  constexpr MessageArg(std::size_t v) : i(static_cast<long long>(v)), number(true) {}  // NOLINT
  constexpr void write(Message& m) const {
    if (number)
      m << i;
    else
      m << s;
  }
};

/// Appends `text` to `m` with each `{}` replaced by the next of the `n` arguments.
constexpr void format_message(Message& m, std::string_view text, const MessageArg* args, std::size_t n) {
  std::size_t next = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{' && i + 1 < text.size() && text[i + 1] == '}') {
      if (next < n) args[next++].write(m);
      ++i;
    } else {
      m << text.substr(i, 1);
    }
  }
}

/// The last component of a path as __FILE__ gives it: "x.hpp" for "/src/../inc/x.hpp". A rule's
/// name and messages use it; the rule order and RuleSet::add_once compare by it.
constexpr std::string_view file_base_name(std::string_view file) noexcept {
  const auto p = file.rfind('/');
  return p == std::string_view::npos ? file : file.substr(p + 1);
}

}  // namespace optgrammar::dsl
