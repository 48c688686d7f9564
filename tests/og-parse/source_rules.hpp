// How many well-formed rules og-parse reads in a rule source file: the count a package's
// registered rules are checked against, so that no test writes a package's size by hand.
#pragma once

#include <og_parse/og_parse.hpp>

#include <cstddef>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace og_test {
/// The number of valid rules in the file at `path` as og-parse reads it (nothing when the file
/// cannot be read or og-parse reports an error in it).
inline std::optional<std::size_t> rules_in_source(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  og_parse::Session s;
  s.add_source(path, text.str());
  s.run();
  if (s.error_count() != 0) return std::nullopt;
  std::size_t n = 0;
  for (const auto& r : s.rules()) n += r.valid ? 1 : 0;
  return n;
}
}  // namespace og_test
