// A parsed rule lowered to the flat form (optgrammar/dsl/flat.hpp) as the C++ front end's words
// build it (dsl/words.hpp: the same nodes, the names defined by expansion built from their
// records' texts, a misapplied name as a Misapplied node), then checked by the one checker of
// both front ends (dsl/check.hpp). What only og-parse sees (a name that is no word of the
// language, a functional cast, MESSAGE's escapes, an external function's declaration) is
// reported here, with the catalogue's texts.
#include "internal.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include <fmt/format.h>

#include <optgrammar/core/dtype.hpp>
#include <optgrammar/dsl/canonical.hpp>
#include <optgrammar/dsl/check.hpp>
#include <optgrammar/dsl/external.hpp>
#include <optgrammar/dsl/flat.hpp>
#include <optgrammar/dsl/grammar.hpp>
#include <optgrammar/dsl/node.hpp>
#include <optgrammar/dsl/op_check.hpp>

#include <boost/container/small_vector.hpp>

namespace og_parse::detail {
namespace {

namespace dsl = optgrammar::dsl;
using dsl::Family;
using dsl::FlatNode;
using dsl::Kind;
using dsl::ParamKind;
using dsl::Returns;
using dsl::Signature;
using dsl::VType;

constexpr std::size_t n_records = std::size(dsl::constructs);

/// Every name a rule may write, from the grammar's records: an open-addressing table with a
/// cheap hash, as names are looked up once or twice per call node (and by the scanner).
class NameTable {
 public:
  static constexpr std::uint16_t none = 0xffff;
  NameTable() {
    slots_.fill(none);
    for (std::size_t i = 0; i < n_records; ++i) {
      const auto& r = dsl::constructs[i];
      std::size_t h = hash(r.name) & mask;
      while (slots_[h] != none && dsl::constructs[slots_[h]].name != r.name) h = (h + 1) & mask;
      if (slots_[h] == none) slots_[h] = static_cast<std::uint16_t>(i);  // the first record of a name counts
    }
  }
  /// The record of a name, or `none`.
  std::uint16_t find(std::string_view name) const noexcept {
    for (std::size_t h = hash(name) & mask; slots_[h] != none; h = (h + 1) & mask)
      if (dsl::constructs[slots_[h]].name == name) return slots_[h];
    return none;
  }

 private:
  static constexpr std::size_t slots = 1024;  // a power of 2, at least four times the records
  static constexpr std::size_t mask = slots - 1;
  static_assert(n_records * 4 <= slots);
  /// The length and three characters: names that share them differ in a probe or two.
  static std::size_t hash(std::string_view s) noexcept {
    if (s.empty()) return 0;
    const auto at = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])); };
    std::uint32_t h = static_cast<std::uint32_t>(s.size()) * 0x9E3779B1u;
    h ^= at(0) * 0x85EBCA6Bu ^ at(s.size() / 2) * 0xC2B2AE35u ^ at(s.size() - 1) * 0x27D4EB2Fu;
    return h ^ (h >> 16);
  }
  std::array<std::uint16_t, slots> slots_{};
};

const NameTable names;

/// " (did you mean 'IS_FLOAT16'?)" for a name that is one or two edits (a letter changed, added,
/// dropped, or two letters swapped) from a construct's name, as a compiler suggests one; else "".
std::string did_you_mean(std::string_view name) {
  static const std::vector<std::string_view> construct_names = [] {
    std::vector<std::string_view> v;
    for (const auto& r : dsl::constructs) v.push_back(r.name);
    return v;
  }();
  // at most 1 edit for short names, 2 for others
  const auto best = dsl::nearest_names(name, construct_names, name.size() < 6 ? 2 : 3, 1);
  return best.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", best.front());
}

/// The node kind of each family that makes nodes (its `node(K)` column), by family, made at
/// compile time (the words ask it at each node they make); Kind::Count_ for the others.
constexpr std::size_t n_families = std::size(dsl::typing_detail::family_typings);
constexpr auto family_kinds = [] {
  std::array<Kind, n_families> t{};
  t.fill(Kind::Count_);
  for (std::size_t i = 0; i < std::size(dsl::kind_families); ++i)
    t[static_cast<std::size_t>(dsl::kind_families[i])] = static_cast<Kind>(dsl::first_construct_kind + i);
  return t;
}();
/// The node kind of a family that makes nodes (dsl/node.hpp's family_kind).
Kind kind_of(Family f) {
  const Kind k = family_kinds[static_cast<std::size_t>(f)];
  return k != Kind::Count_ ? k : dsl::expansion_detail::family_kind(f);
}

