// Rule nodes: one generic node template, tagged by the construct it stands for.
//
// Every construct of the grammar (`Op`, `LET`, `AND`, `DIM_OF`, `WITH_SIZE`, ...) is a
// `Node<Kind, Children...>`; its children live in a boost::hana::tuple. Each node type carries
// its static facts as constants computed from its children's (value type, whether it is an Op
// construction or a shape construction); value facts (strings, numbers) live in `leaf`.
#pragma once

#include "optgrammar/core/dtype.hpp"
#include "optgrammar/dsl/grammar.hpp"
#include "optgrammar/dsl/messages.hpp"
#include "optgrammar/dsl/str.hpp"
#include "optgrammar/dsl/typing.hpp"

#include <boost/hana/tuple.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <string_view>
#include <type_traits>

namespace optgrammar::dsl {

/// The kinds of rule nodes: the leaves, which are values as written (a string, a number, a
/// function name, MESSAGE's text) or a misapplied name (it only ever fails analysis), then one kind per construct
/// family of dsl/grammar.hpp that makes nodes of its own (its `node(K)` column), in the table's order.
enum class Kind : unsigned char {
  Tag,
  Bool,
  Int,
  Size,
  Float,
  DTypeConst,
  FnName,
  MessageText,
  Misapplied,  ///< a name defined by expansion, written with operands its typing rejects, or an Op
               ///< or OpVarIn whose op name is no string constant (words.hpp's misnamed)
#define OPTGRAMMAR_KIND_ENUM_(F, T, K, W, Y) OPTGRAMMAR_NODE_ENUM_##K
  OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_KIND_ENUM_)
#undef OPTGRAMMAR_KIND_ENUM_
      Count_
};

/// The construct's name in the grammar's words, for messages and the canonical form: a
/// family's name as written for the construct kinds.
constexpr std::string_view kind_name(Kind k) {
  constexpr std::string_view names[] = {"operand tag",
                                        "bool constant",
                                        "int constant",
                                        "size constant",
                                        "float constant",
                                        "dtype constant",
                                        "function name",
                                        "message text",
                                        "misapplied construct",
#define OPTGRAMMAR_KIND_NAME_(F, T, K, W, Y) OPTGRAMMAR_NODE_IF_##K(#F)
                                        OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_KIND_NAME_)
#undef OPTGRAMMAR_KIND_NAME_
  };
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(Kind::Count_));
  return names[static_cast<std::size_t>(k)];
}

/// The family of a construct kind (the kinds after the leaves, one per `node(K)` of the table).
inline constexpr Family kind_families[] = {
#define OPTGRAMMAR_KIND_FAMILY_(F, T, K, W, Y) OPTGRAMMAR_NODE_IF_##K(Family::F)
    OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_KIND_FAMILY_)
#undef OPTGRAMMAR_KIND_FAMILY_
};
inline constexpr std::size_t first_construct_kind = static_cast<std::size_t>(Kind::Misapplied) + 1;
static_assert(first_construct_kind + sizeof(kind_families) / sizeof(kind_families[0]) ==
              static_cast<std::size_t>(Kind::Count_));
inline constexpr Typing leaf_typing{};
/// The typing column of a kind's family; `code` for the leaves.
constexpr const Typing& typing_of(Kind k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  return i < first_construct_kind ? leaf_typing : typing_of(kind_families[i - first_construct_kind]);
}

/// Constructs that read the output definition (shape, type, encoding) of the op their first
/// operand names.
constexpr bool reads_outdef(Kind k) {
  return k == Kind::RankOf || k == Kind::DimOf || k == Kind::StepsizeOf || k == Kind::DTypeOf ||
         k == Kind::ElementsizeOf || k == Kind::ZeroOffsetOf || k == Kind::DataSize;
}
/// Constructs that read the constant data of the op their first operand names (and its output
/// definition, for the element count and type).
constexpr bool reads_constval(Kind k) {
  return k == Kind::ConstvalInt || k == Kind::ConstvalIntValid || k == Kind::ConstvalFloat ||
         k == Kind::ConstvalFloatValid;
}

