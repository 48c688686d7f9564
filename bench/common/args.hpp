// Command-line counts of the benchmark programs (BLOCKS, RULES, --repeat N).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdio>
#include <string_view>

namespace bench {

/// Reads `text` as a count from 1 to `most` into `out`. Anything else (a sign, a letter, zero, a
/// number past `most`) prints "PROG: WHAT must be an integer from 1 to MOST, not 'TEXT'" and
/// returns false.
inline bool parse_count(const char* prog, const char* what, std::string_view text, std::size_t most, std::size_t& out) {
  std::size_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < 1 || v > most) {
    std::fprintf(stderr, "%s: %s must be an integer from 1 to %zu, not '%.*s'\n", prog, what, most,
                 static_cast<int>(text.size()), text.data());
    return false;
  }
  out = v;
  return true;
}

/// The most blocks a W1 or W2 graph is built with (W1: 14 ops a block).
inline constexpr std::size_t most_blocks = 10'000'000;
/// The most runs of --repeat.
inline constexpr std::size_t most_repeats = 1000;

}  // namespace bench