// ---- external functions' signatures, read from their declarations -----------------------------
/// A type as written, read: its last name (`optgrammar::OpRef` → `OpRef`), whether it is const, a
/// reference, a pointer; the words of a built-in type joined (`unsigned int`).
struct TypeText {
  std::string base;
  bool is_const = false, ref = false, ptr = false;
};
TypeText read_type(std::string_view t) {
  TypeText r;
  std::size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '&') r.ref = true;
    if (c == '*') r.ptr = true;
    if (!is_ident_start(c)) {
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < t.size() && (is_ident_char(t[e]) || (t[e] == ':' && e + 1 < t.size() && t[e + 1] == ':')))
      e += t[e] == ':' ? 2 : 1;
    std::string_view w = t.substr(i, e - i);
    i = e;
    if (const std::size_t q = w.rfind("::"); q != std::string_view::npos) w = w.substr(q + 2);
    if (w == "const")
      r.is_const = true;
    else if (w == "volatile" || w == "static" || w == "inline" || w == "constexpr" || w == "extern" || w == "struct" ||
             w == "class" || w == "typename")
      continue;
    else if (r.base.empty() || w == "int" || w == "long" || w == "short" || w == "char" || w == "unsigned" ||
             w == "signed")
      r.base = r.base.empty() ? std::string(w) : r.base + " " + std::string(w);
    else
      r.base = std::string(w);
  }
  return r;
}
bool is_unsigned_name(std::string_view b) {
  return b.starts_with("unsigned") || b == "size_t" || b == "uint8_t" || b == "uint16_t" || b == "uint32_t" ||
         b == "uint64_t" || b == "uintptr_t";
}
bool is_integer_name(std::string_view b) {
  return is_unsigned_name(b) || b == "int" || b.starts_with("long") || b.starts_with("short") ||
         b.starts_with("signed") || b.ends_with(" int") || b == "char" || b == "int8_t" || b == "int16_t" ||
         b == "int32_t" || b == "int64_t" || b == "ptrdiff_t" || b == "ssize_t" || b == "intptr_t";
}
/// What a function returns, from its return type as written (as dsl/external.hpp's returns_of).
Returns returns_of_text(std::string_view type) {
  const TypeText t = read_type(type);
  if (t.ptr || t.ref) return Returns::Other;
  if (t.base == "bool") return Returns::Bool;
  if (t.base == "float" || t.base == "double" || t.base == "long double") return Returns::Float;
  if (is_unsigned_name(t.base)) return Returns::Size;
  if (is_integer_name(t.base)) return Returns::Int;
  if (t.base == "OpRef") return Returns::OpRef;
  if (t.base == "QuickShape") return Returns::QuickShape;
  return Returns::Other;
}
/// A parameter's kind, from its type as written (as dsl/external.hpp's param_kind).
ParamKind param_kind_of_text(std::string_view type) {
  const TypeText t = read_type(type);
  if (t.ptr) return ParamKind::Other;
  if (t.base == "OpRef") return ParamKind::OpRef;
  if (t.base == "OpDef") return t.is_const && t.ref ? ParamKind::OpDef : ParamKind::Other;
  if (t.base == "bool") return ParamKind::Bool;
  if (is_integer_name(t.base)) return ParamKind::Integral;
  if (t.base == "float" || t.base == "double" || t.base == "long double") return ParamKind::Floating;
  if (t.base == "DType") return ParamKind::DType;
  if (t.base == "Constraint" && t.ref) return ParamKind::Constraint;
  if (t.base == "Replacement" && t.ref && !t.is_const) return ParamKind::Replacement;
  if (t.base == "Split_Context" && t.ref && t.is_const) return ParamKind::SplitContext;
  return ParamKind::Other;
}

/// The signature a declaration or an EXTERNAL_SHAPEFN annotation gives, for a use by `k`. An
/// annotation may leave out the framework parameters (all of them, or the Replacement& before a
/// Split_Context const&): they are what the construct passes.
Signature signature_of_text(const ShapeFn& fn, Kind k) {
  Signature s;
  s.result = returns_of_text(fn.return_type);
  ParamKind given[dsl::max_params] = {};
  std::size_t n = 0;
  for (const std::string& p : fn.params)
    if (n < dsl::max_params) given[n++] = param_kind_of_text(p);
  auto add = [&](ParamKind p) {
    if (s.n_params < dsl::max_params) s.params[s.n_params++] = p;
  };
  const bool framework_first = n > 0 && (given[0] == ParamKind::Replacement || given[0] == ParamKind::Constraint);
  if (!framework_first) {
    if (k == Kind::ExternalConstraint)
      add(ParamKind::Constraint);
    else
      add(ParamKind::Replacement);
    if (k == Kind::AutosplitShapefnApply && !(n > 0 && given[0] == ParamKind::SplitContext))
      add(ParamKind::SplitContext);
  }
  for (std::size_t i = 0; i < n; ++i) add(given[i]);
  return s;
}

/// The framework's shape functions (dsl/external.hpp), as the C++ front end's words name them.
struct FrameworkFunction {
  std::string_view name;
  Signature sig;
};
constexpr FrameworkFunction framework_functions[] = {
#define OG_PARSE_SHAPE_FUNCTION_(F) {#F, dsl::signature_of<decltype(&::optgrammar::F)>()},
    OPTGRAMMAR_SHAPE_FUNCTIONS(OG_PARSE_SHAPE_FUNCTION_)
#undef OG_PARSE_SHAPE_FUNCTION_
};
const Signature* framework_function(std::string_view name) {
  for (const auto& f : framework_functions)
    if (f.name == name) return &f.sig;
  return nullptr;
}

/// The text of a MESSAGE string with its C escapes decoded; `bad` receives the fault of an escape
/// C does not have.
std::string decode_escapes(std::string_view s, std::string& bad) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\\':
      case '\'':
      case '"':
      case '?': out += c; break;
      case 'x': {
        unsigned v = 0;
        std::size_t k = 0;
        while (i + 1 < s.size() && k < 2 && std::isxdigit(static_cast<unsigned char>(s[i + 1]))) {
          const char h = s[++i];
          v = v * 16 + static_cast<unsigned>(is_digit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
          ++k;
        }
        if (k == 0) bad = catalogue(Fault::message_hex_escape);
        out += static_cast<char>(v);
        break;
      }
      default:
        if (c >= '0' && c <= '7') {
          unsigned v = static_cast<unsigned>(c - '0');
          for (int k = 0; k < 2 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k)
            v = v * 8 + static_cast<unsigned>(s[++i] - '0');
          out += static_cast<char>(v & 0xff);
        } else if (bad.empty()) {
          bad = catalogue(Fault::message_escape, std::string_view(&c, 1));
        }
    }
  }
  return out;
}