/// Constructs that read the uses of the op their first operand names (its `$Out` readers, or
/// PRODUCER_FOR's consumers).
constexpr bool reads_uses(Kind k) { return k == Kind::OutputOf || k == Kind::OutputsOf || k == Kind::ProducerFor; }

/// Value facts of a node: strings and numbers as written, and slots filled by analysis.
struct Leaf {
  Str str;                ///< op name, operand tag, option name or split tag
  long long i = 0;        ///< integer constant (also bool and dtype constants)
  int record = 0;         ///< the record (dsl/grammar.hpp) + 1 of the name written whose expansion made the
                          ///< node, else 0; Misapplied: the record + 1 of the name misapplied, or
                          ///< -1 - the Kind of an Op or OpVarIn whose op name is no string
  double f = 0;           ///< float constant, already rounded to float
  int slot = -1;          ///< tags: binding slot (0 is "*"); split variables: context index
  int index = -1;         ///< Op nodes: index of the interned op name in the rule's name table
  bool first = false;     ///< match tags and LETs: the occurrence that binds the slot
  bool wildcard = false;  ///< match tags: "*" as an operand, matches anything and binds nothing
  bool may_star = false;  ///< the value may be the tag "*": a "*" tag, or a SELECT with such a branch
};

template <Kind K, class... C>
struct Node;

template <class T>
struct is_node : std::false_type {};
template <Kind K, class... C>
struct is_node<Node<K, C...>> : std::true_type {};

