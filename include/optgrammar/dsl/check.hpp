// Compile-time analysis of a rule: binds tags to slots, interns op-name indices, and checks the
// grammar's typing and restrictions. The first problem found becomes the one compile error.
#pragma once

#include "optgrammar/dsl/node.hpp"
#include "optgrammar/dsl/words.hpp"

#include <boost/hana/for_each.hpp>
#include <boost/mp11/algorithm.hpp>

#include <string_view>

namespace optgrammar::dsl {

inline constexpr int max_tags = 32;
inline constexpr int max_names = 32;
inline constexpr int max_splits = 8;

/// What analysis learned about a rule, and the first problem it found.
struct Analysis {
  bool ok = true;
  Message msg;            ///< the error, when !ok
  bool warn_nested_split = false;  ///< AUTOSPLIT nested inside an Op operand (allowed, warned)
  Str tags[max_tags];     ///< slot → tag; slot 0 is "*", the matched root
  bool bound[max_tags]{};
  int n_tags = 1;
  Str names[max_names];   ///< op names used by the rule, interned at registration
  int n_names = 0;
  Str lets[max_tags];
  int n_lets = 0;
  Str splits[max_splits]; ///< split tags of AUTOSPLIT/OP_ITER, in order
  int n_splits = 0;
  Str scope[max_splits];  ///< split tags whose last operand we are inside
  int split_uses[max_splits]{};
  int depth = 0;
  std::string_view file;
  int line = 0;

