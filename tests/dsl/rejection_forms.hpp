// The entry macros of tests/dsl/rejections.inc and the declaration each stands for, for the
// readers of that file other than the C++ front end (og-parse's side in
// tests/og-parse/og_parse_rejections_test.cpp, the reference generator gen_grammar_doc.cpp).
#pragma once

#include <string_view>

namespace og_rejections {

struct EntryForm {
  std::string_view reject;  ///< "OG_REJECT(": an ill-formed entry, with its family and text
  std::string_view accept;  ///< "OG_ACCEPT(": its corrected twin
  std::string_view macro;   ///< what both stand for, with its opening parenthesis
};

inline constexpr EntryForm entry_forms[] = {
    {"OG_REJECT(", "OG_ACCEPT(", "DEF_PACKAGE_OPTIMIZATION("},
    {"OG_REJECT_FLAGS(", "OG_ACCEPT_FLAGS(", "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS("},
    {"OG_REJECT_PROPERTIES(", "OG_ACCEPT_PROPERTIES(", "DEF_TENSOR_PROPERTIES("},
};

/// The form of an entry line and whether it is a rejection (else a twin); nullptr for a line that
/// is no entry.
inline const EntryForm* entry_form(std::string_view line, bool& reject) {
  for (const EntryForm& f : entry_forms) {
    reject = line.starts_with(f.reject);
    if (reject || line.starts_with(f.accept)) return &f;
  }
  return nullptr;
}

}  // namespace og_rejections
