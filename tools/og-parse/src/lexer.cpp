// The token lexer used inside rules and macro bodies.
#include "internal.hpp"

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

Token Lexer::next() {
  const std::size_t n = src_.size();
  for (;;) {
    if (pos_ >= n) return Token{Tok::eof, Loc{file_, static_cast<std::uint32_t>(n)}, {}};
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
      continue;
    }
    if (c == '\\' && pos_ + 1 < n && (src_[pos_ + 1] == '\n' || src_[pos_ + 1] == '\r')) {
      pos_ += 2;  // line continuation (inside #define bodies)
      continue;
    }
    if (c == '/' && pos_ + 1 < n && src_[pos_ + 1] == '/') {
      while (pos_ < n && src_[pos_] != '\n') ++pos_;
      continue;
    }
    if (c == '/' && pos_ + 1 < n && src_[pos_ + 1] == '*') {
      std::size_t e = src_.find("*/", pos_ + 2);
      if (e == std::string_view::npos) {
        s_.diag(Loc{file_, static_cast<std::uint32_t>(pos_)}, Severity::error, "unterminated comment");
        pos_ = n;
        continue;
      }
      pos_ = e + 2;
      continue;
    }
    break;
  }
  const std::size_t start = pos_;
  const Loc loc{file_, static_cast<std::uint32_t>(start)};
  auto make = [&](Tok k) { return Token{k, loc, src_.substr(start, pos_ - start)}; };
  char c = src_[pos_];
  if (is_ident_start(c)) {
    while (pos_ < n && is_ident_char(src_[pos_])) ++pos_;
    return make(Tok::ident);
  }
  if (is_digit(c) || (c == '.' && pos_ + 1 < n && is_digit(src_[pos_ + 1]))) {
    // a C preprocessing number: digits, letters, '.', exponent signs, digit separators
    ++pos_;
    while (pos_ < n) {
      char d = src_[pos_];
      if ((d == '+' || d == '-') &&
          (src_[pos_ - 1] == 'e' || src_[pos_ - 1] == 'E' || src_[pos_ - 1] == 'p' || src_[pos_ - 1] == 'P')) {
        ++pos_;
      } else if (is_ident_char(d) || d == '.') {
        ++pos_;
      } else if (d == '\'' && pos_ + 1 < n && is_ident_char(src_[pos_ + 1])) {
        ++pos_;
      } else {
        break;
      }
    }
    return make(Tok::number);
  }
  if (c == '"') {
    ++pos_;
    while (pos_ < n && src_[pos_] != '"' && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && pos_ + 1 < n && src_[pos_ + 1] != '\n') ++pos_;
      ++pos_;
    }
    if (pos_ >= n || src_[pos_] != '"') {
      s_.diag(loc, Severity::error, "missing terminating '\"' character");
      throw RuleError{};
    }
    ++pos_;
    return make(Tok::string);
  }
  ++pos_;
  switch (c) {
    case '(': return make(Tok::lparen);
    case ')': return make(Tok::rparen);
    case ',': return make(Tok::comma);
    case '+': return make(Tok::plus);
    case '-': return make(Tok::minus);
    case '#':
      if (pos_ < n && src_[pos_] == '#') ++pos_;
      return make(Tok::hash);
    case ':':
      if (pos_ < n && src_[pos_] == ':') {
        ++pos_;
        return make(Tok::scope);
      }
      return make(Tok::other);
    default:
      // keep multi-byte UTF-8 sequences together so messages quote whole characters
      if (static_cast<unsigned char>(c) >= 0xc0)
        while (pos_ < n && (static_cast<unsigned char>(src_[pos_]) & 0xc0) == 0x80) ++pos_;
      return make(Tok::other);
  }
}

}  // namespace og_parse::detail