  constexpr Message& fail() {
    ok = false;
    msg = Message{};
    msg << "rule at " << file_base_name(file) << ":" << line << ": ";
    return msg;
  }
  constexpr int find_tag(std::string_view t) const {
    for (int i = 0; i < n_tags; ++i)
      if (tags[i] == t) return i;
    return -1;
  }
  constexpr int name_index(const Str& s) {
    for (int i = 0; i < n_names; ++i)
      if (names[i] == s) return i;
    if (n_names == max_names) {
      fail() << "more than 32 distinct op names in one rule";
      return 0;
    }
    names[n_names] = s;
    return n_names++;
  }
};

namespace detail {
constexpr bool star(const Str& s) { return s == std::string_view("*"); }

/// Strings of the grammar: non-empty, printable, no space, quote or backslash.
constexpr bool check_string(Analysis& a, const Str& s, std::string_view what) {
  if (!a.ok) return false;
  if (s.len == 0) {
    a.fail() << "empty string as " << what;
    return false;
  }
  for (char c : s.view()) {
    std::string_view bad = c == ' ' ? "a space" : c == '"' ? "a quote" : c == '\\' ? "a backslash"
                         : (c < 0x21 || c > 0x7e) ? "an unprintable character" : "";
    if (!bad.empty()) {
      a.fail() << what << " \"" << s.view() << "\" contains " << bad;
      return false;
    }
  }
  return true;
}

template <class N>
constexpr VType kid_vtype(std::size_t i) {
  VType r = VType::Bad;
  std::size_t k = 0;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, typename N::children>>(
      [&](auto t) {
        if (k++ == i) r = decltype(t)::type::vtype;
      });
  return r;
}

/// The message for a node whose own typing failed (its operands are well-typed).
template <class N>
constexpr void type_error(Analysis& a) {
  constexpr Kind k = N::kind;
  constexpr std::size_t n = N::arity;
  auto kid = [](std::size_t i) { return kid_vtype<N>(i); };
  Message& m = a.fail();
  std::string_view name = kind_name(k);
  // Modifiers: the grammar's operand kinds.
  if (k == Kind::WithSize || k == Kind::WithType || k == Kind::WithSameOutput || k == Kind::WithSameId ||
      k == Kind::WithSplitHistory) {
    if (kid(0) == VType::OpBuild) {
      m << name << "'s first operand must be an existing opref" << (k == Kind::WithSize ? " or a shape construction" : "")
        << ", not an Op construction";
      return;
    }
    if (k == Kind::WithSize ? (kid(0) != VType::OpRef && kid(0) != VType::Shape && kid(0) != VType::Repl)
                            : kid(0) != VType::OpRef) {
      m << name << "'s first operand must be an existing opref" << (k == Kind::WithSize ? " or a shape construction" : "")
        << ", not " << vtype_name(kid(0));
      return;
    }
    if (k == Kind::WithSplitHistory && n == 3 && !is_integral(kid(1))) {
      m << "WITH_SPLIT_HISTORY's second operand must be an integer constant, not " << vtype_name(kid(1));
      return;
    }
    m << name << "'s last operand must be an Op construction, not " << vtype_name(kid(n - 1));
    return;
  }
  if (k == Kind::WithOutputType) {
    if (kid(0) != VType::DType) { m << "WITH_OUTPUT_TYPE's first operand must be a dtype, not " << vtype_name(kid(0)); return; }
    if (!is_integral(kid(1))) { m << "WITH_OUTPUT_TYPE's second operand (zero offset) must be int, not " << vtype_name(kid(1)); return; }
    if (!is_numeric(kid(2)) || kid(2) == VType::Bool) { m << "WITH_OUTPUT_TYPE's third operand (step size) must be float, not " << vtype_name(kid(2)); return; }
    m << "WITH_OUTPUT_TYPE's last operand must be an Op construction, not " << vtype_name(kid(3));
    return;
  }
  if (k == Kind::WithMultiOut || k == Kind::ResizeDim) {
    constexpr std::string_view what[] = {"first", "second"};
    for (std::size_t i = 0; i + 1 < n; ++i)
      if (!is_integral(kid(i))) {
        m << name << "'s " << what[i] << " operand must be int or size, not " << vtype_name(kid(i));
        return;
      }
    m << name << "'s last operand must be an Op construction, not " << vtype_name(kid(n - 1));
    return;
  }
  if ((k == Kind::GenShape || k == Kind::GenConstArrValsI32) && n == 0) {
    m << name << " needs at least one operand";
    return;
  }
  if (k == Kind::Op || k == Kind::OpVarIn) {
    for (std::size_t i = 0; i < n; ++i)
      if (!is_repl(kid(i)) && kid(i) != VType::Match) {
        m << name << "'s operand " << (i + 2) << " is a " << vtype_name(kid(i))
          << " expression, but an operand must be an operand tag, an opref or a construction";
        return;
      }
    m << "LET and OpVarIn belong in a match, not in an Op construction of the replacement";
    return;
  }
  if (k == Kind::Let) {
    m << "LET's second operand must be Op(...) or OpVarIn(...)";
    return;
  }
  if (k == Kind::Select) {
    if (kid(0) != VType::Bool) { m << "SELECT's condition must be bool, not " << vtype_name(kid(0)); return; }
    m << "SELECT's second and third operands have incompatible types " << vtype_name(kid(1)) << " and " << vtype_name(kid(2));
    return;
  }
  if (k == Kind::Not || k == Kind::And || k == Kind::Or || k == Kind::Xor) {
    for (std::size_t i = 0; i < n; ++i)
      if (kid(i) != VType::Bool) { m << name << " needs bool operands, but operand " << (i + 1) << " is " << vtype_name(kid(i)); return; }
  }
  // dtype is limited to EQ/NE/SELECT/INT/DTYPE_OF.
  for (std::size_t i = 0; i < n; ++i)
    if (kid(i) == VType::DType) {
      if (k == Kind::Eq || k == Kind::Ne)
        m << name << " compares a dtype with " << vtype_name(kid(1 - i)) << " (a dtype can only be compared with a dtype)";
      else
        m << "a dtype can only be used with EQ, NE, SELECT, INT and DTYPE_OF, not as operand " << (i + 1) << " of " << name;
      return;
    }
  if (k == Kind::IsPow2 || k == Kind::Roundup) {
    for (std::size_t i = 0; i < n; ++i)
      if (!is_integral(kid(i))) { m << name << " takes int or size operands, but operand " << (i + 1) << " is " << vtype_name(kid(i)); return; }
  }
  for (std::size_t i = 0; i < n; ++i) {
    VType t = kid(i);
    bool wants_ref = (i == 0) && (k == Kind::InputOf || k == Kind::OutputOf || k == Kind::RankOf || k == Kind::DimOf ||
                                  k == Kind::StepsizeOf || k == Kind::DTypeOf || k == Kind::ElementsizeOf ||
                                  k == Kind::InputsOf || k == Kind::OutputsOf || k == Kind::ZeroOffsetOf ||
                                  k == Kind::SameEncoding || k == Kind::SameOp || k == Kind::ConstvalInt ||
                                  k == Kind::ConstvalIntValid || k == Kind::ConstvalFloat ||
                                  k == Kind::ConstvalFloatValid || k == Kind::GenShapeOf || k == Kind::IterInputOf);
    if (k == Kind::SameEncoding || k == Kind::SameOp) wants_ref = true;
    if (wants_ref && t != VType::OpRef) {
      m << name << "'s operand " << (i + 1) << " must be an operand tag or opref, not " << vtype_name(t);
      return;
    }
    if (!wants_ref && (t == VType::OpRef || t == VType::OpBuild || t == VType::Match || t == VType::Shape ||
                       t == VType::NewConst || t == VType::Repl)) {
      m << name << "'s operand " << (i + 1) << " is " << (t == VType::OpRef ? "an opref" : vtype_name(t))
        << " where a value is expected";
      return;
    }
  }
  if (k == Kind::Lt || k == Kind::Gt || k == Kind::Le || k == Kind::Ge || k == Kind::Eq || k == Kind::Ne) {
    m << name << " cannot compare " << vtype_name(kid(0)) << " with " << vtype_name(kid(1));
    return;
  }
  m << name << " is applied to operands of the wrong type (";
  for (std::size_t i = 0; i < n; ++i) m << (i ? ", " : "") << vtype_name(kid(i));
  m << ")";
}

// ---- the match --------------------------------------------------------------------------------
template <class N>
constexpr void walk_match(N& node, Analysis& a, bool root, const Str* outer_lets, int n_outer) {
  if (!a.ok) return;
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::Tag) {
    if (!check_string(a, node.leaf.str, "operand tag")) return;
    for (int i = 0; i < n_outer; ++i)
      if (outer_lets[i] == node.leaf.str) {
        a.fail() << "tag \"" << node.leaf.str.view() << "\" appears inside its own LET";
        return;
      }
    if (star(node.leaf.str)) {
      node.leaf.wildcard = true;
      return;
    }
    int s = a.find_tag(node.leaf.str.view());
    if (s < 0) {
      if (a.n_tags == max_tags) { a.fail() << "more than 31 tags in one match"; return; }
      s = a.n_tags++;
      a.tags[s] = node.leaf.str;
      a.bound[s] = true;
      node.leaf.first = true;
    }
    node.leaf.slot = s;
  } else if constexpr (k == Kind::Op || k == Kind::OpVarIn) {
    if (!check_string(a, node.leaf.str, "op name")) return;
    node.leaf.index = a.name_index(node.leaf.str);
    boost::hana::for_each(node.kids, [&](auto& kid) { walk_match(kid, a, false, outer_lets, n_outer); });
  } else if constexpr (k == Kind::Let) {
    const Str& t = node.leaf.str;
    if (!check_string(a, t, "LET tag")) return;
    if (root) { a.fail() << "LET(\"" << t.view() << "\", ...) is the root of the match; LET may only wrap an inner Op"; return; }
    if (star(t)) { a.fail() << "LET cannot bind the tag \"*\", which names the matched op"; return; }
    for (int i = 0; i < a.n_lets; ++i)
      if (a.lets[i] == t) { a.fail() << "tag \"" << t.view() << "\" is the first operand of two LETs"; return; }
    for (int i = 0; i < n_outer; ++i)
      if (outer_lets[i] == t) { a.fail() << "tag \"" << t.view() << "\" appears inside its own LET"; return; }
    a.lets[a.n_lets++] = t;
    Str inner[max_tags];
    for (int i = 0; i < n_outer; ++i) inner[i] = outer_lets[i];
    inner[n_outer] = t;
    using K0 = boost::mp11::mp_front<typename N::children>;
    if constexpr (K0::kind != Kind::Op && K0::kind != Kind::OpVarIn) {
      a.fail() << "LET(\"" << t.view() << "\", ...) must wrap Op(...) or OpVarIn(...), not " << kind_name(K0::kind);
      return;
    } else {
      walk_match(boost::hana::at_c<0>(node.kids), a, false, inner, n_outer + 1);
      if (!a.ok) return;
      int s = a.find_tag(t.view());
      if (s < 0) {
        if (a.n_tags == max_tags) { a.fail() << "more than 31 tags in one match"; return; }
        s = a.n_tags++;
        a.tags[s] = t;
        a.bound[s] = true;
        node.leaf.first = true;
      }
      node.leaf.slot = s;
    }
  } else {
    a.fail() << kind_name(k) << " cannot appear in a match (match operands are operand tags, Op, OpVarIn and LET)";
  }
}

// ---- constraint expressions and replacements ----------------------------------------------------
enum class Where { Constraint, Replacement };

/// True when a replacement may evaluate to "*" (directly or through SELECTs).
template <class N>
constexpr bool may_be_star(const N& node) {
  if constexpr (N::kind == Kind::Tag) {
    return star(node.leaf.str);
  } else if constexpr (N::kind == Kind::Select) {
    return may_be_star(boost::hana::at_c<1>(node.kids)) || may_be_star(boost::hana::at_c<2>(node.kids));
  } else {
    return false;
  }
}

constexpr bool is_split_var(Kind k) {
  return k == Kind::SplitDim || k == Kind::SplitStart || k == Kind::SplitSize || k == Kind::IterVar ||
         k == Kind::IterInputOf || k == Kind::AutosplitShapefnApply || k == Kind::TypicalConvSlice;
}
constexpr bool is_external(Kind k) {
  return k == Kind::ExternalConstraint || k == Kind::ExternalReplace || k == Kind::ShapefnApply ||
         k == Kind::AutosplitShapefnApply;
}

/// Checks an external function's signature and the rule's arguments against its parameters.
template <class N>
constexpr void check_external(const N& node, Analysis& a) {
  constexpr Kind k = N::kind;
  using FnN = boost::mp11::mp_front<typename N::children>;
  using F = typename FnN::fn_type;
  using T = fn_traits<F>;
  const auto& fnode = boost::hana::at_c<0>(node.kids);
  std::string_view name = fnode.leaf.str.view();
  std::string_view what = kind_name(k);
  if constexpr (!T::is_fn) {
    a.fail() << what << "(" << name << ", ...): " << name << " is not a function";
    return;
  } else {
    using R = typename T::result;
    using P = typename T::params;
    constexpr std::size_t np = boost::mp11::mp_size<P>::value;
    // Framework parameters first: how many, and which types.
    constexpr std::size_t lead = k == Kind::ExternalConstraint ? 1 : k == Kind::AutosplitShapefnApply ? 2 : 1;
    if constexpr (np < lead) {
      a.fail() << what << "(" << name << ", ...): " << name << " has too few parameters for " << what;
      return;
    } else {
      using P0 = boost::mp11::mp_at_c<P, 0>;
      if constexpr (k == Kind::ExternalConstraint) {
        if constexpr (!std::is_same_v<std::remove_cvref_t<P0>, ::optgrammar::Constraint> || !std::is_reference_v<P0>) {
          a.fail() << what << "(" << name << ", ...): the first parameter of " << name << " must be Constraint&";
          return;
        }
      } else if constexpr (!std::is_same_v<P0, ::optgrammar::Replacement&>) {
        a.fail() << what << "(" << name << ", ...): the first parameter of " << name << " must be Replacement&";
        return;
      }
      if constexpr (k == Kind::AutosplitShapefnApply) {
        using P1 = boost::mp11::mp_at_c<P, 1>;
        if constexpr (!std::is_same_v<P1, const ::optgrammar::Split_Context&>) {
          a.fail() << what << "(" << name << ", ...): the second parameter of " << name << " must be Split_Context const&";
          return;
        }
      }
      if constexpr (k == Kind::ExternalReplace) {
        if constexpr (np != 2 || !std::is_same_v<R, ::optgrammar::OpRef> ||
                      param_kind<boost::mp11::mp_at_c<P, 1>>() != ParamKind::OpDef) {
          a.fail() << "EXTERNAL_REPLACE(" << name << "): " << name << " must be OpRef " << name
                   << "(Replacement&, OpDef const&)";
        }
        return;
      } else {
        if constexpr (k == Kind::ExternalConstraint) {
          if constexpr (FnN::vtype != VType::Bool && FnN::vtype != VType::Int && FnN::vtype != VType::Size &&
                        FnN::vtype != VType::Float) {
            a.fail() << what << "(" << name << ", ...): " << name << " must return bool, an integer or a float";
            return;
          }
        } else if constexpr (!std::is_same_v<R, ::optgrammar::OpRef> && !std::is_same_v<R, ::optgrammar::QuickShape>) {
          a.fail() << what << "(" << name << ", ...): " << name << " must return OpRef or QuickShape";
          return;
        }
        // The rule's arguments after the function (EXTERNAL_CONSTRAINT: its tag is the OpRef after
        // Constraint&) against the remaining parameters.
        constexpr std::size_t nargs = N::arity - 1;
        if constexpr (nargs != np - lead) {
          a.fail() << what << "(" << name << ", ...) passes " << nargs << " argument" << (nargs == 1 ? "" : "s")
                   << " but " << name << " takes " << (np - lead) << " after its framework parameters";
          return;
        } else {
          bool ok = true;
          boost::mp11::mp_for_each<boost::mp11::mp_iota_c<nargs>>([&](auto I) {
            if (!ok) return;
            constexpr std::size_t i = decltype(I)::value;
            constexpr ParamKind pk = param_kind<boost::mp11::mp_at_c<P, lead + i>>();
            constexpr VType vt = boost::mp11::mp_at_c<typename N::children, i + 1>::vtype;
            if (!accepts(pk, vt)) {
              ok = false;
              a.fail() << what << "(" << name << ", ...): argument " << (i + 1) << " is "
                       << (vt == VType::OpRef ? std::string_view("an opref") : vtype_name(vt)) << " but parameter "
                       << (lead + i + 1) << " of " << name << " is " << param_kind_name(pk);
            }
          });
        }
      }
    }
  }
}
constexpr bool is_modifier(Kind k) {
  return k == Kind::WithSize || k == Kind::WithType || k == Kind::WithSameOutput || k == Kind::WithOutputType ||
         k == Kind::WithMultiOut || k == Kind::ResizeDim || k == Kind::WithSameId || k == Kind::WithSplitHistory;
}

template <class N>
constexpr void walk_expr(N& node, Analysis& a, Where w, bool at_root, bool in_op_operand);

template <std::size_t I, class N>
constexpr void walk_kid(N& node, Analysis& a, Where w, bool at_root, bool in_op_operand) {
  walk_expr(boost::hana::at_c<I>(node.kids), a, w, at_root, in_op_operand);
}

template <class N>
constexpr void walk_split(N& node, Analysis& a, Where w, bool at_root, bool in_op_operand) {
  constexpr Kind k = N::kind;
  const Str& t = node.leaf.str;
  if (!check_string(a, t, "split tag")) return;
  if (w == Where::Constraint) {
    a.fail() << kind_name(k) << " cannot appear in a constraint (it is a replacement construct)";
    return;
  }
  if (k == Kind::Autosplit && !at_root && !in_op_operand) {
    a.fail() << "AUTOSPLIT may only be the root of a replacement or inside a SELECT at the root";
    return;
  }
#if defined(OPTGRAMMAR_STRICT)
  if (k == Kind::Autosplit && !at_root) {
    a.fail() << "AUTOSPLIT nested inside an Op operand (strict mode: only at the root or in a root SELECT)";
    return;
  }
#endif
  if (k == Kind::Autosplit && !at_root) a.warn_nested_split = true;
  for (int i = 0; i < a.n_splits; ++i)
    if (a.splits[i] == t) {
      a.fail() << "split tag \"" << t.view() << "\" is used by two AUTOSPLIT/OP_ITER in one rule";
      return;
    }
  if (a.n_splits == max_splits) { a.fail() << "more than 8 AUTOSPLIT/OP_ITER in one rule"; return; }
  int idx = a.n_splits++;
  a.splits[idx] = t;
  node.leaf.slot = idx;
  constexpr std::size_t last = N::arity - 1;
  // Operands before the last are evaluated outside the split's scope (the tag operand is skipped).
  if constexpr (k == Kind::Autosplit) {
    walk_kid<0>(node, a, w, false, false);
    walk_kid<2>(node, a, w, false, false);
  } else {
    walk_kid<0>(node, a, w, false, false);
    walk_kid<2>(node, a, w, false, false);
    walk_kid<3>(node, a, w, false, false);
  }
  a.scope[a.depth++] = t;
  walk_kid<last>(node, a, w, false, false);
  --a.depth;
  if (a.ok && k == Kind::Autosplit && a.split_uses[idx] == 0)
    a.fail() << "AUTOSPLIT with split tag \"" << t.view() << "\" never refers to it in its last operand";
}

/// An operand WITH_SIZE may take its size from: an existing opref, a shape construction, or a
/// SELECT (of SELECTs) of those.
template <class N>
constexpr bool shape_source() {
  if constexpr (N::vtype == VType::OpRef || N::vtype == VType::Shape)
    return true;
  else if constexpr (N::kind == Kind::Select)
    return shape_source<boost::mp11::mp_at_c<typename N::children, 1>>() &&
           shape_source<boost::mp11::mp_at_c<typename N::children, 2>>();
  else
    return false;
}

template <class N>
constexpr void walk_expr(N& node, Analysis& a, Where w, bool at_root, bool in_op_operand) {
  if (!a.ok) return;
  constexpr Kind k = N::kind;
  std::string_view part = w == Where::Constraint ? "the constraint" : "the replacement";
  if constexpr (k == Kind::Tag) {
    const Str& t = node.leaf.str;
    if (!check_string(a, t, "operand tag")) return;
    if (star(t)) {
      node.leaf.slot = 0;
      return;
    }
    int s = a.find_tag(t.view());
    if (s < 0) {
      a.fail() << "tag \"" << t.view() << "\" is used in " << part << " but never bound by the match";
      return;
    }
    node.leaf.slot = s;
  } else if constexpr (k == Kind::Int) {
    // C gives 2147483648 type long; the grammar's int is 32 bits ('L' is ignored).
    if (node.leaf.i > 2147483647LL || node.leaf.i < -2147483647LL - 1)
      a.fail() << "integer constant " << node.leaf.i << " does not fit in int (add a U suffix for a size)";
  } else if constexpr (k == Kind::Let || k == Kind::OpVarIn) {
    a.fail() << kind_name(k) << " can only appear in a match, not in " << part;
  } else if constexpr (k == Kind::OptionInt || k == Kind::OptionUint || k == Kind::OptionBool || k == Kind::OptionFloat) {
    check_string(a, node.leaf.str, "option name");
  } else if constexpr (k == Kind::Autosplit || k == Kind::OpIter) {
    walk_split(node, a, w, at_root, in_op_operand);
  } else if constexpr (is_split_var(k)) {
    const Str& t = node.leaf.str;
    if (!check_string(a, t, "split tag")) return;
    for (int i = a.depth; i-- > 0;)
      if (a.scope[i] == t) {
        for (int j = 0; j < a.n_splits; ++j)
          if (a.splits[j] == t) {
            node.leaf.slot = j;
            ++a.split_uses[j];
          }
        if constexpr (k == Kind::IterInputOf) walk_kid<0>(node, a, w, false, false);
        if constexpr (k == Kind::AutosplitShapefnApply || k == Kind::TypicalConvSlice) {
          if (w == Where::Constraint) {
            a.fail() << kind_name(k) << " cannot appear in a constraint (it is a replacement construct)";
            return;
          }
          boost::hana::for_each(node.kids, [&](auto& kid) { walk_expr(kid, a, w, false, false); });
          if (!a.ok) return;
        }
        if constexpr (k == Kind::AutosplitShapefnApply) check_external(node, a);
        if constexpr (k == Kind::TypicalConvSlice) {
          if constexpr (N::vtype == VType::Bad && !N::operand_bad) {
            if constexpr (boost::mp11::mp_front<typename N::children>::vtype != VType::OpRef)
              a.fail() << "TYPICAL_CONV_SLICE's first operand must be an existing opref";
            else
              a.fail() << "TYPICAL_CONV_SLICE's operands after the split tag must be oprefs or int values";
          }
        }
        return;
      }
    a.fail() << kind_name(k) << "(\"" << t.view() << "\") must be inside the last operand of the AUTOSPLIT or OP_ITER with split tag \""
             << t.view() << "\"";
  } else {
    if constexpr (k == Kind::Op) {
      if (w == Where::Constraint) {
        a.fail() << "Op(\"" << node.leaf.str.view() << "\", ...) cannot appear in a constraint";
        return;
      }
      if (!check_string(a, node.leaf.str, "op name")) return;
      node.leaf.index = a.name_index(node.leaf.str);
    }
    if constexpr (k == Kind::WrapOp || k == Kind::WrapOpAlways) {
      if (!check_string(a, node.leaf.str, "op name")) return;
      node.leaf.index = a.name_index(node.leaf.str);
    }
    if (w == Where::Constraint && N::vtype != VType::Bad &&
        (N::vtype == VType::OpBuild || N::vtype == VType::Shape || N::vtype == VType::NewConst || is_modifier(k))) {
      a.fail() << kind_name(k) << " cannot appear in a constraint (it is a replacement construct)";
      return;
    }
    if constexpr (k == Kind::ExternalReplace) {
      if (!at_root) {
        a.fail() << "EXTERNAL_REPLACE(" << boost::hana::at_c<0>(node.kids).leaf.str.view()
                 << ") may only be the root of a replacement or inside a SELECT at the root";
        return;
      }
    }
    if constexpr (k == Kind::WithSize && N::arity == 2) {
      using From = boost::mp11::mp_front<typename N::children>;
      if constexpr (From::vtype == VType::Repl && !shape_source<From>()) {
        a.fail() << "WITH_SIZE's first operand must be an existing opref or a shape construction, not a SELECT "
                    "that can yield a constant";
        return;
      }
      // AUTOSPLIT_SLICE / TYPICAL_SLICE / CHANGEDIM_SLICE: their first operand an existing opref.
      using WT = boost::mp11::mp_at_c<typename N::children, 1>;
      if constexpr (WT::kind == Kind::WithType) {
        using In = boost::mp11::mp_front<typename WT::children>;
        if (node.leaf.str.len > 0 && In::vtype != VType::OpRef && In::vtype != VType::Bad) {
          a.fail() << node.leaf.str.view() << "'s first operand must be an existing opref, not "
                   << (In::vtype == VType::OpBuild ? std::string_view("an Op construction") : vtype_name(In::vtype));
          return;
        }
      }
    }
    if constexpr (k == Kind::LayoutChunksize) {
      if (!check_string(a, node.leaf.str, "tensor class name")) return;
    }
    // SELECT passes "root" to its branches; Op passes "inside an Op operand" to its operands.
    constexpr bool is_select = k == Kind::Select;
    std::size_t i = 0;
    boost::hana::for_each(node.kids, [&](auto& kid) {
      bool branch = is_select && i > 0;
      walk_expr(kid, a, w, at_root && branch, (k == Kind::Op) || (in_op_operand && branch));
      ++i;
    });
    if (!a.ok) return;
    if constexpr (is_external(k)) {
      check_external(node, a);
      if (!a.ok) return;
    }
    if constexpr (N::vtype == VType::Bad && !N::operand_bad) {
      type_error<N>(a);
      return;
    } else if constexpr (k == Kind::Roundup) {
      using K1 = boost::mp11::mp_at_c<typename N::children, 1>;
      if constexpr (K1::kind == Kind::Int || K1::kind == Kind::Size) {
        long long v = boost::hana::at_c<1>(node.kids).leaf.i;
        if (v <= 0 || (v & (v - 1)) != 0) a.fail() << "ROUNDUP's second operand must be a power of two, not " << v;
      }
    } else if constexpr (k == Kind::WithSplitHistory && N::arity == 3) {
      using K1 = boost::mp11::mp_at_c<typename N::children, 1>;
      if constexpr (K1::kind != Kind::Int && K1::kind != Kind::Size)
        a.fail() << "WITH_SPLIT_HISTORY's second operand must be an integer constant, not " << kind_name(K1::kind);
    }
  }
}
}  // namespace detail

