// The top-level scanner: walks a C++ source file, skipping everything that is not rule text
// (comments, strings, other code), records the #define macros of the file and of the files it
// includes with #include "..." (relative to the including file, then the -I folders), the
// EXTERNAL_SHAPEFN annotations, and cuts out each DEF_PACKAGE_* construct as expanded tokens.
#include "internal.hpp"

#include <optgrammar/dsl/passes.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <iterator>
#include <optional>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

namespace og_parse::detail {
namespace {

// Bounds on macro expansion: tokens produced for one construct (all expansion steps together),
// for one line-start use of a macro that expands to constructs (a whole group of rules), and for
// all macro uses of one file (a base plus a share per byte of the file). A real rule expands to a
// few hundred tokens; the bounds keep a runaway macro (each level doubling the last) cheap to
// reject and a file full of them within a fixed cost.
constexpr std::size_t max_expanded_tokens = 1 << 15;
constexpr std::size_t max_group_tokens = 1 << 18;
constexpr std::size_t file_tokens_base = 1 << 21;
constexpr std::size_t file_tokens_per_byte = 8;
constexpr int max_expansion_depth = 64;
constexpr std::size_t max_include_depth = 200;       // as deep as GCC goes
constexpr std::size_t max_rule_lookahead = 1 << 16;  // bytes looked at by looks_like_rule

struct Macro {
  bool function_like = false;
  bool variadic = false;
  std::vector<std::string_view> params;
  std::vector<Token> body;
  bool has_item = false;  ///< its expansion contains a DEF_PACKAGE_* construct
};

/// An error found while expanding macros: reported at `loc`, and the item is dropped.
struct MacroError {
  Loc loc;
  std::string message;
};

bool item_kind_of(std::string_view name, ItemKind& k) noexcept {
  if (name.size() < 7 || name.substr(0, 4) != "DEF_") return false;
  // DEF_OPT and DEF_OPTIM: the framework's short names of the two rule macros, with the same
  // operands (its rule header defines them so; include/optgrammar/htp_compat.hpp does too).
  if (name == "DEF_PACKAGE_OPTIMIZATION" || name == "DEF_OPT")
    k = ItemKind::rule;
  else if (name == "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" || name == "DEF_OPTIM")
    k = ItemKind::rule_with_flags;
  else if (name == "DEF_PACKAGE_OP")
    k = ItemKind::op;
  else if (name == "DEF_PACKAGE_OP_AND_COST_AND_FLAGS")
    k = ItemKind::op_cost_flags;
  else if (name == "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS")
    k = ItemKind::op_cost_fn_flags;
  else if (name == "DEF_TENSOR_PROPERTIES")
    k = ItemKind::tensor_properties;
  else if (name == "DEF_PACKAGE_PARAM_ORDER")
    k = ItemKind::param_order;
  else
    return false;
  return true;
}

bool is_rule_kind(ItemKind k) noexcept { return k == ItemKind::rule || k == ItemKind::rule_with_flags; }

/// Spelled like a macro: capitals, digits and '_', with a capital; or, starting with a capital,
/// words joined by '_' with some small letters in them, as the framework spells a few of its
/// macros (IS_SHAPE_1x1x1xd).
bool macro_like(std::string_view name) noexcept {
  bool letter = false, small = false, underscore = false;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z')
      letter = true;
    else if (c >= 'a' && c <= 'z')
      small = true;
    else if (c == '_')
      underscore = true;
    else if (!(c >= '0' && c <= '9'))
      return false;
  }
  if (small) return underscore && name[0] >= 'A' && name[0] <= 'Z';
  return letter && name.size() > 1;
}

/// The macros defined so far. A name is looked up for every identifier of a construct, so a quick
/// test of its first character and length together comes before the hash lookup (an #undef leaves
/// the mark: a false positive only costs the lookup).
class MacroTable {
 public:
  const Macro* find(std::string_view name) const {
    if (name.empty() || ((lengths_by_first_[static_cast<unsigned char>(name[0])] >> length_bit(name)) & 1) == 0)
      return nullptr;
    return lookup(name);
  }
  void define(std::string_view name, Macro m) {
    if (name.empty()) return;
    lengths_by_first_[static_cast<unsigned char>(name[0])] |= std::uint64_t{1} << length_bit(name);
    map_[name] = std::move(m);
  }
  void undef(std::string_view name) { map_.erase(name); }
  bool empty() const noexcept { return map_.empty(); }

 private:
  static unsigned length_bit(std::string_view name) noexcept {
    return static_cast<unsigned>(std::min<std::size_t>(name.size(), 63));
  }
  const Macro* lookup(std::string_view name) const {
    const auto it = map_.find(name);
    return it == map_.end() ? nullptr : &it->second;
  }
  std::unordered_map<std::string_view, Macro> map_;
  std::array<std::uint64_t, 256> lengths_by_first_{};  ///< by first character: bit n, a name of length n
};

/// The macros og-parse knows in every source, from the text built into it (builtin_macros()).
const MacroTable& builtin_macros();

/// What the scan of one source file and of the files it includes share.
struct ScanState {
  MacroTable macros;
  bool reading_builtins = false;        ///< the scan that makes builtin_macros(), which must not consult it
  std::vector<std::uint32_t> active;    ///< the files being scanned, outermost first
  std::vector<std::string> unresolved;  ///< #include "..." names found nowhere
  /// ", which og-parse did not find ..." when includes were not found, else "".
  std::string hint() const {
    if (unresolved.empty()) return "";
    std::string names;
    for (const auto& u : unresolved) names += (names.empty() ? "\"" : ", \"") + u + "\"";
    return fmt::format(" (it may come from {}, which og-parse did not find; give its folder with -I)", names);
  }
};

std::string squeeze_spaces(std::string_view s) {
  std::string out;
  bool pending = false;
  for (char c : s) {
    if (is_space(c)) {
      pending = !out.empty();
      continue;
    }
    if (pending) out += ' ';
    pending = false;
    out += c;
  }
  return out;
}

class Scanner {
 public:
  /// A source file (`shared` null) or, with `shared`, a file it includes: only its macros (and
  /// its own includes) are taken.
  Scanner(Session& s, std::uint32_t file, std::vector<Item>& items, std::vector<Token>& toks,
          ScanState* shared = nullptr, bool stream = false)
      : s_(s),
        file_(file),
        src_(s.file(file).text),
        items_(items),
        toks_(toks),
        header_(shared != nullptr),
        stream_(stream && !header_),
        st_(shared ? *shared : own_),
        macros_(st_.macros) {
    if (!shared) st_.active.push_back(file);
  }

