// The semantic tests' command-line options (semantic_main.cpp).
#pragma once

#include <cstdint>

namespace semantic {
struct Options {
  std::uint64_t graphs = 1000;
  std::uint64_t first_seed = 1;
  bool verbose = false;  ///< print each package's rule table also when it passes
};
inline Options& options() {
  static Options o;
  return o;
}
}  // namespace semantic