/// The term of an expansion text read once per process (dsl/grammar.hpp's expansion_term): its
/// form and value, and for a call its operands' terms.
struct ExpansionNode {
  dsl::ExpansionTerm::Form form = dsl::ExpansionTerm::integer;
  std::size_t value = 0;  ///< as ExpansionTerm::value
  double real = 0;
  std::string_view text;  ///< a string's value, a function's name
  std::uint16_t n = 0;
  std::uint16_t kids[8] = {};  ///< the operands' terms, by index in the record's list
};
std::uint16_t read_term(std::string_view text, std::size_t pos, std::vector<ExpansionNode>& out) {
  const dsl::ExpansionTerm t = dsl::expansion_term(text, pos);
  const auto at = static_cast<std::uint16_t>(out.size());
  ExpansionNode e;
  e.form = t.form;
  e.value = t.value;
  e.real = t.real;
  if (t.form == dsl::ExpansionTerm::string) e.text = text.substr(pos + 1, t.value);
  if (t.form == dsl::ExpansionTerm::function) e.text = text.substr(pos, t.value);
  out.push_back(e);
  if (t.form == dsl::ExpansionTerm::call) {
    out[at].n = static_cast<std::uint16_t>(t.n);
    for (std::size_t j = 0; j < t.n; ++j) {
      const std::uint16_t k = read_term(text, t.at[j], out);
      out[at].kids[j] = k;
    }
  }
  return at;
}
/// The terms of each record's expansion text, its root first, read as the process starts (a
/// name's expansion is looked up at each of its terms: no guard of a lazy initialization there).
const std::vector<std::vector<ExpansionNode>> expansions = [] {
  std::vector<std::vector<ExpansionNode>> v(n_records);
  for (std::size_t i = 0; i < n_records; ++i)
    if (!dsl::constructs[i].expansion.empty()) read_term(dsl::constructs[i].expansion, 0, v[i]);
  return v;
}();
/// The terms of record `rec`'s expansion text, its root first.
const std::vector<ExpansionNode>& expansion_of(std::uint16_t rec) { return expansions[rec]; }
/// For each record with an expansion text, its operands that are strings (bit k: operand k).
const std::vector<unsigned long long> string_places = [] {
  std::vector<unsigned long long> v(n_records);
  for (std::size_t i = 0; i < n_records; ++i)
    if (!dsl::constructs[i].expansion.empty())
      v[i] = dsl::expansion_detail::string_operands(dsl::constructs[i].expansion);
  return v;
}();

constexpr std::uint32_t max_expanded_nodes = 200000;

dsl::Span span_of(Loc l) { return dsl::Span{l.file, l.offset}; }

/// A small vector's elements as a span (Boost's small_vector is no contiguous range to std::span).
template <class T, std::size_t N>
std::span<const T> all(const boost::container::small_vector<T, N>& v) {
  return {v.data(), v.size()};
}
Loc loc_of(dsl::Span s) { return Loc{s.file, s.offset}; }

/// dsl/node.hpp's type_of, remembered: a node's type follows from its kind and its operands'
/// types alone, and the words make the same few combinations again and again. A direct-mapped
/// table of the combinations of up to five operands met so far; the others are typed each time.
class TypeMemo {
 public:
  VType type_of(Kind k, const VType* a, std::size_t n) noexcept {
    if (n > max_operands) return dsl::detail::type_of(k, a, n);
    std::uint64_t key = static_cast<std::uint64_t>(k) | n << 8;
    for (std::size_t i = 0; i < n; ++i) key |= static_cast<std::uint64_t>(a[i]) << (11 + 4 * i);
    key |= std::uint64_t{1} << 40;  // (a slot never written holds 0)
    std::uint64_t& slot = slots_[(key * 0x9E3779B97F4A7C15u) >> (64 - slot_bits)];
    if ((slot >> 8) == key) return static_cast<VType>(slot & 0xff);
    const VType t = dsl::detail::type_of(k, a, n);
    slot = key << 8 | static_cast<std::uint64_t>(t);
    return t;
  }

 private:
  // the key: the kind (8 bits), the count (3 bits), 4 bits a type, and a mark at bit 40
  static constexpr std::size_t max_operands = 5;
  static_assert(static_cast<std::size_t>(VType::Bad) < 16 && static_cast<std::size_t>(Kind::Count_) <= 256);
  static constexpr int slot_bits = 9;
  std::array<std::uint64_t, std::size_t{1} << slot_bits> slots_{};
};

/// A node the words made, with its operands' indices in a list of their own.
struct Made {
  FlatNode f;
  dsl::Span span;
  std::uint32_t kids = 0;  ///< where its operands' indices start in the list
};

/// The buffers of the rule being lowered, kept from rule to rule (no allocation per rule once
/// they are large enough).
struct Buffers {
  std::vector<Made> pool;
  std::vector<std::uint32_t> kids;
  std::vector<Signature> sigs;
  std::vector<FlatNode> nodes;
  std::vector<dsl::Span> spans;
  std::vector<VType> scratch;
  TypeMemo types;  ///< (kept from rule to rule too)
  void clear() {
    pool.clear();
    kids.clear();
    sigs.clear();
    nodes.clear();
    spans.clear();
  }
};

/// A rule's parts lowered: the nodes the words make, each once (an operand an expansion names
/// twice is shared), then laid out in flat form, where a shared operand is written at each use.
class Lowering {
 public:
  Lowering(Session& s, Buffers& b) : s_(s), sigs_(b.sigs), pool_(b.pool), kids_(b.kids), types_(b.types) {}

  /// A value as the C++ front end's words take it: a node, or a string literal (which becomes an
  /// operand tag where a node is wanted, and is the string where the word takes one).
  struct Value {
    bool is_string = false;
    std::uint32_t node = 0;
    std::string_view text;
    dsl::Span span;
  };

  /// The value a parsed tree stands for.
  Value value(const Node* n) {
    switch (n->kind) {
      case NodeKind::string: return Value{true, 0, literal(n->text), span_of(n->loc)};
      case NodeKind::integer: {
        FlatNode f;
        f.kind = n->is_size ? Kind::Size : Kind::Int;
        f.value = n->ival;
        return leaf(f, n->loc);
      }
      case NodeKind::floating: {
        FlatNode f;
        f.kind = Kind::Float;
        f.real = n->fval;
        return leaf(f, n->loc);
      }
      case NodeKind::name: return bare_name(n);
      case NodeKind::call: return call(n);
    }
    return {};
  }

  /// The node a value stands for as an operand (a string literal: an operand tag).
  std::uint32_t node(const Value& v) {
    if (!v.is_string) return v.node;
    FlatNode f;
    f.kind = Kind::Tag;
    f.str = str(v.text);
    f.may_star = v.text == "*";
    return make(f, v.span, {});
  }

  /// The nodes of the subtree of `root` in preorder, with their spans, after those already there.
  void lay_out(std::uint32_t root, std::vector<FlatNode>& out, std::vector<dsl::Span>& spans, Loc part) {
    const auto at = static_cast<std::uint32_t>(out.size());
    if (out.size() >= max_expanded_nodes) fail(part, catalogue(Fault::rule_too_large, max_expanded_nodes));
    const Made& m = pool_[root];
    out.push_back(m.f);
    spans.push_back(m.span);
    for (std::uint32_t k = 0; k < m.f.n; ++k) lay_out(kids_[m.kids + k], out, spans, part);
    out[at].end = static_cast<std::uint32_t>(out.size());
  }

