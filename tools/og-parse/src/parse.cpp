// Tokens to syntax trees: constants, names and calls; the pass spec; the non-rule constructs.
#include "internal.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <span>

#include <fmt/format.h>

#include <optgrammar/core/registry.hpp>
#include <optgrammar/dsl/grammar.hpp>
#include <optgrammar/dsl/passes.hpp>

namespace og_parse::detail {
namespace {

constexpr int max_nesting = 200;

class Parser {
 public:
  Parser(Session& s, const Item& item, const Token* begin, const Token* end, std::vector<Node*>& operands)
      : s_(s), item_(item), t_(begin), n_(static_cast<std::size_t>(end - begin)), operands_(operands) {}

  /// The token at hand; at the end, the end-of-input token that follows the item's (Item).
  const Token& peek() const noexcept { return t_[i_]; }
  const Token& peek(std::size_t k) const noexcept { return t_[std::min(i_ + k, n_)]; }
  Token take() {
    Token t = peek();
    if (i_ < n_) ++i_;
    return t;
  }

  [[noreturn]] void fail(Loc at, std::string msg) {
    s_.diag(at, Severity::error, std::move(msg));
    throw RuleError{};
  }
  void warn(Loc at, std::string msg) { s_.diag(at, Severity::warning, std::move(msg)); }

  void expect(Tok k, std::string_view what, std::string_view context) {
    const Token& t = peek();
    if (t.kind != k) fail(t.loc, fmt::format("expected {} {}, found {}", what, context, spell(t)));
    take();
  }

  Node* node(NodeKind k, Loc at) {
    Node* n = s_.make_node();
    n->kind = k;
    n->loc = at;
    return n;
  }

  // ---- constants ----------------------------------------------------------------------------
  /// A numeric constant: plain_decimal() for what most are, else any_number().
  Node* number(const Token& t, bool negative, Loc at) {
    if (Node* n = plain_decimal(t, negative, at)) return n;
    return any_number(t, negative, at);
  }
  /// Any C numeric constant: hex, octal, binary, digit separators, suffixes, floats.
  [[gnu::noinline]] Node* any_number(const Token& t, bool negative, Loc at) {
    // the digits without their separators (a copy only when there are any)
    std::string stripped;
    std::string_view text = t.text;
    if (text.find('\'') != std::string_view::npos) {
      stripped.reserve(text.size());
      for (char c : text)
        if (c != '\'') stripped += c;
      text = stripped;
    }
    const bool hex = text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const bool bin = text.size() > 1 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B');
    bool is_float = false;
    if (!bin)
      for (char c : text)
        if (c == '.' || (hex ? (c == 'p' || c == 'P') : (c == 'e' || c == 'E'))) is_float = true;
    if (is_float) return floating(t, text, hex, negative, at);

    int base = 10;
    std::size_t p = 0;
    if (hex || bin) {
      base = hex ? 16 : 2;
      p = 2;
    } else if (text.size() > 1 && text[0] == '0') {
      base = 8;
      p = 1;
    }
    std::size_t q = p;
    auto digit = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return 99;
    };
    while (q < text.size() && (base == 16 ? digit(text[q]) < 16 : is_digit(text[q]))) ++q;
    const std::string_view digits(text.data() + p, q - p);
    const std::string_view suffix(text.data() + q, text.size() - q);
    if (digits.empty() && base != 8) fail(t.loc, fmt::format("invalid integer constant '{}'", t.text));
    std::uint64_t v = 0;
    for (char c : digits) {
      const int d = digit(c);
      if (d >= base)
        fail(t.loc, fmt::format("invalid digit '{}' in {} constant '{}'", c, base == 8 ? "octal" : "binary", t.text));
      if (v > (std::numeric_limits<std::uint64_t>::max() - static_cast<unsigned>(d)) / static_cast<unsigned>(base))
        fail(t.loc, fmt::format("integer constant '{}' is too large", t.text));
      v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    }
    bool is_size = false;
    int longs = 0;
    for (std::size_t k = 0; k < suffix.size(); ++k) {
      const char c = suffix[k];
      if ((c == 'u' || c == 'U') && !is_size) {
        is_size = true;
      } else if ((c == 'l' || c == 'L') && longs < 2) {
        ++longs;
        if (longs == 2 && suffix[k - 1] != c)
          fail(t.loc, fmt::format("invalid suffix '{}' on integer constant", suffix));
      } else {
        fail(t.loc, fmt::format("invalid suffix '{}' on integer constant '{}'", suffix, t.text));
      }
    }
    if (base == 8 && v >= 8) warn(t.loc, catalogue(Fault::octal_constant, t.text, v));
    return integer(t, v, is_size, negative, at);
  }