  void run() {
    const std::size_t n = src_.size();
    std::size_t i = 0;
    while (i < n) {
      const char c = src_[i];
      if (is_space(c)) {
        ++i;
      } else if (c == '/' && i + 1 < n && src_[i + 1] == '/') {
        std::size_t e = src_.find('\n', i);
        if (e == std::string_view::npos) e = n;
        comment(i, e);
        i = decl_start_ = e;
      } else if (c == '/' && i + 1 < n && src_[i + 1] == '*') {
        std::size_t e = src_.find("*/", i + 2);
        e = e == std::string_view::npos ? n : e + 2;
        comment(i, e);
        i = decl_start_ = e;
      } else if (c == '"') {
        i = skip_quoted(i, '"');
      } else if (c == '\'') {
        i = (i > 0 && is_ident_char(src_[i - 1])) ? i + 1 : skip_quoted(i, '\'');
      } else if (c == '#' && at_line_start(src_, i)) {
        i = directive(i);
        decl_start_ = i;
      } else if (is_ident_start(c)) {
        i = identifier(i);
      } else if (is_digit(c)) {
        while (i < n && (is_ident_char(src_[i]) || src_[i] == '.')) ++i;
      } else {
        scope_punctuation(c);
        ++i;
        if (c == '{' || c == '}' || c == ';') decl_start_ = i;
      }
    }
    if (stream_) process_items(s_, items_, toks_);
  }

 private:
  Loc loc(std::size_t off) const noexcept { return Loc{file_, static_cast<std::uint32_t>(off)}; }

  /// A macro of the file (or of the files it includes), else one og-parse knows in every source.
  const Macro* find_macro(std::string_view name) const {
    if (const Macro* m = macros_.find(name)) return m;
    return st_.reading_builtins ? nullptr : builtin_macros().find(name);
  }

  std::size_t skip_quoted(std::size_t i, char q) const noexcept {
    const std::size_t n = src_.size();
    ++i;
    while (i < n && src_[i] != q && src_[i] != '\n') {
      if (src_[i] == '\\' && i + 1 < n) ++i;
      ++i;
    }
    return i < n && src_[i] == q ? i + 1 : i;
  }

  std::size_t skip_raw_string(std::size_t quote) const noexcept {
    // R"delim( ... )delim"
    std::size_t p = src_.find('(', quote);
    if (p == std::string_view::npos || p - quote > 17) return quote + 1;
    std::string close = ")";
    close += src_.substr(quote + 1, p - quote - 1);
    close += '"';
    std::size_t e = src_.find(close, p);
    return e == std::string_view::npos ? src_.size() : e + close.size();
  }

  std::size_t skip_blank_and_comments(std::size_t i) const noexcept {
    const std::size_t n = src_.size();
    for (;;) {
      while (i < n && is_space(src_[i])) ++i;
      if (i + 1 < n && src_[i] == '/' && src_[i + 1] == '/') {
        while (i < n && src_[i] != '\n') ++i;
      } else if (i + 1 < n && src_[i] == '/' && src_[i + 1] == '*') {
        std::size_t e = src_.find("*/", i + 2);
        i = e == std::string_view::npos ? n : e + 2;
      } else {
        return i;
      }
    }
  }

  // ---- identifiers at top level -------------------------------------------------------
  std::size_t identifier(std::size_t i) {
    const std::size_t n = src_.size();
    std::size_t j = i;
    while (j < n && is_ident_char(src_[j])) ++j;
    const std::string_view name = src_.substr(i, j - i);
    if (j < n && src_[j] == '"' && (name == "R" || name == "u8R" || name == "uR" || name == "UR" || name == "LR"))
      return skip_raw_string(j);
    if (header_) {  // an included file gives its macros and its function declarations only
      declarations_at(i, j, name);
      return j;
    }
    ItemKind kind{};
    if (item_kind_of(name, kind)) {
      std::size_t p = j;
      if (is_rule_kind(kind)) {
        while (p < n && (src_[p] == ' ' || src_[p] == '\t')) ++p;
        if (!at_line_start(src_, i) || p >= n || src_[p] != '(') {
          s_.diag(loc(i), Severity::error,
                  fmt::format("'{}' must be at the start of a line, followed by '(' on the same line", name));
          return j;
        }
      } else {
        p = skip_blank_and_comments(j);
        if (p >= n || src_[p] != '(') return j;  // a mention, not a use
      }
      return decl_start_ = item(kind, loc(i), name, p);
    }
    if (at_line_start(src_, i)) {
      const Macro* m = find_macro(name);
      if (m && m->has_item) return decl_start_ = invocation(i, j, *m);
      if (!m && macro_like(name) && !is_construct(name) && looks_like_rule(j))
        s_.diag(loc(i), Severity::warning,
                fmt::format("'{}(...)' looks like a rule, but '{}' is not a macro og-parse knows{}: the rule is not "
                            "checked",
                            name, name, st_.hint()));
    }
    declarations_at(i, j, name);
    return j;
  }

