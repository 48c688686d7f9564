// The words of the rule language: Op, LET, AND, DIM_OF, WITH_SIZE, pass names, ...
//
// They are static members of `words`, not free functions or macros: DEF_PACKAGE_OPTIMIZATION
// evaluates a rule inside a class derived from `words`, so inside a rule these names win over any
// global of the same name, and outside rules user code keeps `Op`, `AND`, ... free.
#pragma once

#include "optgrammar/core/dtype.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/dsl/external.hpp"
#include "optgrammar/dsl/node.hpp"
#include "optgrammar/dsl/passes.hpp"

#include <boost/hana/at.hpp>
#include <boost/hana/drop_front.hpp>
#include <boost/hana/flatten.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include <cstddef>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

namespace optgrammar::dsl {

/// A pass spec: `EARLY`, `EARLY + 1`.
struct Pass {
  Str name;
  int base = 0;
  int offset = 0;
  bool known = true;
  constexpr int priority() const { return base + offset; }
  friend constexpr Pass operator+(Pass p, int n) {
    p.offset += n;
    return p;
  }
  friend constexpr Pass operator-(Pass p, int n) {
    p.offset -= n;
    return p;
  }
};

/// The pass a spec names, read from the spec as written (`EARLY`, `EARLY + 1`, `LATE - 2`); a
/// spec of another form or an unknown name gives a Pass that is not `known` (analysis reports
/// it). The spec's tokens themselves are only evaluated where a bad rule raises its error.
constexpr Pass pass_of_text(std::string_view t) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  auto ident = [](char c, bool first) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (!first && c >= '0' && c <= '9');
  };
  std::size_t i = 0;
  while (i < t.size() && space(t[i])) ++i;
  const std::size_t at = i;
  while (i < t.size() && ident(t[i], i == at)) ++i;
  Pass p{Str(), ::optgrammar::pass_priority(t.substr(at, i - at)), 0, false};
  for (const auto& n : ::optgrammar::pass_names)
    if (n.name == t.substr(at, i - at)) p.name.p = n.name.data(), p.name.len = n.name.size();
  while (i < t.size() && space(t[i])) ++i;
  int sign = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) sign = t[i++] == '+' ? 1 : -1;
  while (i < t.size() && space(t[i])) ++i;
  long long n = 0;
  std::size_t digits = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9' && digits < 9) n = n * 10 + (t[i++] - '0'), ++digits;
  while (i < t.size() && space(t[i])) ++i;
  if (p.base >= 0 && i == t.size() && (sign == 0) == (digits == 0)) {
    p.offset = static_cast<int>(sign * n);
    p.known = true;
  }
  return p;
}

namespace detail {
template <std::size_t N>
constexpr Str str_of(const char (&s)[N]) {
  return Str(s);
}

constexpr Leaf leaf_of(Str s) {
  Leaf l;
  l.str = s;
  return l;
}

constexpr Leaf tag_leaf(Str s) {
  Leaf l = leaf_of(s);
  l.may_star = s == std::string_view("*");
  return l;
}

/// A named value whose node is built only where a rule uses it (word_functions::named_node).
template <class T>
concept lazy_named_value = requires {
  typename T::lazy_named_value;
};

/// The node a C++ value stands for inside a rule: "x" → operand tag, 3 → int, 3u → size,
/// 0.5f → float, true → bool, DType::QUInt8 → dtype constant; a node stays itself; a named
/// value that is a node (TILE_HEIGHT) is its record's expansion.
template <class T>
constexpr auto to_node(const T& v) {
  using U = std::remove_cvref_t<T>;
  if constexpr (is_node<U>::value) {
    return v;
  } else if constexpr (lazy_named_value<U>) {
    return U::node();
  } else if constexpr (std::is_same_v<U, Str>) {
    return Node<Kind::Tag>{tag_leaf(v)};
  } else if constexpr (std::is_array_v<U> && std::is_same_v<std::remove_extent_t<U>, char>) {
    return Node<Kind::Tag>{tag_leaf(Str(v))};
  } else if constexpr (std::is_same_v<U, bool>) {
    Leaf l;
    l.i = v ? 1 : 0;
    return Node<Kind::Bool>{l};
  } else if constexpr (std::is_same_v<U, ::optgrammar::DType>) {
    Leaf l;
    l.i = static_cast<long long>(v);
    return Node<Kind::DTypeConst>{l};
  } else if constexpr (std::is_floating_point_v<U>) {
    Leaf l;
    l.f = static_cast<double>(static_cast<float>(v));
    return Node<Kind::Float>{l};
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && !std::is_same_v<U, char>) {
    Leaf l;
    l.i = static_cast<long long>(v);
    return Node<Kind::Int>{l};
  } else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U>) {
    Leaf l;
    l.i = static_cast<long long>(v);
    return Node<Kind::Size>{l};
  } else {
    static_assert(std::is_same_v<U, void>,
                  "optgrammar: this C++ value cannot be used in a rule (use a string, a number, "
                  "a DType:: tag or a rule construct)");
  }
}

