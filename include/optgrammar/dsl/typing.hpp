// The typing of the regular construct families, read from the typing column of the construct
// table (dsl/grammar.hpp), and the operand faults derived from it: one function types a
// construct from its operands' types, one words the fault when it does not type. Both front ends
// call them (the C++ front end per rule node in dsl/node.hpp and dsl/check.hpp, og-parse in its
// checker), so that a regular family is typed and its operand faults are worded in one place.
// Plain code on the standard library only.
#pragma once

#include "optgrammar/dsl/grammar.hpp"
#include "optgrammar/dsl/messages.hpp"
#include "optgrammar/dsl/str.hpp"

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace optgrammar::dsl {

/// Value types of constraint expressions, plus the kinds of replacement values.
enum class VType : unsigned char {
  Bool,
  Int,
  Size,
  Float,
  DType,
  OpRef,     ///< an existing opref: a tag, INPUT_OF, OUTPUT_OF, or a SELECT of those
  OpBuild,   ///< an Op construction
  Shape,     ///< a shape construction
  NewConst,  ///< a constant made by a gen_Const* construct
  Repl,      ///< a replacement value of mixed kind (a SELECT of different kinds)
  Match,     ///< a match pattern (Op/OpVarIn/LET in a match)
  Text,      ///< a string operand that is not an opref (split tags, option names)
  Bad,       ///< ill-typed: analysis reports why
};

constexpr std::string_view vtype_name(VType t) { return value_type_words[static_cast<std::size_t>(t)]; }
static_assert(sizeof(value_type_words) / sizeof(value_type_words[0]) == static_cast<std::size_t>(VType::Bad) + 1);
constexpr bool is_integral(VType t) { return t == VType::Int || t == VType::Size; }
constexpr bool is_numeric(VType t) { return is_integral(t) || t == VType::Float || t == VType::Bool; }
constexpr bool is_scalar(VType t) { return is_numeric(t) || t == VType::DType; }
constexpr bool is_repl(VType t) {
  return t == VType::OpRef || t == VType::OpBuild || t == VType::Shape || t == VType::NewConst || t == VType::Repl;
}

/// C's usual arithmetic conversions on our types: float wins, then size, then int (bool is int).
constexpr VType promote(VType a, VType b) {
  if (a == VType::Float || b == VType::Float) return VType::Float;
  if (a == VType::Size || b == VType::Size) return VType::Size;
  return VType::Int;
}

/// What an operand of a regular family must be (the typing column's operand words).
enum class OperandKind : unsigned char {
  boolean,      ///< bool
  number,       ///< int, size or float: arithmetic (a bool is not a number)
  numeric,      ///< bool, int, size or float
  integral,     ///< int or size
  scalar,       ///< bool, int, size, float or dtype
  comparable,   ///< a scalar; a dtype only with a dtype (EQ, NE)
  dtype_code,   ///< int, size or dtype (what DTYPE converts)
  opref,        ///< an existing opref: an operand tag, INPUT_OF, OUTPUT_OF or a SELECT of those
  option_name,  ///< a string the construct keeps: a graph option's name (not a typed operand)
  split_tag,    ///< a string the construct keeps: the tag of an enclosing AUTOSPLIT/OP_ITER
};
static_assert(sizeof(operand_kind_words) / sizeof(operand_kind_words[0]) ==
              static_cast<std::size_t>(OperandKind::split_tag) + 1);

/// How a regular family's result type follows from its operands (the typing column's first word).
enum class ResultRule : unsigned char {
  code,  ///< not a regular family: typed by code of its own in each front end
  bool_,
  int_,
  size,
  float_,
  dtype,
  opref,     ///< that type
  shape,     ///< a shape construction
  constant,  ///< a constant construction
  common,    ///< the common type of the operands (promote; a bool counts as int)
};

/// A family's typing: its result rule and the kinds of its written operands, in order; the last
/// kind also stands for any further operands (the families of form nary).
struct Typing {
  ResultRule result = ResultRule::code;
  OperandKind kinds[4] = {};
  unsigned char n_kinds = 0;

  constexpr bool regular() const { return result != ResultRule::code; }
  /// The kind of written operand i.
  constexpr OperandKind kind(std::size_t i) const { return kinds[i < n_kinds ? i : n_kinds - 1u]; }
  /// Leading operands that are strings the construct keeps, not typed operands.
  constexpr std::size_t names() const {
    std::size_t k = 0;
    while (k < n_kinds && (kinds[k] == OperandKind::option_name || kinds[k] == OperandKind::split_tag)) ++k;
    return k;
  }
};

namespace typing_detail {
constexpr Typing typed(ResultRule r, std::initializer_list<OperandKind> k) {
  Typing t{r, {}, 0};
  for (OperandKind x : k) t.kinds[t.n_kinds++] = x;
  return t;
}
// The words of the typing column.
inline constexpr OperandKind boolean = OperandKind::boolean, number = OperandKind::number,
                             numeric = OperandKind::numeric, integral = OperandKind::integral,
                             scalar = OperandKind::scalar, comparable = OperandKind::comparable,
                             dtype_code = OperandKind::dtype_code, opref = OperandKind::opref,
                             option_name = OperandKind::option_name, split_tag = OperandKind::split_tag;
}  // namespace typing_detail

/// Reading the typing column: `typed(R, K...)` and `code`.
#define OPTGRAMMAR_TYPING_typed(r, ...) \
  ::optgrammar::dsl::typing_detail::typed(::optgrammar::dsl::ResultRule::r, {__VA_ARGS__})
#define OPTGRAMMAR_TYPING_code \
  ::optgrammar::dsl::Typing {}

namespace typing_detail {
inline constexpr Typing family_typings[] = {
#define OPTGRAMMAR_FAMILY_TYPING_(F, T, K, W, Y) OPTGRAMMAR_TYPING_##Y,
    OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_FAMILY_TYPING_)
#undef OPTGRAMMAR_FAMILY_TYPING_
};
}  // namespace typing_detail