  /// Whether a '(' follows `j` and its parenthesized text holds an Op(...) construct.
  bool looks_like_rule(std::size_t j) const noexcept {
    std::size_t p = skip_blank_and_comments(j);
    const std::size_t n = std::min(src_.size(), p + max_rule_lookahead);
    if (p >= n || src_[p] != '(') return false;
    int depth = 0;
    for (std::size_t k = p; k < n;) {
      const char c = src_[k];
      if (c == '"' || c == '\'') {
        k = skip_quoted(k, c);
      } else if (c == '/' && k + 1 < n && (src_[k + 1] == '/' || src_[k + 1] == '*')) {
        k = skip_blank_and_comments(k);
      } else if (is_ident_start(c)) {
        std::size_t e = k;
        while (e < n && is_ident_char(src_[e])) ++e;
        const std::string_view w = src_.substr(k, e - k);
        std::size_t q = e;
        while (q < n && (src_[q] == ' ' || src_[q] == '\t')) ++q;
        if ((w == "Op" || w == "OpVarIn") && q < n && src_[q] == '(') return true;
        k = e;
      } else {
        if (c == '(') ++depth;
        if (c == ')' && --depth == 0) return false;
        ++k;
      }
    }
    return false;
  }

  /// The first name spelled like a macro, called or not, in toks[b, e) that is no word of the
  /// rule language (a construct, a pass name, a bare value such as OK): a macro of a header that
  /// was not found (`TILE_N` as well as `MY_TEST(x)`).
  static std::string_view unknown_call(const std::vector<Token>& toks, std::size_t b, std::size_t e) {
    for (std::size_t k = b; k < e; ++k) {
      const std::string_view t = toks[k].text;
      if (toks[k].kind == Tok::ident && macro_like(t) && !is_construct(t) && optgrammar::pass_priority(t) < 0 &&
          !is_bare_word(t))
        return t;
    }
    return {};
  }
  /// With includes not found, a rule that calls an unknown macro-like name is not checked (its
  /// macro may be in them): a warning names it, and the rule is dropped. Otherwise the checker
  /// reports the unknown name as an error, as the compiler would.
  bool unexpandable(const Item& it, std::size_t b, std::size_t e) {
    if (st_.unresolved.empty() || !is_rule_kind(it.kind)) return false;
    const std::string_view name = unknown_call(toks_, b, e);
    if (name.empty()) return false;
    Loc at = it.loc;
    for (std::size_t k = b; k < e; ++k)
      if (toks_[k].text.data() == name.data()) {
        at = toks_[k].loc;
        break;
      }
    s_.diag(at, Severity::warning,
            fmt::format("rule not checked: '{}' is neither a construct of the rule language nor a macro og-parse "
                        "could read{}",
                        name, st_.hint()));
    return true;
  }

  /// Collects the balanced tokens from the '(' at `lp`. Returns false (after a diagnostic) when
  /// the construct is not closed; `end` is where scanning resumes. `macro_used` tells whether
  /// one of the tokens names a macro of the file.
  bool collect(std::size_t lp, std::string_view what, std::vector<Token>& raw, std::size_t& end, bool& macro_used) {
    const char* const s = src_.data();  // a file's whole text (Session::File): a NUL follows it
    const std::size_t n = src_.size();
    std::size_t p = lp;
    int depth = 0;
    const Loc open = loc(lp);
    const bool any_macros = !macros_.empty();
    macro_used = false;
    for (;;) {
      const std::size_t before = p;
      Token t = lex_fast<true>(s, n, file_, p);
      if (t.kind == Tok::other) {
        Lexer lx(s_, file_, src_, p);
        try {
          t = lx.next_slow();
        } catch (const RuleError&) {
          end = lx.pos();
          return false;
        }
        p = lx.pos();
      }
      switch (t.kind) {
        case Tok::lparen: ++depth; break;
        case Tok::rparen:
          if (--depth == 0) {
            raw.push_back(t);
            end = p;
            return true;
          }
          break;
        case Tok::ident:
          if (t.text.size() >= 24 && t.text.substr(0, 24) == "DEF_PACKAGE_OPTIMIZATION" && depth > 0 &&
              at_line_start(src_, t.loc.offset))
            return unclosed_before(open, what, t, before, end);
          if (any_macros && !macro_used && macros_.find(t.text)) macro_used = true;
          break;
        case Tok::hash:
          if (depth > 0 && at_line_start(src_, t.loc.offset)) return unclosed_before(open, what, t, before, end);
          break;
        case Tok::eof:
          s_.diag(open, Severity::error, fmt::format("unbalanced parentheses: '(' of {} is never closed", what));
          end = src_.size();
          return false;
        default: break;
      }
      raw.push_back(t);
    }
  }
  /// collect()'s diagnostic for a construct that a directive or the next rule interrupts.
  bool unclosed_before(Loc open, std::string_view what, Token t, std::size_t before, std::size_t& end) {
    s_.diag(open, Severity::error,
            fmt::format("unbalanced parentheses: '(' of {} is not closed before {} on line {}", what, spell(t),
                        s_.line_of(t.loc)));
    end = before;
    return false;
  }