/// A rule after analysis: the resolved trees, the pass, and what analysis found.
template <class M, class C, class R>
struct AnalyzedRule {
  Pass pass;
  M match;
  C constraint;
  R replacement;
  Analysis info;
  int flags_expr = 0;
};

namespace detail {
constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_ident(char c, bool first) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (!first && is_digit(c));
}

/// Checks a pass spec as written (the macro argument, stringized): `NAME` or `NAME + N` with N a
/// decimal constant without sign or suffix; `NAME - N` is accepted, as og-parse accepts it. The
/// same rules as og-parse, so that both front ends accept the same pass specs.
constexpr bool check_pass_text(Analysis& a, std::string_view t) {
  std::size_t i = 0;
  auto skip = [&] {
    while (i < t.size() && is_space(t[i])) ++i;
  };
  skip();
  const std::size_t name_at = i;
  if (i < t.size() && is_ident(t[i], true))
    while (i < t.size() && is_ident(t[i], false)) ++i;
  const std::string_view name = t.substr(name_at, i - name_at);
  if (name.empty()) {
    a.fail() << "the pass spec must be a pass name or NAME + N, not \"" << t << "\"";
    return false;
  }
  skip();
  if (i == t.size()) return true;
  if (t[i] == '+' || t[i] == '-') {
    ++i;
    skip();
    const std::size_t num_at = i;
    while (i < t.size() && !is_space(t[i]) && t[i] != '+' && t[i] != '-' && t[i] != '(' && t[i] != ')') ++i;
    const std::string_view num = t.substr(num_at, i - num_at);
    skip();
    if (!num.empty() && i == t.size()) {
      for (char c : num)
        if (!is_digit(c)) {
          a.fail() << "the pass offset '" << num << "' must be a decimal constant with no sign or suffix";
          return false;
        }
      if (num.size() > 1 && num[0] == '0') {
        a.fail() << "the pass offset '" << num << "' must be a decimal constant, not octal";
        return false;
      }
      if (num.size() > 6) {
        a.fail() << "the pass offset '" << num << "' is too large";
        return false;
      }
      return true;
    }
  }
  a.fail() << "the pass spec \"" << t << "\" must be a pass name or NAME + N (N a decimal constant)";
  return false;
}
}  // namespace detail

