// Compile-time analysis of a rule: binds tags to slots, interns op-name indices, and checks the
// grammar's typing and restrictions. The first problem found becomes the one compile error.
#pragma once

#include "optgrammar/dsl/grammar.hpp"
#include "optgrammar/dsl/messages.hpp"
#include "optgrammar/dsl/node.hpp"
#include "optgrammar/dsl/words.hpp"

#include <boost/hana/for_each.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstdint>
#include <string_view>

namespace optgrammar::dsl {

inline constexpr int max_tags = 32;
inline constexpr int max_names = 32;
inline constexpr int max_splits = 8;

/// What analysis learned about a rule, and the first problem it found.
struct Analysis {
  bool ok = true;
  Fault fault = Fault::none;  ///< the family of the error, when !ok
  Message msg;            ///< the error, when !ok: "rule at x.cpp:12: " and the catalogue's text
  std::size_t prefix_len = 0;
  Message subject;        ///< the error's first slot: the offending tag or construct
  bool warn_nested_split = false;  ///< AUTOSPLIT nested inside an Op operand (allowed, warned)
  bool uses_autosplit = false;     ///< the replacement has an AUTOSPLIT
  /// The constraint or the replacement may read an op's uses (OUTPUT_OF, OUTPUTS_OF, or an
  /// external function, which may read anything): a change of readers can change its outcome.
  bool reads_uses = false;
  Str tags[max_tags];     ///< slot → tag; slot 0 is "*", the matched root
  int n_tags = 1;
  Str names[max_names];   ///< op names used by the rule, interned at registration
  int n_names = 0;
  Str lets[max_tags];
  int n_lets = 0;
  Str splits[max_splits]; ///< split tags of AUTOSPLIT/OP_ITER, in order
  int n_splits = 0;
  /// Slots (bit i: slot i) whose output definition, and whose constant data, the constraint
  /// reads through a tag: the engine looks these up once per attempt, before evaluating it.
  std::uint32_t reads_outdef = 0, reads_constval = 0;
  Str scope[max_splits];  ///< split tags whose last operand we are inside
  int split_uses[max_splits]{};
  int depth = 0;
  std::string_view file;
  int line = 0;