  bool check_after_rule(std::size_t end, std::string_view what) {
    std::size_t p = skip_blank_and_comments(end);
    if (p < src_.size() && (src_[p] == '(' || src_[p] == ',')) {
      s_.diag(loc(p), Severity::error, fmt::format("'{}' may not follow the closing ')' of {}(...)", src_[p], what));
      return false;
    }
    return true;
  }

  /// The item whose macro `name` is at `at`, its '(' at `lp`.
  std::size_t item(ItemKind kind, Loc at, std::string_view name, std::size_t lp) {
    std::size_t end = lp;
    if (stream_) process_items(s_, items_, toks_);  // the items before are complete
    Item it;
    it.kind = kind;
    it.loc = at;
    // The tokens go straight to the file's buffer; only an item that uses macros is moved out to
    // be expanded back into it.
    it.begin = toks_.size();
    bool macro_used = false;
    if (!collect(lp, name, toks_, end, macro_used)) {
      toks_.resize(it.begin);
      return end;
    }
    if (is_rule_kind(kind) && !check_after_rule(end, name)) it.bad_tail = true;
    try {
      disabled_.clear();
      produced_ = 0;
      limit_ = max_expanded_tokens;
      if (macro_used) {
        raw_.assign(toks_.begin() + static_cast<std::ptrdiff_t>(it.begin), toks_.end());
        toks_.resize(it.begin);
        expand(raw_, toks_, nullptr, 0);
      }
    } catch (const MacroError& e) {
      s_.diag(e.loc, Severity::error, e.message);
      it.bad = true;
    }
    if (!it.bad && unexpandable(it, it.begin, toks_.size())) it.bad = true;
    if (it.bad) {
      toks_.resize(it.begin);
    } else {
      add_item(it);
    }
    return end;
  }

  /// Records `it`, whose tokens are those from it.begin to the end of the buffer, and puts the
  /// end-of-input token after them (Item).
  void add_item(Item& it) {
    it.end = toks_.size();
    toks_.push_back(Token{Tok::eof, it.end > it.begin ? toks_.back().loc : it.loc, {}});
    items_.push_back(it);
  }

  /// A line-start use of one of the file's macros whose expansion holds DEF_PACKAGE_* items.
  std::size_t invocation(std::size_t i, std::size_t j, const Macro& m) {
    if (stream_) process_items(s_, items_, toks_);  // the items before are complete
    std::vector<Token> raw;
    const Loc at = loc(i);
    raw.push_back(Token{Tok::ident, at, src_.substr(i, j - i)});
    std::size_t end = j;
    if (m.function_like) {
      std::size_t p = skip_blank_and_comments(j);
      if (p >= src_.size() || src_[p] != '(') return j;
      bool macro_used = false;
      if (!collect(p, src_.substr(i, j - i), raw, end, macro_used)) return end;
    }
    std::vector<Token> out;
    try {
      disabled_.clear();
      produced_ = 0;
      limit_ = max_group_tokens;
      expand(raw, out, nullptr, 0);
    } catch (const MacroError& e) {
      s_.diag(e.loc, Severity::error, e.message);
      return end;
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
      ItemKind kind{};
      if (out[k].kind != Tok::ident || !item_kind_of(out[k].text, kind)) continue;
      if (k + 1 >= out.size() || out[k + 1].kind != Tok::lparen) continue;
      Item it;
      it.kind = kind;
      it.loc = at;
      int depth = 0;
      std::size_t q = k + 1;
      it.begin = toks_.size();
      for (; q < out.size(); ++q) {
        toks_.push_back(out[q]);
        if (out[q].kind == Tok::lparen) ++depth;
        if (out[q].kind == Tok::rparen && --depth == 0) break;
      }
      if (depth != 0) {
        s_.diag(at, Severity::error,
                fmt::format("unbalanced parentheses in the expansion of macro '{}'", src_.substr(i, j - i)));
        return end;
      }
      if (is_rule_kind(kind) && q + 1 < out.size() &&
          (out[q + 1].kind == Tok::lparen || out[q + 1].kind == Tok::comma)) {
        s_.diag(out[q + 1].loc, Severity::error,
                fmt::format("'{}' may not follow the closing ')' of {}(...)", out[q + 1].text, out[k].text));
        it.bad_tail = true;
      }
      if (unexpandable(it, it.begin, toks_.size())) {
        toks_.resize(it.begin);
        k = q;
        continue;
      }
      add_item(it);
      k = q;
    }
    if (!check_after_rule(end, src_.substr(i, j - i)) && !items_.empty() && items_.back().loc.offset == at.offset &&
        items_.back().loc.file == at.file)
      items_.back().bad_tail = true;
    return end;
  }

  // ---- macro expansion ------------------------------------------------------------------
  bool disabled(std::string_view name) const noexcept {
    for (auto d : disabled_)
      if (d == name) return true;
    return false;
  }

  static int param_index(const Macro& m, const Token& t) noexcept {
    if (t.kind != Tok::ident) return -1;
    for (std::size_t p = 0; p < m.params.size(); ++p)
      if (m.params[p] == t.text) return static_cast<int>(p);
    if (m.variadic && t.text == "__VA_ARGS__") return static_cast<int>(m.params.size());
    return -1;
  }

  Token stringize(const std::vector<Token>& arg, Loc at) {
    std::string text = "\"";
    const Token* prev = nullptr;
    for (const auto& t : arg) {
      if (prev && (prev->kind == Tok::ident || prev->kind == Tok::number) &&
          (t.kind == Tok::ident || t.kind == Tok::number))
        text += ' ';
      for (char c : t.text) {
        if (t.kind == Tok::string && (c == '"' || c == '\\')) text += '\\';
        text += c;
      }
      prev = &t;
    }
    text += '"';
    return Token{Tok::string, at, s_.intern(std::move(text))};
  }

