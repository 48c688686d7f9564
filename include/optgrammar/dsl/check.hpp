// The checker of the rule language: one function over a rule in flat form (dsl/flat.hpp) that
// types every node, binds tags to slots, interns op-name indices and checks the grammar's typing
// and restrictions. Both front ends call it: the C++ front end at compile time on the rule its
// words build (dsl/analyze.hpp), og-parse at run time on the rule it parses. The first problem
// found is the rule's error, with its text from the catalogue (dsl/messages.hpp); a "should" of the
// grammar that shipped packages break is a finding (a warning in og-parse), or an error in strict
// mode. Plain code on the standard library and the construct table.
#pragma once

#include "optgrammar/dsl/flat.hpp"
#include "optgrammar/dsl/grammar.hpp"
#include "optgrammar/dsl/messages.hpp"
#include "optgrammar/dsl/node.hpp"

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
  Message msg;                ///< the error, when !ok: "rule at x.cpp:12: " and the catalogue's text
  std::size_t prefix_len = 0;
  Message subject;                 ///< the error's first slot: the offending tag or construct
  std::uint32_t node = 0;          ///< the flat node the error is about (og-parse points at where it was written)
  bool warn_nested_split = false;  ///< AUTOSPLIT nested inside an Op operand (allowed, warned)
  bool uses_autosplit = false;     ///< the replacement has an AUTOSPLIT
  /// The constraint or the replacement may read an op's uses (OUTPUT_OF, OUTPUTS_OF, or an
  /// external function, which may read anything): a change of readers can change its outcome.
  bool reads_uses = false;
  Str tags[max_tags];  ///< slot → tag; slot 0 is "*", the matched root
  int n_tags = 1;
  Str names[max_names];  ///< op names used by the rule, interned at registration
  int n_names = 0;
  Str lets[max_tags];
  int n_lets = 0;
  Str splits[max_splits];  ///< split tags of AUTOSPLIT/OP_ITER, in order
  int n_splits = 0;
  /// Slots (bit i: slot i) whose output definition, and whose constant data, the constraint
  /// reads through a tag: the engine looks these up once per attempt, before evaluating it.
  std::uint32_t reads_outdef = 0, reads_constval = 0;
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

/// What the checker found besides the error: warnings (the grammar's "should" restrictions that
/// shipped packages break, and constructions that do nothing), each with its catalogue text and
/// the node it is about. og-parse prints them; the C++ front end has no use for them.
struct Findings {
  static constexpr int capacity = 8;
  struct Finding {
    Fault fault = Fault::none;
    std::uint32_t node = 0;
    Message text;
  };
  Finding at[capacity];
  int n = 0;
};

/// How the checker runs: `strict` makes the "should" restrictions errors (OPTGRAMMAR_STRICT in the
/// C++ front end, --strict in og-parse); `findings`, when given, receives the warnings.
struct CheckOptions {
  bool strict = false;
  Findings* findings = nullptr;
};

namespace detail {
constexpr bool star(const Str& s) { return s == std::string_view("*"); }

/// Strings of the grammar: non-empty, printable, no space, quote or backslash.
constexpr bool check_string(Analysis& a, const Str& s, const char* what) {
  if (!a.ok) return false;
  if (s.len == 0) {
    a.fail(Fault::empty_string, what);
    return false;
  }
  for (std::size_t i = 0; i < s.len; ++i) {
    const char c = s.p[i];
    if (c > ' ' && c < 0x7f && c != '"' && c != '\\') continue;
    a.fail(Fault::bad_string, what, s,
           c == ' '    ? "a space"
           : c == '"'  ? "a quote"
           : c == '\\' ? "a backslash"
                       : "an unprintable character");
    return false;
  }
  return true;
}

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
constexpr bool is_modifier(Kind k) {
  return k == Kind::WithSize || k == Kind::WithType || k == Kind::WithSameOutput || k == Kind::WithOutputType ||
         k == Kind::WithMultiOut || k == Kind::ResizeDim || k == Kind::WithSameId || k == Kind::WithSplitHistory;
}
constexpr bool is_value_kind(Kind k) {
  return k == Kind::Bool || k == Kind::Int || k == Kind::Size || k == Kind::DTypeConst;
}

/// What the checker looks up about a kind for every node, as one table: bits of KindFact.
enum KindFact : unsigned short {
  fact_reads_uses = 1,
  fact_external = 2,
  fact_option = 4,
  fact_split_var = 8,
  fact_modifier = 16,
  fact_reads_outdef = 32,
  fact_reads_constval = 64,
  fact_split = 128,
  fact_names_op = 256,
};
inline constexpr auto kind_facts = [] {
  struct Table {
    unsigned short bits[static_cast<std::size_t>(Kind::Count_)] = {};
  } t;
  for (std::size_t i = 0; i < static_cast<std::size_t>(Kind::Count_); ++i) {
    const Kind k = static_cast<Kind>(i);
    unsigned short b = 0;
    if (dsl::reads_uses(k) || is_external(k)) b |= fact_reads_uses;
    if (is_external(k)) b |= fact_external;
    if (keeps(k, OperandKind::option_name)) b |= fact_option;
    if (is_split_var(k)) b |= fact_split_var;
    if (is_modifier(k)) b |= fact_modifier;
    if (dsl::reads_outdef(k) || dsl::reads_constval(k)) b |= fact_reads_outdef;
    if (dsl::reads_constval(k)) b |= fact_reads_constval;
    if (k == Kind::Autosplit || k == Kind::OpIter) b |= fact_split;
    if (k == Kind::Op || k == Kind::WrapOp || k == Kind::WrapOpAlways || k == Kind::IsOp || k == Kind::ProducerFor)
      b |= fact_names_op;
    t.bits[i] = b;
  }
  return t;
}();
constexpr bool has(Kind k, KindFact f) { return (kind_facts.bits[static_cast<std::size_t>(k)] & f) != 0; }

enum class Where { Constraint, Replacement };

/// The walk of one rule: its parts in flat form, the analysis it fills, and the split scopes.
class Checker {
 public:
  constexpr Checker(FlatRule& r, Analysis& a, CheckOptions o) : r_(r), a_(a), o_(o) {}