  /// Records the first problem: its family and its text from the catalogue (dsl/messages.hpp),
  /// the slots filled with `args` in order. The first argument is the subject (the offending tag
  /// or construct), which the compile error names.
  template <class... A>
  constexpr void fail(Fault f, const A&... args) {
    const MessageArg a[] = {MessageArg(args)..., MessageArg(std::string_view())};
    fail_with(f, a, sizeof...(A));
  }
  /// The same with the arguments in an array.
  constexpr void fail_with(Fault f, const MessageArg* args, std::size_t n) {
    if (!ok) return;
    ok = false;
    fault = f;
    msg = Message{};
    msg << "rule at " << file_base_name(file) << ":" << line << ": ";
    prefix_len = msg.len;
    format_message(msg, fault_text(f).text, args, n);
    subject = Message{};
    if (n > 0) args[0].write(subject);
  }
  /// The message without the "rule at file:line: " prefix.
  constexpr std::string_view text() const { return msg.view().substr(prefix_len); }
  constexpr int find_tag(std::string_view t) const {
    for (int i = 0; i < n_tags; ++i)
      if (tags[i] == t) return i;
    return -1;
  }
  constexpr int name_index(const Str& s) {
    for (int i = 0; i < n_names; ++i)
      if (names[i] == s) return i;
    if (n_names == max_names) {
      fail(Fault::too_many_op_names);
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
    a.fail(Fault::empty_string, what);
    return false;
  }
  for (char c : s.view()) {
    std::string_view bad = c == ' ' ? "a space" : c == '"' ? "a quote" : c == '\\' ? "a backslash"
                         : (c < 0x21 || c > 0x7e) ? "an unprintable character" : "";
    if (!bad.empty()) {
      a.fail(Fault::bad_string, what, s, bad);
      return false;
    }
  }
  return true;
}

/// The name a rule wrote for a node: the name defined by expansion whose text made it (its
/// record + 1 in `leaf.i`, which dsl/words.hpp sets on the nodes of OPCONST's, the *_SLICE
/// names' and OpMultiOut's expansions), or its construct's.
template <class N>
constexpr std::string_view written_name(const N& node) {
  if constexpr (N::kind == Kind::Let || N::kind == Kind::WithSize || N::kind == Kind::Op ||
                N::kind == Kind::AutosplitShapefnApply)
    if (node.leaf.i > 0) return constructs[static_cast<std::size_t>(node.leaf.i - 1)].name;
  return kind_name(N::kind);
}

/// The message for a node whose own typing failed (its operands are well-typed).
template <class N>
constexpr void type_error(Analysis& a, const Leaf& leaf) {
  constexpr Kind k = N::kind;
  constexpr std::size_t n = N::arity;
  // A name defined by expansion, misapplied: its operand count, or the fault its family's typing
  // gives, under the name as written (og-parse checks such a name the same way). Or an Op whose
  // op name is no string constant.
  if constexpr (k == Kind::Misapplied) {
    if (leaf.i < 0)  // Op or OpVarIn with a first operand that is no string (words.hpp's misnamed)
      return a.fail(Fault::op_name_not_string, kind_name(static_cast<Kind>(-1 - leaf.i)));
    const Construct& rec = constructs[static_cast<std::size_t>(leaf.i)];
    if (n < rec.min_args || n > rec.max_args)
      return a.fail(rec.max_args == any_count ? Fault::operand_count_at_least : Fault::operand_count, rec.name,
                    std::size_t{rec.min_args}, rec.min_args == 1 ? "" : "s", n);
    report_type_fault(type_operands(typing_of(rec.family), N::kid_vtypes, n), rec.name, N::kid_vtypes, n,
                      [&](Fault f, const MessageArg* args, std::size_t m) { a.fail_with(f, args, m); });
    return;
  }
  const std::string_view name = kind_name(k);
  // A regular family: the fault its typing column gives (dsl/typing.hpp, which og-parse calls too).
  if constexpr (typing_of(k).regular()) {
    report_type_fault(type_operands(typing_of(k), N::kid_vtypes, n), name, N::kid_vtypes, n,
                      [&](Fault f, const MessageArg* args, std::size_t m) { a.fail_with(f, args, m); });
    return;
  }
  auto kid = [](std::size_t i) { return N::kid_vtypes[i]; };
  auto last = [&] {
    a.fail(Fault::operand_type, name, "last", k == Kind::WithMultiOut ? "an Op construction" : "an Op or constant construction",
           vtype_name(kid(n - 1)));
  };
  // Modifiers: the grammar's operand kinds.
  if (k == Kind::WithSize || k == Kind::WithType || k == Kind::WithSameOutput || k == Kind::WithSameId ||
      k == Kind::WithSplitHistory) {
    const std::string_view want = k == Kind::WithSize ? "an existing opref or a shape construction" : "an existing opref";
    if (kid(0) == VType::OpBuild) return a.fail(Fault::operand_type, name, "first", want, "an Op construction");
    if (k == Kind::WithSize ? (kid(0) != VType::OpRef && kid(0) != VType::Shape && kid(0) != VType::Repl)
                            : kid(0) != VType::OpRef)
      return a.fail(Fault::operand_type, name, "first", want, vtype_name(kid(0)));
    if (k == Kind::WithSplitHistory && n == 3 && !is_integral(kid(1)))
      return a.fail(Fault::split_history_constant, vtype_name(kid(1)));
    return last();
  }
  if (k == Kind::WithOutputType) {
    if (kid(0) != VType::DType) return a.fail(Fault::operand_type, name, "first", "a dtype", vtype_name(kid(0)));
    if (!is_integral(kid(1))) return a.fail(Fault::operand_type, name, "second", "int (the zero offset)", vtype_name(kid(1)));
    if (!is_numeric(kid(2)) || kid(2) == VType::Bool)
      return a.fail(Fault::operand_type, name, "third", "float (the step size)", vtype_name(kid(2)));
    return last();
  }
  if (k == Kind::WithMultiOut || k == Kind::ResizeDim) {
    for (std::size_t i = 0; i + 1 < n; ++i)
      if (!is_integral(kid(i))) return a.fail(Fault::operand_type, name, ordinal_word(i), "int or size", vtype_name(kid(i)));
    return last();
  }
  if (k == Kind::Op || k == Kind::OpVarIn) {
    for (std::size_t i = 0; i < n; ++i)
      if (!is_repl(kid(i)) && kid(i) != VType::Match) return a.fail(Fault::op_operand_kind, name, i + 2, vtype_name(kid(i)));
    return a.fail(Fault::let_in_construction);
  }
  if (k == Kind::Let) return a.fail(Fault::let_second_operand);
  if (k == Kind::Select) {
    if (kid(0) != VType::Bool) return a.fail(Fault::select_condition, vtype_name(kid(0)));
    return a.fail(Fault::select_branches, vtype_name(kid(1)), vtype_name(kid(2)));
  }
  // dtype is limited to EQ/NE/SELECT/INT/DTYPE_OF.
  for (std::size_t i = 0; i < n; ++i)
    if (kid(i) == VType::DType) return a.fail(Fault::dtype_use, name, i + 1);
  for (std::size_t i = 0; i < n; ++i) {
    VType t = kid(i);
    const bool wants_ref =
        i == 0 && (k == Kind::GenShapeOf || k == Kind::IterInputOf || k == Kind::IsOp || k == Kind::ProducerFor);
    if (wants_ref && t != VType::OpRef) return a.fail(Fault::needs_opref, name, i + 1, vtype_name(t));
    if (!wants_ref && (t == VType::OpRef || t == VType::OpBuild || t == VType::Match || t == VType::Shape ||
                       t == VType::NewConst || t == VType::Repl))
      return a.fail(Fault::opref_as_value, name, i + 1, t == VType::OpRef ? std::string_view("an opref") : vtype_name(t));
  }
  Message types;
  for (std::size_t i = 0; i < n; ++i) types << (i ? ", " : "") << vtype_name(kid(i));
  a.fail(Fault::wrong_operand_types, name, types.view());
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
        a.fail(Fault::tag_inside_own_let, node.leaf.str);
        return;
      }
    if (star(node.leaf.str)) {
      node.leaf.wildcard = true;
      return;
    }
    int s = a.find_tag(node.leaf.str.view());
    if (s < 0) {
      if (a.n_tags == max_tags) return a.fail(Fault::too_many_tags);
      s = a.n_tags++;
      a.tags[s] = node.leaf.str;
      node.leaf.first = true;
    }
    node.leaf.slot = s;
  } else if constexpr (k == Kind::Op || k == Kind::OpVarIn) {
    // an op made by a name that has no place in a match (OpMultiOut; OPCONST's is in its place)
    if (node.leaf.i > 0 && !(constructs[static_cast<std::size_t>(node.leaf.i - 1)].places & in_match))
      return a.fail(root ? Fault::match_root : Fault::not_in_match, written_name(node));
    if (!check_string(a, node.leaf.str, "op name")) return;
    node.leaf.index = a.name_index(node.leaf.str);
    boost::hana::for_each(node.kids, [&](auto& kid) { walk_match(kid, a, false, outer_lets, n_outer); });
  } else if constexpr (k == Kind::Let) {
    const Str& t = node.leaf.str;
    if (!check_string(a, t, "LET tag")) return;
    if (root) return a.fail(Fault::let_at_root, t);
    if (star(t)) return a.fail(Fault::let_binds_star);
    for (int i = 0; i < a.n_lets; ++i)
      if (a.lets[i] == t) return a.fail(Fault::let_twice, t);
    for (int i = 0; i < n_outer; ++i)
      if (outer_lets[i] == t) return a.fail(Fault::tag_inside_own_let, t);
    a.lets[a.n_lets++] = t;
    Str inner[max_tags];
    for (int i = 0; i < n_outer; ++i) inner[i] = outer_lets[i];
    inner[n_outer] = t;
    using K0 = boost::mp11::mp_front<typename N::children>;
    if constexpr (K0::kind != Kind::Op && K0::kind != Kind::OpVarIn) {
      a.fail(Fault::let_operand, t, kind_name(K0::kind));
      return;
    } else {
      walk_match(boost::hana::at_c<0>(node.kids), a, false, inner, n_outer + 1);
      if (!a.ok) return;
      int s = a.find_tag(t.view());
      if (s < 0) {
        if (a.n_tags == max_tags) return a.fail(Fault::too_many_tags);
        s = a.n_tags++;
        a.tags[s] = t;
          node.leaf.first = true;
      }
      node.leaf.slot = s;
    }
  } else if constexpr (k == Kind::Misapplied) {
    type_error<N>(a, node.leaf);  // its own fault first (an Op with no string for its name, ...)
  } else {
    a.fail(Fault::not_in_match, written_name(node));
  }
}

