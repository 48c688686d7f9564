// Verification of a graph's ops against their definitions (on top of core/graph_verify.hpp's
// structural checks): operand counts, dtype constraints, constant parameters, traits and the
// inferred output definition.
#pragma once

#include "optgrammar/core/declarations.hpp"
#include "optgrammar/core/element.hpp"
#include "optgrammar/ops/builtin.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace optgrammar::ops {

/// How an op of the graph is seen by infer/eval: its operands' definitions and, for `$Const`s,
/// their bytes; `$Shape`s are known by their dims.
inline ValueView value_view(const Graph& g, OpRef r) {
  ValueView v;
  v.def = &g.output(r);
  if (g.is_const(r)) {
    v.data = g.payload(r);
    v.known = true;
  } else if (g.name_id(r) == op_names::shape) {
    v.is_shape = true;
    v.known = true;
  }
  return v;
}

/// The operand views of op r, in a buffer reused across calls.
inline OpView op_view(const Graph& g, OpRef r, std::vector<ValueView>& buf) {
  buf.clear();
  for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) buf.push_back(value_view(g, g.input(r, k)));
  return OpView{std::span<const ValueView>(buf), &g.output(r)};
}

struct VerifyOptions {
  /// Report ops that have no definition (otherwise they are allowed silently).
  bool strict = false;
};

namespace detail {
inline std::string def_string(const OutputDef& d) {
  std::string s(dtype_short_name(d.dtype));
  s += infer::shape_string(d);
  if (is_quantized(d.dtype)) s += cat("(zp ", d.zero_offset, ", step ", std::to_string(d.stepsize), ")");
  return s;
}
}  // namespace detail

/// Problems of one op against its definition (none when the op has no definition).
inline void verify_op(const Graph& g, OpRef r, const OpDefinition& def, std::vector<std::string>& out,
                      std::vector<ValueView>& buf) {
  auto at = [&] { return cat("%", r.index, " (", g.name(r), "): "); };
  const std::size_t n = g.n_inputs(r);
  if (n < def.min_operands() || n > def.max_operands()) {
    std::string want = def.max_operands() == static_cast<std::size_t>(-1) ? cat("at least ", def.min_operands())
                       : def.min_operands() == def.max_operands()         ? cat(def.min_operands())
                                                                  : cat(def.min_operands(), " to ", def.max_operands());
    out.push_back(cat(at(), n, " operands, the definition takes ", want));
    return;  // the operand-wise checks below would only repeat it
  }
  const OutputDef& res = g.output(r);
  auto type_ok = [&](TypeRule rule, DTypeSet set, DType t, std::uint16_t like) {
    switch (rule) {
      case TypeRule::in_set: return set.contains(t);
      case TypeRule::same_as_result: return t == res.dtype;
      case TypeRule::same_as_operand: return like >= n || t == g.output(g.input(r, like)).dtype;
    }
    return false;
  };
  auto rule_text = [](TypeRule rule, DTypeSet set, std::uint16_t like) {
    switch (rule) {
      case TypeRule::in_set: return to_string(set);
      case TypeRule::same_as_result: return std::string("the result's dtype");
      case TypeRule::same_as_operand: return cat("operand ", like, "'s dtype");
    }
    return std::string();
  };
  for (std::size_t k = 0; k < n; ++k) {
    const OperandSpec* spec = def.operand_spec(k);
    OpRef in = g.input(r, static_cast<std::uint32_t>(k));
    const DType t = g.output(in).dtype;
    if (!type_ok(spec->rule, spec->types, t, spec->like) ||
        (spec->rule != TypeRule::in_set && !spec->types.contains(t)))
      out.push_back(cat(at(), "operand ", k, " (", spec->name, ") is " + std::string(dtype_short_name(t)),
                        ", the definition takes ", rule_text(spec->rule, spec->types, spec->like)));
    if (spec->must_be_constant && !g.is_const(in) && g.name_id(in) != op_names::shape)
      out.push_back(cat(at(), "operand ", k, " (", spec->name, ") must be a $Const or $Shape"));
    if (spec->scalar && g.is_const(in) && g.output(in).element_count() > 1)
      out.push_back(cat(at(), "operand ", k, " (", spec->name, ") has ", g.output(in).element_count(),
                        " elements, a scalar parameter has one"));
    if (spec->choices != 0 && g.is_const(in) && dtype_info(t).kind == DTypeKind::integer &&
        g.payload(in).size() == g.output(in).byte_size())
      for (std::size_t e = 0; e < g.output(in).element_count(); ++e)
        if (const auto c = static_cast<std::int64_t>(element_value(t, g.payload(in).data(), e));
            c < 0 || c >= spec->choices) {
          out.push_back(cat(at(), "operand ", k, " (", spec->name, ") is ", c, ", not an index into its ",
                            spec->choices, " choices"));
          break;
        }
  }
  if (!type_ok(def.result.rule, def.result.types, res.dtype, 0) || !def.result.types.contains(res.dtype))
    out.push_back(cat(at(), "result is ", dtype_short_name(res.dtype), ", the definition gives ",
                      rule_text(def.result.rule, def.result.types, 0)));
  if (def.has(Trait::same_operands_and_result_type))
    for (std::size_t k = 0; k < n; ++k) {
      const OutputDef& d = g.output(g.input(r, static_cast<std::uint32_t>(k)));
      if (!d.same_encoding(res)) {
        out.push_back(cat(at(), "operand ", k, " is ", detail::def_string(d) + ", same-operands-and-result-type wants ",
                          detail::def_string(res)));
        break;
      }
    }
  if (def.has(Trait::same_operands_and_result_shape))
    for (std::size_t k = 0; k < n; ++k)
      if (!g.output(g.input(r, static_cast<std::uint32_t>(k))).same_shape(res)) {
        out.push_back(cat(at(), "operand ", k,
                          " has shape " + infer::shape_string(g.output(g.input(r, static_cast<std::uint32_t>(k)))) +
                              ", same-operands-and-result-shape wants ",
                          infer::shape_string(res)));
        break;
      }
  if (def.infer) {
    Inferred inf = def.infer(op_view(g, r, buf));
    if (!inf.error.empty())
      out.push_back(cat(at(), inf.error));
    else {
      if (inf.shape && !inf.def.same_shape(res))
        out.push_back(cat(at(), "output shape ", infer::shape_string(res), " differs from the inferred ",
                          infer::shape_string(inf.def)));
      if (inf.dtype && inf.def.dtype != res.dtype)
        out.push_back(cat(at(), "output dtype ", dtype_short_name(res.dtype), " differs from the inferred ",
                          dtype_short_name(inf.def.dtype)));
      else if (inf.quant && is_quantized(res.dtype) && !inf.def.same_encoding(res))
        out.push_back(cat(at(), "output quantization ", detail::def_string(res), " differs from the inferred ",
                          detail::def_string(inf.def)));
    }
  }
}

