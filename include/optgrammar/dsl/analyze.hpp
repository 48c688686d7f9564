// The C++ front end's analysis of a rule at compile time: the rule's nodes (built by the words,
// dsl/words.hpp) are flattened (dsl/flat.hpp), checked by the one checker (dsl/check.hpp), and
// what the checker learned (tag slots, op-name indices, binding facts) is written back into the
// nodes the engine instantiates its code from. The first problem found becomes the one compile
// error (package/define.hpp).
#pragma once

#include "optgrammar/dsl/canonical.hpp"
#include "optgrammar/dsl/check.hpp"
#include "optgrammar/dsl/external.hpp"
#include "optgrammar/dsl/flat.hpp"
#include "optgrammar/dsl/grammar.hpp"
#include "optgrammar/dsl/node.hpp"
#include "optgrammar/dsl/words.hpp"

#include <boost/hana/at.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace optgrammar::dsl {

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
template <class N>
constexpr void flatten(const N& n, FlatRule& r, std::uint32_t& at, Signature* fns);
template <class N, std::size_t... I>
constexpr void flatten_kids([[maybe_unused]] const N& n, [[maybe_unused]] FlatRule& r,
                            [[maybe_unused]] std::uint32_t& at, [[maybe_unused]] Signature* fns,
                            std::index_sequence<I...>) {
  (flatten(boost::hana::at_c<I>(n.kids), r, at, fns), ...);
}
/// Appends node `n` and its subtree to `r` in preorder, from index `at` on (the signatures of its
/// external functions to `fns`), with the facts its node type carries (its type, whether it may
/// be "*") and those its leaf holds once analyzed (slot, op-name index, binding facts).
template <class N>
constexpr void flatten(const N& n, FlatRule& r, std::uint32_t& at, Signature* fns) {
  const std::uint32_t i = at++;
  FlatNode& f = r.nodes[i];
  f.kind = N::kind;
  f.n = static_cast<std::uint32_t>(N::arity);
  f.type = N::vtype;
  f.may_star = n.leaf.may_star;
  f.str = n.leaf.str;
  // what the checker wrote back (dsl::analyze; before it, the defaults the checker starts from)
  f.slot = n.leaf.slot;
  f.index = n.leaf.index;
  f.first = n.leaf.first;
  f.wildcard = n.leaf.wildcard;
  if constexpr (N::kind == Kind::Float) {
    f.real = n.leaf.f;
  } else if constexpr (N::kind == Kind::FnName) {
    fns[r.n_fns] = signature_of<typename N::fn_type>();
    f.value = r.n_fns++;
  } else if constexpr (N::kind == Kind::MessageText) {
    f.str.p = n.text;
    f.str.len = n.len;
  } else if constexpr (N::kind == Kind::Misapplied) {
    if (n.leaf.record > 0)
      f.record = n.leaf.record;  // the record of the name misapplied
    else
      f.value = -1 - n.leaf.record;  // the Kind of an Op with no string name
  } else if constexpr (is_value_kind(N::kind)) {
    f.value = n.leaf.i;
  } else if constexpr (N::kind != Kind::Tag) {
    f.record = n.leaf.record;  // the written name's record + 1 (dsl/words.hpp), or 0
  }
  flatten_kids(n, r, at, fns, std::make_index_sequence<N::arity>{});
  r.nodes[i].end = at;
}

template <class N>
constexpr void write_back(N& n, const FlatNode* nodes, std::uint32_t& at);
template <class N, std::size_t... I>
constexpr void write_back_kids([[maybe_unused]] N& n, [[maybe_unused]] const FlatNode* nodes,
                               [[maybe_unused]] std::uint32_t& at, std::index_sequence<I...>) {
  (write_back(boost::hana::at_c<I>(n.kids), nodes, at), ...);
}
/// Writes what the checker found about each node back into the nodes, in the order flatten read them.
template <class N>
constexpr void write_back(N& n, const FlatNode* nodes, std::uint32_t& at) {
  // (only what the checker changed: a node written to is copied out of the constant it was built as)
  const FlatNode& f = nodes[at++];
  if (f.slot != -1) n.leaf.slot = f.slot;
  if (f.index != -1) n.leaf.index = f.index;
  if (f.first) n.leaf.first = true;
  if (f.wildcard) n.leaf.wildcard = true;
  write_back_kids(n, nodes, at, std::make_index_sequence<N::arity>{});
}