 private:
  [[noreturn]] void fail(Loc at, std::string msg) {
    s_.diag(at, Severity::error, std::move(msg));
    throw RuleError{};
  }
  [[noreturn]] void fail(dsl::Span at, std::string msg) { fail(loc_of(at), std::move(msg)); }

  static dsl::Str str(std::string_view s) {
    dsl::Str r;
    r.p = s.data();
    r.len = s.size();
    return r;
  }

  /// A node of kind f.kind with the operands `kids`, typed by the typing of both front ends
  /// (dsl/node.hpp's type_of) as the C++ node type is.
  std::uint32_t make(FlatNode f, dsl::Span at, std::span<const std::uint32_t> kids) {
    f.n = static_cast<std::uint32_t>(kids.size());
    if (f.kind == Kind::FnName) {
      f.type = dsl::result_vtype(sigs_[static_cast<std::size_t>(f.value)].result);
    } else {
      // the operands' types: on the stack for the usual few operands
      std::array<VType, 8> few{};
      boost::container::small_vector<VType, 8> many;
      VType* types = few.data();
      if (kids.size() > few.size()) {
        many.resize(kids.size());
        types = many.data();
      }
      for (std::size_t i = 0; i < kids.size(); ++i) types[i] = pool_[kids[i]].f.type;
      f.type = types_.type_of(f.kind, types, kids.size());
    }
    if (f.kind == Kind::Select && kids.size() == 3) f.may_star = pool_[kids[1]].f.may_star || pool_[kids[2]].f.may_star;
    pool_.push_back(Made{f, at, static_cast<std::uint32_t>(kids_.size())});
    kids_.insert(kids_.end(), kids.begin(), kids.end());
    return static_cast<std::uint32_t>(pool_.size() - 1);
  }
  Value leaf(const FlatNode& f, Loc at) { return Value{false, make(f, span_of(at), {}), {}, span_of(at)}; }
  Value made(FlatNode f, dsl::Span at, std::span<const std::uint32_t> kids) {
    return Value{false, make(f, at, kids), {}, at};
  }
  static FlatNode of_kind(Kind k, std::string_view s = {}) {
    FlatNode f;
    f.kind = k;
    f.str = str(s);
    return f;
  }