  Token paste(const Token& a, const Token& b) {
    std::string text(a.text);
    text += b.text;
    Tok k = a.kind;
    if (!text.empty() && is_ident_start(text[0])) k = Tok::ident;
    return Token{k, a.loc, s_.intern(std::move(text))};
  }

  std::size_t file_limit() const noexcept { return file_tokens_base + file_tokens_per_byte * src_.size(); }
  /// Whether `n` more tokens stay within both limits.
  bool within_limits(std::size_t n) const noexcept {
    return produced_ + n <= limit_ && file_produced_ + n <= file_limit();
  }
  void count(Loc at, std::size_t n = 1) {
    produced_ += n;
    file_produced_ += n;
    if (produced_ > limit_) throw MacroError{at, fmt::format("macro expansion exceeds {} tokens", limit_)};
    if (file_produced_ > file_limit())
      throw MacroError{at, fmt::format("macro expansions in this file exceed {} tokens in all", file_limit())};
  }
  void push(std::vector<Token>& out, const Token& t) {
    count(t.loc);
    out.push_back(t);
  }

  void expand(const std::vector<Token>& in, std::vector<Token>& out, const Loc* use, int depth) {
    if (depth > max_expansion_depth)
      throw MacroError{in.empty() ? Loc{file_, 0} : in.front().loc, "macro expansion nested too deeply"};
    for (std::size_t i = 0; i < in.size(); ++i) {
      const Token& t = in[i];
      const Macro* mp = t.kind == Tok::ident ? find_macro(t.text) : nullptr;
      if (!mp || disabled(t.text)) {
        // the tokens up to the next macro use stand for themselves: copied at once, counted at
        // once unless a limit falls inside the run (then one by one, to report the token at it)
        std::size_t k = i + 1;
        while (k < in.size() && !(in[k].kind == Tok::ident && find_macro(in[k].text) && !disabled(in[k].text))) ++k;
        if (within_limits(k - i)) {
          count(t.loc, k - i);
          out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(i),
                     in.begin() + static_cast<std::ptrdiff_t>(k));
        } else {
          for (std::size_t r = i; r < k; ++r) push(out, in[r]);
        }
        i = k - 1;
        continue;
      }
      const Macro& m = *mp;
      const Loc at = use ? *use : t.loc;
      std::vector<Token> body;
      body.reserve(m.body.size());
      if (!m.function_like) {
        count(at, m.body.size());
        for (const auto& bt : m.body) body.push_back(Token{bt.kind, at, bt.text});
      } else {
        if (i + 1 >= in.size() || in[i + 1].kind != Tok::lparen) {
          push(out, t);
          continue;
        }
        std::vector<std::vector<Token>> args(1);
        int d = 0;
        std::size_t j = i + 2;
        bool closed = false;
        for (; j < in.size(); ++j) {
          const Tok k = in[j].kind;
          if (k == Tok::lparen) {
            ++d;
          } else if (k == Tok::rparen) {
            if (d == 0) {
              closed = true;
              break;
            }
            --d;
          } else if (k == Tok::comma && d == 0 && !(m.variadic && args.size() > m.params.size())) {
            args.emplace_back();
            continue;
          }
          args.back().push_back(in[j]);
        }
        if (!closed) {
          push(out, t);
          continue;
        }
        if (m.params.empty() && !m.variadic && args.size() == 1 && args[0].empty()) args.clear();
        if (m.variadic && args.size() == m.params.size()) args.emplace_back();
        const std::size_t want = m.params.size() + (m.variadic ? 1 : 0);
        if (args.size() != want)
          throw MacroError{t.loc, fmt::format("macro '{}' takes {} argument{}, {} given", t.text, m.params.size(),
                                              m.params.size() == 1 ? "" : "s", args.size())};
        for (std::size_t b = 0; b < m.body.size(); ++b) {
          const Token& bt = m.body[b];
          if (bt.kind == Tok::hash && bt.text == "#" && b + 1 < m.body.size()) {
            int p = param_index(m, m.body[b + 1]);
            if (p >= 0) {
              body.push_back(stringize(args[static_cast<std::size_t>(p)], at));
              ++b;
              continue;
            }
          }
          int p = param_index(m, bt);
          count(at);
          if (p < 0) {
            body.push_back(Token{bt.kind, at, bt.text});
            continue;
          }
          const auto& arg = args[static_cast<std::size_t>(p)];
          const bool pasted =
              (b + 1 < m.body.size() && m.body[b + 1].kind == Tok::hash && m.body[b + 1].text == "##") ||
              (b > 0 && m.body[b - 1].kind == Tok::hash && m.body[b - 1].text == "##");
          if (pasted) {
            count(at, arg.size());
            body.insert(body.end(), arg.begin(), arg.end());
          } else {
            expand(arg, body, use, depth + 1);
          }
        }
        i = j;
      }
      // token pasting, in place: `a ## b` becomes one token
      std::size_t kept = 0;
      for (std::size_t b = 0; b < body.size(); ++b) {
        if (body[b].kind == Tok::hash && body[b].text == "##") {
          if (kept != 0 && b + 1 < body.size()) {
            body[kept - 1] = paste(body[kept - 1], body[b + 1]);
            ++b;
          }
          continue;
        }
        if (kept != b) body[kept] = body[b];
        ++kept;
      }
      body.resize(kept);
      disabled_.push_back(t.text);
      expand(body, out, &at, depth + 1);
      disabled_.pop_back();
    }
  }

