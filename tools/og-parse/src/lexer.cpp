// The token lexer used inside rules and macro bodies.
#include "internal.hpp"

#include <cstring>

#include <fmt/format.h>

namespace og_parse::detail {

bool at_line_start(std::string_view src, std::size_t off) noexcept {
  while (off > 0) {
    if (off == 3 && src.substr(0, 3) == "\xEF\xBB\xBF") return true;  // UTF-8 byte order mark
    char c = src[off - 1];
    if (c == '\n') return true;
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
    --off;
  }
  return true;
}

std::string spell(const Token& t) {
  if (t.kind == Tok::eof) return "end of input";
  if (t.kind == Tok::string) return std::string(t.text);
  return fmt::format("'{}'", t.text);
}

Token Lexer::next_slow() {
  const std::size_t n = src_.size();
  const char* const s = src_.data();
  std::size_t p = pos_;
  for (;;) {
    while (p < n && is_space(s[p])) ++p;
    if (p >= n) {
      pos_ = p;
      return Token{Tok::eof, Loc{file_, static_cast<std::uint32_t>(n)}, {}};
    }
    const char c = s[p];
    if (c == '\\' && p + 1 < n && (s[p + 1] == '\n' || s[p + 1] == '\r')) {
      p += 2;  // line continuation (inside #define bodies)
      continue;
    }
    if (c == '/' && p + 1 < n && s[p + 1] == '/') {
      const void* e = std::memchr(s + p, '\n', n - p);
      p = e ? static_cast<std::size_t>(static_cast<const char*>(e) - s) : n;
      continue;
    }
    if (c == '/' && p + 1 < n && s[p + 1] == '*') {
      const std::size_t e = src_.find("*/", p + 2);
      if (e == std::string_view::npos) {
        s_.diag(Loc{file_, static_cast<std::uint32_t>(p)}, Severity::error, "unterminated comment");
        p = n;
        continue;
      }
      p = e + 2;
      continue;
    }
    break;
  }
  const std::size_t start = p;
  const Loc loc{file_, static_cast<std::uint32_t>(start)};
  const char c = s[p++];
  Tok kind = Tok::other;
  if (is_ident_start(c)) {
    while (p < n && is_ident_char(s[p])) ++p;
    kind = Tok::ident;
  } else if (is_digit(c) || (c == '.' && p < n && is_digit(s[p]))) {
    // a C preprocessing number: digits, letters, '.', exponent signs, digit separators
    while (p < n) {
      const char d = s[p];
      if ((d == '+' || d == '-') && (s[p - 1] == 'e' || s[p - 1] == 'E' || s[p - 1] == 'p' || s[p - 1] == 'P')) {
        ++p;
      } else if (is_ident_char(d) || d == '.') {
        ++p;
      } else if (d == '\'' && p + 1 < n && is_ident_char(s[p + 1])) {
        ++p;
      } else {
        break;
      }
    }
    kind = Tok::number;
  } else if (c == '"') {
    while (p < n && s[p] != '"' && s[p] != '\n') {
      if (s[p] == '\\' && p + 1 < n && s[p + 1] != '\n') ++p;
      ++p;
    }
    if (p >= n || s[p] != '"') {
      pos_ = p;
      s_.diag(loc, Severity::error, "missing terminating '\"' character");
      throw RuleError{};
    }
    ++p;
    kind = Tok::string;
  } else {
    switch (c) {
      case '(': kind = Tok::lparen; break;
      case ')': kind = Tok::rparen; break;
      case ',': kind = Tok::comma; break;
      case '+': kind = Tok::plus; break;
      case '-': kind = Tok::minus; break;
      case '#':
        if (p < n && s[p] == '#') ++p;
        kind = Tok::hash;
        break;
      case ':':
        if (p < n && s[p] == ':') {
          ++p;
          kind = Tok::scope;
        }
        break;
      default:
        // keep multi-byte UTF-8 sequences together so messages quote whole characters
        if (static_cast<unsigned char>(c) >= 0xc0)
          while (p < n && (static_cast<unsigned char>(s[p]) & 0xc0) == 0x80) ++p;
        break;
    }
  }
  pos_ = p;
  return Token{kind, loc, src_.substr(start, p - start)};
}

}  // namespace og_parse::detail
