// The hash of a name (an op name, a rule or source node name) for the project's own hash tables:
// core/op_names.hpp's table of op names and core/origins.hpp's table of provenance names.
#pragma once

#include <cstdint>
#include <string_view>

namespace optgrammar {

/// FNV-1a over the bytes of `s`: names are short, so a byte loop inlined at the call beats a
/// library call.
constexpr std::uint64_t name_hash(std::string_view s) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

}  // namespace optgrammar