  constexpr void run() {
    const FlatNode& m = r_.nodes[r_.match];
    if (m.kind != Kind::Op && m.kind != Kind::OpVarIn) {
      if (m.kind == Kind::Misapplied)
        type_error(r_.match);
      else if (m.kind == Kind::Let)
        fail(r_.match, Fault::let_at_root, m.str);
      else
        fail(r_.match, Fault::match_root, written_name(r_.match));
      return;
    }
    walk_match(r_.match, true, nullptr, 0);
    walk_expr(r_.constraint, Where::Constraint, false, false);
    const VType ct = r_.nodes[r_.constraint].type;
    if (a_.ok && ct != VType::Bool && ct != VType::Bad)
      fail(r_.constraint, Fault::constraint_not_bool, written_name(r_.constraint), vtype_name(ct));
    if (!a_.ok) return;
    const FlatNode& rp = r_.nodes[r_.replacement];
    // Through the analysis's own fail: clang 14 cannot evaluate a member template of this class
    // (fail<char[2]>) that is first used above its definition in a constant expression.
    if (rp.may_star) {
      a_.node = r_.replacement;
      return a_.fail(Fault::star_replacement, "*");
    }
    walk_expr(r_.replacement, Where::Replacement, true, false);
    if (a_.ok && !is_repl(rp.type) && rp.type != VType::Bad && rp.type != VType::Match)
      fail(r_.replacement, Fault::replacement_kind, vtype_name(rp.type));
    if (a_.ok && rp.type == VType::Match) fail(r_.replacement, Fault::replacement_has_match);
  }

 private:
  FlatRule& r_;
  Analysis& a_;
  CheckOptions o_;
  Str scope_[max_splits]{};  ///< split tags whose last operand we are inside
  int split_uses_[max_splits]{};
  int depth_ = 0;

  // ---- the tree ---------------------------------------------------------------------------------
  constexpr FlatNode& at(std::uint32_t i) { return r_.nodes[i]; }
  /// The index of operand j of node i.
  constexpr std::uint32_t operand(std::uint32_t i, std::uint32_t j) const { return operand_at(r_.nodes, i, j); }
  constexpr VType operand_type(std::uint32_t i, std::uint32_t j) const { return r_.nodes[operand(i, j)].type; }
  /// The operands' types of node i, in the scratch room.
  constexpr const VType* operand_types(std::uint32_t i) {
    std::uint32_t c = 0;
    for (std::uint32_t k = i + 1; k < r_.nodes[i].end; k = r_.nodes[k].end) r_.scratch[c++] = r_.nodes[k].type;
    return r_.scratch;
  }
  constexpr bool operand_bad(std::uint32_t i) const {
    for (std::uint32_t k = i + 1; k < r_.nodes[i].end; k = r_.nodes[k].end)
      if (r_.nodes[k].type == VType::Bad) return true;
    return false;
  }
  /// Whether WITH_SIZE may take its size from node i: an existing opref, a shape construction, or
  /// a SELECT whose branches both may.
  constexpr bool shape_source(std::uint32_t i) const {
    const FlatNode& n = r_.nodes[i];
    if (n.type == VType::OpRef || n.type == VType::Shape) return true;
    return n.kind == Kind::Select && n.n == 3 && shape_source(operand(i, 1)) && shape_source(operand(i, 2));
  }