  /// What most constants are, read without number()'s general path: up to 18 decimal digits (so
  /// no overflow), no leading zero or digit separator, then nothing or one 'u' / 'U'. Null for
  /// anything else.
  Node* plain_decimal(const Token& t, bool negative, Loc at) {
    std::string_view d = t.text;
    const bool is_size = !d.empty() && (d.back() == 'u' || d.back() == 'U');
    if (is_size) d.remove_suffix(1);
    if (d.empty() || d.size() > 18 || (d[0] == '0' && d.size() > 1)) return nullptr;
    std::uint64_t v = 0;
    for (const char c : d) {
      if (!is_digit(c)) return nullptr;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return integer(t, v, is_size, negative, at);
  }

  /// The node of integer constant `t` of value `v` (negated when `negative`), range-checked.
  Node* integer(const Token& t, std::uint64_t v, bool is_size, bool negative, Loc at) {
    if (is_size ? negative : v > (negative ? 2147483648ULL : 2147483647ULL)) integer_range(t, is_size, negative, at);
    Node* n = node(NodeKind::integer, at);
    n->is_size = is_size;
    n->ival = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return n;
  }
  [[noreturn, gnu::cold, gnu::noinline]] void integer_range(const Token& t, bool is_size, bool negative, Loc at) {
    if (is_size) fail(at, fmt::format("negative size constant '-{}'", t.text));
    fail(t.loc, catalogue(Fault::integer_out_of_range, fmt::format("{}{}", negative ? "-" : "", t.text)));
  }

  Node* floating(const Token& t, std::string_view text, bool hex, bool negative, Loc at) {
    std::size_t end = text.size();
    if (end > 0 && (text[end - 1] == 'f' || text[end - 1] == 'F' || text[end - 1] == 'l' || text[end - 1] == 'L') &&
        !(hex && text[end - 1] != 'l' && text[end - 1] != 'L' && text.find_first_of("pP") == std::string_view::npos))
      --end;
    double v = 0;
    const char* b = text.data() + (hex ? 2 : 0);
    const char* e = text.data() + end;
    auto r = std::from_chars(b, e, v, hex ? std::chars_format::hex : std::chars_format::general);
    if (r.ec == std::errc::result_out_of_range) {
      if (std::fabs(v) >= 1.0 || v == 0.0) fail(t.loc, fmt::format("floating constant '{}' is out of range", t.text));
    } else if (r.ec != std::errc() || r.ptr != e) {
      fail(t.loc, fmt::format("invalid floating constant '{}'", t.text));
    }
    if (std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max()))
      fail(t.loc, fmt::format("floating constant '{}' is out of range of float", t.text));
    Node* n = node(NodeKind::floating, at);
    n->fval = static_cast<double>(static_cast<float>(negative ? -v : v));
    return n;
  }