// ---- constraint expressions and replacements ----------------------------------------------------
enum class Where { Constraint, Replacement };

/// Constructs that keep a string of the given kind (the typing column's option_name, split_tag).
constexpr bool keeps(Kind k, OperandKind what) {
  const Typing& t = typing_of(k);
  return t.regular() && t.names() > 0 && t.kinds[0] == what;
}
constexpr bool is_split_var(Kind k) {
  return keeps(k, OperandKind::split_tag) || k == Kind::IterInputOf || k == Kind::AutosplitShapefnApply ||
         k == Kind::TypicalConvSlice;
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
    a.fail(Fault::external_not_function, what, name, name);
    return;
  } else {
    using R = typename T::result;
    using P = typename T::params;
    constexpr std::size_t np = boost::mp11::mp_size<P>::value;
    // Framework parameters first: how many, and which types.
    constexpr std::size_t lead = k == Kind::ExternalConstraint ? 1 : k == Kind::AutosplitShapefnApply ? 2 : 1;
    if constexpr (np < lead) {
      a.fail(Fault::external_too_few_params, what, name, name, what);
      return;
    } else {
      using P0 = boost::mp11::mp_at_c<P, 0>;
      if constexpr (k == Kind::ExternalConstraint) {
        if constexpr (!std::is_same_v<std::remove_cvref_t<P0>, ::optgrammar::Constraint> || !std::is_reference_v<P0>) {
          a.fail(Fault::external_framework_param, what, name, "first", name, "Constraint&");
          return;
        }
      } else if constexpr (!std::is_same_v<P0, ::optgrammar::Replacement&>) {
        a.fail(Fault::external_framework_param, what, name, "first", name, "Replacement&");
        return;
      }
      if constexpr (k == Kind::AutosplitShapefnApply) {
        using P1 = boost::mp11::mp_at_c<P, 1>;
        if constexpr (!std::is_same_v<P1, const ::optgrammar::Split_Context&>) {
          a.fail(Fault::external_framework_param, what, name, "second", name, "Split_Context const&");
          return;
        }
      }
      if constexpr (k == Kind::ExternalReplace) {
        if constexpr (np != 2 || !std::is_same_v<R, ::optgrammar::OpRef> ||
                      param_kind<boost::mp11::mp_at_c<P, 1>>() != ParamKind::OpDef) {
          a.fail(Fault::external_replace_signature, name, name, name);
        }
        return;
      } else {
        if constexpr (k == Kind::ExternalConstraint) {
          if constexpr (FnN::vtype != VType::Bool && FnN::vtype != VType::Int && FnN::vtype != VType::Size &&
                        FnN::vtype != VType::Float) {
            a.fail(Fault::external_result, what, name, name, "bool, an integer or a float");
            return;
          }
        } else if constexpr (!std::is_same_v<R, ::optgrammar::OpRef> && !std::is_same_v<R, ::optgrammar::QuickShape>) {
          a.fail(Fault::external_result, what, name, name, "OpRef or QuickShape");
          return;
        }
        // The rule's arguments after the function (EXTERNAL_CONSTRAINT: its tag is the OpRef after
        // Constraint&) against the remaining parameters.
        constexpr std::size_t nargs = N::arity - 1;
        if constexpr (nargs != np - lead) {
          a.fail(Fault::external_arg_count, what, name, nargs, nargs == 1 ? "" : "s", name, np - lead);
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
              a.fail(Fault::external_arg_type, what, name, i + 1,
                     vt == VType::OpRef ? std::string_view("an opref") : vtype_name(vt), lead + i + 1, name,
                     param_kind_name(pk));
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
    a.fail(Fault::replacement_only, kind_name(k));
    return;
  }
  if (k == Kind::Autosplit && !at_root && !in_op_operand) {
    a.fail(Fault::autosplit_place);
    return;
  }
#if defined(OPTGRAMMAR_STRICT)
  if (k == Kind::Autosplit && !at_root) {
    a.fail(Fault::autosplit_nested_strict);
    return;
  }
#endif
  if (k == Kind::Autosplit && !at_root) a.warn_nested_split = true;
  if (k == Kind::Autosplit) a.uses_autosplit = true;
  for (int i = 0; i < a.n_splits; ++i)
    if (a.splits[i] == t) {
      a.fail(Fault::split_tag_twice, t);
      return;
    }
  if (a.n_splits == max_splits) return a.fail(Fault::too_many_splits);
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
    a.fail(Fault::split_tag_unused, t);
}

template <class N>
constexpr void walk_expr(N& node, Analysis& a, Where w, bool at_root, bool in_op_operand) {
  if (!a.ok) return;
  constexpr Kind k = N::kind;
  if constexpr (dsl::reads_uses(k) || is_external(k)) a.reads_uses = true;
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
      a.fail(Fault::tag_not_bound, t, part);
      return;
    }
    node.leaf.slot = s;
  } else if constexpr (k == Kind::Int) {
    // C gives 2147483648 type long; the grammar's int is 32 bits ('L' is ignored).
    if (node.leaf.i > 2147483647LL || node.leaf.i < -2147483647LL - 1)
      a.fail(Fault::integer_out_of_range, node.leaf.i);
  } else if constexpr (k == Kind::Let || k == Kind::OpVarIn) {
    a.fail(Fault::match_only, written_name(node), part);
  } else if constexpr (keeps(k, OperandKind::option_name)) {
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
            a.fail(Fault::replacement_only, kind_name(k));
            return;
          }
          boost::hana::for_each(node.kids, [&](auto& kid) { walk_expr(kid, a, w, false, false); });
          if (!a.ok) return;
        }
        if constexpr (k == Kind::AutosplitShapefnApply) check_external(node, a);
        if constexpr (k == Kind::TypicalConvSlice) {
          if constexpr (N::vtype == VType::Bad && !N::operand_bad) {
            if constexpr (boost::mp11::mp_front<typename N::children>::vtype != VType::OpRef)
              a.fail(Fault::typical_conv_operands, "first operand", "an existing opref");
            else
              a.fail(Fault::typical_conv_operands, "operands after the split tag", "oprefs or int values");
          }
        }
        return;
      }
    // (a node a *_SLICE name's expansion made is named as the rule wrote it)
    a.fail(Fault::split_var_scope, written_name(node), t, t);
  } else {
    if constexpr (k == Kind::Op) {
      if (w == Where::Constraint) {
        if (node.leaf.i > 0) a.fail(Fault::replacement_only, written_name(node));  // OpMultiOut
        else a.fail(Fault::op_in_constraint, node.leaf.str);
        return;
      }
      if (!check_string(a, node.leaf.str, "op name")) return;
      node.leaf.index = a.name_index(node.leaf.str);
    }
    if constexpr (k == Kind::WrapOp || k == Kind::WrapOpAlways || k == Kind::IsOp || k == Kind::ProducerFor) {
      if (!check_string(a, node.leaf.str, "op name")) return;
      node.leaf.index = a.name_index(node.leaf.str);
    }
    if (w == Where::Constraint && N::vtype != VType::Bad &&
        (N::vtype == VType::OpBuild || N::vtype == VType::Shape || N::vtype == VType::NewConst || is_modifier(k))) {
      a.fail(Fault::replacement_only, written_name(node));
      return;
    }
    if constexpr (k == Kind::ExternalReplace) {
      if (!at_root) {
        a.fail(Fault::external_replace_place, boost::hana::at_c<0>(node.kids).leaf.str);
        return;
      }
    }
#if defined(OPTGRAMMAR_STRICT)
    if constexpr (is_modifier(k)) {
      if constexpr (boost::mp11::mp_back<typename N::children>::vtype == VType::NewConst) {
        a.fail(Fault::modifier_constant_strict, kind_name(k));
        return;
      }
    }
#endif
    if constexpr (k == Kind::WithSize && N::arity == 2) {
      using From = boost::mp11::mp_front<typename N::children>;
      if constexpr (From::vtype == VType::Repl && !From::shape_source) {
        a.fail(Fault::with_size_select_const);
        return;
      }
      // AUTOSPLIT_SLICE / TYPICAL_SLICE / CHANGEDIM_SLICE: their first operand an existing opref,
      // or (a "should" that shipped packages break, as CAST_TO_FP16 of a tag) an Op construction.
      using WT = boost::mp11::mp_at_c<typename N::children, 1>;
      if constexpr (WT::kind == Kind::WithType) {
        using In = boost::mp11::mp_front<typename WT::children>;
        if (node.leaf.i > 0 && In::vtype == VType::OpBuild) {
#if defined(OPTGRAMMAR_STRICT)
          a.fail(Fault::slice_operand_strict, written_name(node));
          return;
#endif
        } else if (node.leaf.i > 0 && In::vtype != VType::OpRef && In::vtype != VType::Bad) {
          a.fail(Fault::operand_type, written_name(node), "first", "an existing opref", vtype_name(In::vtype));
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
    // WITH_TYPE of an Op construction is typed for the *_SLICE names' expansions (leaf.i set), not
    // for a rule to write.
    if constexpr (k == Kind::WithType) {
      if (boost::mp11::mp_front<typename N::children>::vtype == VType::OpBuild && node.leaf.i == 0) {
        a.fail(Fault::operand_type, kind_name(k), "first", "an existing opref", "an Op construction");
        return;
      }
    }
    if constexpr (dsl::reads_outdef(k) || dsl::reads_constval(k)) {
      if constexpr (boost::mp11::mp_front<typename N::children>::kind == Kind::Tag) {
        if (w == Where::Constraint) {
          const auto bit = std::uint32_t{1} << boost::hana::at_c<0>(node.kids).leaf.slot;
          a.reads_outdef |= bit;
          if (dsl::reads_constval(k)) a.reads_constval |= bit;
        }
      }
    }
    if constexpr (is_external(k)) {
      check_external(node, a);
      if (!a.ok) return;
    }
    if constexpr (N::vtype == VType::Bad && !N::operand_bad) {
      type_error<N>(a, node.leaf);
      return;
    } else if constexpr (k == Kind::Roundup) {
      using K1 = boost::mp11::mp_at_c<typename N::children, 1>;
      if constexpr (K1::kind == Kind::Int || K1::kind == Kind::Size) {
        long long v = boost::hana::at_c<1>(node.kids).leaf.i;
        if (v <= 0 || (v & (v - 1)) != 0) a.fail(Fault::roundup_pow2, v);
      }
    } else if constexpr (k == Kind::WithSplitHistory && N::arity == 3) {
      using K1 = boost::mp11::mp_at_c<typename N::children, 1>;
      if constexpr (K1::kind != Kind::Int && K1::kind != Kind::Size)
        a.fail(Fault::split_history_constant, kind_name(K1::kind));
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
    a.fail(Fault::pass_spec_form, t);
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
          a.fail(Fault::pass_offset_form, num);
          return false;
        }
      if (num.size() > 1 && num[0] == '0') {
        a.fail(Fault::pass_offset_octal, num);
        return false;
      }
      if (num.size() > 6) {
        a.fail(Fault::pass_offset_too_large, num);
        return false;
      }
      return true;
    }
  }
  a.fail(Fault::pass_spec_form, t);
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
        m << "rule at " << file_base_name(file) << ":" << line << ": ";
        const MessageArg args[] = {num, v};
        format_message(m, fault_text(Fault::octal_constant).text, args, 2);
        return m;
      }
    } else {
      ++i;
    }
  }
  return m;
}
}  // namespace detail

