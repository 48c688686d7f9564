// The W2 package (README.md here) as a rule set: the DSL rules linked into the program (F1, F2 of
// w2_rules.cpp and the generated decoys), or the same package written by hand
// (w2_handwritten.hpp). Shared by w2_bench and w2_gbench.
#pragma once

#include "w2/w2_handwritten.hpp"

#include <optgrammar/dsl/str.hpp>
#include <optgrammar/engine/driver.hpp>

#include <cstddef>

namespace w2 {

/// The DSL package of `rules` rules: F1, F2 and the decoys D_j, j < rules - 2. A decoy's j is its
/// line in its generated file minus W2_DECOY_FIRST_LINE (gen_w2_rules.py).
inline optgrammar::RuleSet dsl_package(std::size_t rules) {
  return optgrammar::RuleSet::global().select([rules](const optgrammar::RuleInfo& r) {
    if (optgrammar::dsl::file_base_name(r.file).starts_with("w2_decoys_"))
      return r.line >= W2_DECOY_FIRST_LINE && static_cast<std::size_t>(r.line - W2_DECOY_FIRST_LINE) + 2 < rules;
    return true;
  });
}

}  // namespace w2
