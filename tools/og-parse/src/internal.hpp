// Internal pieces of og-parse: tokens, the lexer, the top-level scanner's items, the parser and
// the checker. Not installed.
#pragma once

#include <og_parse/og_parse.hpp>

#include <optgrammar/dsl/messages.hpp>
#include <optgrammar/dsl/str.hpp>

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace og_parse::detail {

enum class Tok : std::uint8_t { eof, ident, number, string, lparen, rparen, comma, plus, minus, scope, hash, other };

struct Token {
  Tok kind = Tok::eof;
  Loc loc;                ///< where diagnostics point (the macro use for tokens of a macro body)
  std::string_view text;  ///< spelling; strings include their quotes
};

/// A diagnostic of the shared message catalogue (optgrammar/dsl/messages.hpp), its slots filled
/// in order: the same text the C++ front end gives for the same fault.
template <class... A>
std::string catalogue(optgrammar::dsl::Fault f, const A&... args) {
  return fmt::format(fmt::runtime(optgrammar::dsl::fault_text(f).text), args...);
}
using optgrammar::dsl::Fault;

/// Raised to abandon the current rule after its (first) error has been reported.
struct RuleError {};

/// Character classes of the lexer and the scanner: one table load per byte.
enum CharClass : std::uint8_t { cc_space = 1, cc_ident_start = 2, cc_digit = 4, cc_plain = 8 };
inline constexpr std::array<std::uint8_t, 256> char_classes = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned char c : std::string_view(" \t\n\r\f\v")) t[c] = cc_space;
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = cc_ident_start;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = cc_ident_start;
  t['_'] = cc_ident_start;
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = cc_digit;
  for (int c = 0x21; c < 0x7f; ++c)
    if (c != '"' && c != '\\') t[static_cast<std::size_t>(c)] |= cc_plain;
  return t;
}();
inline constexpr bool char_is(char c, std::uint8_t classes) noexcept {
  return (char_classes[static_cast<unsigned char>(c)] & classes) != 0;
}
/// ' ', '\t', '\n', '\r', '\f', '\v'
inline constexpr bool is_space(char c) noexcept { return char_is(c, cc_space); }
inline constexpr bool is_ident_start(char c) noexcept { return char_is(c, cc_ident_start); }
inline constexpr bool is_ident_char(char c) noexcept { return char_is(c, cc_ident_start | cc_digit); }
inline constexpr bool is_digit(char c) noexcept { return char_is(c, cc_digit); }
/// What a string constant of the grammar may hold: printable, no space, quote or backslash.
inline constexpr bool is_plain_string_char(char c) noexcept { return char_is(c, cc_plain); }

/// The token a character starts on the lexer's fast path: a name, a number, a string, '::', one
/// of the one-character tokens, or `other` for everything next_slow() reads.
inline constexpr std::array<Tok, 256> token_starts = [] {
  std::array<Tok, 256> t{};
  t.fill(Tok::other);
  for (std::size_t c = 0; c < 256; ++c)
    if (is_ident_start(static_cast<char>(c))) t[c] = Tok::ident;
  for (char c = '0'; c <= '9'; ++c) t[static_cast<unsigned char>(c)] = Tok::number;
  t['"'] = Tok::string;
  t[':'] = Tok::scope;
  t['('] = Tok::lparen;
  t[')'] = Tok::rparen;
  t[','] = Tok::comma;
  t['+'] = Tok::plus;
  t['-'] = Tok::minus;
  return t;
}();

/// The lexer's fast path: what rules are mostly made of (names, numbers, strings, parentheses,
/// commas, signs, '::') after plain white space, in `s[0, n)` from `p`. Returns the token, `p`
/// past it; or a token of kind `other` (which this path never gives), `p` at what
/// Lexer::next_slow() must read (a comment, an escape, the end, ...). `Terminated`: a NUL follows
/// the text (a file's whole text: Session::File::text), so that the loops over blanks and names
/// stop at it without testing the end as well.
template <bool Terminated>
[[gnu::always_inline]] inline Token lex_fast(const char* s, std::size_t n, std::uint32_t file, std::size_t& p) {
  constexpr Token slow{Tok::other, Loc{}, {}};
  std::size_t b = p;
  if constexpr (Terminated) {
    while (is_space(s[b])) ++b;
  } else {
    while (b < n && is_space(s[b])) ++b;
  }
  p = b;
  if (b >= n) return slow;
  std::size_t e = b + 1;
  const Tok k = token_starts[static_cast<unsigned char>(s[b])];
  if (k >= Tok::lparen && k <= Tok::minus) {
    // one character
  } else if (k == Tok::ident) {
    if constexpr (Terminated) {
      while (is_ident_char(s[e])) ++e;
    } else {
      while (e < n && is_ident_char(s[e])) ++e;
    }
  } else if (k == Tok::string) {
    while (e < n && s[e] != '"' && s[e] != '\\' && s[e] != '\n') ++e;
    if (e >= n || s[e] != '"') return slow;  // an escape, or not terminated on its line
    ++e;
  } else if (k == Tok::number) {
    // digits, letters and '.'; a sign after an exponent or a digit separator: next_slow()'s
    while (e < n && (is_ident_char(s[e]) || s[e] == '.')) ++e;
    if (e < n && (s[e] == '+' || s[e] == '-' || s[e] == '\'')) return slow;
  } else if (k == Tok::scope) {
    if (e >= n || s[e] != ':') return slow;  // a lone ':'
    ++e;
  } else {
    return slow;
  }
  p = e;
  return Token{k, Loc{file, static_cast<std::uint32_t>(b)}, std::string_view(s + b, e - b)};
}

