// DEF_PACKAGE_OPTIMIZATION: one constexpr analysis plus one registration per rule. The glue
// between the rule language (dsl/) and the engine (engine/): it turns a rule into a registered
// rule with its specialized apply function, so neither of the two includes the other
// (tools/check_layers.py, test engine.layers_no_cycle).
#pragma once

#include "optgrammar/core/registry.hpp"
#include "optgrammar/dsl/analyze.hpp"
#include "optgrammar/dsl/messages.hpp"
#include "optgrammar/dsl/passes.hpp"
#include "optgrammar/dsl/rule_error.hpp"
#include "optgrammar/dsl/words.hpp"
#include "optgrammar/engine/apply.hpp"
#include "optgrammar/engine/explain_nodes.hpp"
#include "optgrammar/engine/rule.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace optgrammar::dsl {

/// A rule's analysis, computed once per rule at compile time. The pass is read from the spec as
/// written, so that the spec's tokens are evaluated only where a bad rule raises its error.
template <class Rule>
constexpr auto analyze_rule() {
  return analyze(pass_of_text(Rule::pass_text()), Rule::pass_text(), Rule::match(), Rule::constraint(),
                 Rule::replacement(), Rule::file(), Rule::line, Rule::text(), Rule::flags);
}

template <class Rule>
struct analyzed {
  static constexpr auto value = analyze_rule<Rule>();
};

namespace detail {
/// What a pass word stands for when a well-formed rule's pass spec is checked.
struct Accepted {
  Accepted operator+(int) const;
  Accepted operator-(int) const;
};

template <class Rule, class = void>
struct verdict {
  using type = Accepted;
};
/// An ill-formed rule's fault, as found_error (dsl/rule_error.hpp) reads it.
template <class Rule>
struct rule_found {
  static constexpr Fault fault = analyzed<Rule>::value.info.fault;
  static constexpr std::string_view text = analyzed<Rule>::value.info.text();
  static constexpr std::string_view subject = analyzed<Rule>::value.info.subject.view();
};
template <class Rule>
struct verdict<Rule, std::enable_if_t<!analyzed<Rule>::value.info.ok>> {
  using type = typename found_error<rule_found<Rule>>::type;
};

/// The warning the grammar asks for on an octal constant >= 8 (a well-formed rule's only
/// finding): its text, without the "rule at" prefix, as the warning scope's template argument.
template <class Rule>
inline constexpr Message octal_finding = find_octal(Rule::text(), Rule::file(), Rule::line);

template <class Rule>
constexpr auto octal_text() {
  constexpr std::string_view t = octal_finding<Rule>.view().substr(octal_finding<Rule>.view().find(": ") + 2);
  return to_fixed_message<t.size() + 1>(t);
}
}  // namespace detail

/// The scope in which the rule macro evaluates a rule's pass spec (unevaluated), to raise an
/// ill-formed rule's one error where the rule is written: every pass word stands for the rule's
/// verdict, which for an ill-formed rule is its incomplete error type. Any use of it (`EARLY`,
/// `EARLY + 1`), or a spec without a pass word (`3050`) passed to `accept`, is then an error on
/// the rule's own line with g++ and clang alike; a well-formed rule's spec type-checks.
template <class V>
struct verdict_words {
#define OPTGRAMMAR_PASS_VERDICT_(NAME, PRIORITY) static V& NAME;
  OPTGRAMMAR_PASS_NAMES(OPTGRAMMAR_PASS_VERDICT_)
#undef OPTGRAMMAR_PASS_VERDICT_
  static bool accept(V);
};
/// For a well-formed rule with an octal constant >= 8: the pass words are deprecated, so that the
/// grammar's warning is raised on the rule's own line (g++ shows `Finding`'s text in it).
template <class Finding>
struct octal_warning_words {
#define OPTGRAMMAR_PASS_VERDICT_(NAME, PRIORITY) \
  [[deprecated("a leading 0 makes an integer constant octal; write it in decimal")]] static detail::Accepted& NAME;
  OPTGRAMMAR_PASS_NAMES(OPTGRAMMAR_PASS_VERDICT_)
#undef OPTGRAMMAR_PASS_VERDICT_
  static bool accept(detail::Accepted);
};
namespace rule_warning {
template <fixed_message Text>
struct octal_constant {};
}  // namespace rule_warning
namespace detail {
template <class Rule, bool Octal = analyzed<Rule>::value.info.ok && (octal_finding<Rule>.len > 0)>
struct scope_of {
  using type = verdict_words<typename verdict<Rule>::type>;
};
template <class Rule>
struct scope_of<Rule, true> {
  using type = octal_warning_words<rule_warning::octal_constant<octal_text<Rule>()>>;
};
}  // namespace detail
/// Whether the compiler could type the rule's three parts: a name that is no word of the
/// language (`IS_FLAOT16`, a misspelling) is the compiler's own error in them ("not declared ...;
/// did you mean ..."), and then nothing about the rule is checked or registered, so that no
/// other error follows it.
template <class Rule>
concept rule_typed = requires {
  Rule::match();
  Rule::constraint();
  Rule::replacement();
};
/// The scope of the pass spec of a rule the compiler could not type: every pass word is an int,
/// and `accept` takes any spec.
struct untyped_rule_words {
#define OPTGRAMMAR_PASS_UNTYPED_(NAME, PRIORITY) static constexpr int NAME = PRIORITY;
  OPTGRAMMAR_PASS_NAMES(OPTGRAMMAR_PASS_UNTYPED_)
#undef OPTGRAMMAR_PASS_UNTYPED_
  static bool accept(long long);
};
template <class Rule>
struct verdict_scope : detail::scope_of<Rule>::type {};
template <class Rule>
  requires(!rule_typed<Rule>)
