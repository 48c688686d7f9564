// A parser for the notation the printers write (and the seed uses):
//
//   (d0, d1)[s0] -> (d0 + d1 floordiv 16, d1 mod 16)
//   domain:
//   d0 in [0, 9]
//   d1 in [0, 14]
//   s0 in [0, 3]
//   d0 mod 2 in [0, 0]
//
// * Variable names are taken from the header, by position: `(i, j, k) -> (j)` is fine.
// * `domain:` is optional; entries may be separated by newlines or commas. An entry on a single
//   variable is its bound, any other is a constraint. Every variable needs a bound.
// * `floordiv`, `ceildiv`, `mod` are case-insensitive (`floorDiv`); `100d0` means `100 * d0`;
//   `-x floordiv 2` is `-(x floordiv 2)`. Products need one constant side.
// Errors throw ParseError whose message gives line, column, the offending text and what was
// expected, e.g. "line 1, column 17: floordiv needs a positive constant divisor, found 'd1'".
#pragma once

#include "optgrammar/index/indexing_map.hpp"

#include <cctype>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace optgrammar::index {

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

class MapParser {
 public:
  explicit MapParser(std::string_view text) : text_(text) {}

  IndexingMap parse_map() {
    IndexingMap m;
    expect("(");
    std::vector<std::string> dnames = parse_names(")");
    std::vector<std::string> snames;
    if (accept("[")) snames = parse_names("]");
    for (std::size_t i = 0; i < dnames.size(); ++i) declare(dnames[i], dim(static_cast<int>(i)));
    for (std::size_t j = 0; j < snames.size(); ++j) declare(snames[j], sym(static_cast<int>(j)));
    expect("->");
    expect("(");
    if (!accept(")")) {
      do m.results.push_back(parse_expr());
      while (accept(","));
      expect(")");
    }
    m.dims.assign(dnames.size(), Interval{1, 0});
    m.ranges.assign(snames.size(), Interval{1, 0});
    std::vector<bool> dset(dnames.size(), false), sset(snames.size(), false);
    accept(",");
    if (accept_word("domain")) expect(":");
    while (!at_end()) {
      if (accept(",")) continue;
      if (peek_word() == "hlo") fail("runtime variables (hlo: ...) are not supported");
      std::size_t at = pos_;
      AffineExpr e = parse_expr();
      if (!accept_word("in")) fail("expected 'in' after a domain expression");
      Interval iv = parse_interval();
      if (e.is_var()) {
        auto i = static_cast<std::size_t>(e.value());
        auto& seen = e.kind() == ExprKind::dim ? dset : sset;
        if (seen[i]) fail_at(at, "a second bound for '" + name_of(e) + "'");
        seen[i] = true;
        (e.kind() == ExprKind::dim ? m.dims : m.ranges)[i] = iv;
      } else {
        m.constraints.push_back({e, iv});
      }
    }
    for (std::size_t i = 0; i < dset.size(); ++i)
      if (!dset[i]) fail("the domain gives no bounds for '" + dnames[i] + "'");
    for (std::size_t j = 0; j < sset.size(); ++j)
      if (!sset[j]) fail("the domain gives no bounds for '" + snames[j] + "'");
    return m;
  }

  AffineExpr parse_lone_expr(std::size_t num_dims, std::size_t num_syms) {
    for (std::size_t i = 0; i < num_dims; ++i) declare(detail::cat({"d", std::to_string(i)}), dim(static_cast<int>(i)));
    for (std::size_t j = 0; j < num_syms; ++j) declare(detail::cat({"s", std::to_string(j)}), sym(static_cast<int>(j)));
    AffineExpr e = parse_expr();
    if (!at_end()) fail("unexpected text after the expression");
    return e;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::map<std::string, AffineExpr> vars_;

  [[noreturn]] void fail_at(std::size_t at, std::string const& what) const {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else
        ++col;
    }
    std::size_t end = at;
    while (end < text_.size() && !std::isspace(static_cast<unsigned char>(text_[end])) && end - at < 16) ++end;
    std::string found = at >= text_.size()
                            ? "end of input"
                            : "'" + std::string(text_.substr(at, std::max<std::size_t>(end - at, 1))) + "'";
    throw ParseError("line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + what + ", found " +
                     found);
  }
  [[noreturn]] void fail(std::string const& what) {
    skip_space();
    fail_at(pos_, what);
  }