/// Problems of an op a package registered (DEF_PACKAGE_OP*) without defining it (docs/packages.md,
/// "Op names"): its operand count against the package's DEF_TENSOR_PROPERTIES of the op, which
/// names the operands (a last "..." stands for any number more); operands that the package's
/// DEF_PACKAGE_PARAM_ORDER calls not mandatory may be left out at the end. Nothing when the
/// package declares no operands.
inline void verify_package_op(const Graph& g, OpRef r, std::vector<std::string>& out) {
  const std::string_view name = g.name(r);
  const TensorProperties* tp = TensorPropertyRegistry::instance().find(name);
  if (!tp || tp->operands.empty()) return;
  const bool open = tp->operands.back() == "...";
  const std::size_t declared = tp->operands.size() - (open ? 1 : 0);
  std::size_t optional = 0;  // trailing operands that are optional parameters
  if (const ParamOrder* po = ParamOrderRegistry::instance().find(name))
    for (std::size_t k = declared; k-- > 0;) {
      const int p = po->index_of(tp->operands[k]);
      if (p < 0 || po->params[static_cast<std::size_t>(p)].mandatory) break;
      ++optional;
    }
  const std::size_t n = g.n_inputs(r), lo = declared - optional;
  if (n >= lo && (open || n <= declared)) return;
  const std::string want = open ? cat("at least ", lo) : lo == declared ? cat(declared) : cat(lo, " to ", declared);
  out.push_back(cat("%", r.index, " (", name, "): ", n, " operands, the package's DEF_TENSOR_PROPERTIES (", tp->file,
                    ":", tp->line, ") declares ", want));
}

/// One line per problem: "%7 (Add): operand 1 (b) is qu8, the definition takes operand 0's dtype".
/// Ops without a definition are allowed; in strict mode each is reported once per op name.
/// When `where` is given, it receives the op of each problem (same order).
inline std::vector<std::string> verify_ops(const Graph& g, const VerifyOptions& opt = {},
                                           std::vector<OpRef>* where = nullptr) {
  std::vector<std::string> out;
  std::vector<ValueView> buf;
  std::vector<bool> unknown_reported;
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    OpRef r{i};
    if (!g.alive(r)) continue;
    const OpDefinition* def = find_definition(g.name_id(r));
    if (!def && OpRegistry::instance().find(g.name_id(r))) {  // the package's op
      verify_package_op(g, r, out);
      if (where) where->resize(out.size(), r);
      continue;
    }
    if (!def) {
      if (opt.strict) {
        OpNameId id = g.name_id(r);
        if (id >= unknown_reported.size()) unknown_reported.resize(id + 1, false);
        if (!unknown_reported[id]) {
          unknown_reported[id] = true;
          out.push_back(cat("%", i, " (", g.name(r), "): unknown op (no definition)"));
          if (where) where->push_back(r);
        }
      }
      continue;
    }
    verify_op(g, r, *def, out, buf);
    if (where) where->resize(out.size(), r);
  }
  return out;
}

}  // namespace optgrammar::ops
