// The floor of a rewrite run: one pass over a graph that reads every live op and the op behind
// each of its inputs, and does nothing else. No engine that must look at every op can be faster;
// w1_bench and w2_bench time it with `--engine floor` on the same graph they rewrite.
#pragma once

#include <optgrammar/core/graph.hpp>

#include <cstdint>

namespace bench {

/// Reads every live op's name and every input's name; returns a checksum of them (so that the
/// compiler cannot drop the reads). Not inlined, so that callgrind can count its instructions
/// (`--toggle-collect='bench::floor_pass*'`); one call per pass costs nothing measurable.
[[gnu::noinline]] inline std::uint64_t floor_pass(const optgrammar::Graph& g) {
  std::uint64_t sum = 0;
  const auto n = static_cast<std::uint32_t>(g.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    const optgrammar::OpRef r{i};
    if (!g.alive(r)) continue;
    sum = sum * 31 + g.name_id(r);
    for (std::uint32_t k = 0, m = g.n_inputs(r); k < m; ++k) sum += g.name_id(g.input(r, k));
  }
  return sum;
}

}  // namespace bench
