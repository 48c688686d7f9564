// Output: the canonical text form (docs/canonical-form.md) and the JSON document.
#include "internal.hpp"

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace og_parse {

std::string canonical_float(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  s += 'f';
  return s;
}

namespace {

void append_message(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20 || u > 0x7e)
          out += fmt::format("\\x{:02x}", u);
        else
          out += c;
    }
  }
  out += '"';
}

}  // namespace

void append_canonical(std::string& out, const Node* n) {
  switch (n->kind) {
    case NodeKind::string:
      if (n->type == ValueType::message) {
        append_message(out, n->text);
      } else {
        out += '"';
        out += n->text;
        out += '"';
      }
      return;
    case NodeKind::integer:
      if (n->is_size) {
        out += std::to_string(static_cast<std::uint64_t>(n->ival));
        out += 'U';
      } else {
        out += std::to_string(n->ival);
      }
      return;
    case NodeKind::floating: out += canonical_float(n->fval); return;
    case NodeKind::boolean: out += n->bval ? "true" : "false"; return;
    case NodeKind::name: out += n->text; return;
    case NodeKind::dtype:
      out += "DType::";
      out += n->text;
      return;
    case NodeKind::call:
      out += n->text;
      out += '(';
      for (std::size_t i = 0; i < n->args.size(); ++i) {
        if (i) out += ',';
        append_canonical(out, n->args[i]);
      }
      out += ')';
      return;
  }
}

namespace {

std::string pass_text(const PassSpec& p) {
  if (p.offset == 0) return p.name;  // as the library prints it: EARLY+0 is EARLY
  return fmt::format("{}{}{}", p.name, p.offset < 0 ? '-' : '+', p.offset < 0 ? -p.offset : p.offset);
}

nlohmann::json node_json(const Node* n) {
  nlohmann::json j;
  switch (n->kind) {
    case NodeKind::string: j["node"] = "string"; j["value"] = std::string(n->text); break;
    case NodeKind::integer:
      j["node"] = "integer";
      if (n->is_size)
        j["value"] = static_cast<std::uint64_t>(n->ival);
      else
        j["value"] = n->ival;
      break;
    case NodeKind::floating: j["node"] = "float"; j["value"] = n->fval; break;
    case NodeKind::boolean: j["node"] = "bool"; j["value"] = n->bval; break;
    case NodeKind::name: j["node"] = "name"; j["value"] = std::string(n->text); break;
    case NodeKind::dtype: j["node"] = "dtype"; j["value"] = std::string(n->text); break;
    case NodeKind::call: {
      j["node"] = "call";
      j["name"] = std::string(n->text);
      auto args = nlohmann::json::array();
      for (const Node* a : n->args) args.push_back(node_json(a));
      j["args"] = std::move(args);
      break;
    }
  }
  j["type"] = std::string(to_string(n->type));
  return j;
}

}  // namespace

std::string Session::canonical(const Rule& r) const {
  std::string out = r.with_flags ? "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(" : "DEF_PACKAGE_OPTIMIZATION(";
  out += pass_text(r.pass);
  out += ',';
  if (r.with_flags && r.flags) {
    append_canonical(out, r.flags);
    out += ',';
  }
  append_canonical(out, r.match);
  out += ',';
  append_canonical(out, r.constraint);
  out += ',';
  append_canonical(out, r.replacement);
  out += ')';
  return out;
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
    j["pass"] = {{"name", r.pass.name}, {"offset", r.pass.offset}, {"priority", r.pass.priority}, {"text", pass_text(r.pass)}};
    j["flags"] = r.flags ? node_json(r.flags) : json(nullptr);
    j["match"] = node_json(r.match);
    j["constraint"] = node_json(r.constraint);
    j["replacement"] = node_json(r.replacement);
    j["canonical"] = canonical(r);
    rules.push_back(std::move(j));
  }
  doc["rules"] = std::move(rules);
  json ops = json::array();
  for (const auto& o : ops_) {
    json j = {{"file", files_[o.loc.file].name}, {"line", o.line}, {"macro", o.macro}, {"function", o.function},
              {"op", o.op}, {"cost", o.cost}, {"flags", o.flags}};
    if (!o.op_variable.empty()) j["op_variable"] = o.op_variable;  // "op" is then ""
    ops.push_back(std::move(j));
  }
  doc["ops"] = std::move(ops);
  json tps = json::array();
  for (const auto& t : tprops_) {
    json props = json::array();
    for (const auto& [name, operands] : t.properties) props.push_back({{"name", name}, {"operands", operands}});
    tps.push_back({{"file", files_[t.loc.file].name}, {"line", t.line}, {"op", t.op}, {"operands", t.operands},
                   {"outputs", t.outputs}, {"properties", std::move(props)}});
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
    fns.push_back({{"file", files_[f.loc.file].name}, {"line", f.line}, {"name", f.name}, {"return_type", f.return_type},
                   {"params", f.params}});
  doc["shape_functions"] = std::move(fns);
  json diags = json::array();
  for (const auto& d : diags_)
    diags.push_back({{"file", files_[d.loc.file].name}, {"line", d.line}, {"col", d.col},
                     {"severity", d.severity == Severity::error ? "error" : "warning"}, {"message", d.message}});
  doc["diagnostics"] = std::move(diags);
  doc["errors"] = error_count();
  doc["warnings"] = warning_count();
  return doc;
}

}  // namespace og_parse
