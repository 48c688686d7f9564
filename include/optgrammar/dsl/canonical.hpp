// Printing a rule in the canonical text form (docs/canonical-form.md) from its flat form
// (dsl/flat.hpp): one printer for both front ends, the C++ library's registered rules and og-parse.
#pragma once

#include "optgrammar/core/dtype.hpp"
#include "optgrammar/core/float_math.hpp"
#include "optgrammar/dsl/flat.hpp"
#include "optgrammar/dsl/node.hpp"

#include <cstdio>
#include <string>
#include <string_view>

namespace optgrammar::dsl {

/// A float constant: the value rounded to float, %.9g, ".0" when that has no '.', 'e' or 'n', then
/// 'f'; INF and NEG_INF by name.
inline void print_float(std::string& out, double v) {
  if (fmath::isinf(v)) {
    out += v > 0 ? "INF" : "NEG_INF";
    return;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
  std::string t = buf;
  if (t.find_first_of(".en") == std::string::npos) t += ".0";
  out += t;
  out += 'f';
}

inline void print_string(std::string& out, std::string_view s) {
  out += '"';
  out.append(s);
  out += '"';
}

/// MESSAGE's text: escaped again as C writes it (\\, \", \n, \t, other bytes outside 0x20..0x7e as \xHH).
inline void print_message_text(std::string& out, std::string_view s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c > 0x7e) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
}

/// The canonical text of node i of a flat rule and its subtree.
inline void print_node(std::string& out, const FlatNode* nodes, std::uint32_t i) {
  const FlatNode& n = nodes[i];
  // the operands from the j-th on, each after a comma (or the first without one)
  auto operands = [&](std::uint32_t from, bool comma) {
    std::uint32_t j = 0;
    for (std::uint32_t k = i + 1; k < n.end; k = nodes[k].end, ++j) {
      if (j < from) continue;
      if (comma) out += ',';
      comma = true;
      print_node(out, nodes, k);
    }
  };
  const Kind k = n.kind;
  switch (k) {
    case Kind::Tag: return print_string(out, n.str.view());
    case Kind::Bool: out += n.value ? "true" : "false"; return;
    case Kind::Int: out += std::to_string(n.value); return;
    case Kind::Size:
      out += std::to_string(static_cast<unsigned long long>(n.value));
      out += 'U';
      return;
    case Kind::Float: return print_float(out, n.real);
    case Kind::DTypeConst:
      out += "DType::";
      out += dtype_name(static_cast<DType>(n.value));
      return;
    case Kind::FnName: out.append(n.str.view()); return;
    case Kind::MessageText: return print_message_text(out, n.str.view());
    default: break;
  }
  out += kind_name(k);
  out += '(';
  if (k == Kind::Op || k == Kind::OpVarIn || k == Kind::Let || k == Kind::WrapOp || k == Kind::WrapOpAlways) {
    print_string(out, n.str.view());  // the op name or the LET tag
    operands(0, true);
  } else if (typing_of(k).regular() && typing_of(k).names() > 0) {
    print_string(out, n.str.view());  // an option name, a split tag
  } else if (k == Kind::LayoutChunksize) {
    out.append(n.str.view());  // the tensor class, a name
    operands(0, true);
  } else if (k == Kind::AutosplitShapefnApply || k == Kind::TypicalConvSlice) {
    print_node(out, nodes, i + 1);  // the function or the input, then the split tag
    out += ',';
    print_string(out, n.str.view());
    operands(1, true);
  } else if (k == Kind::IterInputOf || k == Kind::IsOp || k == Kind::ProducerFor) {
    operands(0, false);  // an opref, then the split tag or the op name
    out += ',';
    print_string(out, n.str.view());
  } else {
    operands(0, false);
  }
  out += ')';
}

/// "DEF_PACKAGE_OPTIMIZATION(EARLY+1,Op(...),true,\"r\")": a rule of pass `pass` + `offset` (NAME+N,
/// NAME-N, NAME for 0), with `flags` as written (DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS) or none.
inline std::string canonical_text(std::string_view pass, int offset, std::string_view flags, const FlatRule& r) {
  std::string out = flags.empty() ? "DEF_PACKAGE_OPTIMIZATION(" : "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(";
  out.append(pass);
  if (offset > 0) out += '+';
  if (offset != 0) out += std::to_string(offset);
  out += ',';
  if (!flags.empty()) {
    out.append(flags);
    out += ',';
  }
  print_node(out, r.nodes, r.match);
  out += ',';
  print_node(out, r.nodes, r.constraint);
  out += ',';
  print_node(out, r.nodes, r.replacement);
  out += ')';
  return out;
}

/// The canonical text of node `index` of a rule's flat form (preorder over its match, constraint
/// and replacement, as flatten_rule orders them) and its subtree; empty past the rule's last node.
inline std::string node_text(const FlatCopy& f, std::uint32_t index) {
  std::string out;
  if (index < f.nodes.size()) print_node(out, f.nodes.data(), index);
  return out;
}

}  // namespace optgrammar::dsl