  /// A string literal's value, as C++ reads it: its escapes decoded. (No string of the grammar has
  /// one; the checker names the character it finds.) Shown in messages as written, but for \" and
  /// \\, which C++ shows as the character (shown()).
  std::string_view literal(std::string_view text) {
    // (a loop, not find(): the texts are a few characters, shorter than a call of memchr)
    if (std::none_of(text.begin(), text.end(), [](char c) { return c == '\\'; })) return text;
    std::string ignored;
    const std::string_view value = s_.intern(decode_escapes(text, ignored));
    std::string as_shown;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) ++i;
      as_shown += text[i];
    }
    escaped_.emplace_back(value, s_.intern(as_shown));
    return value;
  }

 public:
  /// A message about a string with escapes, with the string as written instead of its value.
  std::string shown(std::string message) const {
    for (const auto& [value, as_shown] : escaped_) {
      const std::string quoted = fmt::format("\"{}\"", value);
      if (const std::size_t at = message.find(quoted); at != std::string::npos)
        return message.replace(at, quoted.size(), fmt::format("\"{}\"", as_shown));
    }
    return message;
  }

 private:
  // ---- names written without operands ---------------------------------------------------------
  Value bare_name(const Node* n) {
    const std::string_view t = n->text;
    FlatNode f;
    if (t == "OK" || t == "true" || t == "false") {
      f.kind = Kind::Bool;
      f.value = t != "false";
      return leaf(f, n->loc);
    }
    if (t == "INF" || t == "NEG_INF") {
      f.kind = Kind::Float;
      f.real = t == "INF" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
      return leaf(f, n->loc);
    }
    if (t.substr(0, 7) == "DType::") {
      const std::string_view tag = t.substr(7);
      const auto d = optgrammar::parse_dtype(tag);
      if (!d || optgrammar::dtype_name(*d) != tag) fail(n->loc, catalogue(Fault::not_a_dtype, t));
      f.kind = Kind::DTypeConst;
      f.value = static_cast<long long>(*d);
      return leaf(f, n->loc);
    }
    if (const std::uint16_t rec = names.find(t);
        rec != NameTable::none && dsl::constructs[rec].family == Family::NAMED_VALUE)
      return expand(rec, {}, span_of(n->loc));
    if (framework_function(t)) fail(n->loc, catalogue(Fault::function_as_value, t));
    fail(n->loc, catalogue(Fault::unknown_name, t, did_you_mean(t)));
  }

  // ---- calls ----------------------------------------------------------------------------------
  Value call(const Node* n) {
    const std::uint16_t rec = names.find(n->text);
    if (rec == NameTable::none) fail(n->loc, catalogue(Fault::unknown_function, n->text, did_you_mean(n->text)));
    const dsl::Construct& r = dsl::constructs[rec];
    const dsl::Span at = span_of(n->loc);
    switch (r.family) {
      case Family::NAMED_VALUE: fail(n->loc, catalogue(Fault::named_value_call, n->text));
      case Family::CAST: return functional_cast(n, r);
      default: break;
    }
    boost::container::small_vector<Value, 8> args;
    std::size_t from = 0;
    // What a macro of the C++ front end stringizes (package/define.hpp): an external function's
    // name, the tensor class of LAYOUT_CHUNKSIZE; and MESSAGE's text, a C string literal.
    if (!n->args.empty()) {
      switch (r.family) {
        case Family::EXTERNAL_CONSTRAINT:
        case Family::EXTERNAL_REPLACE:
        case Family::SHAPEFN_APPLY:
        case Family::AUTOSPLIT_SHAPEFN_APPLY:
          args.push_back(function(n->args[0], kind_of(r.family)));
          from = 1;
          break;
        case Family::LAYOUT_CHUNKSIZE:
          args.push_back(Value{true, 0, s_.intern(spelling(n->args[0])), span_of(n->args[0]->loc)});
          from = 1;
          break;
        case Family::MESSAGE: args.push_back(message_text(n->args[0])), from = 1; break;
        case Family::Op:
        case Family::OpVarIn:
          // a name that is no word of the language: the package's variable holding the op name
          // (`Op(op_name_relu, ...)`), which the C++ front end takes and reports as no string
          if (n->args[0]->kind == NodeKind::name && !is_bare_word(n->args[0]->text) &&
              n->args[0]->text.substr(0, 7) != "DType::" && names.find(n->args[0]->text) == NameTable::none) {
            FlatNode v;
            v.kind = Kind::Bool;
            args.push_back(leaf(v, n->args[0]->loc));
            from = 1;
          }
          break;
        default: break;
      }
    }
    for (std::size_t i = from; i < n->args.size(); ++i) args.push_back(value(n->args[i]));
    return word(rec, all(args), at);
  }

  /// How the C++ preprocessor spells an operand it stringizes (#FN): a name as written, a string
  /// with its quotes, a number's digits, a call by its name and parentheses.
  static std::string spelling(const Node* n) {
    switch (n->kind) {
      case NodeKind::string: return fmt::format("\"{}\"", n->text);
      case NodeKind::integer:
        return n->is_size ? fmt::format("{}U", static_cast<std::uint64_t>(n->ival)) : fmt::format("{}", n->ival);
      case NodeKind::floating: return fmt::format("{}", n->fval);
      case NodeKind::call: return fmt::format("{}(...)", n->text);
      default: return std::string(n->text);
    }
  }

  /// The operand of count `got` for word `r`, as the C++ front end's overloads take them: a count
  /// that none takes is the compiler's error; og-parse says it with the catalogue's words.
  void count(const dsl::Construct& r, std::size_t got, dsl::Span at) {
    if (got >= r.min_args && (r.max_args == dsl::any_count || got <= r.max_args)) return;
    count_fault(r, got, at);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void count_fault(const dsl::Construct& r, std::size_t got, dsl::Span at) {
    if (r.max_args == dsl::any_count && r.min_args == 1 && got == 0) fail(at, catalogue(Fault::needs_operand, r.name));
    const bool plural = r.min_args != 1 || r.max_args != 1;
    if (r.max_args == dsl::any_count)
      fail(at, catalogue(Fault::operand_count_at_least, r.name, r.min_args, plural ? "s" : "", got));
    const std::string want =
        r.min_args == r.max_args ? fmt::format("{}", r.min_args) : fmt::format("{} or {}", r.min_args, r.max_args);
    fail(at, catalogue(Fault::operand_count, r.name, want, plural ? "s" : "", got));
  }
  /// A string literal where the word takes one (an op name, a tag, an option name).
  std::string_view string(const Value& v, std::string_view what) {
    if (!v.is_string) fail(v.span, catalogue(Fault::expected_string, what, describe(v)));
    return v.text;
  }
  std::string describe(const Value& v) const {
    const FlatNode& f = pool_[v.node].f;
    switch (f.kind) {
      case Kind::Int: return fmt::format("'{}'", f.value);
      case Kind::Size: return fmt::format("'{}U'", static_cast<std::uint64_t>(f.value));
      case Kind::Float: return "a float constant";
      case Kind::Bool: return f.value ? "'true'" : "'false'";
      default: return fmt::format("'{}(...)'", dsl::kind_name(f.kind));
    }
  }

  /// The word of record `rec` applied to `args` (a written call, or a call of an expansion text),
  /// as dsl/words.hpp writes it.
  Value word(std::uint16_t rec, std::span<const Value> args, dsl::Span at) {
    const dsl::Construct& r = dsl::constructs[rec];
    const Family f = r.family;
    auto nodes = [&](std::size_t from, boost::container::small_vector<std::uint32_t, 8>& out) {
      for (std::size_t i = from; i < args.size(); ++i) out.push_back(node(args[i]));
    };
    boost::container::small_vector<std::uint32_t, 8> kids;
    if (!r.expansion.empty()) return expand(rec, args, at);
    switch (f) {
      case Family::Op:
      case Family::OpVarIn: {
        if (args.empty()) fail(at, catalogue(Fault::op_without_name, r.name));
        nodes(1, kids);
        if (!args[0].is_string) {  // no string constant for the name: the catalogue's op_name_not_string
          FlatNode m = of_kind(Kind::Misapplied);
          m.value = static_cast<long long>(kind_of(f));
          return made(m, at, all(kids));
        }
        return made(of_kind(kind_of(f), args[0].text), at, all(kids));
      }
      case Family::LET:
        count(r, args.size(), at);
        kids.push_back(node(args[1]));
        return made(of_kind(Kind::Let, string(args[0], "a LET tag")), at, all(kids));
      case Family::Operand:
        count(r, args.size(), at);
        return Value{false, node(Value{true, 0, string(args[0], "an operand tag"), args[0].span}), {}, at};
      case Family::WrapOp:
      case Family::WrapOpAlways:
        count(r, args.size(), at);
        kids.push_back(node(args[1]));
        return made(of_kind(kind_of(f), string(args[0], "an op name")), at, all(kids));
      case Family::AUTOSPLIT:
      case Family::OP_ITER: {
        count(r, args.size(), at);
        // the split tag is the node's string and its second operand
        const std::string_view tag = string(args[1], "a split tag");
        kids.push_back(node(args[0]));
        kids.push_back(make(of_kind(Kind::Tag, tag), args[1].span, {}));
        nodes(2, kids);
        return made(of_kind(kind_of(f), tag), at, all(kids));
      }
      case Family::ITER_INPUT_OF:
      case Family::TYPICAL_CONV_SLICE:
        count(r, args.size(), at);
        kids.push_back(node(args[0]));
        nodes(2, kids);
        return made(of_kind(kind_of(f), string(args[1], "a split tag")), at, all(kids));
      case Family::IS_OP:
      case Family::PRODUCER_FOR:  // an opref, then an op name
        count(r, args.size(), at);
        kids.push_back(node(args[0]));
        return made(of_kind(kind_of(f), string(args[1], "an op name")), at, all(kids));
      case Family::AUTOSPLIT_SHAPEFN_APPLY:
        count(r, args.size(), at);
        kids.push_back(args[0].node);
        nodes(2, kids);
        return made(of_kind(Kind::AutosplitShapefnApply, string(args[1], "a split tag")), at, all(kids));
      case Family::EXTERNAL_CONSTRAINT:
      case Family::EXTERNAL_REPLACE:
      case Family::SHAPEFN_APPLY:
      case Family::MESSAGE:
        count(r, args.size(), at);
        // (MESSAGE in an expansion text, MESSAGE_IF's: its text is the written string operand)
        kids.push_back(f == Family::MESSAGE && args[0].is_string
                           ? make(of_kind(Kind::MessageText, args[0].text), args[0].span, {})
                           : args[0].node);
        nodes(1, kids);
        return made(of_kind(kind_of(f)), at, all(kids));
      case Family::LAYOUT_CHUNKSIZE:
        count(r, args.size(), at);
        kids.push_back(node(args[1]));
        return made(of_kind(Kind::LayoutChunksize, args[0].text), at, all(kids));
      default: break;
    }
    // the words of regular form (dsl/words.hpp's OPTGRAMMAR_WORD_): one string for `named`, the
    // operands' count for the others but `variadic` (any count, typed by the checker)
    switch (dsl::word_form(f)) {
      case dsl::WordForm::named:
        count(r, args.size(), at);
        return made(of_kind(kind_of(f), string(args[0], dsl::typing_of(f).kinds[0] == dsl::OperandKind::option_name
                                                            ? "an option name"
                                                            : "a split tag")),
                    at, {});
      case dsl::WordForm::variadic: break;
      default: count(r, args.size(), at);
    }
    nodes(0, kids);
    return made(of_kind(kind_of(f)), at, all(kids));
  }

  // ---- names defined by expansion -----------------------------------------------------------
  /// A name defined by expansion (dsl/words.hpp's expand_): its record's text built of its
  /// operands when their count and types fit its family's typing, else a Misapplied node.
  Value expand(std::uint16_t rec, std::span<const Value> args, dsl::Span at) {
    const dsl::Construct& r = dsl::constructs[rec];
    const unsigned long long strings = string_places[rec];
    for (std::size_t k = 1; k <= args.size(); ++k)
      if ((strings >> k & 1u) && !args[k - 1].is_string)
        string(args[k - 1], fmt::format("operand {} of '{}'", k, r.name));
    boost::container::small_vector<VType, 8> types;
    for (const Value& v : args) types.push_back(v.is_string ? VType::OpRef : pool_[v.node].f.type);
    if (dsl::expansion_detail::expands(r, types.data(), types.size())) return term(rec, 0, args, at);
    boost::container::small_vector<std::uint32_t, 8> kids;
    for (const Value& v : args) kids.push_back(node(v));
    FlatNode m = of_kind(Kind::Misapplied, r.name);
    m.record = rec + 1;
    return made(m, at, all(kids));
  }

  /// The term `at` of record `rec`'s expansion (expansion_of), of the operands `ops`.
  Value term(std::uint16_t rec, std::uint16_t at, std::span<const Value> ops, dsl::Span where) {
    using Term = dsl::ExpansionTerm;
    const ExpansionNode& t = expansion_of(rec)[at];
    FlatNode f;
    switch (t.form) {
      case Term::operand: return ops[t.value - 1];
      case Term::integer:
        f.kind = Kind::Int;
        f.value = static_cast<long long>(t.value);
        return made(f, where, {});
      case Term::floating:
        f.kind = Kind::Float;
        f.real = static_cast<double>(static_cast<float>(t.real));
        return made(f, where, {});
      case Term::string: return Value{true, 0, t.text, where};
      case Term::dtype:
        f.kind = Kind::DTypeConst;
        f.value = static_cast<long long>(t.value);
        return made(f, where, {});
      case Term::function: return framework_fn(t.text, *framework_function(t.text), where);
      case Term::rest: break;  // only as an operand of a name, below
      case Term::call: {
        boost::container::small_vector<Value, 8> args;
        for (std::size_t j = 0; j < t.n; ++j) {
          if (const ExpansionNode& o = expansion_of(rec)[t.kids[j]]; o.form == Term::rest)
            args.insert(args.end(), ops.begin() + static_cast<std::ptrdiff_t>(o.value - 1), ops.end());
          else
            args.push_back(term(rec, t.kids[j], ops, where));
        }
        const auto before = static_cast<std::uint32_t>(pool_.size());
        Value v = word(static_cast<std::uint16_t>(t.value), all(args), where);
        // the nodes OPCONST's, the *_SLICE names' and OpMultiOut's texts make keep the name written
        if (dsl::expansion_detail::keeps_written_name(dsl::constructs[rec].family) && !v.is_string) {
          if (v.node < before) {  // an operand's node, which other places share: a copy of it
            const Made m = pool_[v.node];
            const boost::container::small_vector<std::uint32_t, 8> k(kids_.begin() + m.kids,
                                                                     kids_.begin() + m.kids + m.f.n);
            v.node = make(m.f, m.span, all(k));
          }
          pool_[v.node].f.record = rec + 1;
        }
        return v;
      }
    }
    fail(where, fmt::format("internal: an expansion text of '{}' has '$k...' outside a name's operands",
                            dsl::constructs[rec].name));
  }

  // ---- operands the C++ front end's macros stringize ------------------------------------------
  std::uint32_t function_node(std::string_view name, std::size_t sig, dsl::Span at) {
    FlatNode f = of_kind(Kind::FnName, name);
    f.value = static_cast<long long>(sig);
    return make(f, at, {});
  }
  Value framework_fn(std::string_view name, const Signature& sig, dsl::Span at) {
    sigs_.push_back(sig);
    return Value{false, function_node(name, sigs_.size() - 1, at), {}, at};
  }
  /// An external function named by a rule (EXTERNAL_CONSTRAINT, EXTERNAL_REPLACE, SHAPEFN_APPLY,
  /// AUTOSPLIT_SHAPEFN_APPLY's first operand): the framework's shape function of that name, else
  /// the function its annotation or declaration describes, else one og-parse cannot see (the
  /// compiler checks it). Anything but a name is no function.
  Value function(const Node* n, Kind use) {
    const dsl::Span at = span_of(n->loc);
    Signature sig;
    if (n->kind != NodeKind::name) {
      sig.result = Returns::not_a_function;
      sigs_.push_back(sig);
      return Value{false, function_node(s_.intern(spelling(n)), sigs_.size() - 1, at), {}, at};
    }
    if (const Signature* fw = framework_function(n->text)) return framework_fn(n->text, *fw, at);
    std::string_view base = n->text;
    if (const std::size_t q = base.rfind("::"); q != std::string_view::npos) base = base.substr(q + 2);
    if (const ShapeFn* fn = s_.find_shape_fn(n->text); fn || (fn = s_.find_shape_fn(base))) {
      sig = signature_of_text(*fn, use);
    } else {
      sig.known = false;
      sig.result = use == Kind::ExternalConstraint ? Returns::Bool
                   : use == Kind::ExternalReplace  ? Returns::OpRef
                                                   : Returns::QuickShape;
    }
    sigs_.push_back(sig);
    return Value{false, function_node(n->text, sigs_.size() - 1, at), {}, at};
  }

  /// MESSAGE's text: a C string literal, its escapes decoded as C decodes them.
  Value message_text(const Node* n) {
    if (n->kind != NodeKind::string) fail(n->loc, catalogue(Fault::expected_string, "MESSAGE's text", spelling(n)));
    std::string bad;
    const std::string text = decode_escapes(n->text, bad);
    if (!bad.empty()) fail(n->loc, std::move(bad));
    FlatNode f = of_kind(Kind::MessageText, s_.intern(text));
    return leaf(f, n->loc);
  }

  /// A functional cast of a constant (`size_t(CHANNEL_SPLIT_SIZE)`), which shipped packages write:
  /// the converted constant, with a warning; of anything else, an error.
  Value functional_cast(const Node* n, const dsl::Construct& r) {
    const char to = static_cast<char>(r.extra);
    count(r, n->args.size(), span_of(n->loc));
    const Value a = value(n->args[0]);
    const FlatNode& v = pool_[a.node].f;
    const bool is_float = !a.is_string && v.kind == Kind::Float;
    if (a.is_string || (v.kind != Kind::Int && v.kind != Kind::Size && !is_float) || (is_float && std::isinf(v.real)))
      fail(n->loc, catalogue(Fault::cast_not_constant, n->text, to == 's' ? "UINT" : to == 'i' ? "INT" : "FLOAT"));
    FlatNode c;
    if (to == 'f') {
      c.kind = Kind::Float;
      c.real = is_float               ? v.real
               : v.kind == Kind::Size ? static_cast<double>(static_cast<float>(static_cast<std::uint64_t>(v.value)))
                                      : static_cast<double>(static_cast<float>(v.value));
    } else if (to == 's') {
      const double x = is_float ? std::trunc(v.real) : 0.0;
      if (is_float ? x < 0 || x >= 1.8e19 : (v.kind == Kind::Int && v.value < 0))
        fail(n->loc, catalogue(Fault::cast_negative, n->text));
      c.kind = Kind::Size;
      c.value = is_float ? static_cast<long long>(static_cast<std::uint64_t>(x)) : v.value;
    } else {
      const double x = is_float ? std::trunc(v.real) : 0.0;
      const bool in_range = is_float
                                ? (x >= -2147483648.0 && x <= 2147483647.0)
                                : (v.kind == Kind::Size ? static_cast<std::uint64_t>(v.value) <= 2147483647u : true);
      if (!in_range) fail(n->loc, catalogue(Fault::cast_int_range, n->text));
      c.kind = Kind::Int;
      c.value = is_float ? static_cast<long long>(x) : v.value;
    }
    std::string shown;
    dsl::FlatNode flat = c;
    flat.end = 1;
    dsl::print_node(shown, &flat, 0);
    s_.diag(n->loc, Severity::warning, catalogue(Fault::cast_accepted, n->text, shown));
    return leaf(c, n->loc);
  }

  Session& s_;
  std::vector<Signature>& sigs_;
  std::vector<Made>& pool_;
  std::vector<std::uint32_t>& kids_;
  TypeMemo& types_;
  std::vector<std::pair<std::string_view, std::string_view>> escaped_;  ///< strings with escapes: value, as shown
};