  // ---- messages ---------------------------------------------------------------------------------
  template <class... A>
  constexpr void fail(std::uint32_t i, Fault f, const A&... args) {
    if (!a_.ok) return;
    a_.node = i;
    a_.fail(f, args...);
  }
  constexpr bool check_string(std::uint32_t i, const Str& s, const char* what) {
    if (!a_.ok) return false;
    a_.node = i;
    return detail::check_string(a_, s, what);
  }
  /// A finding that is a warning whatever the mode.
  template <class... A>
  constexpr void warn(std::uint32_t i, Fault f, const A&... args) {
    if (!a_.ok || o_.findings == nullptr || o_.findings->n == Findings::capacity) return;
    const MessageArg m[] = {MessageArg(args)..., MessageArg(std::string_view())};
    Findings::Finding& w = o_.findings->at[o_.findings->n++];
    w.fault = f;
    w.node = i;
    w.text.len = 0;
    format_message(w.text, fault_text(f).text, m, sizeof...(A));
  }
  /// A "should" of the grammar: an error in strict mode, else a warning.
  template <class... A>
  constexpr void should(std::uint32_t i, Fault f, const A&... args) {
    if (o_.strict)
      fail(i, f, args...);
    else
      warn(i, f, args...);
  }

  /// The name a rule wrote for a node: the name defined by expansion whose text made it (OPCONST's,
  /// the *_SLICE names' and OpMultiOut's expansions keep it), or its construct's.
  constexpr std::string_view written_name(std::uint32_t i) const {
    const FlatNode& n = r_.nodes[i];
    if ((n.kind == Kind::Let || n.kind == Kind::WithSize || n.kind == Kind::Op ||
         n.kind == Kind::AutosplitShapefnApply) &&
        n.record > 0)
      return constructs[static_cast<std::size_t>(n.record - 1)].name;
    return kind_name(n.kind);
  }
  /// A value's words in the messages about operands: "an opref" for an existing opref.
  static constexpr std::string_view value_words(VType t) {
    return t == VType::OpRef ? std::string_view("an opref") : vtype_name(t);
  }

  /// Reports a regular family's typing fault (dsl/typing.hpp) at the operand it concerns.
  constexpr void report(std::uint32_t i, const TypeVerdict& v, std::string_view name, const VType* kt, std::size_t n) {
    const std::uint32_t at_node =
        v.operand == TypeVerdict::whole ? i : operand(i, static_cast<std::uint32_t>(v.operand));
    report_type_fault(v, name, kt, n, [&](Fault f, const MessageArg* args, std::size_t m) {
      if (!a_.ok) return;
      a_.node = at_node;
      a_.fail_with(f, args, m);
    });
  }