struct verdict_scope<Rule> : untyped_rule_words {};
}  // namespace optgrammar::dsl

// Registration: a well-formed rule becomes a RuleInfo with its guards and its specialized apply
// function (engine/apply.hpp).
namespace optgrammar::package_glue {

using dsl::analyzed;
using dsl::Kind;
using dsl::max_tags;

namespace detail {
/// The guards the driver checks before it calls a rule (engine/rule.hpp's InputGuard and
/// TermGuard), computed from the rule's analyzed trees at compile time; op names are indices into
/// the rule's name table until registration interns them.
struct StaticGuards {
  struct Input {
    std::uint32_t slot = 0;
    int name = 0;
  };
  Input inputs[max_tags]{};
  int n_inputs = 0;
  std::uint32_t path[max_tags][TermGuard::max_depth]{};  ///< where the match binds each tag slot
  std::uint32_t depth[max_tags]{};
  bool placed[max_tags]{};
  struct Term {  ///< a TermGuard: tag slot, property and value
    int slot = 0;
    TermGuard::Of of = TermGuard::Of::dim;
    std::size_t dim = 0, value = 0;
  };
  Term terms[TermGuard::max_per_rule]{};
  std::size_t n_terms = 0;
  /// Where the match spells an op below its root (an Op or OpVarIn node, LET-bound or not), up to
  /// max_tags of them within TermGuard::max_depth: what a rewrite of the rule stands for
  /// (provenance, RuleInfo::pattern_ops).
  PatternOp ops[max_tags]{};
  std::size_t n_ops = 0;
};

template <class N>
constexpr void place_tags(const N& n, StaticGuards& g, const std::uint32_t* path, std::uint32_t depth) {
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::Tag || k == Kind::Let) {
    const int s = n.leaf.slot;
    if (n.leaf.first && s > 0 && s < max_tags && !g.placed[s]) {
      g.placed[s] = true;
      g.depth[s] = depth;
      for (std::uint32_t d = 0; d < depth; ++d) g.path[s][d] = path[d];
    }
    if constexpr (k == Kind::Let) place_tags(boost::hana::at_c<0>(n.kids), g, path, depth);
  } else if constexpr (k == Kind::Op || k == Kind::OpVarIn) {
    if (depth > 0 && g.n_ops < max_tags) {
      for (std::uint32_t d = 0; d < depth; ++d) g.ops[g.n_ops].path[d] = path[d];
      g.ops[g.n_ops++].depth = depth;
    }
    std::uint32_t i = 0;
    boost::hana::for_each(n.kids, [&](const auto& kid) {
      if (depth < TermGuard::max_depth) {
        std::uint32_t inner[TermGuard::max_depth]{};
        for (std::uint32_t d = 0; d < depth; ++d) inner[d] = path[d];
        inner[depth] = i;
        place_tags(kid, g, inner, depth + 1);
      }
      ++i;
    });
  }
}

/// Adds the guard of `EQ(P, K)`, if it is one and there is room: P is `DIM_OF(tag, N)` or
/// `RANK_OF(tag)` with N and K integer constants >= 0, or `DTYPE_OF(tag)` with K a DType; the tag
/// is placed by the match.
template <class N>
constexpr void guard_term(const N& n, StaticGuards& g) {
  if constexpr (N::kind == Kind::Eq && N::arity == 2) {
    using P = boost::mp11::mp_at_c<typename N::children, 0>;
    using K = boost::mp11::mp_at_c<typename N::children, 1>;
    constexpr bool integral_k = K::kind == Kind::Int || K::kind == Kind::Size;
    constexpr bool fits = (P::kind == Kind::DimOf && integral_k) || (P::kind == Kind::RankOf && integral_k) ||
                          (P::kind == Kind::DTypeOf && K::kind == Kind::DTypeConst);
    if constexpr (fits) {
      using T = boost::mp11::mp_at_c<typename P::children, 0>;
      const auto& p = boost::hana::at_c<0>(n.kids);
      long long dim = 0;
      if constexpr (P::kind == Kind::DimOf) {
        using I = boost::mp11::mp_at_c<typename P::children, 1>;
        if constexpr (I::kind == Kind::Int || I::kind == Kind::Size)
          dim = boost::hana::at_c<1>(p.kids).leaf.i;
        else
          return;
      }
      if constexpr (T::kind == Kind::Tag) {
        const int s = boost::hana::at_c<0>(p.kids).leaf.slot;
        const long long value = boost::hana::at_c<1>(n.kids).leaf.i;
        if (s >= 0 && s < max_tags && (s == 0 || g.placed[s]) && dim >= 0 && value >= 0 &&
            g.n_terms < TermGuard::max_per_rule) {
          StaticGuards::Term& t = g.terms[g.n_terms++];
          t.slot = s;
          t.of = P::kind == Kind::DimOf    ? TermGuard::Of::dim
                 : P::kind == Kind::RankOf ? TermGuard::Of::rank
                                           : TermGuard::Of::dtype;
          t.dim = static_cast<std::size_t>(dim);
          t.value = static_cast<std::size_t>(value);
        }
      }
    }
  }
}

template <class Rule>
constexpr StaticGuards static_guards() {
  constexpr auto& a = analyzed<Rule>::value;
  StaticGuards g;
  // input guards: the root's operands that are (LET-wrapped) Op or OpVarIn patterns
  std::uint32_t slot = 0;
  boost::hana::for_each(a.match.kids, [&](const auto& kid) {
    using K = std::remove_cvref_t<decltype(kid)>;
    if constexpr (K::kind == Kind::Op || K::kind == Kind::OpVarIn) {
      g.inputs[g.n_inputs++] = {slot, kid.leaf.index};
    } else if constexpr (K::kind == Kind::Let) {
      using In = boost::mp11::mp_front<typename K::children>;
      if constexpr (In::kind == Kind::Op || In::kind == Kind::OpVarIn)
        g.inputs[g.n_inputs++] = {slot, boost::hana::at_c<0>(kid.kids).leaf.index};
    }
    ++slot;
  });
  // the term guards: the constraint, or the fitting conjuncts of its top-level AND
  place_tags(a.match, g, nullptr, 0);
  using C = std::remove_cvref_t<decltype(a.constraint)>;
  if constexpr (C::kind == Kind::And) {
    boost::hana::for_each(a.constraint.kids, [&](const auto& term) { guard_term(term, g); });
  } else {
    guard_term(a.constraint, g);
  }
  return g;
}
}  // namespace detail