template <class T>
using node_t = decltype(to_node(std::declval<const T&>()));

template <Kind K, class... A>
constexpr auto make(Leaf l, const A&... a) {
  Node<K, node_t<A>...> n{l, boost::hana::tuple<node_t<A>...>{to_node(a)...}};
  if constexpr (K == Kind::Select && sizeof...(A) == 3)
    n.leaf.may_star = boost::hana::at_c<1>(n.kids).leaf.may_star || boost::hana::at_c<2>(n.kids).leaf.may_star;
  return n;
}
template <Kind K, class... A>
constexpr auto make(const A&... a) {
  return make<K>(Leaf{}, a...);
}
/// What Op or OpVarIn (kind k) builds when its op name is no string constant: a misapplied node
/// (leaf.record = -1 - k) that analysis reports as the catalogue's op_name_not_string.
template <class... A>
constexpr auto misnamed(Kind k, const A&... in) {
  Leaf l;
  l.record = -1 - static_cast<int>(k);
  return make<Kind::Misapplied>(l, in...);
}
/// An operand of a name defined by expansion as its expansion passes it on: a string literal as
/// a Str (an op name, a tag or a split tag, as the construct it reaches takes it), the rest as is.
template <class T>
constexpr auto operand_value(const T& v) {
  if constexpr (std::is_array_v<T> && std::is_same_v<std::remove_cv_t<std::remove_extent_t<T>>, char>)
    return Str(v);
  else
    return v;
}
}  // namespace detail

/// The expansion texts of dsl/grammar.hpp's records, read at compile time (expansion_term).
namespace expansion_detail {
template <std::size_t Rec, std::size_t At>
inline constexpr ExpansionTerm term_v = expansion_term(constructs[Rec].expansion, At);

/// Whether the C++ types A fit record Rec's string places: a string literal at each (an operand
/// not written at all is the count's fault, reported by analysis).
template <std::size_t Rec, class... A>
constexpr bool strings_fit() {
  constexpr unsigned long long bits = string_operands(constructs[Rec].expansion);
  constexpr bool is_string[] = {false,
                                std::is_same_v<decltype(detail::operand_value(std::declval<const A&>())), Str>...};
  for (std::size_t k = 1; k <= sizeof...(A); ++k)
    if ((bits >> k & 1u) && !is_string[k]) return false;
  return true;
}

}  // namespace expansion_detail

/// The words of the vocabulary that take operands (and the constants of the language); `words`
/// adds the named values.
struct word_functions {
  using DType = ::optgrammar::DType;
  using Flags = ::optgrammar::Flags;

  // ---- constants ---------------------------------------------------------------------------
  static constexpr bool OK = true;
  static constexpr float INF = std::numeric_limits<float>::infinity();
  static constexpr float NEG_INF = -std::numeric_limits<float>::infinity();

  // ---- match -------------------------------------------------------------------------------
  /// Op("Relu", "x"): an op named Relu with exactly the listed inputs (also an Op construction
  /// in a replacement).
  template <class... A>
  static constexpr auto Op(Str name, const A&... in) {
    return detail::make<Kind::Op>(detail::leaf_of(name), in...);
  }
  /// Op or OpVarIn with a first operand that is no string constant (a `const char*` variable, a
  /// number, a construct): a node that fails analysis with the catalogue's op_name_not_string,
  /// where no overload would fit and the compiler's errors would not say why.
  template <class S, class... A>
    requires(!std::is_convertible_v<const S&, Str>)
  static constexpr auto Op(const S&, const A&... in) { return detail::misnamed(Kind::Op, in...); }
  template <class S, class... A>
    requires(!std::is_convertible_v<const S&, Str>)
  static constexpr auto OpVarIn(const S&, const A&... in) { return detail::misnamed(Kind::OpVarIn, in...); }
  /// OpVarIn("Concat", "a"): like Op, but the op may have more inputs after the listed ones.
  template <class... A>
  static constexpr auto OpVarIn(Str name, const A&... in) {
    return detail::make<Kind::OpVarIn>(detail::leaf_of(name), in...);
  }
  /// LET("inner", Op("Relu", "x")): binds the tag "inner" to the inner op's output.
  template <class A>
  static constexpr auto LET(Str tag, const A& op) {
    return detail::make<Kind::Let>(detail::leaf_of(tag), op);
  }
  /// Operand("x") is the same as "x".
  static constexpr auto Operand(Str tag) { return Node<Kind::Tag>{detail::tag_leaf(tag)}; }