  /// The message for a node whose own typing failed (its operands are well-typed).
  constexpr void type_error(std::uint32_t i) {
    const FlatNode& nd = at(i);
    const Kind k = nd.kind;
    const std::uint32_t n = nd.n;
    const VType* kt = operand_types(i);
    // A name defined by expansion, misapplied: its operand count, or the fault its family's typing
    // gives, under the name as written. Or an Op whose op name is no string constant.
    if (k == Kind::Misapplied) {
      if (nd.record == 0) return fail(i, Fault::op_name_not_string, kind_name(static_cast<Kind>(nd.value)));
      const Construct& rec = constructs[static_cast<std::size_t>(nd.record - 1)];
      if (n < rec.min_args || n > rec.max_args)
        return fail(i, rec.max_args == any_count ? Fault::operand_count_at_least : Fault::operand_count, rec.name,
                    std::size_t{rec.min_args}, rec.min_args == 1 ? "" : "s", std::size_t{n});
      return report(i, type_operands(typing_of(rec.family), kt, n), rec.name, kt, n);
    }
    const std::string_view name = kind_name(k);
    // A regular family: the fault its typing column gives.
    if (typing_of(k).regular()) return report(i, type_operands(typing_of(k), kt, n), name, kt, n);
    auto last = [&] {
      fail(operand(i, n - 1), Fault::operand_type, name, "last",
           k == Kind::WithMultiOut ? "an Op construction" : "an Op or constant construction", vtype_name(kt[n - 1]));
    };
    // Modifiers: the grammar's operand kinds.
    if (k == Kind::WithSize || k == Kind::WithType || k == Kind::WithSameOutput || k == Kind::WithSameId ||
        k == Kind::WithSplitHistory) {
      const std::string_view want =
          k == Kind::WithSize ? "an existing opref or a shape construction" : "an existing opref";
      if (kt[0] == VType::OpBuild)
        return fail(operand(i, 0), Fault::operand_type, name, "first", want, "an Op construction");
      if (k == Kind::WithSize ? (kt[0] != VType::OpRef && kt[0] != VType::Shape && kt[0] != VType::Repl)
                              : kt[0] != VType::OpRef)
        return fail(operand(i, 0), Fault::operand_type, name, "first", want, vtype_name(kt[0]));
      if (k == Kind::WithSplitHistory && n == 3 && !is_integral(kt[1]))
        return fail(operand(i, 1), Fault::split_history_constant, vtype_name(kt[1]));
      return last();
    }
    if (k == Kind::WithOutputType) {
      if (kt[0] != VType::DType)
        return fail(operand(i, 0), Fault::operand_type, name, "first", "a dtype", vtype_name(kt[0]));
      if (!is_integral(kt[1]))
        return fail(operand(i, 1), Fault::operand_type, name, "second", "int (the zero offset)", vtype_name(kt[1]));
      if (!is_numeric(kt[2]) || kt[2] == VType::Bool)
        return fail(operand(i, 2), Fault::operand_type, name, "third", "float (the step size)", vtype_name(kt[2]));
      return last();
    }
    if (k == Kind::WithMultiOut || k == Kind::ResizeDim) {
      for (std::uint32_t j = 0; j + 1 < n; ++j)
        if (!is_integral(kt[j]))
          return fail(operand(i, j), Fault::operand_type, name, ordinal_word(j), "int or size", vtype_name(kt[j]));
      return last();
    }
    if (k == Kind::Op || k == Kind::OpVarIn) {
      for (std::uint32_t j = 0; j < n; ++j)
        if (!is_repl(kt[j]) && kt[j] != VType::Match)
          return fail(operand(i, j), Fault::op_operand_kind, name, std::size_t{j} + 2, vtype_name(kt[j]));
      return fail(i, Fault::let_in_construction);
    }
    if (k == Kind::Let) return fail(i, Fault::let_second_operand);
    if (k == Kind::Autosplit || k == Kind::OpIter) {
      // AUTOSPLIT(dim, tag, chunk, e) and OP_ITER(base, tag, lo, hi, e): int operands, and operands
      // or constructions (the tag is the split's, not typed)
      for (std::uint32_t j = 0; j < n; ++j) {
        const bool integral = k == Kind::Autosplit ? (j == 0 || j == 2) : (j == 2 || j == 3);
        if (j == 1 || (integral ? is_integral(kt[j]) : is_repl(kt[j]))) continue;
        return fail(operand(i, j), Fault::operand_type, name, ordinal_word(j),
                    integral ? "int or size" : "an operand tag, an opref or a construction", vtype_name(kt[j]));
      }
    }
    if (k == Kind::Select) {
      if (kt[0] != VType::Bool) return fail(operand(i, 0), Fault::select_condition, vtype_name(kt[0]));
      return fail(i, Fault::select_branches, vtype_name(kt[1]), vtype_name(kt[2]));
    }
    // dtype is limited to EQ/NE/SELECT/INT/DTYPE_OF.
    for (std::uint32_t j = 0; j < n; ++j)
      if (kt[j] == VType::DType) return fail(operand(i, j), Fault::dtype_use, name, std::size_t{j} + 1);
    for (std::uint32_t j = 0; j < n; ++j) {
      const VType t = kt[j];
      const bool wants_ref =
          j == 0 && (k == Kind::GenShapeOf || k == Kind::IterInputOf || k == Kind::IsOp || k == Kind::ProducerFor);
      if (wants_ref && t != VType::OpRef)
        return fail(operand(i, j), Fault::needs_opref, name, std::size_t{j} + 1, vtype_name(t));
      if (!wants_ref && (t == VType::OpRef || t == VType::OpBuild || t == VType::Match || t == VType::Shape ||
                         t == VType::NewConst || t == VType::Repl))
        return fail(operand(i, j), Fault::opref_as_value, name, std::size_t{j} + 1, value_words(t));
    }
    Message types;
    for (std::uint32_t j = 0; j < n; ++j) types << (j ? ", " : "") << vtype_name(kt[j]);
    fail(i, Fault::wrong_operand_types, name, types.view());
  }