namespace detail {
/// Typing of one construct from its operands' types: a regular family by its typing column
/// (dsl/typing.hpp), the others by their case below. Kinds whose typing depends on a value
/// (`"*"` as a replacement, ROUNDUP's constant) are finished by analysis.
constexpr VType type_of(Kind k, const VType* a, std::size_t n) {
  if (const Typing& t = typing_of(k); t.regular()) return type_operands(t, a, n).type;
  auto all = [&](auto pred) {
    for (std::size_t i = 0; i < n; ++i)
      if (!pred(a[i])) return false;
    return true;
  };
  auto any_bad = [&] {
    for (std::size_t i = 0; i < n; ++i)
      if (a[i] == VType::Bad) return true;
    return false;
  };
  if (any_bad()) return VType::Bad;
  auto modified = [](VType last) { return last == VType::OpBuild || last == VType::NewConst ? last : VType::Bad; };
  switch (k) {
    // Op(...) is both a match pattern and an Op construction; it is the latter while all its
    // operands are replacement values, a pattern once one of them is a LET or OpVarIn.
    case Kind::Op:
      if (all(is_repl)) return VType::OpBuild;
      return all([](VType t) { return t == VType::OpRef || t == VType::OpBuild || t == VType::Match; }) ? VType::Match
                                                                                                        : VType::Bad;
    case Kind::OpVarIn:
      return all([](VType t) { return t == VType::OpRef || t == VType::OpBuild || t == VType::Match; }) ? VType::Match
                                                                                                        : VType::Bad;
    case Kind::Let: return n == 1 && (a[0] == VType::Match || a[0] == VType::OpBuild) ? VType::Match : VType::Bad;
    case Kind::Tag: return VType::OpRef;
    case Kind::Bool: return VType::Bool;
    case Kind::Int: return VType::Int;
    case Kind::Size: return VType::Size;
    case Kind::Float: return VType::Float;
    case Kind::DTypeConst: return VType::DType;
    case Kind::LayoutChunksize: return VType::Size;
    case Kind::Select: {
      if (a[0] != VType::Bool) return VType::Bad;
      VType x = a[1], y = a[2];
      if (x == y && x != VType::Match && x != VType::Text) return x;
      // Numbers mix as in C; a bool mixes only with a bool (as og-parse types it: no bool in
      // arithmetic, and a SELECT between a number and a bool is one or the other).
      if (is_numeric(x) && is_numeric(y) && (x == VType::Bool) == (y == VType::Bool)) return promote(x, y);
      if (is_repl(x) && is_repl(y)) return x == VType::OpBuild || y == VType::OpBuild ? VType::OpBuild : VType::Repl;
      return VType::Bad;
    }
    case Kind::WrapOp:
    case Kind::WrapOpAlways: return is_repl(a[0]) ? VType::OpBuild : VType::Bad;
    case Kind::GenShapeOf: return a[0] == VType::OpRef || a[0] == VType::Shape ? VType::Shape : VType::Bad;
    case Kind::Autosplit: return is_integral(a[0]) && is_integral(a[2]) && is_repl(a[3]) ? VType::OpBuild : VType::Bad;
    case Kind::OpIter:
      return is_repl(a[0]) && is_integral(a[2]) && is_integral(a[3]) && is_repl(a[4]) ? VType::OpBuild : VType::Bad;
    case Kind::IterInputOf: return a[0] == VType::OpRef ? VType::OpRef : VType::Bad;
    // IS_OP and PRODUCER_FOR: an existing opref (the op name is the node's string).
    case Kind::IsOp:
    case Kind::ProducerFor: return n == 1 && a[0] == VType::OpRef ? VType::Bool : VType::Bad;
    // WITH_SIZE's first operand: anything but an Op construction that has a shape, an existing
    // opref, a shape construction or a SELECT of those (Repl: a SELECT with no Op construction).
    // The modifiers' last operand: an Op construction, or a constant construction (a "should" of
    // the grammar that the SDK's own examples break: the constant made gets the output), which
    // the modifier keeps.
    case Kind::WithSize:
      return (a[0] == VType::OpRef || a[0] == VType::Shape || a[0] == VType::Repl) ? modified(a[1]) : VType::Bad;
    // WITH_TYPE of an Op construction: only a *_SLICE name's expansion makes it (its operand built
    // where the expansion uses it); analysis refuses it written (check.hpp).
    case Kind::WithType: return a[0] == VType::OpRef || a[0] == VType::OpBuild ? modified(a[1]) : VType::Bad;
    case Kind::WithSameOutput:
    case Kind::WithSameId: return a[0] == VType::OpRef ? modified(a[1]) : VType::Bad;
    case Kind::WithSplitHistory:
      if (n == 2) return a[0] == VType::OpRef ? modified(a[1]) : VType::Bad;
      return a[0] == VType::OpRef && is_integral(a[1]) ? modified(a[2]) : VType::Bad;
    case Kind::WithOutputType:
      return a[0] == VType::DType && is_integral(a[1]) && is_numeric(a[2]) && a[2] != VType::Bool ? modified(a[3])
                                                                                                  : VType::Bad;
    case Kind::WithMultiOut: return is_integral(a[0]) && a[1] == VType::OpBuild ? VType::OpBuild : VType::Bad;
    case Kind::ResizeDim: return is_integral(a[0]) && is_integral(a[1]) ? modified(a[2]) : VType::Bad;
    // External functions: the function-name operand's vtype is the function's result kind; the
    // arguments are checked against its parameters by analysis (check.hpp), which names them.
    case Kind::ExternalConstraint: return n >= 2 && is_numeric(a[0]) && a[1] == VType::OpRef ? a[0] : VType::Bad;
    case Kind::ExternalReplace: return n == 1 && a[0] == VType::Shape ? VType::OpBuild : VType::Bad;
    case Kind::ShapefnApply:
    case Kind::AutosplitShapefnApply: return n >= 1 && a[0] == VType::Shape ? VType::Shape : VType::Bad;
    case Kind::TypicalConvSlice:
      return n >= 1 && a[0] == VType::OpRef && all([](VType t) { return t == VType::OpRef || is_numeric(t); })
                 ? VType::OpBuild
                 : VType::Bad;
    case Kind::Message: return VType::Bool;
    case Kind::FnName: return VType::Text;
    case Kind::MessageText: return VType::Text;
    default: break;  // the regular families, typed above
  }
  return VType::Bad;
}
}  // namespace detail