  // ---- preprocessor directives ----------------------------------------------------------
  std::size_t directive(std::size_t i) {
    const std::size_t n = src_.size();
    std::size_t e = i;
    while (e < n && src_[e] != '\n') {
      if (src_[e] == '\\' && e + 1 < n && src_[e + 1] == '\n')
        ++e;
      else if (src_[e] == '\\' && e + 2 < n && src_[e + 1] == '\r' && src_[e + 2] == '\n')
        e += 2;
      else if (src_[e] == '/' && e + 1 < n && src_[e + 1] == '*') {
        std::size_t c = src_.find("*/", e + 2);
        if (c == std::string_view::npos) return n;
        e = c + 1;
      }
      ++e;
    }
    const std::string_view line = src_.substr(0, e);
    Lexer lx(s_, file_, line, i);
    try {
      Token hash = lx.next();
      (void)hash;
      Token kw = lx.next();
      if (kw.kind != Tok::ident) return e;
      if (kw.text == "include") {
        Token name = lx.next();
        if (name.kind == Tok::string && name.text.size() > 2 && name.text.front() == '"')
          include(std::string(name.text.substr(1, name.text.size() - 2)));
        return e;  // <...>: a system header, not followed
      }
      if (kw.text == "undef") {
        Token nm = lx.next();
        if (nm.kind == Tok::ident) macros_.undef(nm.text);
        return e;
      }
      if (kw.text != "define") return e;
      Token nm = lx.next();
      ItemKind ik{};
      if (nm.kind != Tok::ident || item_kind_of(nm.text, ik)) return e;
      Macro m;
      std::size_t after = nm.loc.offset + nm.text.size();
      if (after < line.size() && line[after] == '(') {
        m.function_like = true;
        lx.next();  // '('
        for (;;) {
          Token p = lx.next();
          if (p.kind == Tok::rparen) break;
          if (p.kind == Tok::ident) {
            m.params.push_back(p.text);
          } else if (p.kind == Tok::other && p.text == ".") {
            m.variadic = true;
            lx.next();
            lx.next();
          } else if (p.kind != Tok::comma) {
            return e;  // not a macro we understand; C++ will complain if it matters
          }
        }
      }
      for (Token t = lx.next(); t.kind != Tok::eof; t = lx.next()) {
        m.body.push_back(t);
        ItemKind k{};
        if (t.kind == Tok::ident) {
          if (item_kind_of(t.text, k)) {
            m.has_item = true;
          } else {
            const Macro* used = find_macro(t.text);
            if (used && used->has_item) m.has_item = true;
          }
        }
      }
      macros_.define(nm.text, std::move(m));
    } catch (const RuleError&) {
    }
    return e;
  }

  /// Whether a header that was not found can hold no macro of the rules: one of the framework's
  /// headers that the library stands in for (include/compat: og-parse knows all they give a rule),
  /// or a header of the QNN API (Qnn*.h: types and functions, no words of the rule language).
  static bool known_without_reading(std::string_view name) {
    static constexpr std::string_view stand_ins[] = {
#include "og_parse/compat_headers.inc"
    };
    if (std::find(std::begin(stand_ins), std::end(stand_ins), name) != std::end(stand_ins)) return true;
    const std::string_view base = name.substr(name.find_last_of('/') + 1);
    return base.starts_with("Qnn") && base.ends_with(".h");
  }

  /// An include that was not read: its macros may be missing, unless it is known without reading.
  void not_read(const std::string& name) {
    if (!known_without_reading(name) && std::ranges::find(st_.unresolved, name) == st_.unresolved.end())
      st_.unresolved.push_back(name);
  }

  /// #include "name": the including file's folder, then the -I folders, as the compiler looks.
  void include(const std::string& name) {
    namespace fs = std::filesystem;
    std::optional<std::uint32_t> f;
    if (!s_.options().follow_includes) return not_read(name);
    f = s_.include_file((fs::path(s_.file(file_).path).parent_path() / name).lexically_normal().string());
    for (const auto& dir : s_.options().include_dirs) {
      if (f) break;
      f = s_.include_file((fs::path(dir) / name).lexically_normal().string());
    }
    if (!f) return not_read(name);
    // A file being scanned is not entered again (a cycle; the compiler's include guards).
    if (st_.active.size() >= max_include_depth ||
        std::find(st_.active.begin(), st_.active.end(), *f) != st_.active.end())
      return;
    st_.active.push_back(*f);
    Scanner(s_, *f, items_, toks_, &st_).run();
    st_.active.pop_back();
  }

  // ---- functions declared at namespace scope ------------------------------------------------
  // SHAPEFN_APPLY, AUTOSPLIT_SHAPEFN_APPLY, EXTERNAL_CONSTRAINT and EXTERNAL_REPLACE name functions
  // that a package defines in its own sources. Their declarations and definitions at namespace
  // scope (not inside a class or a function body) give the check what an annotation would: the
  // return type and the parameter types. What this reading cannot be sure of is left alone (a
  // template, a return type with '<', variadic parameters, a member defined out of its class).

  /// Braces outside comments and strings: a `{` after `namespace` or `extern` opens a scope whose
  /// declarations count; any other opens one (a class, a function body) whose do not.
  void scope_punctuation(char c) {
    if (c == '{') {
      scopes_.push_back(opens_namespace_);
      blocks_ += !opens_namespace_;
      opens_namespace_ = false;
    } else if (c == '}') {
      if (!scopes_.empty()) {
        blocks_ -= !scopes_.back();
        scopes_.pop_back();
      }
    } else if (c == ';' || c == '(' || c == '=') {
      opens_namespace_ = false;  // `namespace a = b;`, `extern int f(int);`
    }
  }
  /// The identifier `name` at [i, j), outside rule text: notes `namespace` and `extern`, and reads
  /// a function declaration at namespace scope.
  void declarations_at(std::size_t i, std::size_t j, std::string_view name) {
    if (name == "namespace" || name == "extern")
      opens_namespace_ = true;  // (`extern "C" {` too)
    else if (at_namespace_scope())
      declaration(i, j, name);
  }
  bool at_namespace_scope() const noexcept { return blocks_ == 0; }