  // ---- the match --------------------------------------------------------------------------------
  constexpr int bind(std::uint32_t i, const Str& t) {
    int s = a_.find_tag(t.view());
    if (s < 0) {
      if (a_.n_tags == max_tags) {
        fail(i, Fault::too_many_tags);
        return 0;
      }
      s = a_.n_tags++;
      a_.tags[s] = t;
      at(i).first = true;
    }
    at(i).slot = s;
    return s;
  }

  constexpr void walk_match(std::uint32_t i, bool root, const Str* outer_lets, int n_outer) {
    if (!a_.ok) return;
    FlatNode& n = at(i);
    switch (n.kind) {
      case Kind::Tag: {
        if (!check_string(i, n.str, "operand tag")) return;
        for (int j = 0; j < n_outer; ++j)
          if (outer_lets[j] == n.str) return fail(i, Fault::tag_inside_own_let, n.str);
        if (star(n.str)) {
          n.wildcard = true;
          return;
        }
        bind(i, n.str);
        return;
      }
      case Kind::Op:
      case Kind::OpVarIn: {
        // an op made by a name that has no place in a match (OpMultiOut; OPCONST's is in its place)
        if (n.record > 0 && !(constructs[static_cast<std::size_t>(n.record - 1)].places & in_match))
          return fail(i, root ? Fault::match_root : Fault::not_in_match, written_name(i));
        if (!check_string(i, n.str, "op name")) return;
        n.index = a_.name_index(n.str);
        for (std::uint32_t k = i + 1; k < n.end; k = at(k).end) walk_match(k, false, outer_lets, n_outer);
        return;
      }
      case Kind::Let: {
        const Str t = n.str;
        if (!check_string(i, t, "LET tag")) return;
        if (root) return fail(i, Fault::let_at_root, t);
        if (star(t)) return fail(i, Fault::let_binds_star);
        for (int j = 0; j < a_.n_lets; ++j)
          if (a_.lets[j] == t) return fail(i, Fault::let_twice, t);
        for (int j = 0; j < n_outer; ++j)
          if (outer_lets[j] == t) return fail(i, Fault::tag_inside_own_let, t);
        a_.lets[a_.n_lets++] = t;
        Str inner[max_tags];
        for (int j = 0; j < n_outer; ++j) inner[j] = outer_lets[j];
        inner[n_outer] = t;
        const std::uint32_t op = i + 1;
        if (at(op).kind != Kind::Op && at(op).kind != Kind::OpVarIn)
          return fail(op, Fault::let_operand, t, kind_name(at(op).kind));
        walk_match(op, false, inner, n_outer + 1);
        if (a_.ok) bind(i, t);
        return;
      }
      case Kind::Misapplied: return type_error(i);  // its own fault first (an Op with no string for its name, ...)
      default: return fail(i, Fault::not_in_match, written_name(i));
    }
  }

  // ---- external functions -------------------------------------------------------------------------
  /// Checks an external function's signature and the rule's arguments against its parameters.
  constexpr void check_external(std::uint32_t i) {
    const Kind k = at(i).kind;
    const FlatNode& fnode = at(i + 1);
    const Signature& sig = r_.fns[fnode.value];
    if (!sig.known) return;
    const std::string_view name = fnode.str.view();
    const std::string_view what = kind_name(k);
    if (sig.result == Returns::not_a_function) return fail(i, Fault::external_not_function, what, name, name);
    // Framework parameters first: how many, and which.
    const std::size_t lead = k == Kind::AutosplitShapefnApply ? 2 : 1;
    const std::size_t np = sig.n_params;
    if (np < lead) return fail(i, Fault::external_too_few_params, what, name, name, what);
    if (k == Kind::ExternalConstraint) {
      if (sig.params[0] != ParamKind::Constraint)
        return fail(i, Fault::external_framework_param, what, name, "first", name, "Constraint&");
    } else if (sig.params[0] != ParamKind::Replacement) {
      return fail(i, Fault::external_framework_param, what, name, "first", name, "Replacement&");
    }
    if (k == Kind::AutosplitShapefnApply && sig.params[1] != ParamKind::SplitContext)
      return fail(i, Fault::external_framework_param, what, name, "second", name, "Split_Context const&");
    if (k == Kind::ExternalReplace) {
      if (np != 2 || sig.result != Returns::OpRef || sig.params[1] != ParamKind::OpDef)
        fail(i, Fault::external_replace_signature, name, name, name);
      return;
    }
    if (k == Kind::ExternalConstraint) {
      const VType t = result_vtype(sig.result);
      if (t != VType::Bool && t != VType::Int && t != VType::Size && t != VType::Float)
        return fail(i, Fault::external_result, what, name, name, "bool, an integer or a float");
    } else if (sig.result != Returns::OpRef && sig.result != Returns::QuickShape) {
      return fail(i, Fault::external_result, what, name, name, "OpRef or QuickShape");
    }
    // The rule's arguments after the function (EXTERNAL_CONSTRAINT: its tag is the OpRef after
    // Constraint&) against the remaining parameters.
    const std::size_t nargs = at(i).n - 1;
    if (nargs != np - lead)
      return fail(i, Fault::external_arg_count, what, name, nargs, nargs == 1 ? "" : "s", name, np - lead);
    for (std::size_t j = 0; j < nargs; ++j) {
      const std::uint32_t arg = operand(i, static_cast<std::uint32_t>(j) + 1);
      const ParamKind pk = sig.params[lead + j];
      const VType vt = at(arg).type;
      if (!accepts(pk, vt))
        return fail(arg, Fault::external_arg_type, what, name, j + 1, value_words(vt), lead + j + 1, name,
                    param_kind_name(pk));
    }
  }

