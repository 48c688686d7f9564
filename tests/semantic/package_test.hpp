// What every package's semantic test does with its package: check the graphs, then that each
// rule fired often enough to have been checked (docs/robustness.md).
#pragma once

#include "semantic_check.hpp"
#include "semantic_options.hpp"

#include <catch2/catch.hpp>

namespace semantic {

/// Runs the check on options().graphs graphs and requires every rule, but the exempt ones, to
/// have fired on at least `min_graphs` of them (per 1,000 graphs when fewer run). The rule table
/// is printed on failure and with --verbose.
inline void check_package(const Package& p, std::uint64_t min_graphs, const std::vector<Exempt>& exempt = {}) {
  const Outcome o = run_package(p, options().graphs, options().first_seed);
  const std::string table = summary(p, o.tally);
  INFO(table);
  if (o.failure) FAIL(*o.failure);
  if (options().verbose) WARN(table);
  CHECK(o.tally.graphs == options().graphs);
  const std::uint64_t min = min_graphs * std::min<std::uint64_t>(options().graphs, 1000) / 1000;
  for (const std::string& problem : rarely_fired(p, o.tally, min, exempt)) FAIL_CHECK(problem);
}

}  // namespace semantic
