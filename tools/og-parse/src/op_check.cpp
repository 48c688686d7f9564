// Rules that cannot match (optgrammar/dsl/op_check.hpp): each valid rule's match checked against
// the built-in op definitions (op_definitions.inc, generated from them) and the ops the sources
// register, declare or make: an op named by DEF_PACKAGE_OP* is the package's (docs/packages.md,
// "Op names"), known with no operand count of the built-in op of its name; an op of
// DEF_TENSOR_PROPERTIES or DEF_PACKAGE_PARAM_ORDER, or one a rule's replacement makes, is known.
#include "internal.hpp"

#include <optgrammar/dsl/op_check.hpp>

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
  // a rule's nodes, or when they are not kept (Options::keep_trees) the names of the ops its
  // replacement makes (Rule::made_ops) and its match as lint reads it (Rule::LintFacts::match)
  const auto kept = [](const Rule& r) { return !r.nodes.empty(); };
  std::unordered_set<std::string_view> made;  // each name told to the catalogue once (rules make the same ops)
  for (const Rule& r : s.rules()) {
    if (!r.valid) continue;
    if (kept(r)) dsl::know_replacement_ops(r.nodes.data(), r.replacement, static_cast<std::uint32_t>(r.nodes.size()), ops);
    else
      for (const std::string_view name : r.made_ops)
        if (made.insert(name).second) ops.know(name);
  }
  std::vector<dsl::FlatNode> match;  // a match's nodes as the check reads them (kind, operand count, name)
  for (const Rule& r : s.rules()) {
    if (!r.valid) continue;
    if (kept(r)) {
      for (const auto& w : dsl::check_match_ops(r.nodes.data(), r.match, r.constraint, ops))
        s.diag(Loc{r.spans[w.node].file, r.spans[w.node].offset}, Severity::warning, w.text);
      continue;
    }
    match.resize(r.lint.match.size());
    for (std::size_t i = 0; i < match.size(); ++i) {
      const auto& m = r.lint.match[i];
      match[i].kind = m.kind;
      match[i].n = m.n;
      match[i].str.p = m.text;
      match[i].str.len = m.size;
    }
    for (const auto& w : dsl::check_match_ops(match.data(), 0, static_cast<std::uint32_t>(match.size()), ops))
      s.diag(Loc{r.lint.match[w.node].span.file, r.lint.match[w.node].span.offset}, Severity::warning, w.text);
  }
}

}  // namespace og_parse::detail