/// OPTGRAMMAR_SPECIALIZE_RULES's value: defined empty it means 1.
constexpr bool specialize() { return true; }
constexpr bool specialize(long v) { return v != 0; }

/// The apply function of a well-formed rule: its own (specialized) or its shape's (shared). Only
/// the one chosen is instantiated.
template <class Rule, class A, engine::RuleLayout L>
constexpr auto apply_function() {
  if constexpr (Rule::specialized)
    return &engine::apply_rule<analyzed<Rule>, L>;
  else
    return &engine::apply_shared<A, L>;
}

/// The canonical text of an analyzed rule of type A (one function per node type, not per rule).
template <class A>
std::string canonical_of(const void* rule, std::string_view flags) {
  return dsl::canonical_text(*static_cast<const A*>(rule), flags);
}

/// The flat form of an analyzed rule of type A (RuleInfo::flat; one function per node type).
template <class A>
dsl::FlatCopy flat_of(const void* rule) {
  return dsl::flat_copy(*static_cast<const A*>(rule));
}

/// What registration needs of a well-formed rule, as constant data.
struct RuleSource {
  std::string_view file;
  int line = 0;
  const dsl::Analysis* info = nullptr;
  dsl::Pass pass;
  int root_name = 0;  ///< index of the root's op name in info->names
  const detail::StaticGuards* guards = nullptr;
  const char* flags = "";
  const void* rule = nullptr;  ///< the AnalyzedRule
  bool (*apply)(Rewriter&, const RuleInfo&, OpRef) = nullptr;
  std::string (*canonical)(const void*, std::string_view) = nullptr;
  dsl::FlatCopy (*flat)(const void*) = nullptr;
  void (*explain)(const void*, engine::NodeEval*) = nullptr;  ///< RuleInfo::explain's evaluators
};