  // ---- expressions --------------------------------------------------------------------------
  // expr() keeps to the common shapes (strings, numbers, names, calls); the rare ones and the
  // errors are functions of their own, so that expr() stays small: it runs once per node.
  Node* expr(int depth = 0) {
    if (depth > max_nesting) too_deep();
    const Token& t = peek();
    switch (t.kind) {
      case Tok::string: {
        Node* n = node(NodeKind::string, t.loc);
        n->text = t.text.substr(1, t.text.size() - 2);
        take();
        if (peek().kind == Tok::string) join_strings(n);  // adjacent strings are joined
        return n;
      }
      case Tok::plus:
      case Tok::minus: return signed_number();
      case Tok::number: {
        const Token num = take();
        return number(num, false, num.loc);
      }
      case Tok::ident: {
        Node* n = node(NodeKind::name, t.loc);
        n->text = t.text;
        take();
        if (peek().kind == Tok::scope) scoped_name(n);
        if (peek().kind == Tok::lparen) {
          n->kind = NodeKind::call;
          take();
          if (peek().kind == Tok::rparen) {
            take();
            return n;
          }
          // the operands are gathered on a stack shared by all levels, then stored with one allocation
          const std::size_t mark = operands_.size();
          for (;;) {
            Node* a = expr(depth + 1);
            operands_.push_back(a);
            const Tok sep = peek().kind;
            if (sep == Tok::rparen) {
              take();
              break;
            }
            if (sep != Tok::comma) bad_separator(n);
            take();
          }
          n->args = s_.node_list(std::span<Node* const>(operands_).subspan(mark));
          operands_.erase(operands_.begin() + static_cast<std::ptrdiff_t>(mark), operands_.end());
        }
        return n;
      }
      default: unexpected_token();
    }
  }
  [[noreturn, gnu::cold, gnu::noinline]] void too_deep() { fail(peek().loc, "expression nested too deeply"); }
  [[gnu::noinline]] void join_strings(Node* n) {
    std::string joined(n->text);
    while (peek().kind == Tok::string) {
      const Token s = take();
      joined.append(s.text.substr(1, s.text.size() - 2));
    }
    n->text = s_.intern(joined);
  }
  [[gnu::noinline]] Node* signed_number() {
    const Token sign = take();
    const Token num = peek();
    if (num.kind != Tok::number)
      fail(sign.loc, fmt::format("unexpected '{}': a sign is only allowed before a numeric constant", sign.text));
    take();
    return number(num, sign.kind == Tok::minus, sign.loc);
  }
  /// `n` followed by '::' and more names: one name (DType::Float32, ns::fn).
  [[gnu::noinline]] void scoped_name(Node* n) {
    std::string scoped(n->text);
    while (peek().kind == Tok::scope) {
      take();
      const Token part = peek();
      if (part.kind != Tok::ident) fail(part.loc, fmt::format("expected a name after '::', found {}", spell(part)));
      take();
      scoped += "::";
      scoped += part.text;
    }
    n->text = s_.intern(scoped);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void bad_separator(const Node* call) {
    const Token& sep = peek();
    fail(sep.loc, fmt::format("expected ',' or ')' in the arguments of '{}', found {}", call->text, spell(sep)));
  }
  /// What no expression starts with: a parenthesis (a C cast, say), the end, anything else.
  [[noreturn, gnu::cold, gnu::noinline]] void unexpected_token() {
    const Token& t = peek();
    if (t.kind == Tok::lparen) {
      // (int)x, (size_t)x, (unsigned int)x: C casts are outside the grammar
      std::size_t k = 1;
      std::string type;
      while (peek(k).kind == Tok::ident || peek(k).kind == Tok::scope ||
             (peek(k).kind == Tok::other && (peek(k).text == "*" || peek(k).text == "&"))) {
        if (!type.empty() && peek(k).kind == Tok::ident && peek(k - 1).kind == Tok::ident) type += ' ';
        type += peek(k).text;
        ++k;
      }
      if (k > 1 && peek(k).kind == Tok::rparen) fail(t.loc, catalogue(Fault::c_style_cast, type, type));
      fail(t.loc, catalogue(Fault::stray_parenthesis));
    }
    if (t.kind == Tok::eof) fail(t.loc, "unexpected end of the construct: missing an argument");
    fail(t.loc, fmt::format("unexpected {} in a rule", spell(t)));
  }

  // ---- rules --------------------------------------------------------------------------------
  /// The pass spec as written, up to the comma that ends it, spaced as the C++ front end sees it
  /// (the macro argument, stringized): its tokens, with one space where the source has any.
  /// Only messages show it.
  std::string pass_spec_text() const {
    std::string t;
    const char* end = nullptr;
    for (std::size_t k = spec_at_;; ++k) {
      const Token& x = t_[std::min(k, n_)];
      if (x.kind == Tok::comma || x.kind == Tok::rparen || x.kind == Tok::eof) break;
      if (end && (x.text.data() != end)) t += ' ';
      t += x.text;
      end = x.text.data() + x.text.size();
    }
    return t;
  }

  PassSpec pass_spec(const Token& name_tok) {
    PassSpec p;
    p.name = name_tok.text;
    const int prio = optgrammar::pass_priority(name_tok.text);
    if (prio < 0) fail(name_tok.loc, catalogue(Fault::unknown_pass, name_tok.text));
    p.priority = prio;
    const Token sign = peek();
    if (sign.kind != Tok::plus && sign.kind != Tok::minus) return p;
    take();
    const Token num = peek();
    if (num.kind != Tok::number) fail(num.loc, catalogue(Fault::pass_spec_form, pass_spec_text()));
    take();
    for (char c : num.text)
      if (!is_digit(c)) fail(num.loc, catalogue(Fault::pass_offset_form, num.text));
    if (num.text.size() > 1 && num.text[0] == '0') fail(num.loc, catalogue(Fault::pass_offset_octal, num.text));
    if (num.text.size() > 6) fail(num.loc, catalogue(Fault::pass_offset_too_large, num.text));
    int v = 0;
    for (char c : num.text) v = v * 10 + (c - '0');
    if (sign.kind == Tok::minus) {
      warn(sign.loc, fmt::format("'{} - {}' is outside the grammar (a pass spec is NAME or NAME + N); accepted", p.name,
                                 num.text));
      v = -v;
    }
    p.offset = v;
    p.priority += v;
    p.has_offset = true;
    return p;
  }

  void rule() {
    Rule r;
    r.loc = item_.loc;
    r.line = s_.line_of(r.loc);
    r.with_flags = item_.kind == ItemKind::rule_with_flags;
    const char* what = r.with_flags ? "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" : "DEF_PACKAGE_OPTIMIZATION";
    try {
      take();  // '('
      const Token pn = peek();
      spec_at_ = i_;
      if (pn.kind != Tok::ident) fail(pn.loc, catalogue(Fault::pass_spec_form, pass_spec_text()));
      take();
      r.pass = pass_spec(pn);
      if (peek().kind == Tok::plus || peek().kind == Tok::minus)
        fail(pn.loc, catalogue(Fault::pass_spec_form, pass_spec_text()));
      expect(Tok::comma, "','", "after the pass spec");
      const Node* flags = nullptr;
      if (r.with_flags) {
        flags = flags_arg();
        r.flags = flags->text;
        expect(Tok::comma, "','", "after the flags");
      }
      Node* m = expr();
      expect(Tok::comma, "','", "after the match expression");
      Node* c = expr();
      expect(Tok::comma, "','", "after the constraint expression");
      Node* rp = expr();
      const Token close = peek();
      if (close.kind == Tok::comma)
        fail(close.loc, fmt::format("too many arguments to {}: expected ')' after the replacement", what));
      expect(Tok::rparen, "')'", "after the replacement");
      if (flags) {
        if (const auto f = optgrammar::dsl::read_rule_flags(flags->text); !f.ok)
          fail(flags->loc, catalogue(Fault::unknown_rule_flag, f.unknown));
      }
      check_rule(s_, r, m, c, rp);
      r.valid = !item_.bad_tail;
    } catch (const RuleError&) {
      r.valid = false;
    }
    s_.mutable_rules().push_back(std::move(r));
  }

  /// DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS' flags: the tokens up to the next top-level comma, as the
  /// C++ front end reads them (the macro argument stringized: whitespace runs become one space),
  /// so that `relaxed_precision_flag | fold_relu_flag` and hnnx::OptimFlags:: names read alike.
  Node* flags_arg() {
    const Token first = peek();
    Token last = first;
    bool contiguous = true;
    std::string joined;
    int depth = 0;
    for (;;) {
      const Token t = peek();
      if (t.kind == Tok::eof || (depth == 0 && (t.kind == Tok::comma || t.kind == Tok::rparen))) break;
      if (t.kind == Tok::lparen) ++depth;
      if (t.kind == Tok::rparen) --depth;
      if (t.loc.file != first.loc.file || t.text.data() < last.text.data()) contiguous = false;
      if (!joined.empty()) joined += ' ';
      joined += t.text;
      last = t;
      take();
    }
    if (joined.empty())
      fail(first.loc, "the flags of DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS must be flag names or an integer constant");
    std::string text;
    if (contiguous) {  // the spelling as written, whitespace runs (and line breaks) as one space
      const std::string_view raw(first.text.data(),
                                 static_cast<std::size_t>(last.text.data() + last.text.size() - first.text.data()));
      for (char c : raw) {
        const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
        if (!space)
          text += c;
        else if (!text.empty() && text.back() != ' ')
          text += ' ';
      }
    } else {
      text = joined;
    }
    Node* n = node(NodeKind::name, first.loc);
    n->text = s_.intern(text);
    return n;
  }

  // ---- the other constructs ------------------------------------------------------------------
  std::string string_arg(std::string_view what) {
    const Token t = peek();
    if (t.kind != Tok::string) fail(t.loc, fmt::format("expected {} (a string constant), found {}", what, spell(t)));
    std::string v = joined_strings();
    if (v.empty()) fail(t.loc, fmt::format("{} may not be an empty string", what));
    if (!plain_name(v))
      fail(t.loc, fmt::format("{} \"{}\" may not contain spaces, quotes, escapes or unprintable characters", what, v));
    return v;
  }
  /// The string constants from the current token on, joined as C++ joins adjacent ones.
  std::string joined_strings() {
    std::string v;
    while (peek().kind == Tok::string) {
      const Token p = take();
      v.append(p.text.substr(1, p.text.size() - 2));
    }
    return v;
  }
  /// Printable characters only, without spaces, quotes or backslashes (escapes stay written).
  static bool plain_name(std::string_view v) {
    return std::all_of(v.begin(), v.end(), [](char c) {
      return c != '\\' && c != '"' && static_cast<unsigned char>(c) >= 0x21 && static_cast<unsigned char>(c) < 0x7f;
    });
  }

  std::string function_name() {
    const Token t = peek();
    if (t.kind == Tok::ident) {
      std::string name(take().text);
      while (peek().kind == Tok::scope && peek(1).kind == Tok::ident) {
        take();
        name += "::";
        name += take().text;
      }
      if (peek().kind == Tok::other && peek().text == "<") template_args(name);
      return name;
    }
    if (t.kind != Tok::lparen)
      fail(t.loc, fmt::format("expected the name of the implementation function, found {}", spell(t)));
    // (impl<T, U>): a parenthesized template-id, taken as written
    take();
    std::string name;
    int depth = 0;
    const Token* prev = nullptr;
    for (;;) {
      const Token& x = peek();
      if (x.kind == Tok::eof) fail(t.loc, "unbalanced parentheses around the implementation function");
      if (x.kind == Tok::lparen) ++depth;
      if (x.kind == Tok::rparen && depth-- == 0) {
        take();
        break;
      }
      if (prev && (prev->kind == Tok::ident || prev->kind == Tok::number) &&
          (x.kind == Tok::ident || x.kind == Tok::number))
        name += ' ';
      name += x.text;
      if (x.kind == Tok::comma) name += ' ';
      prev = &x;
      take();
    }
    if (name.empty()) fail(t.loc, "empty implementation function name");
    return name;
  }

  /// A template-id's arguments written without parentheses, `impl<Tensor>`, `impl<true>`,
  /// appended to `name` as written. A comma at the top level would split the macro argument for
  /// the compiler's preprocessor, so it is an error here too.
  void template_args(std::string& name) {
    const Token open = take();
    name += '<';
    int angle = 1, paren = 0;
    const Token* prev = nullptr;
    while (angle > 0) {
      const Token& x = peek();
      if (x.kind == Tok::eof || (x.kind == Tok::rparen && paren == 0))
        fail(open.loc, "unbalanced '<' in the implementation function's template arguments");
      if (x.kind == Tok::comma && paren == 0)
        fail(x.loc,
             fmt::format("the template-id '{}...' has a ',' outside parentheses, which splits the macro argument; "
                         "write it in parentheses: ({}...>)",
                         name, name));
      if (x.kind == Tok::lparen) ++paren;
      if (x.kind == Tok::rparen) --paren;
      if (x.kind == Tok::other && x.text == "<") ++angle;
      if (x.kind == Tok::other && x.text == ">") --angle;
      if (prev && (prev->kind == Tok::ident || prev->kind == Tok::number) &&
          (x.kind == Tok::ident || x.kind == Tok::number))
        name += ' ';
      name += x.text;
      if (x.kind == Tok::comma) name += ' ';
      prev = &x;
      take();
    }
  }

  std::string flag_name(std::string_view prefix, std::span<const std::string_view> known, std::string_view what) {
    const Token t = peek();
    if (t.kind != Tok::ident) fail(t.loc, fmt::format("expected {}, found {}", what, spell(t)));
    take();
    std::string_view name = t.text;
    if (name == prefix && peek().kind == Tok::scope) {
      take();
      const Token u = peek();
      if (u.kind != Tok::ident) fail(u.loc, fmt::format("expected {} after '{}::', found {}", what, prefix, spell(u)));
      take();
      name = u.text;
    }
    return known_name(t, name, known, what, '\'');
  }
  /// `name` if it is one of `known`, else an error at `at` that lists them (`name` shown in
  /// `quote`s, as written).
  std::string known_name(const Token& at, std::string_view name, std::span<const std::string_view> known,
                         std::string_view what, char quote) {
    if (std::ranges::find(known, name) == known.end())
      fail(at.loc,
           fmt::format("unknown {} {}{}{} (the {}s are {})", what, quote, name, quote, what, fmt::join(known, ", ")));
    return std::string(name);
  }

  /// A cost: a name of optgrammar::cost_names (`SNAIL`, `Cost::SNAIL`), or the name in quotes as
  /// the framework's older headers took it (`"SNAIL"`).
  std::string cost_arg() {
    if (peek().kind != Tok::string) return flag_name("Cost", optgrammar::cost_names, "cost");
    const Token t = peek();
    return known_name(t, joined_strings(), optgrammar::cost_names, "cost", '"');
  }

  /// An op name given by a variable (`const char* op_name_relu = "Relu";`), as packages write it
  /// for the framework's older headers and the SDK's generated sources in parameter orders: the
  /// compiler takes it, og-parse cannot know the op, and says so; `what` says what it cannot tell.
  std::string op_variable(std::string_view what) {
    const Token t = take();
    warn(t.loc,
         fmt::format("the op name is the variable '{}', not a string constant: og-parse cannot tell {}", t.text, what));
    return std::string(t.text);
  }

  void op_decl() {
    OpDecl d;
    d.loc = item_.loc;
    d.line = s_.line_of(d.loc);
    const bool cost_fn = item_.kind == ItemKind::op_cost_fn_flags;
    const bool with_cost = item_.kind == ItemKind::op_cost_flags || cost_fn;
    d.macro = cost_fn     ? "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS"
              : with_cost ? "DEF_PACKAGE_OP_AND_COST_AND_FLAGS"
                          : "DEF_PACKAGE_OP";
    try {
      take();
      d.function = function_name();
      expect(Tok::comma, "','", "after the implementation function");
      if (peek().kind == Tok::ident && !cost_fn) {
        d.op_variable = op_variable("which op this registers (the framework's current headers need a string constant)");
      } else {
        d.op = string_arg("the op name");
      }
      if (with_cost) {
        expect(Tok::comma, "','", "after the op name");
        d.cost = cost_fn ? function_name() : cost_arg();
        while (peek().kind == Tok::comma) {
          take();
          d.flags.push_back(flag_name("Flags", optgrammar::flag_names, "flag"));
        }
      } else {
        // DEF_PACKAGE_OP: the framework's defaults, as the C++ registry records them.
        d.cost = optgrammar::cost_name(optgrammar::def_package_op_cost);
        for (std::size_t bit = 0; bit < std::size(optgrammar::flag_names); ++bit)
          if (optgrammar::def_package_op_flags >> bit & 1u) d.flags.emplace_back(optgrammar::flag_names[bit]);
      }
      expect(Tok::rparen, "')'", fmt::format("to close {}", d.macro));
      s_.mutable_ops().push_back(std::move(d));
    } catch (const RuleError&) {
    }
  }

  void tensor_properties() {
    TensorProperties tp;
    tp.loc = item_.loc;
    tp.line = s_.line_of(tp.loc);
    // Any fault of form is the catalogue's properties_form, as the C++ front end words it: a
    // name that is not a non-empty string of printable characters, a missing ')', ...
    auto form = [&](const Token& t) { fail(t.loc, catalogue(Fault::properties_form)); };
    auto name_arg = [&]() {
      const Token t = peek();
      if (t.kind != Tok::string) form(t);
      std::string v = joined_strings();
      if (v.empty() || !plain_name(v)) form(t);
      return v;
    };
    auto close = [&]() {
      if (peek().kind != Tok::rparen) form(peek());
      take();
    };
    try {
      take();
      const Token opt = peek();
      if (opt.kind != Tok::ident || opt.text != "Op" || peek(1).kind != Tok::lparen)
        fail(opt.loc, catalogue(Fault::properties_form));
      take();
      take();
      tp.op = name_arg();
      while (peek().kind == Tok::comma) {
        take();
        const Token at = peek();
        if (!tp.operands.empty() && tp.operands.back() == "...") fail(at.loc, catalogue(Fault::properties_ellipsis));
        tp.operands.push_back(name_arg());
      }
      close();
      auto named = [&](const std::vector<std::string>& in, const std::string& nm) {
        return std::find(in.begin(), in.end(), nm) != in.end();
      };
      for (bool after_op = true; peek().kind == Tok::comma; after_op = false) {
        take();
        const Token pn = peek();
        if (pn.kind != Tok::ident || peek(1).kind != Tok::lparen) fail(pn.loc, catalogue(Fault::properties_form));
        const bool outputs = pn.text == "Outputs";
        if (outputs && !after_op) fail(pn.loc, catalogue(Fault::outputs_place));
        take();
        take();
        std::vector<std::string> names;
        if (peek().kind != Tok::rparen) {
          for (;;) {
            const Token at = peek();
            std::string nm = name_arg();
            if (outputs && (nm == "*" || nm == "..." || named(tp.operands, nm) || named(names, nm)))
              fail(at.loc, catalogue(Fault::outputs_name, nm));
            // ("..." without one in the Op: the inputs no other property singles out)
            if (!outputs && nm != "*" && nm != "..." && !named(tp.operands, nm) && !named(tp.outputs, nm))
              fail(at.loc, catalogue(Fault::properties_unknown_name, nm, tp.op));
            names.push_back(std::move(nm));
            if (peek().kind != Tok::comma) break;
            take();
          }
        }
        if (outputs && names.empty()) fail(pn.loc, catalogue(Fault::outputs_empty));
        close();
        if (outputs)
          tp.outputs = std::move(names);
        else
          tp.properties.emplace_back(std::string(pn.text), std::move(names));
      }
      close();
      s_.mutable_tensor_properties().push_back(std::move(tp));
    } catch (const RuleError&) {
    }
  }

  void param_order() {
    ParamOrder po;
    po.loc = item_.loc;
    po.line = s_.line_of(po.loc);
    try {
      take();
      // The SDK's generated sources name the op through a variable here (`sg_opNameRelu`).
      if (peek().kind == Tok::ident)
        po.op_variable = op_variable("which op these parameters belong to");
      else
        po.op = string_arg("the op name");
      if (peek().kind != Tok::comma) fail(peek().loc, catalogue(Fault::param_order_form));
      while (peek().kind == Tok::comma) {
        take();
        ParamOrder::Param p;
        p.name = string_arg("a parameter name");
        // A triple cut short (the C++ front end counts the operands and says the same).
        if (peek().kind == Tok::rparen) fail(peek().loc, catalogue(Fault::param_order_form));
        expect(Tok::comma, "','",
               fmt::format("after parameter \"{}\" (each parameter is: name, mandatory, default)", p.name));
        const Token m = peek();
        if (m.kind == Tok::ident && (m.text == "true" || m.text == "false")) {
          p.mandatory = m.text == "true";
        } else if (m.kind == Tok::number && (m.text == "0" || m.text == "1")) {
          p.mandatory = m.text == "1";
        } else {
          fail(m.loc, fmt::format("expected true or false (is \"{}\" mandatory?), found {}", p.name, spell(m)));
        }
        take();
        if (peek().kind == Tok::rparen) fail(peek().loc, catalogue(Fault::param_order_form));
        expect(Tok::comma, "','", fmt::format("after the mandatory flag of \"{}\"", p.name));
        const Token d = peek();
        if (d.kind == Tok::comma || d.kind == Tok::rparen || d.kind == Tok::eof)
          fail(d.loc, fmt::format("expected the default of \"{}\", found {}", p.name, spell(d)));
        int depth = 0;
        while (!(depth == 0 && (peek().kind == Tok::comma || peek().kind == Tok::rparen)) && peek().kind != Tok::eof) {
          if (peek().kind == Tok::lparen) ++depth;
          if (peek().kind == Tok::rparen) --depth;
          p.default_value += take().text;
        }
        po.params.push_back(std::move(p));
      }
      expect(Tok::rparen, "')'", "to close DEF_PACKAGE_PARAM_ORDER");
      s_.mutable_param_orders().push_back(std::move(po));
    } catch (const RuleError&) {
    }
  }

 private:
  Session& s_;
  const Item& item_;
  const Token* t_;
  std::size_t n_;
  std::size_t spec_at_ = 0;  ///< the first token of the pass spec of the rule being parsed
  std::size_t i_ = 0;
  std::vector<Node*>& operands_;  ///< operands of the calls being parsed, innermost last
};

}  // namespace

void process_item(Session& s, const Item& item, const std::vector<Token>& toks) {
  if (item.begin == item.end) return;
  s.begin_construct();
  static thread_local std::vector<Node*> operands;  // one stack for all items
  operands.clear();
  Parser p(s, item, toks.data() + item.begin, toks.data() + item.end, operands);
  switch (item.kind) {
    case ItemKind::rule:
    case ItemKind::rule_with_flags: p.rule(); break;
    case ItemKind::op:
    case ItemKind::op_cost_flags:
    case ItemKind::op_cost_fn_flags: p.op_decl(); break;
    case ItemKind::tensor_properties: p.tensor_properties(); break;
    case ItemKind::param_order: p.param_order(); break;
  }
}

void process_items(Session& s, std::vector<Item>& items, std::vector<Token>& toks) {
  s.index_shape_fns();
  for (const auto& it : items) process_item(s, it, toks);
  items.clear();
  toks.clear();
}

}  // namespace og_parse::detail
