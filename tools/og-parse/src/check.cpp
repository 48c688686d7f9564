// The checker: grammar by context (match, constraint, replacement), typing, the restrictions of
// the spec, and the expansion of the spec's macros and of the compatibility names.
#include "internal.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optgrammar/core/dtype.hpp>
#include <optgrammar/dsl/grammar.hpp>
#include <optgrammar/dsl/typing.hpp>

#include <boost/container/small_vector.hpp>

namespace og_parse::detail {
namespace {

using VT = ValueType;


bool is_num(VT t) noexcept { return t == VT::int_ || t == VT::size || t == VT::float_; }
bool is_intlike(VT t) noexcept { return t == VT::int_ || t == VT::size; }
bool is_scalar(VT t) noexcept { return is_num(t) || t == VT::boolean || t == VT::dtype; }
VT common(VT a, VT b) noexcept {
  if (a == VT::float_ || b == VT::float_) return VT::float_;
  if (a == VT::size || b == VT::size) return VT::size;
  return VT::int_;
}

// The construct families of the grammar (optgrammar/dsl/grammar.hpp) are the checker's dispatch.
using C = optgrammar::dsl::Family;

struct Known {
  C c;
  int extra = 0;           ///< the dimension of DIM_*, the DType index of IS_*, the target type of casts
  bool replacement = false;  ///< a replacement-only construct
  const optgrammar::dsl::Construct* rec = nullptr;
};

/// One node of an expansion text, in prefix order: an operand (`$k`, or `$k...` for all from the
/// k-th on), or a node to make with its number of operands, which follow it.
struct ExpansionStep {
  NodeKind kind = NodeKind::name;
  VT type = VT::none;
  std::size_t operand = 0;  ///< k of `$k` or `$k...`, or 0
  bool rest = false;        ///< `$k...`
  std::size_t n_args = 0;
  std::string_view text;
  std::int64_t ival = 0;
  double fval = 0;
};
using ExpansionForm = std::vector<ExpansionStep>;

/// The C++ front end's value type for a type of og-parse (the shared typing of dsl/typing.hpp
/// speaks in those).
optgrammar::dsl::VType to_vtype(VT t) {
  using optgrammar::dsl::VType;
  switch (t) {
    case VT::boolean: return VType::Bool;
    case VT::int_: return VType::Int;
    case VT::size: return VType::Size;
    case VT::float_: return VType::Float;
    case VT::dtype: return VType::DType;
    case VT::opref: return VType::OpRef;
    case VT::op: return VType::OpBuild;
    case VT::shape: return VType::Shape;
    case VT::constant: return VType::NewConst;
    case VT::pattern: return VType::Match;
    default: return VType::Text;
  }
}
VT from_vtype(optgrammar::dsl::VType t) {
  using optgrammar::dsl::VType;
  switch (t) {
    case VType::Bool: return VT::boolean;
    case VType::Int: return VT::int_;
    case VType::Size: return VT::size;
    case VType::Float: return VT::float_;
    case VType::DType: return VT::dtype;
    case VType::OpRef: return VT::opref;
    case VType::OpBuild: return VT::op;
    case VType::Shape: return VT::shape;
    case VType::NewConst: return VT::constant;
    default: return VT::none;
  }
}

/// The type of a node an expansion text makes where the construct alone fixes it, whatever its
/// operands: a regular family's fixed result (EQ, DIM_OF, ..., gen_Shape), and the replacement
/// constructions of the texts whose operands are typed by code (the *_SLICE names, OpMultiOut).
/// Such a node is not typed again (its operands are: the written ones under the name written,
/// the made ones by construction); the others (ADD of CEILDIV, the casts' constructions) are typed
/// when the expansion is checked.
VT made_type(C c) {
  const optgrammar::dsl::Typing& t = optgrammar::dsl::typing_of(c);
  if (t.regular()) return from_vtype(optgrammar::dsl::fixed_result(t.result));
  switch (c) {
    case C::Op:
    case C::WITH_SIZE:
    case C::WITH_TYPE:
    case C::WITH_MULTI_OUT: return VT::op;
    case C::AUTOSPLIT_SHAPEFN_APPLY: return VT::shape;
    default: return VT::none;
  }
}

/// Appends the term of text `t` that starts at `i` to `f`, read as the C++ front end reads it
/// (dsl/grammar.hpp's expansion_term).
/// `checked`: the text is of the EXPANDED family, whose written operands are checked where its
/// expansion puts them: a made node above a written operand is left untyped, for the checker to
/// reach it.
void read_expansion(std::string_view t, std::size_t i, ExpansionForm& f, bool checked) {
  using Term = optgrammar::dsl::ExpansionTerm;
  const Term term = optgrammar::dsl::expansion_term(t, i);
  ExpansionStep st;
  switch (term.form) {
    case Term::operand: st.operand = term.value; break;
    case Term::rest:
      st.operand = term.value;
      st.rest = true;
      break;
    case Term::integer:
      st.kind = NodeKind::integer;
      st.type = VT::int_;
      st.ival = static_cast<std::int64_t>(term.value);
      break;
    case Term::floating:
      st.kind = NodeKind::floating;
      st.type = VT::float_;
      st.fval = static_cast<double>(static_cast<float>(term.real));
      break;
    case Term::string:
      st.kind = NodeKind::string;
      st.text = t.substr(i + 1, term.value);
      break;
    case Term::dtype:
      st.kind = NodeKind::dtype;
      st.type = VT::dtype;
      st.text = optgrammar::dtype_name(static_cast<optgrammar::DType>(term.value));
      break;
    case Term::function:
      st.kind = NodeKind::name;
      st.type = VT::function;
      st.text = t.substr(i, term.value);
      break;
    case Term::call: {
      const auto& rec = optgrammar::dsl::constructs[term.value];
      if (rec.family == C::NAMED_VALUE) {  // a name written alone, which the checker expands
        st.kind = NodeKind::name;
        st.text = rec.name;
        break;
      }
      st.kind = NodeKind::call;
      // A name defined by expansion inside another's text (ESTIMATE_TENSOR_SIZE in ESTIMATE_SIZE)
      // is left untyped, so that the checker expands it as it expands a written one.
      st.type = rec.expansion.empty() ? made_type(rec.family) : VT::none;
      st.text = rec.name;
      st.n_args = term.n;
      const std::size_t at = f.size();
      f.push_back(st);
      for (std::size_t k = 0; k < term.n; ++k) {
        read_expansion(t, term.at[k], f, checked);
        if (k == 0 && rec.family == C::Op && f.back().kind == NodeKind::string) f.back().type = VT::opstring;
      }
      // The checker passes over a typed node's operands: one above such a name, or above a named
      // value (TCM_MAXTENSOR_SIZE, which the checker expands where it finds it), is left untyped
      // too, so that the checker reaches it.
      for (std::size_t k = at + 1; k < f.size(); ++k)
        if ((checked && f[k].operand > 0) || (f[k].kind == NodeKind::name && f[k].operand == 0 && f[k].type == VT::none) ||
            (f[k].kind == NodeKind::call && f[k].type == VT::none && f[k].n_args > 0 &&
             !optgrammar::dsl::find_construct(f[k].text)->expansion.empty()))
          f[at].type = VT::none;
      return;
    }
  }
  f.push_back(st);
}

/// The expansion of each record that has one (OPTGRAMMAR_EXPANSION_RECORDS and
/// OPTGRAMMAR_NAMED_VALUES), by record, read once per process (empty for the other records).
const ExpansionForm& expansion_form(std::size_t record) {
  static const std::vector<ExpansionForm> forms = [] {
    std::vector<ExpansionForm> v(std::size(optgrammar::dsl::constructs));
    for (std::size_t i = 0; i < v.size(); ++i)
      if (const auto& rec = optgrammar::dsl::constructs[i]; !rec.expansion.empty())
        read_expansion(rec.expansion, 0, v[i], rec.family == C::EXPANDED);
    return v;
  }();
  return forms[record];
}

/// Whether the expansion of `record` names one of its operands more than once (`$k` twice, or
/// `$k` within a `$j...`): its tree then holds that operand's subtree at each place.
bool expansion_shares(std::size_t record) {
  static const std::vector<bool> shares = [] {
    std::vector<bool> v(std::size(optgrammar::dsl::constructs));
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::vector<int> uses;
      std::size_t rest_from = 0;  // the smallest k of a `$k...`, or 0
      bool repeated = false;
      for (const ExpansionStep& st : expansion_form(i)) {
        if (st.operand == 0) continue;
        if (st.rest) {
          repeated = repeated || rest_from != 0;
          rest_from = rest_from == 0 ? st.operand : std::min(rest_from, st.operand);
          continue;
        }
        if (uses.size() < st.operand) uses.resize(st.operand, 0);
        repeated = repeated || ++uses[st.operand - 1] > 1;
      }
      for (std::size_t k = rest_from; rest_from != 0 && k <= uses.size(); ++k) repeated = repeated || uses[k - 1] > 0;
      v[i] = repeated;
    }
    return v;
  }();
  return shares[record];
}

/// Every name a rule may write, from the grammar's records: an open-addressing table with a
/// cheap hash, as names are looked up once or twice per call node (and by the scanner).
class NameTable {
 public:
  NameTable() {
    for (std::size_t i = 0; i < std::size(optgrammar::dsl::constructs); ++i) {
      const auto& r = optgrammar::dsl::constructs[i];
      std::size_t h = hash(r.name) & mask;
      while (slots_[h] != 0 && record(slots_[h]).name != r.name) h = (h + 1) & mask;
      if (slots_[h] != 0) continue;  // the first record of a name counts
      slots_[h] = static_cast<std::uint16_t>(i + 1);
      int extra = r.extra;
      if (r.family == C::CAST) extra = static_cast<int>(r.extra == 's' ? VT::size : r.extra == 'i' ? VT::int_ : VT::float_);
      known_[i] = Known{r.family, extra, r.places == optgrammar::dsl::in_replacement, &r};
    }
  }
  const Known* find(std::string_view name) const noexcept {
    for (std::size_t h = hash(name) & mask; slots_[h] != 0; h = (h + 1) & mask)
      if (record(slots_[h]).name == name) return &known_[slots_[h] - 1u];
    return nullptr;
  }