/// The typing column of a family.
constexpr const Typing& typing_of(Family f) noexcept {
  return typing_detail::family_typings[static_cast<std::size_t>(f)];
}

/// A regular family's typing agrees with its form: one string kind for `named`, one operand
/// kind for `unary`, `nary` and `variadic` (the kind of every operand), two for `binary`, three for
/// `fixed3`, four for `fixed4`; strings only before the typed operands. A record that breaks
/// this does not compile.
constexpr bool typing_fits_form(Family f) {
  const Typing& t = typing_of(f);
  if (!t.regular()) return true;
  const std::size_t names = t.names();
  for (std::size_t i = names; i < t.n_kinds; ++i)
    if (t.kinds[i] == OperandKind::option_name || t.kinds[i] == OperandKind::split_tag) return false;
  switch (word_form(f)) {
    case WordForm::named: return names == 1 && t.n_kinds == 1;
    case WordForm::unary:
    case WordForm::nary:
    case WordForm::variadic: return names == 0 && t.n_kinds == 1;
    case WordForm::binary: return names == 0 && t.n_kinds == 2;
    case WordForm::fixed3: return names == 0 && t.n_kinds == 3;
    case WordForm::fixed4: return names == 0 && t.n_kinds == 4;
    default: return false;
  }
}
static_assert(
    [] {
      for (std::size_t i = 0; i < sizeof(typing_detail::family_typings) / sizeof(typing_detail::family_typings[0]); ++i)
        if (!typing_fits_form(static_cast<Family>(i))) return false;
      return true;
    }(),
    "a regular family's typing column does not fit its form column (dsl/grammar.hpp)");

/// Whether a value of type `t` may be an operand of kind `k`.
constexpr bool admits(OperandKind k, VType t) {
  switch (k) {
    case OperandKind::boolean: return t == VType::Bool;
    case OperandKind::number: return t != VType::Bool && is_numeric(t);
    case OperandKind::numeric: return is_numeric(t);
    case OperandKind::integral: return is_integral(t);
    case OperandKind::scalar:
    case OperandKind::comparable: return is_scalar(t);
    case OperandKind::dtype_code: return is_integral(t) || t == VType::DType;
    case OperandKind::opref: return t == VType::OpRef;
    case OperandKind::option_name:
    case OperandKind::split_tag: return false;  // kept by the construct: never a typed operand
  }
  return false;
}

/// The type a result rule gives whatever the operands' types (VType::Bad for `common` and `code`).
constexpr VType fixed_result(ResultRule r) {
  switch (r) {
    case ResultRule::bool_: return VType::Bool;
    case ResultRule::int_: return VType::Int;
    case ResultRule::size: return VType::Size;
    case ResultRule::float_: return VType::Float;
    case ResultRule::dtype: return VType::DType;
    case ResultRule::opref: return VType::OpRef;
    case ResultRule::shape: return VType::Shape;
    case ResultRule::constant: return VType::NewConst;
    case ResultRule::common:
    case ResultRule::code: break;
  }
  return VType::Bad;
}

/// The typing of a construct of a regular family from its typed operands' types (the written
/// operands after the strings it keeps): its type, or the fault that is reported for it and the
/// operand it is about.
struct TypeVerdict {
  static constexpr std::size_t whole = static_cast<std::size_t>(-1);
  VType type = VType::Bad;
  Fault fault = Fault::none;
  std::size_t operand = whole;             ///< the typed operand the fault concerns (0-based), or whole
  std::size_t other = 0;                   ///< dtype_compare: the operand compared with the dtype
  OperandKind want = OperandKind::scalar;  ///< operand_type: what the operand must be
};

