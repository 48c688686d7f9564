// Printing an analyzed rule in the canonical text form (docs/canonical-form.md).
#pragma once

#include "optgrammar/dsl/check.hpp"

#include <boost/hana/for_each.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace optgrammar::dsl {

inline void print_float(std::string& out, double v) {
  if (std::isinf(v)) {
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

inline void print_string(std::string& out, const Str& s) {
  out += '"';
  out.append(s.view());
  out += '"';
}

template <class N>
void print_node(std::string& out, const N& n) {
  constexpr Kind k = N::kind;
  auto kids_from = [&](std::size_t skip_index, bool first_comma) {
    std::size_t i = 0;
    bool comma = first_comma;
    boost::hana::for_each(n.kids, [&](const auto& kid) {
      if (i++ == skip_index) return;
      if (comma) out += ',';
      comma = true;
      print_node(out, kid);
    });
  };
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  if constexpr (k == Kind::Tag) {
    print_string(out, n.leaf.str);
  } else if constexpr (k == Kind::Bool) {
    out += n.leaf.i ? "true" : "false";
  } else if constexpr (k == Kind::Int) {
    out += std::to_string(n.leaf.i);
  } else if constexpr (k == Kind::Size) {
    out += std::to_string(static_cast<unsigned long long>(n.leaf.i));
    out += 'U';
  } else if constexpr (k == Kind::Float) {
    print_float(out, n.leaf.f);
  } else if constexpr (k == Kind::DTypeConst) {
    out += "DType::";
    out += dtype_name(static_cast<DType>(n.leaf.i));
  } else if constexpr (k == Kind::Op || k == Kind::OpVarIn || k == Kind::Let || k == Kind::WrapOp ||
                       k == Kind::WrapOpAlways) {
    out += kind_name(k);
    out += '(';
    print_string(out, n.leaf.str);
    kids_from(none, true);
    out += ')';
  } else if constexpr (k == Kind::IsOp || k == Kind::ProducerFor) {  // an opref, then an op name
    out += kind_name(k);
    out += '(';
    kids_from(none, false);
    out += ',';
    print_string(out, n.leaf.str);
    out += ')';
  } else if constexpr (typing_of(k).regular() && typing_of(k).names() > 0) {  // an option name, a split tag
    out += kind_name(k);
    out += '(';
    print_string(out, n.leaf.str);
    out += ')';
  } else if constexpr (k == Kind::FnName) {
    out.append(n.leaf.str.view());
  } else if constexpr (k == Kind::MessageText) {
    out += '"';
    for (std::size_t i = 0; i < n.len; ++i) {
      auto c = static_cast<unsigned char>(n.text[i]);
      if (c == '\\') out += "\\\\";
      else if (c == '"') out += "\\\"";
      else if (c == '\n') out += "\\n";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c > 0x7e) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
        out += buf;
      } else out += static_cast<char>(c);
    }
    out += '"';
  } else if constexpr (k == Kind::LayoutChunksize) {
    out += "LAYOUT_CHUNKSIZE(";
    out.append(n.leaf.str.view());
    kids_from(none, true);
    out += ')';
  } else if constexpr (k == Kind::AutosplitShapefnApply || k == Kind::TypicalConvSlice) {
    out += kind_name(k);
    out += '(';
    std::size_t i = 0;
    boost::hana::for_each(n.kids, [&](const auto& kid) {
      if (i) out += ',';
      print_node(out, kid);
      if (i++ == 0) {
        out += ',';
        print_string(out, n.leaf.str);
      }
    });
    out += ')';
  } else if constexpr (k == Kind::IterInputOf) {
    out += "ITER_INPUT_OF(";
    kids_from(none, false);
    out += ',';
    print_string(out, n.leaf.str);
    out += ')';
  } else {
    out += kind_name(k);
    out += '(';
    kids_from(none, false);
    out += ')';
  }
}

/// "DEF_PACKAGE_OPTIMIZATION(EARLY+1,Op(...),true,\"r\")".
template <class A>
std::string canonical_text(const A& rule, std::string_view flags) {
  std::string out = flags.empty() ? "DEF_PACKAGE_OPTIMIZATION(" : "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(";
  out.append(rule.pass.name.view());
  if (rule.pass.offset > 0) out += std::string("+").append(std::to_string(rule.pass.offset));
  if (rule.pass.offset < 0) out += std::to_string(rule.pass.offset);
  out += ',';
  if (!flags.empty()) {
    out.append(flags);
    out += ',';
  }
  print_node(out, rule.match);
  out += ',';
  print_node(out, rule.constraint);
  out += ',';
  print_node(out, rule.replacement);
  out += ')';
  return out;
}

}  // namespace optgrammar::dsl