namespace detail {
/// Finds the first octal integer constant whose value is at least 8 (`010` is 8, which a reader
/// may take for ten) in rule text as written; the grammar asks for a warning on it. Returns an
/// empty message when there is none. Strings are skipped; `07`, `0x10`, `0.5` are not reported.
constexpr Message find_octal(std::string_view t, std::string_view file, int line) {
  Message m;
  std::size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {  // rule strings hold no quote or backslash
      for (++i; i < t.size() && t[i] != '"'; ++i) {}
      ++i;
    } else if (is_ident(c, true)) {
      while (i < t.size() && is_ident(t[i], false)) ++i;
    } else if (is_digit(c) || (c == '.' && i + 1 < t.size() && is_digit(t[i + 1]))) {
      // a preprocessing number: digits, letters, '.', digit separators, exponent signs
      const std::size_t at = i;
      bool is_float = false;
      while (i < t.size()) {
        const char d = t[i];
        if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') && i + 1 < t.size() && (t[i + 1] == '+' || t[i + 1] == '-')) {
          is_float = true;
          i += 2;
        } else if (is_ident(d, false) || d == '.' || d == '\'') {
          if (d == '.' || ((d == 'e' || d == 'E') && t[at + 1] != 'x' && t[at + 1] != 'X')) is_float = true;
          ++i;
        } else {
          break;
        }
      }
      const std::string_view num = t.substr(at, i - at);
      if (is_float || num.size() < 2 || num[0] != '0' || !(is_digit(num[1]) || num[1] == '\'')) continue;
      long long v = 0;
      for (char d : num.substr(1)) {
        if (d == '\'') continue;
        if (d < '0' || d > '7') break;
        v = v * 8 + (d - '0');
        if (v >= (1LL << 40)) break;
      }
      if (v >= 8) {
        m << "rule at " << file_base_name(file) << ":" << line << ": octal constant " << num << " has the value " << v
          << " (a leading 0 means octal)";
        return m;
      }
    } else {
      ++i;
    }
  }
  return m;
}
}  // namespace detail

