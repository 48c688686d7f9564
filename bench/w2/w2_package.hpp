// The W2 package (README.md here) as a rule set: the DSL rules linked into the program (F1, F2 of
// w2_rules.cpp and the generated decoys), or the same package written by hand
// (w2_handwritten.hpp). Shared by w2_bench and w2_gbench.
#pragma once

#include "w2/w2_handwritten.hpp"

#include <optgrammar/dsl/str.hpp>
#include <optgrammar/engine/driver.hpp>

#include <cstddef>
#include <string>

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

/// Where the hand-written package `hand` differs from the DSL package `dsl` of the same size in
/// what the dispatch reads of each rule (rule order, root, input guards, term guards); empty when
/// they agree. The hand-written decoys derive a, b and k from the spec's formula on their own;
/// this checks them against the generated DSL rules.
inline std::string guards_differ(const optgrammar::RuleSet& hand, const optgrammar::RuleSet& dsl) {
  if (hand.size() != dsl.size()) return "the packages differ in size";
  for (std::size_t k = 0; k < hand.size(); ++k) {
    const optgrammar::RuleInfo& h = *hand.rules()[k];
    const optgrammar::RuleInfo& d = *dsl.rules()[k];
    bool same = h.root == d.root && h.guards.size() == d.guards.size() && h.term_guards.size() == d.term_guards.size();
    for (std::size_t i = 0; same && i < h.guards.size(); ++i)
      same = h.guards[i].slot == d.guards[i].slot && h.guards[i].name == d.guards[i].name;
    for (std::size_t i = 0; same && i < h.term_guards.size(); ++i) {
      const optgrammar::TermGuard &ht = h.term_guards[i], &dt = d.term_guards[i];
      same = ht.same_term(dt) && ht.value == dt.value;
    }
    if (!same) return "rule " + std::to_string(k) + " (" + h.name + ") differs from " + d.name;
  }
  return {};
}

}  // namespace w2