/// Tokens of one source text, skipping white space and C/C++ comments.
class Lexer {
 public:
  Lexer(Session& s, std::uint32_t file, std::string_view src, std::size_t pos)
      : s_(s), file_(file), src_(src), pos_(pos) {}
  /// The next token: lex_fast(), else next_slow().
  Token next() {
    const Token t = lex_fast<false>(src_.data(), src_.size(), file_, pos_);
    return t.kind != Tok::other ? t : next_slow();
  }
  /// The token at pos() that lex_fast() leaves (anything it does not read).
  Token next_slow();
  std::size_t pos() const noexcept { return pos_; }
  void set_pos(std::size_t p) noexcept { pos_ = p; }

 private:
  Session& s_;
  std::uint32_t file_;
  std::string_view src_;
  std::size_t pos_;
};

/// True when only spaces and tabs precede `off` on its line.
bool at_line_start(std::string_view src, std::size_t off) noexcept;

/// A top-level construct found by the scanner, as expanded tokens from its '(' to its ')'.
enum class ItemKind : std::uint8_t {
  rule,
  rule_with_flags,
  op,
  op_cost_flags,
  op_cost_fn_flags,
  tensor_properties,
  param_order
};

struct Item {
  ItemKind kind = ItemKind::rule;
  Loc loc;  ///< the macro name (or the line-start user macro that produced it)
  /// Its tokens: [begin, end) of the file's token buffer, which holds an end-of-input token at
  /// `end` (at the place of the last token), so that the parser needs no test for the end.
  std::size_t begin = 0, end = 0;
  bool bad = false;       ///< an error was already reported while scanning it
  bool bad_tail = false;  ///< '(' or ',' follows it: checked, but not a valid rule
};

/// Scans one file: records #define macros, EXTERNAL_SHAPEFN annotations and the items.
/// `toks` receives the tokens of the items, back to back. With `stream`, the items are processed
/// (process_items) as the scan goes, each as soon as it is complete, and `items` and `toks` are
/// empty at the end; otherwise they hold all of the file's.
void scan_file(Session& s, std::uint32_t file, std::vector<Item>& items, std::vector<Token>& toks, bool stream);

/// Turns one item into a rule / declaration of the session (syntax, then checks).
void process_item(Session& s, const Item& item, const std::vector<Token>& toks);
/// Processes `items` (with the annotations and declarations read so far) and empties `items`
/// and `toks`.
void process_items(Session& s, std::vector<Item>& items, std::vector<Token>& toks);

/// Lowers a parsed rule (syntax trees of match, constraint, replacement) to the flat form as the
/// C++ front end's words build it, checks it with the checker of both front ends
/// (optgrammar/dsl/check.hpp), reports its warnings and fills `r`. Throws RuleError after
/// reporting the first error.
void check_rule(Session& s, Rule& r, Node* match, Node* constraint, Node* replacement);

/// Whether `name` is a construct of the rule language (optgrammar/dsl/grammar.hpp).
bool is_construct(std::string_view name) noexcept;
/// Whether `name` is a value the rule language writes bare: OK, true, false, INF, NEG_INF.
bool is_bare_word(std::string_view name) noexcept;

/// Lint over all valid rules.
void lint_rules(Session& s);

/// Warns of each valid rule whose match names an op nothing knows or gives an op an operand
/// count its definition does not allow (optgrammar/dsl/op_check.hpp).
void check_rule_ops(Session& s);

/// The source spelling of a token, for messages: 'x' or "x".
std::string spell(const Token& t);

}  // namespace og_parse::detail
