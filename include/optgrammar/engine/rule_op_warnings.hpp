// Rules that cannot match, checked where a program loads them: the check of dsl/op_check.hpp
// over the rules' flat forms (RuleInfo::flat) and what the program knows of its ops now, after
// its packages registered theirs. og-opt runs it on the rules it loads (docs/og-opt.md).
#pragma once

#include "optgrammar/core/declarations.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/dsl/flat.hpp"
#include "optgrammar/dsl/op_check.hpp"
#include "optgrammar/engine/rule.hpp"
#include "optgrammar/ops/builtin.hpp"

#include <string>
#include <utility>
#include <vector>

namespace optgrammar::engine {

/// The ops the program knows (docs/packages.md, "Op names"): each definition a name resolves to,
/// with its operand counts; a name a package registered (DEF_PACKAGE_OP*, then the package's op,
/// whatever a built-in definition of the name says), declared properties or a parameter order of.
inline dsl::OpCatalogue program_ops() {
  dsl::OpCatalogue ops;
  for (const ops::OpDefinition* d : ops::definitions().all()) {
    if (ops::find_definition(intern_op_name(d->name)) == d)
      ops.define(d->name, d->min_operands(), d->max_operands(), d->allowed_operands());
    else
      ops.know(d->name);
  }
  for (const OpImplInfo& i : OpRegistry::instance().entries()) ops.know(op_name_of(i.name));
  for (const TensorProperties& t : TensorPropertyRegistry::instance().entries()) ops.know(t.op);
  for (const ParamOrder& p : ParamOrderRegistry::instance().entries()) ops.know(p.op);
  return ops;
}

/// A warning of the check about one rule.
struct RuleOpWarning {
  const RuleInfo* rule = nullptr;
  std::string text;
};

/// Checks each DSL rule of `rules` (a range of `const RuleInfo*`) against the program's ops and
/// the ops the rules' replacements make; rules made by hand (no flat form) are not checked.
template <class Rules>
std::vector<RuleOpWarning> check_rule_ops(const Rules& rules) {
  dsl::OpCatalogue ops = program_ops();
  std::vector<std::pair<const RuleInfo*, dsl::FlatCopy>> flat;
  for (const RuleInfo* r : rules)
    if (r->flat != nullptr) {
      flat.emplace_back(r, r->flat(r->rule));
      const dsl::FlatCopy& f = flat.back().second;
      dsl::know_replacement_ops(f.nodes.data(), f.replacement, static_cast<std::uint32_t>(f.nodes.size()), ops);
    }
  std::vector<RuleOpWarning> out;
  for (const auto& [r, f] : flat)
    for (auto& w : dsl::check_match_ops(f.nodes.data(), f.match, f.constraint, ops))
      out.push_back({r, std::move(w.text)});
  return out;
}

}  // namespace optgrammar::engine
