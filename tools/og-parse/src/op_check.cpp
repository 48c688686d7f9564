// Rules that cannot match (optgrammar/dsl/op_check.hpp): each valid rule's match checked against
// the built-in op definitions (op_definitions.inc, generated from them) and the ops the sources
// register, declare or make: an op named by DEF_PACKAGE_OP* is the package's (docs/packages.md,
// "Op names"), known with no operand count of the built-in op of its name; an op of
// DEF_TENSOR_PROPERTIES or DEF_PACKAGE_PARAM_ORDER, or one a rule's replacement makes, is known.
#include "internal.hpp"

#include <optgrammar/dsl/op_check.hpp>

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
  // a rule's nodes, or when they are not kept (Options::keep_trees) its op nodes (Rule::op_nodes)
  const auto kept = [](const Rule& r) { return !r.nodes.empty(); };
  for (const Rule& r : s.rules()) {
    if (!r.valid) continue;
    if (kept(r)) dsl::know_replacement_ops(r.nodes.data(), r.replacement, static_cast<std::uint32_t>(r.nodes.size()), ops);
    else dsl::know_replacement_ops(r.op_nodes.data(), r.op_nodes_match, static_cast<std::uint32_t>(r.op_nodes.size()), ops);
  }
  for (const Rule& r : s.rules()) {
    if (!r.valid) continue;
    const auto& spans = kept(r) ? r.spans : r.op_spans;
    const auto warnings = kept(r) ? dsl::check_match_ops(r.nodes.data(), r.match, r.constraint, ops)
                                  : dsl::check_match_ops(r.op_nodes.data(), 0, r.op_nodes_match, ops);
    for (const auto& w : warnings) s.diag(Loc{spans[w.node].file, spans[w.node].offset}, Severity::warning, w.text);
  }
}

}  // namespace og_parse::detail
