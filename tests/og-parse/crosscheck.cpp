// The canonical form from both sides: the C++ library's registered rules (the rule files this
// program is compiled with) and og-parse reading the same source files must print the same text.
#include <og_parse/og_parse.hpp>
#include <optgrammar/engine/rule_set.hpp>
#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

TEST_CASE("og-parse and the C++ library print every rule in the same canonical form", "[crosscheck]") {
  // file base name -> line -> canonical text, from the library
  std::map<std::string, std::map<int, std::string>> lib;
  std::map<std::string, std::string> paths;
  for (const auto& r : optgrammar::RuleSet::global().rules()) {
    const fs::path p(r->file);
    lib[p.filename().string()][r->line] = r->canonical;
    paths[p.filename().string()] = r->file;
  }
  REQUIRE(!lib.empty());
  std::size_t compared = 0;
  for (const auto& [base, by_line] : lib) {
    std::ifstream in(paths[base], std::ios::binary);
    REQUIRE(in);
    std::ostringstream ss;
    ss << in.rdbuf();
    og_parse::Session s;
    s.add_source(base, ss.str());
    s.run();
    for (const auto& d : s.diagnostics()) INFO(s.format(d));
    CHECK(s.error_count() == 0);
    // Compared in source order: __LINE__ of a macro use spanning lines differs between compilers
    // (first or last line), og-parse reports the line of DEF_PACKAGE_OPTIMIZATION.
    std::vector<std::string> ours;
    for (const auto& r : s.rules())
      if (r.valid) ours.push_back(s.canonical(r));
    REQUIRE(ours.size() == by_line.size());
    std::size_t i = 0;
    for (const auto& [line, text] : by_line) {
      INFO(base << ":" << line);
      CHECK(ours[i++] == text);
      ++compared;
    }
  }
  CHECK(compared >= 10);
}