/// Types a construct of a regular family. The faults are chosen in this order: no typed operand
/// at all (needs_operand); a bool operand
/// that is not bool (needs_bool); a dtype where no dtype is allowed (dtype_use), or compared with
/// something else (dtype_compare); in a family of integral operands only, an operand that is not
/// integral (needs_integral); an opref operand that is not an opref (needs_opref), or an opref or
/// construction where a value is wanted (opref_as_value); then, for a comparison of scalars,
/// cannot_compare, and for any other family the first operand its kind does not admit
/// (operand_type).
constexpr TypeVerdict type_operands(const Typing& t, const VType* a, std::size_t n) {
  TypeVerdict v;
  auto fault = [&](Fault f, std::size_t i) {
    v.fault = f;
    v.operand = i;
    return v;
  };
  const std::size_t skip = t.names();
  // a variadic family with no typed operand at all (the other forms are written with theirs)
  if (n == 0 && skip < t.n_kinds) return fault(Fault::needs_operand, TypeVerdict::whole);
  auto kind = [&](std::size_t i) { return t.kind(skip + i); };
  bool ok = true, any_dtype = false, all_dtype = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] == VType::Bad) return v;  // an ill-typed operand: the fault is the operand's
    ok = ok && admits(kind(i), a[i]);
    if (kind(i) == OperandKind::comparable) {
      any_dtype = any_dtype || a[i] == VType::DType;
      all_dtype = all_dtype && a[i] == VType::DType;
    }
  }
  if (ok && (!any_dtype || all_dtype)) {
    v.type = fixed_result(t.result);
    if (t.result == ResultRule::common) {
      VType r = n > 0 ? a[0] : VType::Int;
      for (std::size_t i = 1; i < n; ++i) r = promote(r, a[i]);
      v.type = r == VType::Bool ? VType::Int : r;
    }
    return v;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (kind(i) == OperandKind::boolean && a[i] != VType::Bool) return fault(Fault::needs_bool, i);
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != VType::DType) continue;
    if (kind(i) == OperandKind::comparable) {
      v.other = 0;
      while (v.other < n && a[v.other] == VType::DType) ++v.other;
      return fault(Fault::dtype_compare, TypeVerdict::whole);
    }
    if (!admits(kind(i), VType::DType)) return fault(Fault::dtype_use, i);
  }
  bool all_integral = n > 0;
  for (std::size_t i = 0; i < n; ++i) all_integral = all_integral && kind(i) == OperandKind::integral;
  if (all_integral)
    for (std::size_t i = 0; i < n; ++i)
      if (!is_integral(a[i])) return fault(Fault::needs_integral, i);
  bool compares = t.result == ResultRule::bool_ && n > 0;
  for (std::size_t i = 0; i < n; ++i) {
    const OperandKind k = kind(i);
    if (k == OperandKind::opref && a[i] != VType::OpRef) return fault(Fault::needs_opref, i);
    if (k != OperandKind::opref && !is_scalar(a[i]) && a[i] != VType::Text) return fault(Fault::opref_as_value, i);
    compares = compares && (k == OperandKind::numeric || k == OperandKind::comparable);
  }
  if (compares) return fault(Fault::cannot_compare, TypeVerdict::whole);
  for (std::size_t i = 0; i < n; ++i)
    if (!admits(kind(i), a[i])) {
      v.want = kind(i);
      return fault(Fault::operand_type, i);
    }
  return fault(Fault::wrong_operand_types, TypeVerdict::whole);
}

/// Calls `report(fault, args, n_args)` with the arguments of the catalogue text (dsl/messages.hpp)
/// of a verdict's fault, for the construct `name` with typed operands of types a[0..n).
template <class Report>
constexpr void report_type_fault(const TypeVerdict& v, std::string_view name, const VType* a, std::size_t n,
                                 Report&& report) {
  const std::size_t i = v.operand;
  switch (v.fault) {
    case Fault::needs_bool:
    case Fault::needs_integral:
    case Fault::needs_opref: {
      const MessageArg args[] = {name, i + 1, vtype_name(a[i])};
      return report(v.fault, args, 3);
    }
    case Fault::opref_as_value: {
      const MessageArg args[] = {name, i + 1, a[i] == VType::OpRef ? std::string_view("an opref") : vtype_name(a[i])};
      return report(v.fault, args, 3);
    }
    case Fault::needs_operand: {
      const MessageArg args[] = {name};
      return report(v.fault, args, 1);
    }
    case Fault::dtype_use: {
      const MessageArg args[] = {name, i + 1};
      return report(v.fault, args, 2);
    }
    case Fault::dtype_compare: {
      const MessageArg args[] = {name, vtype_name(a[v.other < n ? v.other : 0])};
      return report(v.fault, args, 2);
    }
    case Fault::operand_type: {
      const MessageArg args[] = {name, ordinal_word(i), operand_kind_words[static_cast<std::size_t>(v.want)],
                                 vtype_name(a[i])};
      return report(v.fault, args, 4);
    }
    case Fault::cannot_compare: {
      const MessageArg args[] = {name, vtype_name(a[0]), vtype_name(a[n > 1 ? 1 : 0])};
      return report(v.fault, args, 3);
    }
    default: {
      Message types;
      for (std::size_t k = 0; k < n; ++k) types << (k ? ", " : "") << vtype_name(a[k]);
      const MessageArg args[] = {name, types.view()};
      return report(Fault::wrong_operand_types, args, 2);
    }
  }
}

}  // namespace optgrammar::dsl