/// A copy of `v` in the session's arena.
template <class T>
std::span<T> keep(Session& s, const std::vector<T>& v) {
  if (v.empty()) return {};
  auto* p = static_cast<T*>(s.allocate(v.size() * sizeof(T), alignof(T)));
  std::uninitialized_copy(v.begin(), v.end(), p);
  return {p, v.size()};
}

/// The hash of the part of `nodes` at `root` (Rule::LintFacts): what lint's structural equality
/// compares, in order; a NaN equals a NaN there and 0.0 equals -0.0, so each hashes as one value.
/// A node's kind, operand count and text length go in one word; its real only for a Float (the
/// lowering leaves it 0 in the others); its text eight bytes at a time, the last eight (or, of a
/// shorter text, its first and last four, or its first, middle and last character) read at once.
std::uint64_t part_hash(const std::vector<FlatNode>& nodes, std::uint32_t root) {
  std::uint64_t h = 0xcbf29ce484222325u;
  const auto mix = [&h](std::uint64_t x) { h = (h ^ x) * 0x100000001b3u + (h >> 29); };
  const auto load = [](const char* p, auto word) {
    std::memcpy(&word, p, sizeof word);
    return static_cast<std::uint64_t>(word);
  };
  const FlatNode* const all_nodes = nodes.data();
  for (std::uint32_t i = root, end = all_nodes[root].end; i < end; ++i) {
    const FlatNode& n = all_nodes[i];
    const std::size_t len = n.str.len;
    mix(static_cast<std::uint64_t>(n.kind) | static_cast<std::uint64_t>(n.n) << 8 |
        static_cast<std::uint64_t>(len) << 40);
    mix(static_cast<std::uint64_t>(n.value));
    if (n.kind == Kind::Float) {
      const double real = n.real != n.real ? std::numeric_limits<double>::quiet_NaN() : n.real == 0 ? 0.0 : n.real;
      mix(std::bit_cast<std::uint64_t>(real));
    }
    const char* p = n.str.p;
    if (len >= 8) {
      for (std::size_t k = 0; k + 8 < len; k += 8) mix(load(p + k, std::uint64_t{}));
      mix(load(p + len - 8, std::uint64_t{}));
    } else if (len >= 4) {
      mix(load(p, std::uint32_t{}) | load(p + len - 4, std::uint32_t{}) << 32);
    } else if (len > 0) {
      mix(static_cast<unsigned char>(p[0]) | static_cast<std::uint64_t>(static_cast<unsigned char>(p[len / 2])) << 8 |
          static_cast<std::uint64_t>(static_cast<unsigned char>(p[len - 1])) << 16);
    }
  }
  return h;
}

