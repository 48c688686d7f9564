// What every package's semantic test does with its package: check the graphs, then that each
// rule fired often enough to have been checked (docs/robustness.md).
#pragma once

#include "semantic_check.hpp"
#include "semantic_options.hpp"

#include <catch2/catch.hpp>

#include <string_view>
#include <utility>

namespace semantic {

/// Runs the check on options().graphs graphs and requires every rule, but the exempt ones, to
/// have fired on at least `min_graphs` of them (scaled down when fewer than 10,000 run). The rule table
/// is printed on failure and with --verbose.
inline void check_package(const Package& p, std::uint64_t min_graphs, const std::vector<Exempt>& exempt = {}) {
  const Outcome o = run_package(p, options().graphs, options().first_seed);
  const std::string table = summary(p, o.tally);
  INFO(table);
  if (o.failure) FAIL(*o.failure);
  if (options().verbose) WARN(table);
  CHECK(o.tally.graphs == options().graphs);
  const std::uint64_t min = min_graphs * std::min<std::uint64_t>(options().graphs, 10000) / 10000;
  for (const std::string& problem : rarely_fired(p, o.tally, min, exempt)) FAIL_CHECK(problem);
}

/// Checks one graph built by `build` (a regression test for a graph the random check found):
/// returns the problem, if any, and the run's tally.
inline std::pair<std::optional<std::string>, Tally> check_graph(Package& p, std::function<void(Builder&)> build) {
  auto generator = std::exchange(p.build, [&build](Builder& b, const Motif&) { build(b); });
  Tally t;
  auto problem = check(p, {Motif{}}, 1, &t);
  p.build = std::move(generator);
  return {problem, t};
}

/// How many rewrites the rules named by `text` (a part of their canonical text: named()) made in
/// tally t.
inline std::uint64_t fired(const Tally& t, std::string_view text) {
  std::uint64_t n = 0;
  for (const auto& [r, k] : t.fired)
    if (named(r, text)) n += k;
  return n;
}

}  // namespace semantic