/// How the words of the names defined by expansion (dsl/grammar.hpp's OPTGRAMMAR_EXPANSION_RECORDS)
/// build their nodes, read alike by the C++ front end's words (dsl/words.hpp) and og-parse.
namespace expansion_detail {
/// The operands of record Rec's expansion that reach a place taking a string (the name of Op or
/// OpVarIn, the tag of LET, MESSAGE's text, the split tag of AUTOSPLIT and
/// AUTOSPLIT_SHAPEFN_APPLY), as bits (bit k: `$k`).
constexpr unsigned long long string_operands(std::string_view text, std::size_t at = 0) {
  const ExpansionTerm t = expansion_term(text, at);
  if (t.form != ExpansionTerm::call) return 0;
  const Family f = constructs[t.value].family;
  const std::size_t place = f == Family::Op || f == Family::OpVarIn || f == Family::LET || f == Family::MESSAGE ? 0
                            : f == Family::AUTOSPLIT_SHAPEFN_APPLY || f == Family::AUTOSPLIT                    ? 1
                                                                                                                : t.n;
  unsigned long long bits = 0;
  for (std::size_t j = 0; j < t.n; ++j) {
    const ExpansionTerm o = expansion_term(text, t.at[j]);
    if (j == place && o.form == ExpansionTerm::operand) bits |= 1ull << o.value;
    bits |= string_operands(text, t.at[j]);
  }
  return bits;
}
/// Whether the nodes an expansion of a name of family f makes keep the name written (its record
/// + 1 in `leaf.record`), for the messages about them: the families typed by code of each front end
/// whose expansion is a node (OPCONST, the *_SLICE names, OpMultiOut). The operands written keep
/// their own names.
constexpr bool keeps_written_name(Family f) {
  return !typing_of(f).regular() && f != Family::EXPANDED && f != Family::FROM_DEFAULT_PACKAGE &&
         f != Family::NAMED_VALUE;
}

/// The node kind of a family that makes nodes.
constexpr Kind family_kind(Family f) {
  for (std::size_t i = 0; i < sizeof(kind_families) / sizeof(kind_families[0]); ++i)
    if (kind_families[i] == f) return static_cast<Kind>(first_construct_kind + i);
  throw "this family makes no nodes";
}
/// Whether a name defined by expansion (its record `rec`), written with n operands of types a, is
/// built as its expansion; else it is a Misapplied node, which the checker reports under the name
/// written (its operand count, or the fault its family's typing gives).
constexpr bool expands(const Construct& rec, const VType* a, std::size_t n) {
  if (n < rec.min_args || n > rec.max_args) return false;
  const Typing& t = typing_of(rec.family);
  if (!t.regular()) return true;
  const TypeVerdict v = type_operands(t, a, n);
  return v.type != VType::Bad || v.fault == Fault::none;
}
}  // namespace expansion_detail

/// A rule node. `leaf` holds value facts; `kids` the operands, in the order written.
template <Kind K, class... C>
struct Node {
  static constexpr Kind kind = K;
  static constexpr std::size_t arity = sizeof...(C);
  using children = boost::mp11::mp_list<C...>;
  /// The nodes of its subtree, and the external functions among them (the flat form's sizes).
  static constexpr std::size_t tree_size = (std::size_t{1} + ... + C::tree_size);
  static constexpr std::size_t fn_count = (std::size_t{0} + ... + C::fn_count);
  /// The value type from the operands' static facts (Bad when ill-typed).
  static constexpr VType vtype = [] {
    constexpr VType kids[] = {C::vtype..., VType::Bad};
    return detail::type_of(K, kids, sizeof...(C));
  }();

  Leaf leaf{};
  boost::hana::tuple<C...> kids{};
};

}  // namespace optgrammar::dsl