  // ---- properties with an op name ------------------------------------------------------------
  /// IS_OP("x", "Relu"): bool, whether x is an op named Relu.
  template <class A>
  static constexpr auto IS_OP(const A& a, Str name) {
    return detail::make<Kind::IsOp>(detail::leaf_of(name), a);
  }
  /// PRODUCER_FOR("x", "Relu"): bool, whether an op named Relu reads x.
  template <class A>
  static constexpr auto PRODUCER_FOR(const A& a, Str name) {
    return detail::make<Kind::ProducerFor>(detail::leaf_of(name), a);
  }

  // ---- the words of regular form, one per family of dsl/grammar.hpp whose form column says so:
  // the options and split variables (one string), the operators, properties, constant readers,
  // shape and constant constructions and most modifiers (operands of any kind; analysis types them).
  // Each is declared with its name in parentheses, as the names defined by expansion below: a
  // package header that defines MIN or MAX as a macro of its own before including this one must
  // not have it expand here.
#define OPTGRAMMAR_WORD_(F, T, K, W, Y) OPTGRAMMAR_NODE_KEEP_##K(OPTGRAMMAR_WORD_##W(F, Kind::OPTGRAMMAR_NODE_KIND_##K))
#define OPTGRAMMAR_WORD_own(F, K)
#define OPTGRAMMAR_WORD_named(F, K) \
  static constexpr auto(F)(Str name) { return Node<K>{detail::leaf_of(name)}; }
#define OPTGRAMMAR_WORD_unary(F, K)      \
  template <class A>                     \
  static constexpr auto(F)(const A& a) { \
    return detail::make<K>(a);           \
  }
#define OPTGRAMMAR_WORD_binary(F, K)                 \
  template <class A, class B>                        \
  static constexpr auto(F)(const A& a, const B& b) { \
    return detail::make<K>(a, b);                    \
  }
#define OPTGRAMMAR_WORD_fixed3(F, K)                             \
  template <class A, class B, class C>                           \
  static constexpr auto(F)(const A& a, const B& b, const C& c) { \
    return detail::make<K>(a, b, c);                             \
  }
#define OPTGRAMMAR_WORD_fixed4(F, K)                                         \
  template <class A, class B, class C, class D>                              \
  static constexpr auto(F)(const A& a, const B& b, const C& c, const D& d) { \
    return detail::make<K>(a, b, c, d);                                      \
  }
#define OPTGRAMMAR_WORD_nary(F, K)                      \
  template <class A, class... B>                        \
  static constexpr auto(F)(const A& a, const B&... b) { \
    return detail::make<K>(a, b...);                    \
  }
#define OPTGRAMMAR_WORD_variadic(F, K)      \
  template <class... A>                     \
  static constexpr auto(F)(const A&... a) { \
    return detail::make<K>(a...);           \
  }
  OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_WORD_)
#undef OPTGRAMMAR_WORD_
#undef OPTGRAMMAR_WORD_own
#undef OPTGRAMMAR_WORD_named
#undef OPTGRAMMAR_WORD_unary
#undef OPTGRAMMAR_WORD_binary
#undef OPTGRAMMAR_WORD_fixed3
#undef OPTGRAMMAR_WORD_fixed4
#undef OPTGRAMMAR_WORD_nary
#undef OPTGRAMMAR_WORD_variadic

  // ---- names defined by expansion (dsl/grammar.hpp's OPTGRAMMAR_EXPANSION_RECORDS), OPCONST,
  // FROM_DEFAULT_PACKAGE, the *_SLICE names and OpMultiOut among them: each checks its written
  // operands against its family's typing, if it has one, then builds its record's expansion text.
  // A string literal must be written where the expansion takes a string (an op name, a tag).
  // The name is declared in parentheses: a package that defines one of these names as a macro of
  // its own (the framework's headers do) before including this header must not have its macro
  // expand here.