  // ---- constraint expressions and replacements ------------------------------------------------
  constexpr void walk_kids(std::uint32_t i, Where w, bool at_root, bool in_op_operand) {
    for (std::uint32_t k = i + 1; k < at(i).end; k = at(k).end) walk_expr(k, w, at_root, in_op_operand);
  }

  constexpr void walk_split(std::uint32_t i, Where w, bool at_root, bool in_op_operand) {
    FlatNode& n = at(i);
    const Kind k = n.kind;
    const Str t = n.str;
    if (!check_string(i, t, "split tag")) return;
    if (w == Where::Constraint) return fail(i, Fault::replacement_only, kind_name(k));
    if (k == Kind::Autosplit && !at_root) {
      if (!in_op_operand) return fail(i, Fault::autosplit_place);
      should(i, Fault::autosplit_nested_strict);
      if (!a_.ok) return;
      a_.warn_nested_split = true;
    }
    if (k == Kind::Autosplit) a_.uses_autosplit = true;
    for (int j = 0; j < a_.n_splits; ++j)
      if (a_.splits[j] == t) return fail(i, Fault::split_tag_twice, t);
    if (a_.n_splits == max_splits) return fail(i, Fault::too_many_splits);
    const int idx = a_.n_splits++;
    a_.splits[idx] = t;
    n.slot = idx;
    // Operands before the last are evaluated outside the split's scope (the tag operand is skipped).
    walk_expr(operand(i, 0), w, false, false);
    walk_expr(operand(i, 2), w, false, false);
    if (k == Kind::OpIter) {
      walk_expr(operand(i, 3), w, false, false);
      const std::uint32_t base = operand(i, 0);
      if (at(base).kind != Kind::Op && at(base).type != VType::OpRef && at(base).type != VType::Bad)
        should(base, Fault::op_iter_base_strict, vtype_name(at(base).type));
    }
    if (!a_.ok) return;
    scope_[depth_++] = t;
    walk_expr(operand(i, n.n - 1), w, false, false);
    --depth_;
    if (a_.ok && n.type == VType::Bad && !operand_bad(i)) return type_error(i);
    if (a_.ok && k == Kind::Autosplit && split_uses_[idx] == 0) fail(i, Fault::split_tag_unused, t);
  }

  /// The written operands of AUTOSPLIT_SLICE (its expansion WITH_SIZE($3, WITH_TYPE($1, Op(..., $1,
  /// $2, $3))), node i the WITH_SIZE): the size an existing opref or a shape construction, which
  /// WITH_SIZE takes; the start should be one too (an Op construction: strict mode refuses it).
  constexpr void slice_operands(std::uint32_t i) {
    const std::uint32_t size = operand(i, 0);
    const std::uint32_t op = operand(operand(i, 1), 1);
    const std::uint32_t start = operand(op, 1);
    const auto fits = [&](std::uint32_t x) {
      return at(x).type == VType::OpRef || at(x).type == VType::Shape || at(x).type == VType::Bad;
    };
    if (at(size).type != VType::Repl && !fits(size))
      return fail(size, Fault::operand_type, written_name(i), "third", "an existing opref or a shape construction",
                  at(size).type == VType::OpBuild ? std::string_view("an Op construction") : vtype_name(at(size).type));
    if (!fits(start))
      should(start, Fault::slice_operand_kind_strict, written_name(i), "second", vtype_name(at(start).type));
  }

  static constexpr const char* part(Where w) { return w == Where::Constraint ? "the constraint" : "the replacement"; }