  std::string name_of(AffineExpr const& v) const {
    for (auto const& [n, e] : vars_)
      if (e == v) return n;
    return "?";
  }
  void declare(std::string const& n, AffineExpr v) {
    if (!vars_.emplace(n, v).second) fail("variable '" + n + "' is declared twice");
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  bool accept(std::string_view p) {
    skip_space();
    if (text_.substr(pos_, p.size()) == p) {
      pos_ += p.size();
      return true;
    }
    return false;
  }
  void expect(std::string_view p) {
    if (!accept(p)) fail("expected '" + std::string(p) + "'");
  }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  std::string peek_word() {
    skip_space();
    std::size_t e = pos_;
    if (e < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[e])) || text_[e] == '_'))
      while (e < text_.size() && ident_char(text_[e])) ++e;
    std::string w(text_.substr(pos_, e - pos_));
    for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return w;
  }
  bool accept_word(std::string_view w) {
    std::string p = peek_word();
    if (p != w) return false;
    pos_ += p.size();
    return true;
  }
  std::vector<std::string> parse_names(std::string_view close) {
    std::vector<std::string> names;
    if (accept(close)) return names;
    do {
      skip_space();
      std::size_t s = pos_;
      if (pos_ >= text_.size() || !(std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        fail("expected a variable name");
      while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
      names.emplace_back(text_.substr(s, pos_ - s));
    } while (accept(","));
    expect(close);
    return names;
  }
  std::int64_t parse_int() {
    skip_space();
    bool neg = accept("-");
    skip_space();
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) fail("expected an integer");
    std::int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (v > (INT64_MAX - 9) / 10) fail("integer too large");
      v = v * 10 + (text_[pos_++] - '0');
    }
    return neg ? -v : v;
  }
  Interval parse_interval() {
    expect("[");
    std::int64_t lo = parse_int();
    expect(",");
    std::int64_t hi = parse_int();
    expect("]");
    return {lo, hi};
  }

  // sum := signed (('+' | '-') signed)*
  AffineExpr parse_expr() {
    AffineExpr e = parse_signed();
    while (true) {
      if (accept("+"))
        e = e + parse_signed();
      else if (peek_is_minus()) {
        ++pos_;
        e = e + (-parse_signed());
      } else
        return e;
    }
  }
  bool peek_is_minus() {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == '-' && text_.substr(pos_, 2) != "->";
  }
  // signed := '-' signed | product
  AffineExpr parse_signed() {
    if (peek_is_minus()) {
      ++pos_;
      return -parse_signed();
    }
    return parse_product();
  }
  // product := factor (('*' | floordiv | ceildiv | mod) operand)*
  AffineExpr parse_product() {
    AffineExpr e = parse_factor();
    while (true) {
      std::size_t at = (skip_space(), pos_);
      if (accept("*")) {
        AffineExpr r = parse_operand();
        if (r.is_constant())
          e = e * r.value();
        else if (e.is_constant())
          e = r * e.value();
        else
          fail_at(at, "a product needs a constant operand");
        continue;
      }
      std::string w = peek_word();
      if (w != "floordiv" && w != "ceildiv" && w != "mod") return e;
      pos_ += w.size();
      std::size_t rat = (skip_space(), pos_);
      AffineExpr r = parse_operand();
      if (!r.is_constant() || r.value() <= 0) fail_at(rat, w + " needs a positive constant divisor");
      e = w == "floordiv" ? floordiv(e, r.value()) : w == "ceildiv" ? ceildiv(e, r.value()) : mod(e, r.value());
    }
  }
  // the right operand of a binary operator: an optionally negated factor
  AffineExpr parse_operand() {
    if (peek_is_minus()) {
      ++pos_;
      return -parse_operand();
    }
    return parse_factor();
  }
  // factor := INT [var | '('] | var | '(' sum ')'
  AffineExpr parse_factor() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected an expression");
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = parse_int();
      // `100d0` / `2(d0 + 1)`: a number glued to what follows multiplies it
      if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '(')) {
        std::string w = peek_word();
        if (w != "floordiv" && w != "ceildiv" && w != "mod" && w != "in") return parse_factor() * v;
      }
      return constant(v);
    }
    if (accept("(")) {
      AffineExpr e = parse_expr();
      expect(")");
      return e;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t s = pos_;
      while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
      std::string n(text_.substr(s, pos_ - s));
      auto it = vars_.find(n);
      if (it == vars_.end()) fail_at(s, "unknown variable '" + n + "'");
      return it->second;
    }
    fail("expected a number, a variable or '('");
  }
};
}  // namespace detail

/// Parses a whole indexing map (header, results, domain). Throws ParseError.
inline IndexingMap parse_indexing_map(std::string_view text) { return detail::MapParser(text).parse_map(); }

/// Parses one expression over d0..d{num_dims-1} and s0..s{num_syms-1}. Throws ParseError.
inline AffineExpr parse_affine_expr(std::string_view text, std::size_t num_dims, std::size_t num_syms = 0) {
  return detail::MapParser(text).parse_lone_expr(num_dims, num_syms);
}

}  // namespace optgrammar::index