namespace detail {
/// Finds a parenthesis that does not open a call's arguments in rule text as written: `(int)3`
/// (a C-style cast, reported with the type as written) or a grouping `(x)`. C++ accepts both;
/// the grammar has neither. Strings are skipped.
constexpr bool check_parentheses(Analysis& a, std::string_view t) {
  char prev = 0;  // the last character that is not a space
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"') {  // rule strings hold no quote or backslash
      for (++i; i < t.size() && t[i] != '"'; ++i) {}
      prev = '"';
      continue;
    }
    if (is_space(c)) continue;
    if (c == '(' && !(is_ident(prev, false) || prev == '>')) {
      // the words of a type: identifiers, '::', '*', '&' and spaces up to ')'
      Message type;
      std::size_t j = i + 1;
      bool word = false, any = false;
      while (j < t.size()) {
        const char d = t[j];
        if (is_ident(d, true)) {
          if (word) type << " ";
          const std::size_t at = j;
          while (j < t.size() && is_ident(t[j], false)) ++j;
          type << t.substr(at, j - at);
          word = any = true;
        } else if (d == ':' || d == '*' || d == '&') {
          type << t.substr(j++, 1);
          word = false;
        } else if (is_space(d)) {
          ++j;
        } else {
          break;
        }
      }
      if (any && j < t.size() && t[j] == ')') {
        a.fail(Fault::c_style_cast, type.view(), type.view());
        return false;
      }
      a.fail(Fault::stray_parenthesis);
      return false;
    }
    prev = c;
  }
  return true;
}
}  // namespace detail