 private:
  static constexpr std::size_t records = std::size(optgrammar::dsl::constructs);
  static constexpr std::size_t slots = 1024;  // a power of 2, at least four times the records
  static constexpr std::size_t mask = slots - 1;
  static_assert(records * 4 <= slots);
  /// The length and three characters: names that share them differ in a probe or two.
  static std::size_t hash(std::string_view s) noexcept {
    if (s.empty()) return 0;
    const auto at = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])); };
    std::uint32_t h = static_cast<std::uint32_t>(s.size()) * 0x9E3779B1u;
    h ^= at(0) * 0x85EBCA6Bu ^ at(s.size() / 2) * 0xC2B2AE35u ^ at(s.size() - 1) * 0x27D4EB2Fu;
    return h ^ (h >> 16);
  }
  static const optgrammar::dsl::Construct& record(std::uint16_t slot) noexcept {
    return optgrammar::dsl::constructs[slot - 1u];
  }
  std::array<std::uint16_t, slots> slots_{};
  std::array<Known, records> known_{};
};

const NameTable names;

const Known* lookup(std::string_view name) noexcept { return names.find(name); }

/// " (did you mean 'IS_FLOAT16'?)" for a name that is one or two edits (a letter changed, added,
/// dropped, or two letters swapped) from a construct's name, as a compiler suggests one; else "".
std::string did_you_mean(std::string_view name) {
  const auto distance = [](std::string_view a, std::string_view b) {
    // Damerau-Levenshtein (optimal string alignment) over three rows.
    std::vector<std::size_t> r0(b.size() + 1), r1(b.size() + 1), r2(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) r1[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      r2[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        r2[j] = std::min({r1[j] + 1, r2[j - 1] + 1, r1[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) r2[j] = std::min(r2[j], r0[j - 2] + 1);
      }
      std::swap(r0, r1);
      std::swap(r1, r2);
    }
    return r1[b.size()];
  };
  std::string_view best;
  std::size_t best_d = name.size() < 6 ? 2 : 3;  // at most 1 edit for short names, 2 for others
  for (const auto& r : optgrammar::dsl::constructs) {
    if (r.name.size() + 2 < name.size() || name.size() + 2 < r.name.size()) continue;
    if (const std::size_t d = distance(name, r.name); d < best_d) {
      best_d = d;
      best = r.name;
    }
  }
  return best.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", best);
}

/// Context of a replacement operand, for the restrictions on AUTOSPLIT / EXTERNAL_REPLACE.
struct RCtx {
  bool root = false;        ///< the root of the replacement or a root SELECT's branch
  bool op_operand = false;  ///< (transitively) an operand of an Op(...) construction
  bool modifier = false;    ///< (transitively) inside a modifier
};

constexpr std::uint64_t max_expanded_nodes = 200000;

/// Whether the tree under `n` has more than `left` nodes once shared operands are counted at each
/// use (as the printed rule repeats them). Stops as soon as the answer is known, so it costs at
/// most `left` steps whatever the sharing.
bool larger_than(const Node* n, std::uint64_t& left) {
  if (left == 0) return true;
  --left;
  for (const Node* a : n->args)
    if (larger_than(a, left)) return true;
  return false;
}

class Checker {
 public:
  /// A tag of the rule: where the match binds it, how often, and its uses.
  struct Tag {
    std::string_view name;
    Loc loc;
    int match_count = 0;
    int uses = 0;
    bool let = false;
  };
  /// The tag records go to `tags` (empty), kept from rule to rule by the caller.
  Checker(Session& s, Rule& r, std::vector<Tag>& tags, std::uint64_t operands_before)
      : s_(s), r_(r), tags_(tags), operands_before_(operands_before) {}

  void run(Node* match, Node* constraint, Node* replacement) {
    r_.match = match_root(match);
    Node* c = cx(constraint);
    if (c->type != VT::boolean)
      fail(constraint->loc, catalogue(Fault::constraint_not_bool, construct_word(c), type_word(c->type)));
    r_.constraint = c;
    in_replacement_ = true;
    Node* rp = rx(replacement, RCtx{true, false, false});
    if (rp->may_star) fail(replacement->loc, catalogue(Fault::star_replacement, "*"));
    r_.replacement = rp;
    // Expansions share operands (SAME_SHAPE uses x four times), so nesting them grows the printed
    // rule exponentially: bound the size of the expanded rule.
    // Unless an expansion repeats an operand that has operands of its own, no node but a leaf
    // is reached twice: a tree is then its root and one node per operand reference, no more than
    // the operands listed for the rule, and the walk is needed only when those are many.
    const bool may_be_large = shares_ || s_.operands_listed() - operands_before_ + 1 > max_expanded_nodes;
    for (const Node* t : {r_.match, r_.constraint, r_.replacement})
      if (std::uint64_t left = max_expanded_nodes; may_be_large && larger_than(t, left))
        fail(t->loc, fmt::format("the rule is too large once its macros are expanded (more than {} nodes)",
                                 max_expanded_nodes));
    r_.tags.reserve(tags_.size());
    for (auto& t : tags_) r_.tags.push_back(Rule::TagUse{std::string(t.name), t.loc, t.match_count, t.uses});
  }

 private:
  // ---- diagnostics ----------------------------------------------------------------------------
  [[noreturn]] void fail(Loc at, std::string msg) {
    s_.diag(at, Severity::error, std::move(msg));
    throw RuleError{};
  }
  void warn(Loc at, std::string msg) { s_.diag(at, Severity::warning, std::move(msg)); }
  /// A "should" restriction that shipped packages break: warning, or error under --strict.
  void should(Loc at, std::string msg) {
    if (s_.options().strict) fail(at, msg + " [--strict]");
    warn(at, std::move(msg));
  }

  static std::string spelled(const Node* n) {
    switch (n->kind) {
      case NodeKind::string: return fmt::format("\"{}\"", n->text);
      case NodeKind::call: return fmt::format("'{}(...)'", n->text);
      default: {
        std::string s;
        append_canonical(s, n);
        return fmt::format("'{}'", s);
      }
    }
  }
  static std::string describe(const Node* n) { return fmt::format("{} of type {}", spelled(n), to_string(n->type)); }
  /// The word for a value type in catalogue messages (the C++ front end's words).
  static std::string_view type_word(VT t) { return optgrammar::dsl::vtype_name(to_vtype(t)); }
  /// The construct a node is, in catalogue messages: its name, or what kind of constant it is.
  static std::string construct_word(const Node* n) {
    switch (n->kind) {
      case NodeKind::string: return "operand tag";
      case NodeKind::integer: return n->is_size ? "size constant" : "int constant";
      case NodeKind::floating: return "float constant";
      case NodeKind::boolean: return "bool constant";
      case NodeKind::dtype: return "dtype constant";
      default: return std::string(n->text);
    }
  }
  /// A string operand's role without its article ("an operand tag" -> "operand tag").
  static std::string_view bare(std::string_view what) {
    if (what.substr(0, 3) == "an ") return what.substr(3);
    if (what.substr(0, 2) == "a ") return what.substr(2);
    return what;
  }

  /// The operand count the grammar's record gives for a written construct.
  void count_operands(const Node* n) {
    if (const Known* k = lookup(n->text)) count_operands(n, *k);
  }
  /// The same, for a construct already looked up (no second table lookup on the hot path).
  void count_operands(const Node* n, const Known& k) {
    const auto& r = *k.rec;
    const std::size_t got = n->args.size();
    if (got >= r.min_args && (r.max_args == optgrammar::dsl::any_count || got <= r.max_args)) return;
    if (r.max_args == optgrammar::dsl::any_count && r.min_args == 1 && got == 0) fail(n->loc, catalogue(Fault::needs_operand, n->text));
    const bool plural = r.min_args != 1 || r.max_args != 1;
    if (r.max_args == optgrammar::dsl::any_count)
      fail(n->loc, catalogue(Fault::operand_count_at_least, n->text, r.min_args, plural ? "s" : "", got));
    const std::string want = r.min_args == r.max_args ? fmt::format("{}", r.min_args) : fmt::format("{} or {}", r.min_args, r.max_args);
    fail(n->loc, catalogue(Fault::operand_count, n->text, want, plural ? "s" : "", got));
  }

  // ---- node construction for expansions ----------------------------------------------------------
  Node* mk(NodeKind k, VT t, Loc at) {
    Node* n = s_.make_node();
    n->kind = k;
    n->type = t;
    n->loc = at;
    return n;
  }
  Node* call(std::string_view name, VT t, Loc at, std::initializer_list<Node*> args) {
    Node* n = mk(NodeKind::call, t, at);
    n->text = name;
    n->args = s_.node_list(std::span<Node* const>(args.begin(), args.size()));
    return n;
  }
  Node* integer(std::int64_t v, Loc at) {
    Node* n = mk(NodeKind::integer, VT::int_, at);
    n->ival = v;
    return n;
  }
  Node* dtype(std::string_view tag, Loc at) {
    Node* n = mk(NodeKind::dtype, VT::dtype, at);
    n->text = tag;
    return n;
  }
  Node* str(std::string_view v, VT t, Loc at) {
    Node* n = mk(NodeKind::string, t, at);
    n->text = v;
    return n;
  }

  /// A name defined by expansion, replaced by its record's expansion text with `$1`, `$2`, ...
  /// standing for its operands (grammar.hpp): the tree is built here from the text (read once per
  /// process, expansion_form), so such a name needs nothing of og-parse but its record. The
  /// operands are shared, not copied.
  Node* expand_record(Node* n, const optgrammar::dsl::Construct& rec) {
    const auto record = static_cast<std::size_t>(&rec - optgrammar::dsl::constructs);
    shares_ = shares_ || (expansion_shares(record) &&
                          std::any_of(n->args.begin(), n->args.end(), [](const Node* a) { return !a->args.empty(); }));
    const ExpansionForm& form = expansion_form(record);
    if (form.empty()) fail(n->loc, fmt::format("internal: '{}' is not a name of the expansion list", rec.name));
    std::size_t i = 0;
    auto build = [&](auto& self) -> Node* {
      const ExpansionStep& st = form[i++];
      if (st.operand > 0) {
        if (st.operand > n->args.size() || st.rest)
          fail(n->loc, fmt::format("internal: the expansion of '{}' names operand {}", rec.name, st.operand));
        return n->args[st.operand - 1];
      }
      Node* r = mk(st.kind, st.type, n->loc);
      r->text = st.text;
      r->ival = st.ival;
      r->fval = st.fval;
      boost::container::small_vector<Node*, 8> args;
      for (std::size_t k = 0; k < st.n_args; ++k) {
        if (form[i].rest) {  // `$k...`: the k-th written operand and all after it
          for (std::size_t j = form[i++].operand - 1; j < n->args.size(); ++j) args.push_back(n->args[j]);
          continue;
        }
        args.push_back(self(self));
      }
      r->args = s_.node_list(std::span<Node* const>(args.data(), args.size()));
      return r;
    };
    return build(build);
  }

  // ---- strings -------------------------------------------------------------------------------
  /// A string constant of the grammar: non-empty, printable, no space, quote or backslash.
  Node* plain_string(Node* n, std::string_view what, VT t) {
    if (n->kind != NodeKind::string) fail(n->loc, fmt::format("expected {} (a string constant), found {}", what, spelled(n)));
    if (n->text.empty()) fail(n->loc, catalogue(Fault::empty_string, bare(what)));
    for (const char c : n->text) {
      if (!is_plain_string_char(c)) {
        reject_string(n, what);
        break;
      }
    }
    n->type = t;
    return n;
  }
  /// The error for a string constant that is not plain: the string's characters as C++ reads the
  /// literal (a simple escape stands for one character: \" and \\ a quote and a backslash, other
  /// escapes an unprintable character), shown with its quotes and backslashes as the C++ front
  /// end shows them, other escapes as written.
  [[gnu::cold, gnu::noinline]] void reject_string(const Node* n, std::string_view what) {
    std::string shown;
    for (std::size_t i = 0; i < n->text.size(); ++i) {
      char c = n->text[i];
      std::string_view bad;
      if (c == '\\' && i + 1 < n->text.size()) {
        const char e = n->text[++i];
        if (e == '"' || e == '\\') c = e;
        else bad = "an unprintable character", shown += '\\';
        shown += e;
      } else {
        shown += c;
      }
      const auto u = static_cast<unsigned char>(c);
      if (bad.empty())
        bad = c == ' ' ? "a space" : c == '"' ? "a quote" : c == '\\' ? "a backslash"
              : (u < 0x21 || u > 0x7e) ? "an unprintable character" : "";
      if (!bad.empty()) {
        shown += n->text.substr(i + 1);
        fail(n->loc, catalogue(Fault::bad_string, bare(what), shown, bad));
      }
    }
  }

  /// The op name of an Op or OpVarIn (`owner`), or of another construct that takes one.
  Node* opstring(Node* n, std::string_view owner = {}) {
    Node* e = expanded_in(n, optgrammar::dsl::in_replacement);
    if (!owner.empty() && e->kind != NodeKind::string)
      fail(e->loc, catalogue(Fault::op_name_not_string, owner));
    return plain_string(e, "an op name", VT::opstring);
  }

  /// A name defined by expansion whose family is typed by code (OPCONST, FROM_DEFAULT_PACKAGE),
  /// written where its record allows it (`place`): its expansion, after its operand count is
  /// checked. Anything else is returned as it is.
  Node* expanded_in(Node* n, unsigned char place) {
    if (n->kind != NodeKind::call) return n;
    const Known* k = lookup(n->text);
    if (!k || !k->rec || k->rec->expansion.empty() || !(k->rec->places & place) ||
        optgrammar::dsl::typing_of(k->c).regular())
      return n;
    count_operands(n, *k);
    return expand_record(n, *k->rec);
  }

  Node* function_name(Node* n, std::string_view of) {
    if (n->kind != NodeKind::name || n->text.find("::") != std::string::npos)
      fail(n->loc, fmt::format("the first operand of '{}' must be a function name, found {}", of, spelled(n)));
    n->type = VT::function;
    return n;
  }

  // ---- tags ---------------------------------------------------------------------------------
  Tag* find_tag(std::string_view t) {
    for (auto& x : tags_)
      if (x.name == t) return &x;
    return nullptr;
  }

  Node* use_tag(Node* n) {
    plain_string(n, "an operand tag", VT::opref);
    if (n->text == "*") {
      n->may_star = true;
      return n;
    }
    Tag* t = find_tag(n->text);
    if (!t)
      fail(n->loc, catalogue(Fault::tag_not_bound, n->text, in_replacement_ ? "the replacement" : "the constraint"));
    ++t->uses;
    return n;
  }

  // ---- match --------------------------------------------------------------------------------
  Node* match_root(Node* n) {
    if (n->kind == NodeKind::call && n->text == "LET")
      fail(n->loc, catalogue(Fault::let_at_root, !n->args.empty() ? std::string_view(n->args[0]->text) : std::string_view()));
    if (n->kind != NodeKind::call || (n->text != "Op" && n->text != "OpVarIn")) {
      // a name defined by expansion (OPCONST): what it stands for
      if (Node* e = expanded_in(n, optgrammar::dsl::in_match); e != n) return match_root(e);
      fail(n->loc, catalogue(Fault::match_root, construct_word(n)));
    }
    std::vector<std::string_view> lets;
    return match_op1(n, lets);
  }

  Node* match_op1(Node* n, std::vector<std::string_view>& lets) {
    if (n->args.empty()) fail(n->loc, fmt::format("'{}' needs an op name", n->text));
    n->type = VT::pattern;
    n->args[0] = opstring(n->args[0], n->text);
    for (std::size_t k = 1; k < n->args.size(); ++k) n->args[k] = match_op(n->args[k], lets);
    return n;
  }

  Node* bind_let(Node* let, Node* tag, Node* inner, std::vector<std::string_view>& lets) {
    plain_string(tag, "a LET tag", VT::tag);
    if (tag->text == "*") fail(tag->loc, catalogue(Fault::let_binds_star));
    for (auto l : lets)
      if (l == tag->text) fail(tag->loc, catalogue(Fault::tag_inside_own_let, tag->text));
    Tag* t = find_tag(tag->text);
    if (t && t->let) fail(tag->loc, catalogue(Fault::let_twice, tag->text));
    if (t) {
      // a plain use seen before: both name the same node
      t->let = true;
      ++t->match_count;
    } else {
      tags_.push_back(Tag{tag->text, tag->loc, 1, 0, true});
    }
    if (inner->kind != NodeKind::call || (inner->text != "Op" && inner->text != "OpVarIn"))
      fail(inner->loc, catalogue(Fault::let_operand, tag->text, construct_word(inner)));
    lets.push_back(tag->text);
    Node* m = match_op1(inner, lets);
    lets.pop_back();
    let->type = VT::pattern;
    let->args = s_.node_list(std::array<Node*, 2>{tag, m});
    return let;
  }

  Node* match_op(Node* n, std::vector<std::string_view>& lets) {
    if (n->kind == NodeKind::string) {
      plain_string(n, "an operand tag", VT::tag);
      if (n->text == "*") {
        n->type = VT::wildcard;
        return n;
      }
      for (auto l : lets)
        if (l == n->text) fail(n->loc, catalogue(Fault::tag_inside_own_let, n->text));
      if (Tag* t = find_tag(n->text))
        ++t->match_count;
      else
        tags_.push_back(Tag{n->text, n->loc, 1, 0, false});
      return n;
    }
    if (n->kind == NodeKind::call) {
      if (n->text == "Op" || n->text == "OpVarIn") return match_op1(n, lets);
      if (n->text == "LET") {
        count_operands(n);
        return bind_let(n, n->args[0], n->args[1], lets);
      }
      // a name defined by expansion (OPCONST, FROM_DEFAULT_PACKAGE): what it stands for
      if (Node* e = expanded_in(n, optgrammar::dsl::in_match); e != n) return match_op(e, lets);
    }
    fail(n->loc, catalogue(Fault::not_in_match, construct_word(n)));
  }

  // ---- constraint expressions -----------------------------------------------------------------
  Node* need(Node* arg, const Node* parent, std::size_t idx, bool (*ok)(VT), std::string_view what) {
    Node* a = cx(arg);
    if (!ok(a->type))
      fail(arg->loc, operand_fault(parent->text, idx, a->type, what));
    return a;
  }
  /// The catalogue's message for operand `idx` of `name` having type `t` where `what` is wanted,
  /// chosen as the C++ front end chooses it.
  static std::string operand_fault(std::string_view name, std::size_t idx, VT t, std::string_view what) {
    if (name == "SELECT" && idx == 0) return catalogue(Fault::select_condition, type_word(t));
    if (what == "bool") return catalogue(Fault::needs_bool, name, idx + 1, type_word(t));
    if (t == VT::dtype) return catalogue(Fault::dtype_use, name, idx + 1);
    if (what.substr(0, 10) == "an operand") return catalogue(Fault::needs_opref, name, idx + 1, type_word(t));
    if (!is_scalar(t)) return catalogue(Fault::opref_as_value, name, idx + 1, t == VT::opref ? "an opref" : type_word(t));
    return catalogue(Fault::operand_type, name, optgrammar::dsl::ordinal_word(idx), what, type_word(t));
  }
  Node* need_bool(Node* n, std::size_t i) {
    return need(n->args[i], n, i, [](VT t) { return t == VT::boolean; }, "bool");
  }
  Node* need_int(Node* n, std::size_t i) { return need(n->args[i], n, i, is_intlike, "int or size"); }
  Node* need_num(Node* n, std::size_t i) { return need(n->args[i], n, i, is_num, "int, size or float"); }
  Node* need_opref(Node* n, std::size_t i) {
    return need(n->args[i], n, i, [](VT t) { return t == VT::opref; },
                "an operand (a tag, INPUT_OF, OUTPUT_OF or a SELECT of those)");
  }

  Node* split_ref(Node* tag, std::string_view who) {
    plain_string(tag, "a split tag", VT::split_tag);
    if (std::find(split_scope_.begin(), split_scope_.end(), tag->text) == split_scope_.end())
      fail(tag->loc, catalogue(Fault::split_var_scope, who, tag->text, tag->text));
    ++split_refs(tag->text);
    return tag;
  }

  Node* cx_name(Node* n) {
    const std::string_view t = n->text;
    if (t == "INF" || t == "NEG_INF") {
      n->type = VT::float_;
      return n;
    }
    if (is_bare_word(t)) {  // OK, true, false
      n->kind = NodeKind::boolean;
      n->bval = t != "false";
      n->type = VT::boolean;
      return n;
    }
    if (t.substr(0, 7) == "DType::") {
      const std::string_view tag = t.substr(7);
      if (const auto d = optgrammar::parse_dtype(tag); !d || optgrammar::dtype_name(*d) != tag)
        fail(n->loc, fmt::format("'{}' is not a DType tag", t));
      return dtype(tag, n->loc);
    }
    if (const Known* k = lookup(t); k && k->c == C::NAMED_VALUE) return cx(expand_record(n, *k->rec));
    fail(n->loc, fmt::format("unknown name '{}' in a constraint expression{}", t, did_you_mean(t)));
  }

  Node* typed(Node* n, VT t) {
    n->type = t;
    return n;
  }

  /// Any constraint-grammar expression: a scalar or an existing opref.
  Node* cx(Node* n) {
    // an operand of an expansion, typed under the name written (see the regular families)
    if (n->type != VT::none) return n;
    switch (n->kind) {
      case NodeKind::string: return use_tag(n);
      case NodeKind::integer:
      case NodeKind::floating:
      case NodeKind::boolean:
      case NodeKind::dtype: return n;
      case NodeKind::name: return cx_name(n);
      case NodeKind::call: break;
    }
    const Known* k = lookup(n->text);
    if (!k) fail(n->loc, fmt::format("unknown function '{}'{}", n->text, did_you_mean(n->text)));
    if (k->c == C::NAMED_VALUE) fail(n->loc, fmt::format("'{}' is a value: write it without parentheses", n->text));
    count_operands(n, *k);
    if (k->replacement) {
      if (!in_replacement_) fail(n->loc, catalogue(Fault::replacement_only, n->text));
      fail(n->loc, fmt::format("'{}' is a replacement construct, not allowed in a scalar expression", n->text));
    }
    auto& a = n->args;
    switch (k->c) {
      case C::Op:
      case C::OpVarIn:
      case C::LET:
      case C::OPCONST:
        if (!in_replacement_ && n->text == "Op")
          fail(n->loc, catalogue(Fault::op_in_constraint, !a.empty() ? std::string_view(a[0]->text) : std::string_view()));
        if (!in_replacement_) fail(n->loc, catalogue(Fault::match_only, n->text, "the constraint"));
        fail(n->loc, fmt::format("'{}' belongs in the match{}, not in a scalar expression", n->text,
                                 n->text == "Op" ? " or the replacement" : ""));
      case C::LAYOUT_CHUNKSIZE:
        if (a[0]->kind != NodeKind::name || a[0]->text.find("::") != std::string::npos)
          fail(a[0]->loc, fmt::format("the first operand of 'LAYOUT_CHUNKSIZE' must be a tensor class name, found {}",
                                      spelled(a[0])));
        a[0]->type = VT::name;
        if (a[1]->kind != NodeKind::integer)
          fail(a[1]->loc, fmt::format("the second operand of 'LAYOUT_CHUNKSIZE' must be an integer constant, found {}",
                                      spelled(a[1])));
        return typed(n, VT::size);
      case C::SELECT: {
        a[0] = need_bool(n, 0);
        a[1] = cx(a[1]);
        a[2] = cx(a[2]);
        const VT x = a[1]->type, y = a[2]->type;
        if (is_num(x) && is_num(y)) return typed(n, common(x, y));
        if (x == y) {
          n->may_star = a[1]->may_star || a[2]->may_star;
          return typed(n, x);
        }
        fail(n->loc, catalogue(Fault::select_branches, type_word(x), type_word(y)));
      }
      case C::ROUNDUP: {
        regular(n, *k);
        if (a[1]->kind == NodeKind::integer) {
          const auto v = static_cast<std::uint64_t>(a[1]->ival);
          if (v == 0 || (!a[1]->is_size && a[1]->ival < 0) || (v & (v - 1)) != 0)
            fail(a[1]->loc, catalogue(Fault::roundup_pow2, a[1]->ival));
        }
        return n;
      }
      case C::EXTERNAL_CONSTRAINT: return external_constraint(n);
      case C::IS_OP:
      case C::PRODUCER_FOR:  // an existing opref, then an op name (checked first, as the C++ front end does)
        a[1] = opstring(a[1]);
        a[0] = need_opref(n, 0);
        return typed(n, VT::boolean);
      case C::MESSAGE: {
        if (a[0]->kind != NodeKind::string)
          fail(a[0]->loc, fmt::format("the first operand of 'MESSAGE' must be a string constant, found {}", spelled(a[0])));
        a[0]->text = s_.intern(decode_escapes(a[0]));
        a[0]->type = VT::message;
        for (std::size_t i = 1; i < a.size(); ++i) a[i] = need(a[i], n, i, is_scalar, "a scalar");
        return typed(n, VT::boolean);
      }
      case C::CAST: return functional_cast(n, static_cast<VT>(k->extra));
      case C::FROM_DEFAULT_PACKAGE:  // its string, wherever it is written
      case C::EXPANDED: return cx(expand_record(n, *k->rec));
      default: break;
    }
    if (optgrammar::dsl::typing_of(k->c).regular()) {
      // a name defined by expansion: its written operands typed under its own name, then its
      // record's expansion (whose operands are then already typed)
      if (!k->rec->expansion.empty()) {
        type_written(n, *k);
        return cx(expand_record(n, *k->rec));
      }
      return regular(n, *k);
    }
    fail(n->loc, fmt::format("'{}' is not allowed in a constraint expression", n->text));
  }

  /// A construct of a regular family, typed by its typing column (dsl/typing.hpp) as the C++
  /// front end types it: its strings checked, its operands typed, then its own type or the fault.
  Node* regular(Node* n, const Known& k) { return typed(n, from_vtype(type_written(n, k))); }
  /// The strings and operands of a construct of a regular family checked and typed in place, and
  /// its own type from its typing column (a fault is reported).
  optgrammar::dsl::VType type_written(Node* n, const Known& k) {
    using optgrammar::dsl::OperandKind;
    const optgrammar::dsl::Typing& t = optgrammar::dsl::typing_of(k.c);
    auto& a = n->args;
    const std::size_t names = std::min(t.names(), a.size());
    for (std::size_t i = 0; i < names; ++i) {
      if (t.kind(i) == OperandKind::option_name) plain_string(a[i], "an option name", VT::option);
      else split_ref(a[i], n->text);
    }
    const std::size_t typed_n = a.size() - names;
    // Most constructs take one to four operands: no allocation for them.
    boost::container::small_vector<optgrammar::dsl::VType, 8> types(typed_n, boost::container::default_init);
    boost::container::small_vector<Loc, 8> locs(typed_n, boost::container::default_init);
    for (std::size_t i = 0; i < typed_n; ++i) {
      locs[i] = a[names + i]->loc;
      a[names + i] = cx(a[names + i]);
      types[i] = to_vtype(a[names + i]->type);
    }
    const optgrammar::dsl::TypeVerdict v = optgrammar::dsl::type_operands(t, types.data(), typed_n);
    if (v.fault != Fault::none) {
      const Loc at = v.operand == optgrammar::dsl::TypeVerdict::whole ? n->loc : locs[v.operand];
      optgrammar::dsl::report_type_fault(v, n->text, types.data(), typed_n,
                                         [&](Fault f, const optgrammar::dsl::MessageArg* args, std::size_t m) {
                                           fail(at, catalogue_with(f, args, m));
                                         });
    }
    return v.type;
  }


  Node* functional_cast(Node* n, VT to) {
    Node* v = cx(n->args[0]);
    if (v->kind != NodeKind::integer && v->kind != NodeKind::floating)
      fail(n->loc, fmt::format("functional cast '{}(...)' of a non-constant is outside the grammar; use {}(...)", n->text,
                               to == VT::size ? "UINT" : to == VT::int_ ? "INT" : "FLOAT"));
    Node* r = mk(to == VT::float_ ? NodeKind::floating : NodeKind::integer, to, n->loc);
    if (to == VT::float_) {
      r->fval = v->kind == NodeKind::floating ? v->fval
                : v->is_size ? static_cast<double>(static_cast<float>(static_cast<std::uint64_t>(v->ival)))
                             : static_cast<double>(static_cast<float>(v->ival));
    } else {
      double x = v->kind == NodeKind::floating ? std::trunc(v->fval) : 0.0;
      if (to == VT::size) {
        if (v->kind == NodeKind::floating ? x < 0 || x >= 1.8e19 : (!v->is_size && v->ival < 0))
          fail(n->loc, fmt::format("functional cast '{}(...)' of a negative or too large constant", n->text));
        r->ival = v->kind == NodeKind::floating ? static_cast<std::int64_t>(static_cast<std::uint64_t>(x)) : v->ival;
        r->is_size = true;
      } else {
        const bool in_range = v->kind == NodeKind::floating ? (x >= -2147483648.0 && x <= 2147483647.0)
                                                            : (v->is_size ? static_cast<std::uint64_t>(v->ival) <= 2147483647u : true);
        if (!in_range) fail(n->loc, fmt::format("functional cast '{}(...)' of a constant that does not fit in int", n->text));
        r->ival = v->kind == NodeKind::floating ? static_cast<std::int64_t>(x) : v->ival;
      }
    }
    std::string shown;
    append_canonical(shown, r);
    warn(n->loc, fmt::format("functional cast '{}(...)' is outside the grammar; accepted as the constant {}", n->text, shown));
    return r;
  }

  std::string decode_escapes(const Node* n) {
    const std::string_view s = n->text;
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
          if (k == 0) fail(n->loc, "'\\x' used with no following hex digits in a MESSAGE string");
          out += static_cast<char>(v);
          break;
        }
        default:
          if (c >= '0' && c <= '7') {
            unsigned v = static_cast<unsigned>(c - '0');
            for (int k = 0; k < 2 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k)
              v = v * 8 + static_cast<unsigned>(s[++i] - '0');
            out += static_cast<char>(v & 0xff);
          } else {
            fail(n->loc, fmt::format("unknown escape sequence '\\{}' in a MESSAGE string", c));
          }
      }
    }
    return out;
  }

  // ---- external functions -----------------------------------------------------------------------
  static bool context_param(const std::string& p) {
    return p.find("Replacement") != std::string::npos || p.find("Constraint") != std::string::npos ||
           p.find("Split_Context") != std::string::npos;
  }
  static bool opref_param(const std::string& p) {
    return p.find("OpRef") != std::string::npos || p.find("OpDef") != std::string::npos;
  }
  static VT scalar_of(const std::string& type) {
    if (type.find("bool") != std::string::npos) return VT::boolean;
    if (type.find("DType") != std::string::npos) return VT::dtype;
    if (type.find("float") != std::string::npos || type.find("double") != std::string::npos) return VT::float_;
    if (type.find("size_t") != std::string::npos || type.find("unsigned") != std::string::npos ||
        type.find("uint") != std::string::npos)
      return VT::size;
    if (type.find("int") != std::string::npos || type.find("long") != std::string::npos) return VT::int_;
    return VT::none;
  }
  /// Whether a scalar argument of type `arg` may be passed to a parameter of scalar type `param`,
  /// as C++ converts without narrowing a float to an integer: the library checks the same.
  static bool scalar_accepts(VT param, VT arg) {
    switch (param) {
      case VT::boolean: return arg == VT::boolean;
      case VT::int_:
      case VT::size: return arg == VT::int_ || arg == VT::size;
      case VT::float_: return arg == VT::int_ || arg == VT::size || arg == VT::float_;
      case VT::dtype: return arg == VT::dtype;
      default: return true;  // a type og-parse does not know: the C++ compiler checks it
    }
  }

  enum class ExtUse { constraint, shapefn, autosplit_shapefn };

  /// The kind of an annotated parameter, in the C++ front end's words.
  static std::string_view param_word(const std::string& p) {
    using optgrammar::dsl::param_kind_words;
    if (opref_param(p)) return param_kind_words[0];
    switch (scalar_of(p)) {
      case VT::boolean: return param_kind_words[2];
      case VT::int_:
      case VT::size: return param_kind_words[3];
      case VT::float_: return param_kind_words[4];
      case VT::dtype: return param_kind_words[5];
      default: return param_kind_words[6];
    }
  }

  /// Checks a use of `fn` (arguments `args[first..]`) against its annotation, if any: the framework
  /// parameters the annotation lists, the return type, the number of arguments and their kinds.
  void check_annotation(const Node* use, const Node* fn, std::size_t first, ExtUse how) {
    const ShapeFn* sf = s_.find_shape_fn(fn->text);
    if (!sf) return;
    const auto where = [&] {
      return fmt::format("its {} ({}:{})", sf->declared ? "declaration" : "EXTERNAL_SHAPEFN annotation",
                         s_.file_name(sf->loc.file), sf->line);
    };
    // Leading framework parameters, as far as the annotation lists them.
    std::size_t k = 0;
    if (k < sf->params.size() && context_param(sf->params[k]) &&
        sf->params[k].find("Split_Context") == std::string::npos) {
      const bool constraint_param = sf->params[k].find("Constraint") != std::string::npos;
      if (constraint_param != (how == ExtUse::constraint))
        fail(use->loc, catalogue(Fault::external_framework_param, use->text, fn->text, "first", fn->text,
                                 how == ExtUse::constraint ? "Constraint&" : "Replacement&"));
      ++k;
      if (how == ExtUse::autosplit_shapefn &&
          (k == sf->params.size() || sf->params[k].find("Split_Context") == std::string::npos))
        fail(use->loc, catalogue(Fault::external_framework_param, use->text, fn->text, "second", fn->text,
                                 "Split_Context const&"));
    }
    if (k < sf->params.size() && sf->params[k].find("Split_Context") != std::string::npos) {
      if (how != ExtUse::autosplit_shapefn)
        fail(use->loc, fmt::format("'{}' of '{}': only AUTOSPLIT_SHAPEFN_APPLY passes a Split_Context, but {} lists one",
                                   use->text, fn->text, where()));
      ++k;
    }
    if (how != ExtUse::constraint && sf->return_type.find("OpRef") == std::string::npos &&
        sf->return_type.find("QuickShape") == std::string::npos)
      fail(use->loc, catalogue(Fault::external_result, use->text, fn->text, fn->text, "OpRef or QuickShape"));
    if (how == ExtUse::constraint) ++k;  // the operand tag's OpRef
    std::vector<const std::string*> params;
    for (; k < sf->params.size(); ++k) params.push_back(&sf->params[k]);
    const std::size_t given = use->args.size() - first;
    // Counted as the C++ front end counts them: EXTERNAL_CONSTRAINT's tag is an argument (for the
    // OpRef parameter after Constraint&), and parameters are numbered from the first.
    const std::size_t tag_arg = how == ExtUse::constraint ? 1 : 0;
    const std::size_t first_param = sf->params.size() - params.size();
    if (given != params.size())
      fail(use->loc, catalogue(Fault::external_arg_count, use->text, fn->text, given + tag_arg,
                               given + tag_arg == 1 ? "" : "s", fn->text, params.size() + tag_arg));
    for (std::size_t i = 0; i < given; ++i) {
      const Node* a = use->args[first + i];
      const bool want_ref = opref_param(*params[i]);
      const bool is_ref = !is_scalar(a->type);
      if (want_ref != is_ref || (!is_ref && !scalar_accepts(scalar_of(*params[i]), a->type)))
        fail(a->loc, catalogue(Fault::external_arg_type, use->text, fn->text, i + 1 + tag_arg,
                               a->type == VT::opref ? "an opref" : type_word(a->type), first_param + i + 1, fn->text,
                               param_word(*params[i])));
    }
  }

  /// EXTERNAL_REPLACE's function, if annotated: OpRef fn(Replacement &, OpDef const &).
  void check_replace_annotation(const Node* use, const Node* fn) {
    const ShapeFn* sf = s_.find_shape_fn(fn->text);
    if (!sf) return;
    std::size_t k = 0;
    if (k < sf->params.size() && sf->params[k].find("Replacement") != std::string::npos) ++k;
    const bool ok = sf->return_type.find("OpRef") != std::string::npos && k + 1 == sf->params.size() &&
                    sf->params[k].find("OpDef") != std::string::npos;
    if (!ok) fail(use->loc, catalogue(Fault::external_replace_signature, fn->text, fn->text, fn->text));
  }

  Node* external_constraint(Node* n) {
    auto& a = n->args;
    function_name(a[0], n->text);
    plain_string(a[1], "an operand tag", VT::opref);
    a[1] = use_tag(a[1]);
    for (std::size_t i = 2; i < a.size(); ++i) a[i] = need(a[i], n, i, is_scalar, "a scalar (int, size, float or bool)");
    VT t = VT::boolean;
    if (const ShapeFn* sf = s_.find_shape_fn(a[0]->text)) {
      check_annotation(n, a[0], 2, ExtUse::constraint);
      const VT r = scalar_of(sf->return_type);
      if (r == VT::none)
        fail(n->loc, catalogue(Fault::external_result, n->text, a[0]->text, a[0]->text, "bool, an integer or a float"));
      t = r;
    }
    return typed(n, t);
  }

  /// An apply_parm: a string is an operand tag; scalars are cst_expr; the rest are repl_op.
  Node* apply_parm(Node* p) {
    if (p->kind == NodeKind::call) {
      const Known* k = lookup(p->text);
      if (k && !k->replacement && k->c != C::Op && k->c != C::SELECT) return cx(p);
      if (k && k->c == C::SELECT && p->args.size() == 3) {
        const Node* b = p->args[1];
        const Known* kb = b->kind == NodeKind::call ? lookup(b->text) : nullptr;
        const bool scalar_branch = b->kind == NodeKind::integer || b->kind == NodeKind::floating ||
                                   b->kind == NodeKind::name || (kb && !kb->replacement && kb->c != C::Op &&
                                                                 kb->c != C::INPUT_OF && kb->c != C::OUTPUT_OF &&
                                                                 kb->c != C::SELECT);
        if (scalar_branch) return cx(p);
      }
      return rx(p, RCtx{});
    }
    if (p->kind == NodeKind::string) return rx(p, RCtx{});
    return cx(p);
  }

  // ---- replacement ---------------------------------------------------------------------------
  Node* rx_last(Node* n, std::size_t i, RCtx ctx) {
    ctx.root = false;
    ctx.modifier = true;
    Node* l = rx(n->args[i], ctx);
    const bool multi = n->text == "WITH_MULTI_OUT";
    if (l->type == VT::constant && !multi) {
      // a constant construction gets the output as an Op would (the SDK's examples write it)
      should(n->args[i]->loc, catalogue(Fault::modifier_constant_strict, n->text));
      return l;
    }
    if (l->type != VT::op)
      fail(n->args[i]->loc, catalogue(Fault::operand_type, n->text, "last",
                                      multi ? "an Op construction" : "an Op or constant construction", type_word(l->type)));
    return l;
  }

  Node* rx_existing(Node* n, std::size_t i, bool shape_ok) { return existing(n, i, rx(n->args[i], RCtx{}), shape_ok); }
  /// Operand i of n, already checked as a replacement value (a), as an existing opref (or a shape
  /// construction where shape_ok).
  Node* existing(Node* n, std::size_t i, Node* a, bool shape_ok) {
    const std::string_view want = shape_ok ? "an existing opref or a shape construction" : "an existing opref";
    if (shape_ok && a->kind == NodeKind::call && a->text == "SELECT" && a->type != VT::opref && a->type != VT::shape)
      fail(n->args[i]->loc, catalogue(Fault::with_size_select_const));
    if (!(a->type == VT::opref || (shape_ok && a->type == VT::shape)))
      fail(n->args[i]->loc, catalogue(Fault::operand_type, n->text, i == 0 ? "first" : "second", want,
                                      a->type == VT::op ? "an Op construction" : type_word(a->type)));
    return a;
  }

  /// A *_SLICE name's first operand: an existing opref, or (a "should" that shipped packages
  /// break) an Op construction, which the expansion builds where it uses it.
  Node* slice_operand(Node* n) {
    Node* a = rx(n->args[0], RCtx{});
    if (a->type != VT::op) return existing(n, 0, a, false);
    should(n->args[0]->loc, catalogue(Fault::slice_operand_strict, n->text));
    return a;
  }

  Node* split_decl(Node* tag) {
    plain_string(tag, "a split tag", VT::split_tag);
    if (std::find(split_declared_.begin(), split_declared_.end(), tag->text) != split_declared_.end())
      fail(tag->loc, catalogue(Fault::split_tag_twice, tag->text));
    split_declared_.push_back(tag->text);
    return tag;
  }

  Node* rx(Node* n, RCtx ctx) {
    switch (n->kind) {
      case NodeKind::string: return use_tag(n);
      case NodeKind::integer:
      case NodeKind::floating: {
        std::string v;
        append_canonical(v, n);
        fail(n->loc, fmt::format("constant '{}' is not a replacement operand; use gen_ConstScalar_{}({})", v,
                                 n->kind == NodeKind::floating ? "f32" : "i32", v));
      }
      case NodeKind::name:
      case NodeKind::boolean:
      case NodeKind::dtype:
        fail(n->loc, fmt::format("{} is not a replacement operand", spelled(n)));
      case NodeKind::call: break;
    }
    const Known* k = lookup(n->text);
    if (!k) fail(n->loc, fmt::format("unknown replacement construct '{}'{}", n->text, did_you_mean(n->text)));
    count_operands(n, *k);
    auto& a = n->args;
    const RCtx inner{false, false, ctx.modifier};
    switch (k->c) {
      case C::Operand:
        return use_tag(a[0]);
      case C::OpVarIn:
      case C::LET:
      case C::OPCONST:
        fail(n->loc, catalogue(Fault::match_only, n->text, "the replacement"));
      case C::SELECT: {
        a[0] = need_bool(n, 0);
        a[1] = rx(a[1], ctx);
        a[2] = rx(a[2], ctx);
        const VT x = a[1]->type, y = a[2]->type;
        VT t = VT::constant;
        if (x == VT::opref && y == VT::opref) t = VT::opref;
        else if (x == VT::op || y == VT::op) t = VT::op;
        else if ((x == VT::shape || x == VT::opref) && (y == VT::shape || y == VT::opref)) t = VT::shape;
        n->may_star = a[1]->may_star || a[2]->may_star;
        return typed(n, t);
      }
      case C::Op: {
        a[0] = opstring(a[0], n->text);
        const RCtx opnd{false, true, ctx.modifier};
        for (std::size_t i = 1; i < a.size(); ++i) {
          const NodeKind k = a[i]->kind;
          if (k == NodeKind::integer || k == NodeKind::floating || k == NodeKind::boolean || k == NodeKind::dtype)
            fail(a[i]->loc, catalogue(Fault::op_operand_kind, n->text, i + 1, type_word(cx(a[i])->type)));
          a[i] = rx(a[i], opnd);
        }
        return typed(n, VT::op);
      }
      case C::WrapOp:
      case C::WrapOpAlways:
        a[0] = opstring(a[0]);
        a[1] = rx(a[1], RCtx{false, ctx.op_operand, ctx.modifier});
        return typed(n, VT::op);
      case C::gen_Shape:
      case C::gen_ConstScalar_f32:
      case C::gen_ConstScalar_i32:
      case C::gen_ConstArr_f32:
      case C::gen_ConstArr_i32:
      case C::gen_ConstArr_vals_i32: return regular(n, *k);
      case C::gen_ShapeOf: {
        a[0] = rx(a[0], inner);
        if (a[0]->type == VT::shape)
          warn(a[0]->loc, fmt::format("'gen_ShapeOf' of a shape construction ({}) is redundant", spelled(a[0])));
        else if (a[0]->type != VT::opref)
          fail(a[0]->loc, fmt::format("the operand of 'gen_ShapeOf' must be an existing opref, found {}", describe(a[0])));
        return typed(n, VT::shape);
      }
      case C::AUTOSPLIT: {
        if (!ctx.root) {
          if (ctx.op_operand && !ctx.modifier)
            should(n->loc, catalogue(Fault::autosplit_nested_strict));
          else
            fail(n->loc, catalogue(Fault::autosplit_place));
        }
        a[0] = need_int(n, 0);
        a[1] = split_decl(a[1]);
        a[2] = need_int(n, 2);
        const std::string_view tag = a[1]->text;
        const int before = split_refs(tag);
        split_scope_.push_back(tag);
        a[3] = rx(a[3], inner);
        split_scope_.pop_back();
        if (split_refs(tag) == before)
          fail(n->loc, catalogue(Fault::split_tag_unused, tag));
        return typed(n, VT::op);
      }
      case C::OP_ITER: {
        a[0] = rx(a[0], inner);
        if (!(a[0]->type == VT::opref || (a[0]->kind == NodeKind::call && a[0]->text == "Op")))
          should(a[0]->loc, fmt::format("the first operand of 'OP_ITER' should be Op(...) or an existing opref, found {}",
                                        describe(a[0])));
        a[1] = split_decl(a[1]);
        a[2] = need_int(n, 2);
        a[3] = need_int(n, 3);
        split_scope_.push_back(a[1]->text);
        a[4] = rx(a[4], inner);
        split_scope_.pop_back();
        return typed(n, VT::op);
      }
      case C::ITER_INPUT_OF:
        a[0] = need_opref(n, 0);
        a[1] = split_ref(a[1], n->text);
        return typed(n, VT::opref);
      case C::AUTOSPLIT_SHAPEFN_APPLY:
        function_name(a[0], n->text);
        a[1] = split_ref(a[1], n->text);
        for (std::size_t i = 2; i < a.size(); ++i) a[i] = apply_parm(a[i]);
        check_annotation(n, a[0], 2, ExtUse::autosplit_shapefn);
        return typed(n, VT::shape);
      case C::SHAPEFN_APPLY:
        function_name(a[0], n->text);
        for (std::size_t i = 1; i < a.size(); ++i) a[i] = apply_parm(a[i]);
        check_annotation(n, a[0], 1, ExtUse::shapefn);
        return typed(n, VT::shape);
      case C::EXTERNAL_REPLACE:
        if (!ctx.root) fail(n->loc, catalogue(Fault::external_replace_place, a.empty() ? std::string_view() : std::string_view(a[0]->text)));
        r_.external_replace = true;
        function_name(a[0], n->text);
        check_replace_annotation(n, a[0]);
        return typed(n, VT::op);
      case C::WITH_SIZE:
        a[0] = rx_existing(n, 0, true);
        a[1] = rx_last(n, 1, ctx);
        return typed(n, a.back()->type);  // an Op or constant construction
      case C::WITH_TYPE:
      case C::WITH_SAME_OUTPUT:
      case C::WITH_SAME_ID:
        a[0] = rx_existing(n, 0, false);
        a[1] = rx_last(n, 1, ctx);
        return typed(n, a.back()->type);  // an Op or constant construction
      case C::WITH_SPLIT_HISTORY:
        a[0] = rx_existing(n, 0, false);
        if (a.size() == 3) {
          if (a[1]->kind != NodeKind::integer)
            fail(a[1]->loc, catalogue(Fault::split_history_constant, construct_word(a[1])));
          a[1] = cx(a[1]);
        }
        a.back() = rx_last(n, a.size() - 1, ctx);
        return typed(n, a.back()->type);  // an Op or constant construction
      case C::WITH_OUTPUT_TYPE:
        a[0] = need(a[0], n, 0, [](VT t) { return t == VT::dtype; }, "a dtype");
        a[1] = need_int(n, 1);
        a[2] = need_num(n, 2);
        a[3] = rx_last(n, 3, ctx);
        return typed(n, a.back()->type);  // an Op or constant construction
      case C::WITH_MULTI_OUT:
        a[0] = need_int(n, 0);
        a[1] = rx_last(n, 1, ctx);
        return typed(n, VT::op);
      case C::ResizeDim:
        a[0] = need_int(n, 0);
        a[1] = need_int(n, 1);
        a[2] = rx_last(n, 2, ctx);
        return typed(n, a.back()->type);  // an Op or constant construction
      // the *_SLICE names: their operands checked here, under the name written, then their
      // record's expansion made of them
      case C::AUTOSPLIT_SLICE:
        a[0] = slice_operand(n);
        a[1] = rx(a[1], inner);
        a[2] = rx(a[2], inner);
        for (const Node* x : {a[1], a[2]})
          if (x->type != VT::opref && x->type != VT::shape)
            should(x->loc, fmt::format("the operands 2 and 3 of 'AUTOSPLIT_SLICE' should be existing oprefs or shape "
                                       "constructions, found {}",
                                       describe(x)));
        return expand_record(n, *k->rec);
      case C::TYPICAL_SLICE:
      case C::CHANGEDIM_SLICE:
        a[0] = slice_operand(n);
        a[1] = split_ref(a[1], n->text);
        if (a.size() == 3) a[2] = need_int(n, 2);
        return expand_record(n, *k->rec);
      case C::TYPICAL_CONV_SLICE:
        a[0] = rx_existing(n, 0, false);
        a[1] = split_ref(a[1], n->text);
        for (std::size_t i = 2; i < a.size(); ++i) a[i] = apply_parm(a[i]);
        return typed(n, VT::op);
      case C::OpMultiOut: {
        a[0] = need_int(n, 0);
        a[1] = need_int(n, 1);
        a[2] = opstring(a[2]);
        const RCtx opnd{false, true, ctx.modifier};
        for (std::size_t i = 3; i < a.size(); ++i) a[i] = rx(a[i], opnd);
        return expand_record(n, *k->rec);
      }
      case C::FROM_DEFAULT_PACKAGE:  // its string, wherever it is written
      case C::EXPANDED: return rx(expand_record(n, *k->rec), ctx);
      default: break;
    }
    // a constraint-grammar expression in a replacement: only existing oprefs are operands
    Node* c = cx(n);
    if (c->type != VT::opref)
      fail(n->loc, fmt::format("{} is a scalar expression, not a replacement operand", describe(c)));
    return c;
  }

  Session& s_;
  Rule& r_;
  std::vector<Tag>& tags_;
  std::uint64_t operands_before_ = 0;  ///< Session::operands_listed() before the rule was parsed
  bool in_replacement_ = false;
  bool shares_ = false;  ///< an expansion repeats an operand that has operands (see run())
  std::vector<std::string_view> split_scope_;
  std::vector<std::string_view> split_declared_;
  std::vector<std::pair<std::string_view, int>> split_refs_;  ///< uses of each split tag (a rule has few)
  int& split_refs(std::string_view tag) {
    for (auto& [t, n] : split_refs_)
      if (t == tag) return n;
    return split_refs_.emplace_back(tag, 0).second;
  }
};

}  // namespace

bool is_construct(std::string_view name) noexcept { return lookup(name) != nullptr; }
bool is_bare_word(std::string_view name) noexcept {
  return name == "OK" || name == "true" || name == "false" || name == "INF" || name == "NEG_INF";
}

void check_rule(Session& s, Rule& r, Node* match, Node* constraint, Node* replacement, std::uint64_t operands_before) {
  static thread_local std::vector<Checker::Tag> tags;  // one list for all rules: no allocation per rule
  tags.clear();
  Checker(s, r, tags, operands_before).run(match, constraint, replacement);
}

}  // namespace og_parse::detail
