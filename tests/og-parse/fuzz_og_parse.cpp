// libFuzzer target: the whole og-parse pipeline (scan, macros, parse, check, lint, canonical, JSON)
// on one arbitrary input file. Built with clang++ -fsanitize=fuzzer,address,undefined.
#include <og_parse/og_parse.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  og_parse::Options o;
  o.strict = size > 0 && (data[0] & 1) != 0;
  o.follow_includes = false;  // the input alone: nothing of the file system
  og_parse::Session s(o);
  s.add_source("fuzz.cpp", std::string(reinterpret_cast<const char*>(data), size));
  s.run();
  for (const auto& r : s.rules())
    if (r.valid) (void)s.canonical(r);
  for (const auto& d : s.diagnostics()) (void)s.format(d);
  (void)s.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