/// Registers a rule for RuleSet::global(), which keeps it once, also when a header holds it. Not a
/// template: a rule's own code is only its constant RuleSource.
[[gnu::noinline]] inline bool register_rule(const RuleSource& src) {
  const dsl::Analysis& a = *src.info;
  RuleInfo info;
  info.file = std::string(src.file);
  info.line = src.line;
  info.name = std::string(dsl::file_base_name(src.file)).append(":").append(std::to_string(src.line));
  info.priority = src.pass.priority();
  info.pass_name = std::string(src.pass.name.view());
  if (src.pass.offset > 0) info.pass_name += std::string("+").append(std::to_string(src.pass.offset));
  if (src.pass.offset < 0) info.pass_name += std::to_string(src.pass.offset);
  for (int i = 0; i < a.n_names; ++i) info.names.push_back(intern_op_name(a.names[i].view()));
  info.root = info.names[static_cast<std::size_t>(src.root_name)];
  const detail::StaticGuards& guards = *src.guards;
  for (int i = 0; i < guards.n_inputs; ++i)
    info.guards.push_back({guards.inputs[i].slot, info.names[static_cast<std::size_t>(guards.inputs[i].name)]});
  for (std::size_t k = 0; k < guards.n_terms; ++k) {
    const detail::StaticGuards::Term& t = guards.terms[k];
    TermGuard& tg = info.term_guards.emplace_back();
    tg.active = true;
    tg.of = t.of;
    tg.depth = guards.depth[t.slot];
    for (std::uint32_t d = 0; d < tg.depth; ++d) tg.path[d] = guards.path[t.slot][d];
    tg.dim = t.dim;
    tg.value = t.value;
  }
  info.pattern_ops = std::span<const PatternOp>(guards.ops, guards.n_ops);
  info.flags = src.flags;
  info.flag_bits = static_cast<std::uint32_t>(dsl::read_rule_flags(src.flags).bits);
  info.canonical = src.canonical(src.rule, info.flags);
  info.warn_nested_split = a.warn_nested_split;
  info.reads_uses = a.reads_uses;
  info.apply = src.apply;
  info.rule = src.rule;
  info.flat = src.flat;
  info.explain.nodes = src.explain;
  engine::pending_rules().push_back(std::move(info));
  return true;
}

/// Registers a well-formed rule and returns true. An ill-formed rule's one error is raised by the
/// rule macro (verdict_scope); nothing else about it is instantiated, nor about a rule the
/// compiler could not type (dsl::rule_typed: its own error said why). By default the rule's apply
/// function is shared by the rules of its node types and layout and reads the rule's values from
/// its analysis; with OPTGRAMMAR_SPECIALIZE_RULES defined to 1 where the rule is written, the rule
/// gets its own apply function with its values folded in (docs/engine.md: "Rule code").
template <class Rule>
bool define_rule() {
  if constexpr (!dsl::rule_typed<Rule>) {
    return false;
  } else {
    constexpr auto& a = analyzed<Rule>::value;
    if constexpr (!a.info.ok) {
      return false;
    } else {
      using A = std::remove_cvref_t<decltype(a)>;
      constexpr engine::RuleLayout layout{a.info.n_tags, a.info.n_splits, {a.info.reads_outdef, a.info.reads_constval}};
      static constexpr detail::StaticGuards guards = detail::static_guards<Rule>();
      static constexpr RuleSource src{Rule::file(),
                                      Rule::line,
                                      &a.info,
                                      a.pass,
                                      a.match.leaf.index,
                                      &guards,
                                      Rule::flags,
                                      &a,
                                      apply_function<Rule, A, layout>(),
                                      &canonical_of<A>,
                                      &flat_of<A>,
                                      &engine::explain_nodes<A>};
      return register_rule(src);
    }
  }
}

}  // namespace optgrammar::package_glue

