// Rules that cannot match (optgrammar/dsl/op_check.hpp): each valid rule's match checked against
// the built-in op definitions (op_definitions.inc, generated from them) and the ops the sources
// register, declare or make: an op named by DEF_PACKAGE_OP* is the package's (docs/packages.md,
// "Op names"), known with no operand count of the built-in op of its name; an op of
// DEF_TENSOR_PROPERTIES or DEF_PACKAGE_PARAM_ORDER, or one a rule's replacement makes, is known.
#include "internal.hpp"

#include <optgrammar/dsl/op_check.hpp>

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace og_parse::detail {
namespace {

struct BuiltinOp {
  std::string_view name;
  std::size_t min = 0, max = 0;
  std::string_view allows;
};
constexpr std::size_t any = optgrammar::dsl::OpCatalogue::any;
constexpr BuiltinOp builtin_ops[] = {
#include "op_definitions.inc"
};

}  // namespace

void check_rule_ops(Session& s) {
  namespace dsl = optgrammar::dsl;
  dsl::OpCatalogue ops;
  for (const BuiltinOp& b : builtin_ops) ops.define(b.name, b.min, b.max, std::string(b.allows));
  for (const OpDecl& d : s.ops())
    if (!d.op.empty()) ops.uncount(d.op);
  for (const TensorProperties& t : s.tensor_properties()) ops.know(t.op);
  for (const ParamOrder& p : s.param_orders())
    if (!p.op.empty()) ops.know(p.op);
  if (s.options().keep_trees) {
    // each rule's nodes
    for (const Rule& r : s.rules())
      if (r.valid)
        dsl::know_replacement_ops(r.nodes.data(), r.replacement, static_cast<std::uint32_t>(r.nodes.size()), ops);
    for (const Rule& r : s.rules())
      if (r.valid)
        for (const auto& w : dsl::check_match_ops(r.nodes.data(), r.match, r.constraint, ops))
          s.diag(Loc{r.spans[w.node].file, r.spans[w.node].offset}, Severity::warning, w.text);
    return;
  }
  // The nodes are not kept: the names of the ops each replacement makes (Rule::made_ops) and each
  // match as lint reads it (Rule::LintFacts::match). A package makes thousands of ops, which the
  // catalogue would hold each with its definition's fields; they are a set of names beside it
  // instead. An op of a match that only a replacement makes is known without operand counts,
  // which the check does not look at: it is left out of what the check reads. Only an op nothing
  // knows needs them all in the catalogue (the names nearest to it): the rule is checked again
  // with a catalogue that has them.
  std::unordered_set<std::string_view> made;
  for (const Rule& r : s.rules())
    if (r.valid) made.insert(r.made_ops.begin(), r.made_ops.end());
  std::optional<dsl::OpCatalogue> all;  // `ops` and the made ones, made when an op is unknown
  std::vector<dsl::FlatNode> match;     // a match's nodes as the check reads them (kind, operand count, name)
  const auto read_match = [&match](const Rule& r) {
    match.resize(r.lint.match.size());
    for (std::size_t i = 0; i < match.size(); ++i) {
      const auto& m = r.lint.match[i];
      match[i].kind = m.kind;
      match[i].n = m.n;
      match[i].str.p = m.text;
      match[i].str.len = m.size;
    }
  };
  const auto is_op = [](dsl::Kind k) { return k == dsl::Kind::Op || k == dsl::Kind::OpVarIn; };
  for (const Rule& r : s.rules()) {
    if (!r.valid) continue;
    read_match(r);
    for (auto& m : match)
      if (is_op(m.kind) && ops.find(m.str.view()) == nullptr && made.contains(m.str.view())) m.kind = dsl::Kind::Tag;
    auto warnings = dsl::check_match_ops(match.data(), 0, static_cast<std::uint32_t>(match.size()), ops);
    const bool unknown = std::any_of(warnings.begin(), warnings.end(), [&](const dsl::OpCheckWarning& w) {
      return ops.find(match[w.node].str.view()) == nullptr;
    });
    if (unknown) {
      if (!all) {
        all = ops;
        for (const std::string_view name : made) all->know(name);
      }
      read_match(r);
      warnings = dsl::check_match_ops(match.data(), 0, static_cast<std::uint32_t>(match.size()), *all);
    }
    for (const auto& w : warnings)
      s.diag(Loc{r.lint.match[w.node].span.file, r.lint.match[w.node].span.offset}, Severity::warning, w.text);
  }
}

}  // namespace og_parse::detail
