// What a name defined by expansion (dsl/grammar.hpp's OPTGRAMMAR_EXPANSION_RECORDS) prints as in
// the canonical form, worked out from the records' texts as strings: the tests of both front ends
// compare what each builds with it.
#pragma once

#include <optgrammar/dsl/grammar.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace expansion_text {

/// `text` with the operands' texts put for $1, $2, ... ($N... for all operands from the N-th on).
inline std::string substituted(std::string_view text, const std::vector<std::string>& args) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size() || text[i + 1] < '1' || text[i + 1] > '9') {
      out += text[i];
      continue;
    }
    const auto k = static_cast<std::size_t>(text[++i] - '1');
    if (text.substr(i + 1, 3) == "...") {
      for (std::size_t j = k; j < args.size(); ++j) out += (j > k ? "," : "") + args[j];
      i += 3;
    } else if (k < args.size()) {
      out += args[k];
    } else {
      out += "<missing operand>";
    }
  }
  return out;
}

/// `text` with every call of another name defined by expansion (one record's text may use
/// another's name: ESTIMATE_SIZE uses ESTIMATE_TENSOR_SIZE) and every named value
/// (TCM_MAXTENSOR_SIZE) replaced by that record's text, until none is left: the text both front ends print. Strings in
/// quotes are passed over.
inline std::string fully_expanded(std::string text) {
  using optgrammar::dsl::expansion_name_char;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '"') {
      i = text.find('"', i + 1) + 1;
      continue;
    }
    std::size_t e = i;
    while (e < text.size() && expansion_name_char(text[e])) ++e;
    if (e == i) {
      ++i;
      continue;
    }
    const optgrammar::dsl::Construct* rec = optgrammar::dsl::find_construct(std::string_view(text).substr(i, e - i));
    if (rec && rec->family == optgrammar::dsl::Family::NAMED_VALUE) {  // a named value: its text
      text.replace(i, e - i, rec->expansion);
      continue;
    }
    if (!rec || rec->expansion.empty() || e >= text.size() || text[e] != '(') {
      i = e;
      continue;
    }
    // The call's operands: split at the commas of depth one, outside strings.
    std::vector<std::string> args;
    std::size_t depth = 0, start = e + 1, k = e;
    for (; k < text.size(); ++k) {
      const char c = text[k];
      if (c == '"') {
        k = text.find('"', k + 1);
      } else if (c == '(') {
        ++depth;
      } else if (c == ',' && depth == 1) {
        args.push_back(text.substr(start, k - start));
        start = k + 1;
      } else if (c == ')' && --depth == 0) {
        if (k > start) args.push_back(text.substr(start, k - start));
        break;
      }
    }
    text.replace(i, k + 1 - i, substituted(rec->expansion, args));  // looked at again from i
  }
  return text;
}

}  // namespace expansion_text
