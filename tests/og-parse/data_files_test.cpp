// Drives the rule files under data/: every valid file must give exactly its expected warnings
// and its expected canonical lines; every invalid file exactly its expected diagnostics.
// Expectations live in the files themselves as `// EXPECT: line:col: severity: message`
// comments (comments are ignored by og-parse), and in data/valid/<name>.canonical.
#include <og_parse/og_parse.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

std::vector<std::string> expected_diagnostics(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  static const std::string marker = "// EXPECT: ";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(marker, 0) == 0) out.push_back(line.substr(marker.size()));
  return out;
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".cpp") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

struct Result {
  std::vector<std::string> diagnostics;  // "line:col: severity: message"
  std::string canonical;                 // "name:line: ..." lines
  std::size_t errors = 0;
};

Result run(const fs::path& p, const std::string& text) {
  og_parse::Options o;
  o.strict = text.find("// OPTIONS: --strict") != std::string::npos;
  og_parse::Session s(o);
  s.add_source(p.filename().string(), text);
  s.run();
  Result r;
  for (const auto& d : s.diagnostics()) {
    std::string f = s.format(d);
    r.diagnostics.push_back(f.substr(f.find(':') + 1));
  }
  for (const auto& rule : s.rules())
    if (rule.valid)
      r.canonical += p.filename().string() + ":" + std::to_string(rule.line) + ": " + s.canonical(rule) + "\n";
  r.errors = s.error_count();
  return r;
}

}  // namespace

TEST_CASE("valid rule files: no errors, expected warnings, expected canonical form", "[data]") {
  const auto files = files_in(fs::path(OG_PARSE_TEST_DATA) / "valid");
  REQUIRE(files.size() >= 5);
  for (const auto& p : files) {
    DYNAMIC_SECTION(p.filename().string()) {
      const std::string text = slurp(p);
      const Result r = run(p, text);
      CHECK(r.errors == 0);
      CHECK(r.diagnostics == expected_diagnostics(text));
      fs::path golden = p;
      golden.replace_extension(".canonical");
      REQUIRE(fs::exists(golden));
      CHECK(r.canonical == slurp(golden));
    }
  }
}

TEST_CASE("invalid rule files: exactly the expected diagnostics", "[data]") {
  const auto files = files_in(fs::path(OG_PARSE_TEST_DATA) / "invalid");
  REQUIRE(files.size() >= 5);
  for (const auto& p : files) {
    DYNAMIC_SECTION(p.filename().string()) {
      const std::string text = slurp(p);
      const auto expected = expected_diagnostics(text);
      REQUIRE(!expected.empty());
      const Result r = run(p, text);
      CHECK(r.errors > 0);
      CHECK(r.diagnostics == expected);
    }
  }
}

TEST_CASE("every invalid rule is reported once and the parser resynchronizes", "[data]") {
  // lexical.cpp has one error per line on lines 2-26 (a rule spans 22-23 and its error is on 22),
  // then a valid rule on line 27 that must still be found.
  const fs::path p = fs::path(OG_PARSE_TEST_DATA) / "invalid" / "lexical.cpp";
  og_parse::Session s;
  s.add_source("lexical.cpp", slurp(p));
  s.run();
  std::size_t valid = 0;
  std::uint32_t valid_line = 0;
  for (const auto& r : s.rules())
    if (r.valid) {
      ++valid;
      valid_line = r.line;
    }
  CHECK(valid == 1);
  CHECK(valid_line == 27);
  CHECK(s.error_count() == 24);
}

TEST_CASE("the strict-mode file gives warnings only without --strict", "[data]") {
  const fs::path p = fs::path(OG_PARSE_TEST_DATA) / "invalid" / "strict.cpp";
  og_parse::Session s({.strict = false, .lint = false});
  s.add_source("strict.cpp", slurp(p));
  s.run();
  CHECK(s.error_count() == 0);
  CHECK(s.warning_count() == 4);
  std::size_t valid = 0;
  for (const auto& r : s.rules()) valid += r.valid ? 1 : 0;
  CHECK(valid == 4);
}
