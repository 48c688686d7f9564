// Output: the canonical text form (docs/canonical-form.md, printed by the library's printer from
// the rule's flat form) and the JSON document.
#include "internal.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optgrammar/dsl/canonical.hpp>
#include <optgrammar/dsl/typing.hpp>

namespace og_parse {

namespace {

namespace dsl = optgrammar::dsl;
using dsl::FlatNode;
using dsl::Kind;
using dsl::VType;

std::string pass_text(const PassSpec& p) {
  if (p.offset == 0) return std::string(p.name);  // as the library prints it: EARLY+0 is EARLY
  return fmt::format("{}{}{}", p.name, p.offset < 0 ? '-' : '+', p.offset < 0 ? -p.offset : p.offset);
}

/// The JSON words of a node's type (docs/og-parse.md).
std::string_view type_word(VType t) {
  switch (t) {
    case VType::Bool: return "bool";
    case VType::Int: return "int";
    case VType::Size: return "size";
    case VType::Float: return "float";
    case VType::DType: return "dtype";
    case VType::OpRef: return "opref";
    case VType::OpBuild: return "op";
    case VType::Shape: return "shape";
    case VType::NewConst: return "const";
    case VType::Repl: return "mixed";
    case VType::Match: return "pattern";
    default: return "none";
  }
}

nlohmann::json leaf_json(std::string_view node, nlohmann::json value, std::string_view type) {
  return {{"node", node}, {"value", std::move(value)}, {"type", type}};
}

/// Node i of a rule in flat form, as JSON: a construct's kept strings (an op name, a tag, an option
/// name, a split tag, a tensor class) among its operands, where the canonical form prints them.
nlohmann::json node_json(const FlatNode* nodes, std::uint32_t i, bool in_match) {
  const FlatNode& n = nodes[i];
  const std::string s(n.str.view());
  switch (n.kind) {
    case Kind::Tag: return leaf_json("string", s, !in_match ? "opref" : n.wildcard ? "wildcard" : "tag");
    case Kind::Bool: return leaf_json("bool", n.value != 0, "bool");
    case Kind::Int: return leaf_json("integer", n.value, "int");
    case Kind::Size: return leaf_json("integer", static_cast<std::uint64_t>(n.value), "size");
    case Kind::Float:
      if (std::isinf(n.real)) return leaf_json("name", n.real > 0 ? "INF" : "NEG_INF", "float");
      return leaf_json("float", n.real, "float");
    case Kind::DTypeConst:
      return leaf_json("dtype", std::string(optgrammar::dtype_name(static_cast<optgrammar::DType>(n.value))), "dtype");
    case Kind::FnName: return leaf_json("name", s, "function");
    case Kind::MessageText: return leaf_json("string", s, "message");
    default: break;
  }
  nlohmann::json args = nlohmann::json::array();
  std::uint32_t j = 0;
  for (std::uint32_t k = i + 1; k < n.end; k = nodes[k].end, ++j) {
    // the kept string, where the canonical form prints it
    if (j == 0 &&
        (n.kind == Kind::Op || n.kind == Kind::OpVarIn || n.kind == Kind::WrapOp || n.kind == Kind::WrapOpAlways))
      args.push_back(leaf_json("string", s, "opstring"));
    if (j == 0 && n.kind == Kind::Let) args.push_back(leaf_json("string", s, "tag"));
    if (j == 0 && n.kind == Kind::LayoutChunksize) args.push_back(leaf_json("name", s, "name"));
    if (j == 1 && (n.kind == Kind::AutosplitShapefnApply || n.kind == Kind::TypicalConvSlice))
      args.push_back(leaf_json("string", s, "split_tag"));
    if ((n.kind == Kind::Autosplit || n.kind == Kind::OpIter) && j == 1) {
      args.push_back(leaf_json("string", s, "split_tag"));
      continue;
    }
    args.push_back(node_json(nodes, k, in_match));
  }
  if (n.n == 0 && (n.kind == Kind::Op || n.kind == Kind::OpVarIn)) args.push_back(leaf_json("string", s, "opstring"));
  if (n.kind == Kind::IterInputOf ||
      (n.n == 1 && (n.kind == Kind::AutosplitShapefnApply || n.kind == Kind::TypicalConvSlice)))
    args.push_back(leaf_json("string", s, "split_tag"));
  if (n.kind == Kind::IsOp || n.kind == Kind::ProducerFor) args.push_back(leaf_json("string", s, "opstring"));
  if (dsl::typing_of(n.kind).regular() && dsl::typing_of(n.kind).names() > 0)
    args.push_back(leaf_json(
        "string", s, dsl::typing_of(n.kind).kinds[0] == dsl::OperandKind::option_name ? "option" : "split_tag"));
  // (in the match, Op, OpVarIn and LET are patterns, whatever their operands)
  const bool pattern = in_match && (n.kind == Kind::Op || n.kind == Kind::OpVarIn || n.kind == Kind::Let);
  return {{"node", "call"},
          {"name", std::string(dsl::kind_name(n.kind))},
          {"args", std::move(args)},
          {"type", pattern ? "pattern" : type_word(n.type)}};
}

dsl::FlatRule flat_of(const Rule& r) {
  return dsl::FlatRule{r.nodes.data(),
                       static_cast<std::uint32_t>(r.nodes.size()),
                       r.match,
                       r.constraint,
                       r.replacement,
                       nullptr,
                       0,
                       nullptr,
                       r.spans.data()};
}

}  // namespace

std::string Session::canonical(const Rule& r) const {
  return dsl::canonical_text(r.pass.name, r.pass.offset, r.with_flags ? r.flags : std::string_view(), flat_of(r));
}

nlohmann::json Session::to_json() const {
  using nlohmann::json;
  json doc;
  doc["files"] = json::array();
  for (const auto& f : files_) doc["files"].push_back(f.name);
  json rules = json::array();
  for (const auto& r : rules_) {
    if (!r.valid) continue;
    json j;
    j["file"] = files_[r.loc.file].name;
    j["line"] = r.line;
    j["macro"] = r.with_flags ? "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" : "DEF_PACKAGE_OPTIMIZATION";
    j["pass"] = {{"name", std::string(r.pass.name)},
                 {"offset", r.pass.offset},
                 {"priority", r.pass.priority},
                 {"text", pass_text(r.pass)}};
    j["flags"] = r.with_flags ? leaf_json("name", std::string(r.flags), "name") : json(nullptr);
    j["match"] = node_json(r.nodes.data(), r.match, true);
    j["constraint"] = node_json(r.nodes.data(), r.constraint, false);
    j["replacement"] = node_json(r.nodes.data(), r.replacement, false);
    j["canonical"] = canonical(r);
    rules.push_back(std::move(j));
  }
  doc["rules"] = std::move(rules);
  json ops = json::array();
  for (const auto& o : ops_) {
    json j = {{"file", files_[o.loc.file].name},
              {"line", o.line},
              {"macro", o.macro},
              {"function", o.function},
              {"op", o.op},
              {"cost", o.cost},
              {"flags", o.flags}};
    if (!o.op_variable.empty()) j["op_variable"] = o.op_variable;  // "op" is then ""
    ops.push_back(std::move(j));
  }
  doc["ops"] = std::move(ops);
  json tps = json::array();
  for (const auto& t : tprops_) {
    json props = json::array();
    for (const auto& [name, operands] : t.properties) props.push_back({{"name", name}, {"operands", operands}});
    tps.push_back({{"file", files_[t.loc.file].name},
                   {"line", t.line},
                   {"op", t.op},
                   {"operands", t.operands},
                   {"outputs", t.outputs},
                   {"properties", std::move(props)}});
  }
  doc["tensor_properties"] = std::move(tps);
  json pos = json::array();
  for (const auto& p : porders_) {
    json params = json::array();
    for (const auto& q : p.params)
      params.push_back({{"name", q.name}, {"mandatory", q.mandatory}, {"default", q.default_value}});
    json j = {{"file", files_[p.loc.file].name}, {"line", p.line}, {"op", p.op}, {"params", std::move(params)}};
    if (!p.op_variable.empty()) j["op_variable"] = p.op_variable;  // "op" is then ""
    pos.push_back(std::move(j));
  }
  doc["param_orders"] = std::move(pos);
  json fns = json::array();
  for (const auto& f : shapefns_)
    fns.push_back({{"file", files_[f.loc.file].name},
                   {"line", f.line},
                   {"name", f.name},
                   {"return_type", f.return_type},
                   {"params", f.params}});
  doc["shape_functions"] = std::move(fns);
  json diags = json::array();
  for (const auto& d : diags_)
    diags.push_back({{"file", files_[d.loc.file].name},
                     {"line", d.line},
                     {"col", d.col},
                     {"severity", d.severity == Severity::error ? "error" : "warning"},
                     {"message", d.message}});
  doc["diagnostics"] = std::move(diags);
  doc["errors"] = error_count();
  doc["warnings"] = warning_count();
  return doc;
}

}  // namespace og_parse