#define OPTGRAMMAR_EXPANSION_WORD_(N, F, PLACES, TEXT)                                                             \
  template <class... A>                                                                                            \
    requires(expansion_detail::strings_fit<grammar_detail::expanded_record(grammar_detail::expanded_##N), A...>()) \
  static constexpr auto(N)(const A&... a) {                                                                        \
    return expand_<grammar_detail::expanded_record(grammar_detail::expanded_##N)>(a...);                           \
  }
  OPTGRAMMAR_EXPANSION_RECORDS(OPTGRAMMAR_EXPANSION_WORD_)
#undef OPTGRAMMAR_EXPANSION_WORD_

  // ---- replacement -------------------------------------------------------------------------
  template <class A>
  static constexpr auto WrapOp(Str name, const A& a) {
    return detail::make<Kind::WrapOp>(detail::leaf_of(name), a);
  }
  template <class A>
  static constexpr auto WrapOpAlways(Str name, const A& a) {
    return detail::make<Kind::WrapOpAlways>(detail::leaf_of(name), a);
  }
  template <class A, class B>
  static constexpr auto WITH_SPLIT_HISTORY(const A& a, const B& b) {
    return detail::make<Kind::WithSplitHistory>(a, b);
  }
  template <class A, class B, class C>
  static constexpr auto WITH_SPLIT_HISTORY(const A& a, const B& b, const C& c) {
    return detail::make<Kind::WithSplitHistory>(a, b, c);
  }
  template <class D, class C, class E>
  static constexpr auto AUTOSPLIT(const D& dim, Str tag, const C& chunk, const E& e) {
    return detail::make<Kind::Autosplit>(detail::leaf_of(tag), dim, Node<Kind::Tag>{detail::leaf_of(tag)}, chunk, e);
  }
  template <class B, class L, class H, class E>
  static constexpr auto OP_ITER(const B& base, Str tag, const L& lo, const H& hi, const E& e) {
    return detail::make<Kind::OpIter>(detail::leaf_of(tag), base, Node<Kind::Tag>{detail::leaf_of(tag)}, lo, hi, e);
  }
  template <class A>
  static constexpr auto ITER_INPUT_OF(const A& a, Str tag) {
    return detail::make<Kind::IterInputOf>(detail::leaf_of(tag), a);
  }
  /// TYPICAL_CONV_SLICE(in, tag, stride, window[, pad_before]): the rows of `in` a convolution-like
  /// op needs for the current part of split `tag` (docs/replacement.md).
  template <class I, class... A>
  static constexpr auto TYPICAL_CONV_SLICE(const I& in, Str tag, const A&... a) {
    return detail::make<Kind::TypicalConvSlice>(detail::leaf_of(tag), in, a...);
  }

  // The framework's shape functions, usable by name in AUTOSPLIT_SHAPEFN_APPLY / SHAPEFN_APPLY.
#define OPTGRAMMAR_SHAPE_FUNCTION_WORD_(F) static constexpr auto F = &::optgrammar::F;
  OPTGRAMMAR_SHAPE_FUNCTIONS(OPTGRAMMAR_SHAPE_FUNCTION_WORD_)
#undef OPTGRAMMAR_SHAPE_FUNCTION_WORD_

  // ---- external functions (named through the macros of define.hpp) ----------------------------
  template <class F, class T, class... A>
  static constexpr auto EXTERNAL_CONSTRAINT_(Str name, F fn, const T& tag, const A&... a) {
    return detail::make<Kind::ExternalConstraint>(Leaf{}, fn_node(name, fn), tag, a...);
  }
  template <class F>
  static constexpr auto EXTERNAL_REPLACE_(Str name, F fn) {
    return detail::make<Kind::ExternalReplace>(Leaf{}, fn_node(name, fn));
  }
  template <class F, class... A>
  static constexpr auto SHAPEFN_APPLY_(Str name, F fn, const A&... a) {
    return detail::make<Kind::ShapefnApply>(Leaf{}, fn_node(name, fn), a...);
  }
  template <class F, class... A>
  static constexpr auto AUTOSPLIT_SHAPEFN_APPLY_(Str name, F fn, Str tag, const A&... a) {
    return detail::make<Kind::AutosplitShapefnApply>(detail::leaf_of(tag), fn_node(name, fn), a...);
  }
  /// LAYOUT_CHUNKSIZE(TensorClass, dim): size; the class is looked up by name at run time.
  template <class D>
  static constexpr auto LAYOUT_CHUNKSIZE_(Str cls, const D& dim) {
    return detail::make<Kind::LayoutChunksize>(detail::leaf_of(cls), dim);
  }
  /// MESSAGE("text", args...): true; writes the text and the arguments to the trace.
  template <std::size_t N, class... A>
  static constexpr auto MESSAGE(const char (&text)[N], const A&... a) {
    TextNode t;
    t.text = text;
    t.len = N - 1;
    return detail::make<Kind::Message>(Leaf{}, t, a...);
  }
  /// MESSAGE of a text already read (a name's expansion passes its operand on as a Str).
  template <class... A>
  static constexpr auto MESSAGE_(Str text, const A&... a) {
    TextNode t;
    t.text = text.p;
    t.len = text.len;
    return detail::make<Kind::Message>(Leaf{}, t, a...);
  }

 protected:
  /// The word of a name defined by expansion (its record: Rec): its record's expansion of the
  /// operands, or a Misapplied node when their count or types do not fit the family's typing.
  /// The nodes the expansion of OPCONST, a *_SLICE name or OpMultiOut makes keep the name as
  /// written (expansion_term_), which analysis gives in the messages about them.
  template <std::size_t Rec, class... A>
  static constexpr auto expand_(const A&... a) {
    constexpr Construct rec = constructs[Rec];
    constexpr VType types[] = {detail::node_t<A>::vtype..., VType::Bad};
    if constexpr (expansion_detail::expands(rec, types, sizeof...(A))) {
      return expansion_term_<Rec, 0>(boost::hana::make_tuple(detail::operand_value(a)...));
    } else {
      Leaf l;
      l.str.p = rec.name.data();
      l.str.len = rec.name.size();
      l.record = static_cast<int>(Rec) + 1;
      return detail::make<Kind::Misapplied>(l, a...);
    }
  }
  /// The term of record Rec's expansion text that starts at At, of the operands `ops`.
  template <std::size_t Rec, std::size_t At, class Ops>
  static constexpr auto expansion_term_(const Ops& ops) {
    using Term = ExpansionTerm;
    constexpr Term t = expansion_detail::term_v<Rec, At>;
    if constexpr (t.form == Term::operand) {
      return boost::hana::at_c<t.value - 1>(ops);
    } else if constexpr (t.form == Term::integer) {
      return static_cast<int>(t.value);
    } else if constexpr (t.form == Term::floating) {
      return static_cast<float>(t.real);
    } else if constexpr (t.form == Term::string) {
      return text_of_<Rec, At + 1, t.value>();
    } else if constexpr (t.form == Term::dtype) {
      return static_cast<DType>(t.value);
    } else if constexpr (t.form == Term::function) {
      return shape_function_<Rec, At, t.value>();
    } else if constexpr (t.form == Term::call) {
      auto made = [&]<std::size_t... J>(std::index_sequence<J...>) {
        constexpr Term c = expansion_detail::term_v<Rec, At>;
        if constexpr (((expansion_detail::term_v<Rec, c.at[J]>.form == Term::rest) || ...)) {
          // `$k...` among the operands: each operand term gives a tuple, joined
          return boost::hana::unpack(
              boost::hana::flatten(boost::hana::make_tuple(operand_terms_<Rec, c.at[J]>(ops)...)),
              [](const auto&... x) { return call_record_<c.value>(x...); });
        } else {
          return call_record_<c.value>(expansion_term_<Rec, c.at[J]>(ops)...);
        }
      }
      (std::make_index_sequence<t.n>{});
      if constexpr (expansion_detail::keeps_written_name(constructs[Rec].family))
        made.leaf.record = static_cast<int>(Rec) + 1;
      return made;
    } else {
      static_assert(t.form == Term::call, "`$k...` can only be an operand of a name");
    }
  }
  /// The operands a term of an expansion text stands for, as a tuple: all written operands from
  /// the k-th on for `$k...`, else the one the term builds.
  template <std::size_t Rec, std::size_t At, class Ops>
  static constexpr auto operand_terms_(const Ops& ops) {
    constexpr ExpansionTerm t = expansion_detail::term_v<Rec, At>;
    if constexpr (t.form == ExpansionTerm::rest)
      return boost::hana::drop_front(ops, boost::hana::size_c<t.value - 1>);
    else
      return boost::hana::make_tuple(expansion_term_<Rec, At>(ops));
  }
  /// The text of record Rec's expansion from At, Len characters long.
  template <std::size_t Rec, std::size_t At, std::size_t Len>
  static constexpr Str text_of_() {
    Str text;
    text.p = constructs[Rec].expansion.data() + At;
    text.len = Len;
    return text;
  }
  /// A shape function named in record Rec's expansion text (at At, Len characters), as
  /// AUTOSPLIT_SHAPEFN_APPLY takes it: its name and its address.
  template <std::size_t Rec, std::size_t At, std::size_t Len>
  static constexpr auto shape_function_() {
    constexpr std::string_view name = constructs[Rec].expansion.substr(At, Len);
#define OPTGRAMMAR_SHAPE_FUNCTION_TERM_(F)                      \
  if constexpr (name == #F)                                     \
    return fn_node(text_of_<Rec, At, Len>(), &::optgrammar::F); \
  else
    OPTGRAMMAR_SHAPE_FUNCTIONS(OPTGRAMMAR_SHAPE_FUNCTION_TERM_)
#undef OPTGRAMMAR_SHAPE_FUNCTION_TERM_
    static_assert(Rec != Rec, "an expansion text names a function that is not a shape function");
  }
  /// A name of an expansion text applied to its operands: another name defined by expansion, Op
  /// or LET (a string first), AUTOSPLIT_SHAPEFN_APPLY (a shape function, then a split tag),
  /// AUTOSPLIT (a split tag second), WITH_SPLIT_HISTORY, MESSAGE (its text first), or a construct
  /// of a regular form (its node made as its word makes it).
  template <std::size_t Rec, class... A>
  static constexpr auto call_record_(const A&... a) {
    constexpr Family f = constructs[Rec].family;
    if constexpr (!constructs[Rec].expansion.empty() && (word_form(f) == WordForm::own || typing_of(f).regular())) {
      return expand_<Rec>(a...);
    } else if constexpr (f == Family::Op) {
      return Op(a...);
    } else if constexpr (f == Family::LET) {
      return LET(a...);
    } else if constexpr (word_form(f) == WordForm::named) {
      return Node<expansion_detail::family_kind(f)>{detail::leaf_of(a...)};  // OPTION_UINT("tile_height")
    } else if constexpr (f == Family::AUTOSPLIT_SHAPEFN_APPLY) {
      return [](const auto& fn, Str tag, const auto&... rest) {
        return AUTOSPLIT_SHAPEFN_APPLY_(fn.leaf.str, fn.fn, tag, rest...);
      }(a...);
    } else if constexpr (f == Family::AUTOSPLIT) {
      return AUTOSPLIT(a...);
    } else if constexpr (f == Family::WITH_SPLIT_HISTORY) {
      return WITH_SPLIT_HISTORY(a...);
    } else if constexpr (f == Family::MESSAGE) {
      return MESSAGE_(a...);  // MESSAGE_IF's: its text is a written operand
    } else {
      static_assert(word_form(f) != WordForm::own,
                    "an expansion text may only name Op, LET, AUTOSPLIT, AUTOSPLIT_SHAPEFN_APPLY, WITH_SPLIT_HISTORY, "
                    "MESSAGE and constructs of a regular form");
      return detail::make<expansion_detail::family_kind(f)>(a...);
    }
  }

  template <class F>
  static constexpr auto fn_node(Str name, F fn) {
    FnNode<F> n;
    n.leaf.str = name;
    n.fn = fn;
    return n;
  }

  /// A named value that is a rule node (TILE_HEIGHT, DO_BIG_WIDTH_SPLIT): an empty value whose
  /// node, its record's expansion, is built by detail::to_node where a rule uses it, so that a
  /// translation unit pays only for the named values its rules write.
  template <std::size_t Rec>
  struct named_node {
    using lazy_named_value = void;
    static constexpr auto node() { return expand_<Rec>(); }
  };
  /// The member of `words` for record Rec's named value: a number (CHANNEL_SPLIT_SIZE is 256,
  /// usable in C++ arithmetic as the framework's macro is), or a named_node.
  template <std::size_t Rec>
  static constexpr auto named_value_word() {
    if constexpr (expansion_detail::term_v<Rec, 0>.form == ExpansionTerm::integer)
      return expand_<Rec>();
    else
      return named_node<Rec>{};
  }
};

// The framework's rule header defines the named values as object-like macros, and packages
// define some of them again (`#define TILE_HEIGHT 8`), at times before they include these
// headers. Such a macro would turn the declaration below into `static constexpr auto 8 = ...`:
// each name is saved, undefined for the declaration and restored after it, so that the
// package's macro still stands wherever its rules write the name. A preprocessor directive
// cannot be made by a macro, so the names are written here again; the count is checked below.
#pragma push_macro("CHANNEL_SPLIT_SIZE")
#pragma push_macro("MIN_CHANNEL_SPLIT_SIZE")
#pragma push_macro("MIN_WIDTH")
#pragma push_macro("TILE_HEIGHT")
#pragma push_macro("TCM_MAXTENSOR_SIZE")
#pragma push_macro("TCM_MAXTENSOR_HALF_SIZE")
#pragma push_macro("MAX_DIMENSIONS")
#pragma push_macro("CAN_FINE_SPLIT")
#pragma push_macro("BIG_WIDTH_SIZE")
#pragma push_macro("DO_BIG_WIDTH_SPLIT")
#pragma push_macro("AUTOTHREAD_ENABLED")
#pragma push_macro("SHOULD_AUTOTHREAD")
#pragma push_macro("SHOULD_AUTOTHREAD_UNARY")
#undef CHANNEL_SPLIT_SIZE
#undef MIN_CHANNEL_SPLIT_SIZE
#undef MIN_WIDTH
#undef TILE_HEIGHT
#undef TCM_MAXTENSOR_SIZE
#undef TCM_MAXTENSOR_HALF_SIZE
#undef MAX_DIMENSIONS
#undef CAN_FINE_SPLIT
#undef BIG_WIDTH_SIZE
#undef DO_BIG_WIDTH_SPLIT
#undef AUTOTHREAD_ENABLED
#undef SHOULD_AUTOTHREAD
#undef SHOULD_AUTOTHREAD_UNARY

/// The vocabulary visible inside DEF_PACKAGE_OPTIMIZATION. Every member builds a rule node;
/// the grammar reference in docs/ says what each construct means. The named values
/// (dsl/grammar.hpp's OPTGRAMMAR_NAMED_VALUES) are built from their records' texts where a rule
/// uses them (named_value_word), once the words they are made of are complete.
struct words : word_functions {
#define OPTGRAMMAR_NAMED_VALUE_WORD_(N, TEXT) \
  static constexpr auto N = named_value_word<grammar_detail::expanded_record(grammar_detail::expanded_##N)>();
  OPTGRAMMAR_NAMED_VALUES(OPTGRAMMAR_NAMED_VALUE_WORD_)
#undef OPTGRAMMAR_NAMED_VALUE_WORD_
};

#define OPTGRAMMAR_NAMED_VALUE_COUNT_(N, TEXT) +1
static_assert(0 OPTGRAMMAR_NAMED_VALUES(OPTGRAMMAR_NAMED_VALUE_COUNT_) == 13,
              "a named value was added to OPTGRAMMAR_NAMED_VALUES: save, undefine and restore its "
              "name around `words` above, as the others are");
#undef OPTGRAMMAR_NAMED_VALUE_COUNT_

#pragma pop_macro("CHANNEL_SPLIT_SIZE")
#pragma pop_macro("MIN_CHANNEL_SPLIT_SIZE")
#pragma pop_macro("MIN_WIDTH")
#pragma pop_macro("TILE_HEIGHT")
#pragma pop_macro("TCM_MAXTENSOR_SIZE")
#pragma pop_macro("TCM_MAXTENSOR_HALF_SIZE")
#pragma pop_macro("MAX_DIMENSIONS")
#pragma pop_macro("CAN_FINE_SPLIT")
#pragma pop_macro("BIG_WIDTH_SIZE")
#pragma pop_macro("DO_BIG_WIDTH_SPLIT")
#pragma pop_macro("AUTOTHREAD_ENABLED")
#pragma pop_macro("SHOULD_AUTOTHREAD")
#pragma pop_macro("SHOULD_AUTOTHREAD_UNARY")

}  // namespace optgrammar::dsl
