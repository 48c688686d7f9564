// og-parse on the annotated bad rules of tests/dsl/rejections.inc (the file the C++ front end's
// static_assert tables read): every OG_REJECT entry, as the DEF_PACKAGE_OPTIMIZATION (or, for its
// other forms, the declaration) it stands for, gets exactly one diagnostic, on its line, whose text is the one written
// beside it; every OG_ACCEPT twin gets none.
#include "../dsl/rejection_forms.hpp"

#include <og_parse/og_parse.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

/// Reads a C string literal starting at s[i] (the opening quote); returns its value, i past it.
std::string c_string(const std::string& s, std::size_t& i) {
  std::string v;
  for (++i; i < s.size() && s[i] != '"'; ++i) v += s[i] == '\\' && i + 1 < s.size() ? s[++i] : s[i];
  ++i;
  return v;
}

}  // namespace

TEST_CASE("og-parse gives every annotated bad rule the C++ front end's text", "[rejections]") {
  std::ifstream in(OG_REJECTIONS_FILE);
  REQUIRE(in);
  std::ostringstream text;
  std::map<std::uint32_t, std::string> expect;  // line -> text ("" for a twin)
  std::string line;
  for (std::uint32_t n = 1; std::getline(in, line); ++n) {
    bool reject = false;
    if (const og_rejections::EntryForm* form = og_rejections::entry_form(line, reject); form && reject) {
      std::size_t i = line.find('"');
      REQUIRE(i != std::string::npos);
      expect[n] = c_string(line, i);
      i = line.find(',', i);
      line = std::string(form->macro) + line.substr(i + 2);
    } else if (form) {
      expect[n] = "";
      line = std::string(form->macro) + line.substr(line.find(',') + 2);
    }
    text << line << '\n';
  }
  REQUIRE(expect.size() >= 100);

  og_parse::Options o;
  o.lint = false;
  og_parse::Session s(o);
  s.add_source("rejections.inc", text.str());
  s.run();
  std::map<std::uint32_t, std::vector<std::string>> said;
  for (const auto& d : s.diagnostics()) said[d.line].push_back(d.message);
  for (const auto& [n, want] : expect) {
    INFO("rejections.inc:" << n);
    const auto it = said.find(n);
    if (want.empty()) {
      CHECK(it == said.end());
    } else {
      REQUIRE(it != said.end());
      CHECK(it->second.size() == 1);
      CHECK(it->second.front() == want);
    }
  }
  for (const auto& [n, msgs] : said) {
    INFO("rejections.inc:" << n << ": " << msgs.front());
    CHECK(expect.count(n) == 1);  // nothing said about a line that is not an entry
  }
}