  static bool is_keyword_type(std::string_view w) noexcept {
    static constexpr std::string_view words[] = {"int",   "long",   "short", "char", "unsigned", "signed",
                                                 "float", "double", "bool",  "void", "const",    "volatile"};
    return std::find(std::begin(words), std::end(words), w) != std::end(words);
  }
  /// A parameter's type: without its default value and its name ("OpRef const &x" gives
  /// "OpRef const &", "int depth" "int", "const OpRef" stays).
  static std::string parameter_type(std::string_view p) {
    int depth = 0;
    for (std::size_t k = 0; k < p.size(); ++k) {
      const char c = p[k];
      if (c == '<' || c == '(' || c == '[') ++depth;
      if (c == '>' || c == ')' || c == ']') --depth;
      if (c == '=' && depth == 0) {
        p = p.substr(0, k);
        break;
      }
    }
    std::string t = squeeze_spaces(p);
    if (t.empty() || !is_ident_char(t.back())) return t;
    std::size_t b = t.size();
    while (b > 0 && is_ident_char(t[b - 1])) --b;
    const std::string_view word = std::string_view(t).substr(b);
    std::string rest = squeeze_spaces(std::string_view(t).substr(0, b));
    const bool only_cv = rest.empty() || rest == "const" || rest == "volatile" || rest == "const volatile";
    const bool qualified = rest.size() >= 2 && rest.compare(rest.size() - 2, 2, "::") == 0;
    if (only_cv || qualified || is_keyword_type(word) || is_digit(word.front())) return t;
    return rest;
  }
  /// The parameters between a declaration's parentheses, split at the commas outside <>, () and
  /// [], each as `type_of` gives it; none for `(void)` or `()`.
  template <class TypeOf>
  static std::vector<std::string> parameters(std::string_view ps, TypeOf type_of) {
    std::vector<std::string> out;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t k = 0; k <= ps.size(); ++k) {
      const char c = k < ps.size() ? ps[k] : ',';
      if (c == '<' || c == '(' || c == '[') ++depth;
      if (c == '>' || c == ')' || c == ']') --depth;
      if (c == ',' && depth == 0) {
        std::string param = type_of(ps.substr(start, k - start));
        if (!param.empty()) out.push_back(std::move(param));
        start = k + 1;
      }
    }
    if (out.size() == 1 && out[0] == "void") out.clear();
    return out;
  }
  /// The return type written before a function's name (from the start of its declaration), less
  /// the specifiers; empty when the text is no plain return type.
  static std::string return_type(std::string_view before) {
    std::string t = squeeze_spaces(before);
    for (;;) {
      if (t.rfind("[[", 0) == 0) {
        const std::size_t e = t.find("]]");
        if (e == std::string::npos) return {};
        t = squeeze_spaces(std::string_view(t).substr(e + 2));
        continue;
      }
      bool dropped = false;
      for (std::string_view spec : {"static", "inline", "constexpr", "extern"})
        if (t.size() > spec.size() && t.compare(0, spec.size(), spec) == 0 && t[spec.size()] == ' ') {
          t = t.substr(spec.size() + 1);
          dropped = true;
        }
      if (!dropped) break;
    }
    // A qualified type (std::size_t) is one; a name qualified by its class (Cls::fn) is no free
    // function.
    std::string plain;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] == ':' && k + 1 < t.size() && t[k + 1] == ':') {
        ++k;
        continue;
      }
      plain += t[k];
    }
    if (t.empty() || (t.size() >= 2 && t.compare(t.size() - 2, 2, "::") == 0) ||
        plain.find_first_of("()=<>[]{}\"'#,;:/*") != std::string::npos)
      return {};
    return t;
  }
  /// `name` at [i, j), at namespace scope: records it when it is declared or defined there as a
  /// function with a plain return type. The text looked at is bounded (a return type of at most
  /// max_return_type bytes since the last `;`, brace, directive or comment; parameters up to the
  /// next of those, at most max_parameters bytes), so hostile input costs linear time.
  void declaration(std::size_t i, std::size_t j, std::string_view name) {
    static constexpr std::size_t max_return_type = 256, max_parameters = 1 << 14;
    const std::size_t n = src_.size();
    if (decl_start_ > i || i - decl_start_ > max_return_type) return;
    const std::size_t lp = skip_blank_and_comments(j);
    if (lp >= n || src_[lp] != '(') return;
    std::string ret = return_type(src_.substr(decl_start_, i - decl_start_));
    if (ret.empty()) return;
    int depth = 1;
    std::size_t q = lp + 1;
    const std::size_t end = std::min(n, lp + max_parameters);
    while (q < end && depth > 0) {
      const char c = src_[q];
      if (c == '"' || c == '\'') {
        q = skip_quoted(q, c);
        continue;
      }
      if (c == '{' || c == '}' || c == ';' || c == '#') return;
      if (c == '/' && q + 1 < n && (src_[q + 1] == '/' || src_[q + 1] == '*')) return;
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      ++q;
    }
    if (depth != 0) return;
    // After the parameters: qualifiers, then the body or the end of a declaration.
    std::size_t r = skip_blank_and_comments(q);
    while (r < n && is_ident_start(src_[r])) {
      std::size_t e = r;
      while (e < n && is_ident_char(src_[e])) ++e;
      const std::string_view w = src_.substr(r, e - r);
      if (w != "noexcept" && w != "const") return;
      r = skip_blank_and_comments(e);
    }
    if (r >= n || (src_[r] != '{' && src_[r] != ';')) return;
    ShapeFn fn;
    fn.loc = loc(i);
    fn.line = s_.line_of(fn.loc);
    fn.name = std::string(name);
    fn.return_type = std::move(ret);
    fn.declared = true;
    fn.params = parameters(src_.substr(lp + 1, q - lp - 2), parameter_type);
    if (std::find(fn.params.begin(), fn.params.end(), "...") != fn.params.end()) return;  // variadic: the count is open
    s_.mutable_declared_fns().push_back(std::move(fn));
  }

  // ---- annotations ------------------------------------------------------------------------
  void comment(std::size_t b, std::size_t e) {
    if (header_) return;
    static constexpr std::string_view marker = ":::EXTERNAL_SHAPEFN:::";
    const std::string_view text = src_.substr(b, e - b);
    const std::size_t m = text.find(marker);
    if (m == std::string_view::npos) return;
    const std::size_t base = b + m;
    std::string_view rest = text.substr(m + marker.size());
    auto bad = [&](std::string_view why) {
      s_.diag(loc(base), Severity::warning, fmt::format("malformed EXTERNAL_SHAPEFN annotation: {}", why));
    };
    std::size_t p = 0;
    while (p < rest.size() && is_space(rest[p])) ++p;
    if (p >= rest.size() || rest[p] != '{') return bad("expected '{'");
    ++p;
    for (;;) {
      while (p < rest.size() && is_space(rest[p])) ++p;
      if (p >= rest.size()) return bad("expected '}'");
      if (rest[p] == '}') return;
      std::size_t semi = rest.find_first_of(";}", p);
      if (semi == std::string_view::npos) return bad("expected ';'");
      std::string_view decl = rest.substr(p, semi - p);
      p = rest[semi] == ';' ? semi + 1 : semi;
      std::size_t lp = decl.find('(');
      std::size_t rp = decl.rfind(')');
      if (lp == std::string_view::npos || rp == std::string_view::npos || rp < lp)
        return bad("expected 'return_type function_name(parameter types);'");
      std::size_t ne = lp;
      while (ne > 0 && is_space(decl[ne - 1])) --ne;
      std::size_t nb = ne;
      while (nb > 0 && is_ident_char(decl[nb - 1])) --nb;
      if (nb == ne || !is_ident_start(decl[nb])) return bad("missing function name");
      ShapeFn fn;
      fn.loc = loc(base);
      fn.line = s_.line_of(fn.loc);
      fn.name = std::string(decl.substr(nb, ne - nb));
      fn.return_type = squeeze_spaces(decl.substr(0, nb));
      if (fn.return_type.empty()) return bad("missing return type");
      fn.params = parameters(decl.substr(lp + 1, rp - lp - 1), squeeze_spaces);
      s_.mutable_shape_fns().push_back(std::move(fn));
    }
  }

  Session& s_;
  std::uint32_t file_;
  std::string_view src_;
  std::vector<Item>& items_;
  std::vector<Token>& toks_;
  std::vector<Token> raw_;
  bool header_ = false;  ///< an included file
  bool stream_ = false;  ///< process each item once it is complete (scan_file)
  ScanState own_;
  ScanState& st_;
  MacroTable& macros_;
  std::vector<std::string_view> disabled_;
  std::vector<bool> scopes_;      ///< the open braces: whether each opens a namespace-like scope
  std::size_t blocks_ = 0;        ///< how many of them do not (a class, a function body)
  bool opens_namespace_ = false;  ///< `namespace` or `extern` seen: the next `{` opens one
  std::size_t decl_start_ = 0;    ///< where the declaration being read began
  std::size_t produced_ = 0;      ///< tokens produced for the current construct or group
  std::size_t limit_ = max_expanded_tokens;
  std::size_t file_produced_ = 0;  ///< tokens produced by all macro uses of this file
};