/// Rule::LintFacts of a checked rule, in the session's arena.
Rule::LintFacts lint_facts(Session& s, const std::vector<FlatNode>& nodes, const std::vector<dsl::Span>& spans,
                           const std::uint32_t (&roots)[3]) {
  Rule::LintFacts f;
  using MatchNode = Rule::LintFacts::MatchNode;
  const std::uint32_t m = roots[0], n = nodes[m].end - m;
  auto* match = static_cast<MatchNode*>(s.allocate(n * sizeof(MatchNode), alignof(MatchNode)));
  for (std::uint32_t i = 0; i < n; ++i) {
    const FlatNode& x = nodes[m + i];
    ::new (match + i)
        MatchNode{x.str.p, static_cast<std::uint32_t>(x.str.len), x.n, x.end - m, spans[m + i], x.kind, x.wildcard};
  }
  f.match = {match, n};
  // each tag once (most constraints read a tag or two, several times)
  static thread_local std::vector<std::string_view> tags;
  tags.clear();
  for (std::uint32_t i = roots[1]; i < roots[2]; ++i)
    if (nodes[i].kind == Kind::Tag && nodes[i].slot > 0 &&
        std::find(tags.begin(), tags.end(), nodes[i].str.view()) == tags.end())
      tags.push_back(nodes[i].str.view());
  f.constraint_tags = keep(s, tags);
  f.match_hash = part_hash(nodes, roots[0]);
  f.constraint_hash = part_hash(nodes, roots[1]);
  f.replacement_hash = part_hash(nodes, roots[2]);
  f.always = nodes[roots[1]].kind == Kind::Bool && nodes[roots[1]].value != 0;
  return f;
}

}  // namespace