  constexpr void walk_expr(std::uint32_t i, Where w, bool at_root, bool in_op_operand) {
    if (!a_.ok) return;
    FlatNode& n = at(i);
    const Kind k = n.kind;
    const unsigned short facts = kind_facts.bits[static_cast<std::size_t>(k)];
    if (facts & fact_reads_uses) a_.reads_uses = true;
    switch (k) {
      case Kind::Tag: {
        if (!check_string(i, n.str, "operand tag")) return;
        if (star(n.str)) {
          n.slot = 0;
          return;
        }
        const int s = a_.find_tag(n.str.view());
        if (s < 0) return fail(i, Fault::tag_not_bound, n.str, part(w));
        n.slot = s;
        return;
      }
      case Kind::Int:
        // C gives 2147483648 type long; the grammar's int is 32 bits ('L' is ignored).
        if (n.value > 2147483647LL || n.value < -2147483647LL - 1) fail(i, Fault::integer_out_of_range, n.value);
        return;
      case Kind::Bool:
      case Kind::Size:
      case Kind::Float:
      case Kind::DTypeConst:
      case Kind::FnName:
      case Kind::MessageText: return;
      case Kind::Let:
      case Kind::OpVarIn: return fail(i, Fault::match_only, written_name(i), part(w));
      default: break;
    }
    if (facts & fact_option) {
      check_string(i, n.str, "option name");
      return;
    }
    if (facts & fact_split) return walk_split(i, w, at_root, in_op_operand);
    if (facts & fact_split_var) {
      const Str t = n.str;
      if (!check_string(i, t, "split tag")) return;
      for (int d = depth_; d-- > 0;) {
        if (!(scope_[d] == t)) continue;
        for (int j = 0; j < a_.n_splits; ++j)
          if (a_.splits[j] == t) {
            n.slot = j;
            ++split_uses_[j];
          }
        if (k == Kind::IterInputOf) walk_expr(i + 1, w, false, false);
        if (k == Kind::AutosplitShapefnApply || k == Kind::TypicalConvSlice) {
          if (w == Where::Constraint) return fail(i, Fault::replacement_only, kind_name(k));
          walk_kids(i, w, false, false);
          if (!a_.ok) return;
        }
        if (k == Kind::AutosplitShapefnApply) check_external(i);
        if (!a_.ok || n.type != VType::Bad || operand_bad(i)) return;
        if (k != Kind::TypicalConvSlice) return type_error(i);
        if (at(i + 1).type != VType::OpRef)
          return fail(i + 1, Fault::typical_conv_operands, "first operand", "an existing opref");
        return fail(i, Fault::typical_conv_operands, "operands after the split tag", "oprefs or int values");
      }
      // (a node a *_SLICE name's expansion made is named as the rule wrote it)
      return fail(i, Fault::split_var_scope, written_name(i), t, t);
    }
    if (facts & fact_names_op) {
      if (k == Kind::Op && w == Where::Constraint) {
        if (n.record > 0) return fail(i, Fault::replacement_only, written_name(i));  // OpMultiOut
        return fail(i, Fault::op_in_constraint, n.str);
      }
      if (!check_string(i, n.str, "op name")) return;
      n.index = a_.name_index(n.str);
    }
    if (w == Where::Constraint && n.type != VType::Bad &&
        (n.type == VType::OpBuild || n.type == VType::Shape || n.type == VType::NewConst || (facts & fact_modifier)))
      return fail(i, Fault::replacement_only, written_name(i));
    if (k == Kind::ExternalReplace && !at_root) return fail(i, Fault::external_replace_place, at(i + 1).str);
    if ((facts & fact_modifier) && k != Kind::WithMultiOut && n.n > 0 && operand_type(i, n.n - 1) == VType::NewConst) {
      // a constant construction gets the output as an Op would (the SDK's examples write it)
      should(operand(i, n.n - 1), Fault::modifier_constant_strict, kind_name(k));
      if (!a_.ok) return;
    }
    if (k == Kind::WithSize && n.n == 2) {
      const std::uint32_t from = i + 1;
      if (at(from).type == VType::Repl && !shape_source(from)) return fail(from, Fault::with_size_select_const);
      // AUTOSPLIT_SLICE / TYPICAL_SLICE / CHANGEDIM_SLICE: their first operand an existing opref,
      // or (a "should" that shipped packages break, as CAST_TO_FP16 of a tag) an Op construction.
      const std::uint32_t wt = operand(i, 1);
      if (at(wt).kind == Kind::WithType && n.record > 0) {
        const std::uint32_t in = wt + 1;
        if (at(in).type == VType::OpBuild) {
          should(in, Fault::slice_operand_strict, written_name(i));
          if (!a_.ok) return;
        } else if (at(in).type != VType::OpRef && at(in).type != VType::Bad) {
          return fail(in, Fault::operand_type, written_name(i), "first", "an existing opref", vtype_name(at(in).type));
        }
        if (constructs[static_cast<std::size_t>(n.record - 1)].family == Family::AUTOSPLIT_SLICE) slice_operands(i);
        if (!a_.ok) return;
      }
    }
    if (k == Kind::LayoutChunksize && !check_string(i, n.str, "tensor class name")) return;
    if (k == Kind::GenShapeOf && n.n == 1 && operand_type(i, 0) == VType::Shape)
      warn(i + 1, Fault::shape_of_shape, written_name(i + 1));
    // SELECT passes "root" to its branches; Op passes "inside an Op operand" to its operands.
    std::uint32_t j = 0;
    for (std::uint32_t c = i + 1; c < n.end; c = at(c).end, ++j) {
      const bool branch = k == Kind::Select && j > 0;
      walk_expr(c, w, at_root && branch, k == Kind::Op || (in_op_operand && branch));
    }
    if (!a_.ok) return;
    // WITH_TYPE of an Op construction is typed for the *_SLICE names' expansions (a record set),
    // not for a rule to write.
    if (k == Kind::WithType && n.n > 0 && operand_type(i, 0) == VType::OpBuild && n.record == 0)
      return fail(i + 1, Fault::operand_type, kind_name(k), "first", "an existing opref", "an Op construction");
    if ((facts & fact_reads_outdef) && n.n > 0 && at(i + 1).kind == Kind::Tag && w == Where::Constraint) {
      const auto bit = std::uint32_t{1} << at(i + 1).slot;
      a_.reads_outdef |= bit;
      if (facts & fact_reads_constval) a_.reads_constval |= bit;
    }
    if (facts & fact_external) {
      check_external(i);
      if (!a_.ok) return;
    }
    if (n.type == VType::Bad && !operand_bad(i)) return type_error(i);
    if (k == Kind::Roundup && n.n == 2) {
      const FlatNode& m = at(operand(i, 1));
      if (m.kind == Kind::Int || m.kind == Kind::Size) {
        const long long v = m.value;
        if (v <= 0 || (v & (v - 1)) != 0) fail(operand(i, 1), Fault::roundup_pow2, v);
      }
    } else if (k == Kind::WithSplitHistory && n.n == 3) {
      const FlatNode& m = at(operand(i, 1));
      if (m.kind != Kind::Int && m.kind != Kind::Size)
        fail(operand(i, 1), Fault::split_history_constant, kind_name(m.kind));
    }
  }
};
}  // namespace detail