/// The framework's macros made of the rule language's own (DEF_AUTOSPLIT, CONVERT_BINARY_OP_TO_FP16,
/// the registrations that name a registry, the tiling declarations): the definitions the C++ front
/// end reads (include/optgrammar/htp_compat_macros.hpp, built in by tools/og-parse/CMakeLists.txt),
/// read once per process as an included header is, into a session of their own that keeps the
/// text their tokens point into. A source's own definition of one of them comes first.
class BuiltinMacros {
 public:
  BuiltinMacros() {
    static constexpr std::string_view text =
#include "og_parse/builtin_macros.inc"
        ;
    const std::uint32_t file = session_.add_source("optgrammar/htp_compat_macros.hpp", std::string(text));
    state_.reading_builtins = true;
    state_.active.push_back(file);
    std::vector<Item> items;
    std::vector<Token> toks;
    Scanner(session_, file, items, toks, &state_).run();
  }
  const MacroTable& table() const noexcept { return state_.macros; }

 private:
  Session session_;
  ScanState state_;
};

const MacroTable& builtin_macros() {
  static const BuiltinMacros b;
  return b.table();
}

}  // namespace

void scan_file(Session& s, std::uint32_t file, std::vector<Item>& items, std::vector<Token>& toks, bool stream) {
  Scanner(s, file, items, toks, nullptr, stream).run();
}

}  // namespace og_parse::detail