// Defined to 1 where rules are written (before including <optgrammar/rules.hpp>, or between
// rules), each rule that follows gets its own apply function with its values folded in: faster
// matching, at about three times the compile cost of a rule (docs/engine.md: "Rule code").
#ifndef OPTGRAMMAR_SPECIALIZE_RULES
#define OPTGRAMMAR_SPECIALIZE_RULES 0
#endif

// A macro because a rule must (1) be evaluated where the rule words (Op, AND, ...) are visible
// without a using-directive, which a class derived from `words` gives, (2) capture __FILE__ and
// __LINE__, and (3) create a uniquely named registration object at namespace scope.
#define OPTGRAMMAR_RULE_(NAME, FLAGS, PASS, PASS_TEXT, MATCH, CST, REPL)                                           \
  namespace {                                                                                                      \
  struct NAME : ::optgrammar::dsl::words {                                                                         \
    static constexpr std::string_view pass_text() { return PASS_TEXT; }                                            \
    static constexpr std::string_view text() { return #MATCH " " #CST " " #REPL; }                                 \
    static constexpr auto match() { return ::optgrammar::dsl::detail::to_node(MATCH); }                            \
    static constexpr auto constraint() { return ::optgrammar::dsl::detail::to_node(CST); }                         \
    static constexpr auto replacement() { return ::optgrammar::dsl::detail::to_node(REPL); }                       \
    static constexpr std::string_view file() { return __FILE__; }                                                  \
    static constexpr int line = __LINE__;                                                                          \
    static constexpr const char* flags = FLAGS;                                                                    \
    static constexpr bool specialized = ::optgrammar::package_glue::specialize(OPTGRAMMAR_SPECIALIZE_RULES);       \
  };                                                                                                               \
  struct OPTGRAMMAR_CAT(NAME, _verdict) : ::optgrammar::dsl::verdict_scope<NAME> {                                 \
    static_assert(sizeof(accept(PASS)));                                                                           \
  };                                                                                                               \
  [[maybe_unused]] const bool OPTGRAMMAR_CAT(NAME, _registered) = ::optgrammar::package_glue::define_rule<NAME>(); \
  }

/// DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
#define DEF_PACKAGE_OPTIMIZATION(PASS, MATCH, CST, REPL) \
  OPTGRAMMAR_RULE_(OPTGRAMMAR_CAT(og_rule_, __COUNTER__), "", PASS, #PASS, MATCH, CST, REPL)

/// DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precision_flag, match, constraint, replacement)
#define DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(PASS, FLAGS, MATCH, CST, REPL) \
  OPTGRAMMAR_RULE_(OPTGRAMMAR_CAT(og_rule_, __COUNTER__), #FLAGS, PASS, #PASS, MATCH, CST, REPL)

// The words that name a C++ function or a tensor class are macros, so that the name as written is
// known for the canonical form and for messages (the function itself is called through a pointer
// and its parameters are checked at compile time). They forward to members of `words` with a
// trailing underscore; outside rules they expand to names that do not exist.
#define EXTERNAL_CONSTRAINT(FN, ...) EXTERNAL_CONSTRAINT_(#FN, FN, __VA_ARGS__)
#define EXTERNAL_REPLACE(FN) EXTERNAL_REPLACE_(#FN, FN)
#define SHAPEFN_APPLY(FN, ...) SHAPEFN_APPLY_(#FN, FN __VA_OPT__(, ) __VA_ARGS__)
#define AUTOSPLIT_SHAPEFN_APPLY(FN, ...) AUTOSPLIT_SHAPEFN_APPLY_(#FN, FN, __VA_ARGS__)
#define LAYOUT_CHUNKSIZE(CLS, ...) LAYOUT_CHUNKSIZE_(#CLS, __VA_ARGS__)