/// Checks a rule in flat form, its nodes typed by the front end (dsl/node.hpp's type_of, which
/// both call): fills `a` (tag slots, op names, splits, what the engine reads; the first fault) and
/// writes each node's slot, name index and binding facts into its FlatNode. `a.file` and `a.line`
/// name the rule in its error.
constexpr void check_rule(FlatRule& r, Analysis& a, CheckOptions o = {}) {
  a.tags[0] = Str("*");
  detail::Checker(r, a, o).run();
}

// ---- the rule's text as written (the C++ front end; og-parse reads the tokens) ------------------
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

/// Finds the first octal integer constant whose value is at least 8 (`010` is 8, which a reader
/// may take for ten) in rule text as written; the grammar asks for a warning on it. Returns an
/// empty message when there is none. Strings are skipped; `07`, `0x10`, `0.5` are not reported.
constexpr Message find_octal(std::string_view t, std::string_view file, int line) {
  Message m;
  std::size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {  // rule strings hold no quote or backslash
      for (++i; i < t.size() && t[i] != '"'; ++i) {
      }
      ++i;
    } else if (is_ident(c, true)) {
      while (i < t.size() && is_ident(t[i], false)) ++i;
    } else if (is_digit(c) || (c == '.' && i + 1 < t.size() && is_digit(t[i + 1]))) {
      // a preprocessing number: digits, letters, '.', digit separators, exponent signs
      const std::size_t at = i;
      bool is_float = false;
      while (i < t.size()) {
        const char d = t[i];
        if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') && i + 1 < t.size() &&
            (t[i + 1] == '+' || t[i + 1] == '-')) {
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

/// Finds a parenthesis that does not open a call's arguments in rule text as written: `(int)3`
/// (a C-style cast, reported with the type as written) or a grouping `(x)`. C++ accepts both;
/// the grammar has neither. Strings are skipped.
constexpr bool check_parentheses(Analysis& a, std::string_view t) {
  char prev = 0;  // the last character that is not a space
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"') {  // rule strings hold no quote or backslash
      for (++i; i < t.size() && t[i] != '"'; ++i) {
      }
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

}  // namespace optgrammar::dsl