/// A rule's three parts in flat form, in `nodes` and `fns` (sized by the node types).
template <class M, class C, class R>
constexpr FlatRule flatten_rule(const M& m, const C& c, const R& r, FlatNode* nodes, Signature* fns, VType* scratch) {
  FlatRule f{nodes,
             static_cast<std::uint32_t>(M::tree_size + C::tree_size + R::tree_size),
             0,
             M::tree_size,
             M::tree_size + C::tree_size,
             fns,
             0,
             scratch};
  std::uint32_t at = 0;
  flatten(m, f, at, fns);
  flatten(c, f, at, fns);
  flatten(r, f, at, fns);
  return f;
}
}  // namespace detail

/// Runs every check on a rule's parts; the first failure is kept in info.msg. `pass_text` is the
/// pass spec as written, `rule_text` the match, constraint and replacement as written,
/// `flags_text` DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS' flags as written (checked against the rule
/// flags of dsl/grammar.hpp). With OPTGRAMMAR_STRICT defined, the "should" restrictions are errors.
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
  constexpr std::size_t n = M::tree_size + C::tree_size + R::tree_size;
  FlatNode nodes[n];
  Signature fns[M::fn_count + C::fn_count + R::fn_count + 1];
  VType scratch[n];
  FlatRule flat = detail::flatten_rule(out.match, out.constraint, out.replacement, nodes, fns, scratch);
#if defined(OPTGRAMMAR_STRICT)
  check_rule(flat, a, CheckOptions{true, nullptr});
#else
  check_rule(flat, a, CheckOptions{false, nullptr});
#endif
  if (!a.ok) return out;
  std::uint32_t at = 0;
  detail::write_back(out.match, nodes, at);
  detail::write_back(out.constraint, nodes, at);
  detail::write_back(out.replacement, nodes, at);
  return out;
}

/// The canonical text of one node and its subtree, as the rule's printer prints it.
template <class N>
std::string canonical_node(const N& n) {
  std::vector<FlatNode> nodes(N::tree_size);
  std::vector<Signature> fns(N::fn_count + 1);
  FlatRule flat{nodes.data(), static_cast<std::uint32_t>(N::tree_size), 0, 0, 0, fns.data(), 0, nullptr};
  std::uint32_t at = 0;
  detail::flatten(n, flat, at, fns.data());
  std::string out;
  print_node(out, nodes.data(), 0);
  return out;
}

/// An analyzed rule's flat form, held by value, with what the checker filled in (tag slots,
/// op-name indices, which occurrence binds).
template <class M, class C, class R>
FlatCopy flat_copy(const AnalyzedRule<M, C, R>& rule) {
  FlatCopy f;
  f.nodes.resize(M::tree_size + C::tree_size + R::tree_size);
  f.fns.resize(M::fn_count + C::fn_count + R::fn_count + 1);
  const FlatRule flat =
      detail::flatten_rule(rule.match, rule.constraint, rule.replacement, f.nodes.data(), f.fns.data(), nullptr);
  f.match = flat.match;
  f.constraint = flat.constraint;
  f.replacement = flat.replacement;
  f.n_fns = flat.n_fns;
  return f;
}

/// "DEF_PACKAGE_OPTIMIZATION(EARLY+1,Op(...),true,\"r\")": the canonical text of an analyzed rule,
/// printed from its flat form (dsl/canonical.hpp, the printer og-parse uses too).
template <class M, class C, class R>
std::string canonical_text(const AnalyzedRule<M, C, R>& rule, std::string_view flags) {
  FlatCopy f = flat_copy(rule);
  return canonical_text(rule.pass.name.view(), rule.pass.offset, flags, f.view());
}

}  // namespace optgrammar::dsl
