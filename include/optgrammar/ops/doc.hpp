// The Markdown op reference (docs/ops.md), generated from the op definitions.
#pragma once

#include "optgrammar/ops/builtin.hpp"

#include <ostream>
#include <sstream>
#include <string>

namespace optgrammar::ops {

namespace detail {
inline std::string type_rule_text(TypeRule rule, DTypeSet set, std::uint16_t like = 0) {
  switch (rule) {
    case TypeRule::same_as_operand:
      return set == dtypes::any ? cat("as operand ", like) : cat("as operand ", like, " (", to_string(set), ")");
    case TypeRule::in_set: return to_string(set);
    case TypeRule::same_as_result: return "as the result";
  }
  return "?";
}
inline std::string arity_text(const OperandSpec& o) {
  switch (o.arity) {
    case Arity::single: return "1";
    case Arity::optional: return "0 or 1";
    case Arity::variadic: return cat(o.min, " or more");
  }
  return "?";
}
/// An anchor-friendly heading text: `$Const` stays as it is (GitHub drops the `$`).
inline std::string heading(std::string_view name) { return cat("`", name, "`"); }
}  // namespace detail

/// Writes the op reference for the definitions in `defs`, in the order given.
inline void write_ops_markdown(std::ostream& os, const std::vector<const OpDefinition*>& defs) {
  os << "# Op reference\n\n"
        "<!-- Generated from include/optgrammar/ops/builtin.hpp by og_ops_doc_gen; do not edit. "
        "Regenerate with `cmake --build <build> --target og_ops_doc`; the test ops.doc_is_current fails "
        "when this file is stale. -->\n\n"
        "One entry per op definition (`include/optgrammar/ops/`). The graph stores no attributes besides "
        "an op's output definition, so parameters are operands (`$Const`, `$Shape`) or parts of the declared "
        "output definition. *eval* says whether the constant folder and the reference interpreter can compute an op (a "
        "fold/ kernel, or a copy or reference loop of ops/); "
        "traits are described at the end.\n\n";
  os << "| op | summary | operands | traits | eval |\n| --- | --- | --- | --- | --- |\n";
  for (const auto* d : defs) {
    std::string ops;
    for (const auto& o : d->operands) {
      if (!ops.empty()) ops += ", ";
      ops += std::string(o.name);
      if (o.arity == Arity::optional) ops += "?";
      if (o.arity == Arity::variadic) ops += "...";
    }
    os << "| " << detail::heading(d->name) << " | " << d->summary << " | " << (ops.empty() ? "—" : ops) << " | "
       << traits_to_string(d->traits) << " | " << (d->eval ? (d->fold_kernel ? "kernel" : "copy/loop") : "—") << " |\n";
  }
  os << "\n";
  for (const auto* d : defs) {
    os << "## " << detail::heading(d->name) << "\n\n" << d->summary << "\n\n" << d->description << "\n\n";
    if (!d->operands.empty()) {
      os << "| operand | count | dtype | constant | what |\n| --- | --- | --- | --- | --- |\n";
      for (const auto& o : d->operands)
        os << "| `" << o.name << "` | " << detail::arity_text(o) << " | "
           << detail::type_rule_text(o.rule, o.types, o.like) << " | " << (o.must_be_constant ? "yes" : "") << " | "
           << o.summary << " |\n";
      os << "\n";
    } else {
      os << "No operands.\n\n";
    }
    os << "- result `" << d->result.name << "`: " << detail::type_rule_text(d->result.rule, d->result.types) << "; "
       << d->result.summary << "\n";
    os << "- traits: " << (d->traits ? traits_to_string(d->traits) : "none") << "\n";
    os << "- output definition inferred: "
       << (!d->infer              ? "no (declared)"
           : d->infer_checks_only ? "no (declared; the operands are checked)"
                                  : "yes")
       << "\n";
    os << "- indexing map: " << (d->indexing ? "yes" : "no") << "\n";
    os << "- evaluated by (folder, interpreter): " << (d->eval ? std::string(d->kernel) : std::string("no"))
       << (d->eval && !d->folds ? " (the interpreter only: the folder leaves it, OpDefinition::folds)" : "") << "\n\n";
  }
  os << "## How the definitions are used\n\n"
        "- **Verification** (`ops/definition_verify.hpp`, `verify_ops(g)`): operand counts, dtypes, constant "
        "parameters, "
        "the same-type/same-shape traits and the inferred output definition of every op that has a definition. "
        "Ops without one are allowed; `VerifyOptions{.strict = true}` reports them as unknown.\n"
        "- **Constant folding** (`engine/fold_step.hpp`, `ConstantFolder`, plugged in as `DriverOptions::visit`): "
        "an op whose inputs are all `$Const` (or `$Shape` parameters), flagged IS_CONST without INHIBIT_CONST_PROP "
        "(`OpRegistry::flags`, default IS_CONST), not side-effecting and with an eval becomes a `$Const` with its "
        "declared output definition and op id, unless its definition says it does not fold (`OpDefinition::folds`: "
        "`onnx.DequantizeLinear`, whose constant integers and scales a quantized lowering reads). Outputs over "
        "`max_elements` elements are skipped and counted.\n"
        "- **CSE** (`engine/cse.hpp`, `Cse`, plugged in as `DriverOptions::between_passes`: before the first pass "
        "and after each, never inside one, so SAME_OP keeps the spec's meaning): pure ops with equal name, inputs "
        "(either order when commutative) and output definition merge; constants with equal payload and output "
        "definition merge when `merge_constants` (default on). Unknown ops are not pure.\n"
        "- **Reference interpreter** (`engine/interpret.hpp`): evaluates a graph with the reference kernels; "
        "tests compare results before and after rule packages.\n"
        "- **og-opt** folds and runs CSE by default (`--no-fold`, `--no-cse`, `--fold-max-elements N`) but merges "
        "constants only with `--cse-constants`: workload W1's spec keeps every block's own weight and bias "
        "constants, and its bias constants are equal.\n"
        "- **Registrations**: `op_info(name)` gives an op's definition next to its `DEF_PACKAGE_OP*` registration "
        "(implementation, cost, flags).\n\n";
  os << "## Traits\n\n"
        "| trait | meaning |\n| --- | --- |\n"
        "| pure | no side effects; equal operands give equal results: CSE may merge two such ops |\n"
        "| commutative | the two operands may be swapped: CSE matches `Add(x, y)` with `Add(y, x)` |\n"
        "| elementwise | output element i reads operand element i (after broadcasting) |\n"
        "| broadcasting | operands broadcast numpy-style (the fold kernels up to rank 4, whole arrays past it) |\n"
        "| same-operands-and-result-type | every operand has the result's dtype and quantization |\n"
        "| same-operands-and-result-shape | every operand has the result's shape |\n"
        "| side-effecting | never merged by CSE, never folded |\n"
        "| constant-like | holds its value itself; counts as constant for folding |\n"
        "| graph-input | a value supplied from outside |\n"
        "| graph-output | a root: never removed as dead |\n"
        "| quantized | computes on quantized values, each with its own zero offset and step |\n";
}

inline std::string ops_markdown() {
  std::ostringstream os;
  write_ops_markdown(os, definitions().all());
  return os.str();
}

}  // namespace optgrammar::ops