/// Runs every check on a rule's parts; the first failure is kept in info.msg. `pass_text` is the
/// pass spec as written, `rule_text` the match, constraint and replacement as written,
/// `flags_text` DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS' flags as written (checked against the rule
/// flags of dsl/grammar.hpp).
template <class M, class C, class R>
constexpr AnalyzedRule<M, C, R> analyze(Pass pass, std::string_view pass_text, M m, C c, R r, std::string_view file,
                                        int line, std::string_view rule_text = {}, std::string_view flags_text = {}) {
  AnalyzedRule<M, C, R> out{pass, m, c, r, {}};
  Analysis& a = out.info;
  a.file = file;
  a.line = line;
  a.tags[0] = Str("*");
  if (!detail::check_pass_text(a, pass_text)) return out;
  if (!detail::check_parentheses(a, rule_text)) return out;
  if (!pass.known || pass.base < 0) {
    std::string_view name = pass_text;
    while (!name.empty() && detail::is_space(name.front())) name.remove_prefix(1);
    std::size_t n = 0;
    while (n < name.size() && detail::is_ident(name[n], n == 0)) ++n;
    a.fail(Fault::unknown_pass, name.substr(0, n));
    return out;
  }
  if (const RuleFlagsRead f = read_rule_flags(flags_text); !f.ok) {
    a.fail(Fault::unknown_rule_flag, f.unknown);
    return out;
  }
  if constexpr (M::kind != Kind::Op && M::kind != Kind::OpVarIn) {
    if constexpr (M::kind == Kind::Misapplied)
      detail::type_error<M>(a, out.match.leaf);
    else if constexpr (M::kind == Kind::Let)
      a.fail(Fault::let_at_root, out.match.leaf.str);
    else
      a.fail(Fault::match_root, detail::written_name(out.match));
    return out;
  } else {
    detail::walk_match(out.match, a, true, nullptr, 0);
  }
  detail::walk_expr(out.constraint, a, detail::Where::Constraint, false, false);
  if (a.ok && C::vtype != VType::Bool && C::vtype != VType::Bad)
    a.fail(Fault::constraint_not_bool, detail::written_name(out.constraint), vtype_name(C::vtype));
  if (!a.ok) return out;
  if (out.replacement.leaf.may_star) {
    a.fail(Fault::star_replacement, "*");
    return out;
  }
  detail::walk_expr(out.replacement, a, detail::Where::Replacement, true, false);
  if (a.ok && !is_repl(R::vtype) && R::vtype != VType::Bad && R::vtype != VType::Match)
    a.fail(Fault::replacement_kind, vtype_name(R::vtype));
  if (a.ok && R::vtype == VType::Match)
    a.fail(Fault::replacement_has_match);
  return out;
}

}  // namespace optgrammar::dsl