/// Runs every check on a rule's parts; the first failure is kept in info.msg. `pass_text` is the
/// pass spec as written.
template <class M, class C, class R>
constexpr AnalyzedRule<M, C, R> analyze(Pass pass, std::string_view pass_text, M m, C c, R r, std::string_view file,
                                        int line) {
  AnalyzedRule<M, C, R> out{pass, m, c, r, {}, 0};
  Analysis& a = out.info;
  a.file = file;
  a.line = line;
  a.tags[0] = Str("*");
  a.bound[0] = true;
  if (!detail::check_pass_text(a, pass_text)) return out;
  if (!pass.known || pass.base < 0) {
    std::string_view name = pass_text;
    while (!name.empty() && detail::is_space(name.front())) name.remove_prefix(1);
    std::size_t n = 0;
    while (n < name.size() && detail::is_ident(name[n], n == 0)) ++n;
    a.fail() << "unknown pass name \"" << name.substr(0, n) << "\"";
    return out;
  }
  if constexpr (M::kind != Kind::Op && M::kind != Kind::OpVarIn) {
    if constexpr (M::kind == Kind::Let)
      a.fail() << "LET(\"" << out.match.leaf.str.view() << "\", ...) is the root of the match; LET may only wrap an inner Op";
    else
      a.fail() << "the match must be Op(...) or OpVarIn(...), not " << kind_name(M::kind);
    return out;
  } else {
    detail::walk_match(out.match, a, true, nullptr, 0);
  }
  detail::walk_expr(out.constraint, a, detail::Where::Constraint, false, false);
  if (a.ok && C::vtype != VType::Bool && C::vtype != VType::Bad)
    a.fail() << "the constraint must be bool, but it is " << vtype_name(C::vtype);
  if (!a.ok) return out;
  if (detail::may_be_star(out.replacement)) {
    a.fail() << "the replacement may not be \"*\" (or a SELECT that can yield \"*\"): the rule would replace the op by itself";
    return out;
  }
  detail::walk_expr(out.replacement, a, detail::Where::Replacement, true, false);
  if (a.ok && !is_repl(R::vtype) && R::vtype != VType::Bad && R::vtype != VType::Match)
    a.fail() << "the replacement must be an operand or a construction, not a " << vtype_name(R::vtype) << " expression";
  if (a.ok && R::vtype == VType::Match)
    a.fail() << "the replacement contains LET or OpVarIn, which belong in a match";
  return out;
}

}  // namespace optgrammar::dsl