bool is_construct(std::string_view name) noexcept { return names.find(name) != NameTable::none; }
bool is_bare_word(std::string_view name) noexcept {
  return name == "OK" || name == "true" || name == "false" || name == "INF" || name == "NEG_INF";
}

void check_rule(Session& s, Rule& r, Node* match, Node* constraint, Node* replacement) {
  static thread_local Buffers b;
  b.clear();
  Lowering low(s, b);
  std::uint32_t roots[3];
  {
    Node* parts[3] = {match, constraint, replacement};
    std::uint32_t made[3];
    for (int i = 0; i < 3; ++i) made[i] = low.node(low.value(parts[i]));
    for (int i = 0; i < 3; ++i) {
      roots[i] = static_cast<std::uint32_t>(b.nodes.size());
      low.lay_out(made[i], b.nodes, b.spans, parts[i]->loc);
    }
  }
  b.scratch.resize(b.nodes.size());
  dsl::FlatRule flat{
      b.nodes.data(), static_cast<std::uint32_t>(b.nodes.size()), roots[0],         roots[1],      roots[2],
      b.sigs.data(),  static_cast<std::uint32_t>(b.sigs.size()),  b.scratch.data(), b.spans.data()};
  dsl::Analysis a;
  static thread_local dsl::Findings findings;  // (its texts are large: not cleared, only counted)
  findings.n = 0;
  dsl::check_rule(flat, a, dsl::CheckOptions{s.options().strict, &findings});
  for (int i = 0; i < findings.n; ++i)
    s.diag(loc_of(b.spans[findings.at[i].node]), Severity::warning, std::string(findings.at[i].text.view()));
  if (!a.ok) {
    s.diag(loc_of(b.spans[a.node]), Severity::error, low.shown(std::string(a.text())));
    throw RuleError{};
  }
  if (s.options().keep_trees) {
    r.nodes = keep(s, b.nodes);
    r.spans = keep(s, b.spans);
  }
  if (s.options().check_ops && !s.options().keep_trees) {
    static thread_local std::vector<std::string_view> made;
    made.clear();
    for (std::uint32_t i = roots[2]; i < b.nodes.size(); ++i)
      if (const Kind k = b.nodes[i].kind; k == Kind::Op || k == Kind::WrapOp || k == Kind::WrapOpAlways)
        made.push_back(b.nodes[i].str.view());
    r.made_ops = keep(s, made);
  }
  if (s.options().lint) r.lint = lint_facts(s, b.nodes, b.spans, roots);
  r.match = roots[0];
  r.constraint = roots[1];
  r.replacement = roots[2];
  // the tags, for lint: where the match binds each, how often, and its uses elsewhere; the rule
  // keeps those bound once and never used (most rules: none, and so no allocation)
  static thread_local std::vector<Rule::TagUse> tags;
  tags.clear();
  for (std::uint32_t i = 0; i < b.nodes.size(); ++i) {
    const FlatNode& n = b.nodes[i];
    const bool in_match = i < roots[1];
    if (n.kind == Kind::ExternalReplace) r.external_replace = true;
    if ((n.kind != Kind::Tag && !(in_match && n.kind == Kind::Let)) || n.wildcard || n.slot <= 0) continue;
    auto t = std::find_if(tags.begin(), tags.end(), [&](const Rule::TagUse& u) { return u.tag == n.str.view(); });
    if (t == tags.end()) t = tags.insert(tags.end(), Rule::TagUse{n.str.view(), loc_of(b.spans[i]), 0, 0});
    ++(in_match ? t->match_count : t->use_count);
  }
  std::erase_if(tags, [](const Rule::TagUse& t) { return t.match_count != 1 || t.use_count != 0; });
  r.tags = keep(s, tags);
}

}  // namespace og_parse::detail
