// One report, three renderings: the same cells as text, Markdown and HTML, each escaped for its
// format; and the short patterns of rules the reports show.
#include "report.hpp"
#include "rule_text.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {
og_opt::Report sample() {
  og_opt::Report r;
  r.title = "og-opt report: a<b>&c";
  r.facts = {"ops: 3 before, 1 after", "note with | and <tag>"};
  og_opt::ReportTable t;
  t.heading = "Rules";
  t.columns = {"rule", "fired", "canonical form"};
  t.code_column = 2;
  t.rows = {{"r.cpp:1", "2", "Op(\"Relu\",\"x\")|1"}, {"<script>alert(1)</script>", "0", "x & y"}};
  r.tables.push_back(t);
  return r;
}
std::string md(const og_opt::Report& r) {
  std::ostringstream os;
  og_opt::write_markdown(os, r);
  return os.str();
}
std::string html(const og_opt::Report& r) {
  std::ostringstream os;
  og_opt::write_html(os, r);
  return os.str();
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("Markdown: the title, the facts as a list, tables with | escaped and code quoted") {
  const auto m = md(sample());
  CHECK(m.rfind("# og-opt report: a<b>&c\n", 0) == 0);
  CHECK(has(m, "\n- ops: 3 before, 1 after\n"));
  CHECK(has(m, "\n## Rules\n\n| rule | fired | canonical form |\n| --- | --- | --- |\n"));
  CHECK(has(m, "| r.cpp:1 | 2 | `Op(\"Relu\",\"x\")\\|1` |\n"));
  CHECK_FALSE(has(m, "## Pictures"));
}

TEST_CASE("HTML: the same cells, everything escaped, no script, every element closed") {
  const auto h = html(sample());
  CHECK(h.rfind("<!DOCTYPE html>\n<html", 0) == 0);
  CHECK(has(h, "<title>og-opt report: a&lt;b&gt;&amp;c</title>"));
  CHECK(has(h, "<li>note with | and &lt;tag&gt;</li>"));
  CHECK(has(h, "<h2>Rules</h2>"));
  CHECK(has(
      h,
      "<tr><td>r.cpp:1</td><td class=\"num\">2</td><td><code>Op(&quot;Relu&quot;,&quot;x&quot;)|1</code></td></tr>"));
  CHECK(has(h, "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"));
  CHECK_FALSE(has(h, "<script"));
  // Tags balance: as many <tr>, <td>, <table> opened as closed.
  auto count = [&h](const std::string& part) {
    std::size_t n = 0;
    for (auto p = h.find(part); p != std::string::npos; p = h.find(part, p + 1)) ++n;
    return n;
  };
  for (const std::string tag : {"tr", "td", "th", "table", "li", "ul", "h2", "code"}) {
    const std::size_t open = count("<" + tag + ">") + count("<" + tag + " "), close = count("</" + tag + ">");
    INFO(tag);
    CHECK(open == close);
    CHECK(open > 0);
  }
}

TEST_CASE("pictures: linked in Markdown, inline in HTML without the XML prolog, linked when unreadable") {
  const auto dir = std::filesystem::temp_directory_path() / "og_opt_report_test";
  std::filesystem::create_directories(dir);
  const auto svg = (dir / "p.svg").string();
  {
    std::ofstream f(svg);
    f << "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\">\n<svg "
         "width=\"1pt\"><g/></svg>\n";
  }
  auto r = sample();
  r.picture_sections.push_back({"Pictures",
                                "",
                                {{"After (whole graph: 1 ops)", "p.svg", svg, ""},
                                 {"Before", "missing.svg", (dir / "missing.svg").string(), ""}}});
  const auto m = md(r);
  CHECK(has(m, "\n## Pictures\n\nAfter (whole graph: 1 ops):\n\n![After (whole graph: 1 ops)](p.svg)\n"));
  const auto h = html(r);
  CHECK(has(h,
            "<figcaption>After (whole graph: 1 ops) (<a href=\"p.svg\">p.svg</a>)</figcaption>\n<svg "
            "width=\"1pt\"><g/></svg>\n</figure>"));
  CHECK_FALSE(has(h, "<?xml"));
  CHECK_FALSE(has(h, "<!DOCTYPE svg"));
  CHECK(has(h, "<a href=\"missing.svg\">missing.svg</a>)</figcaption>\n</figure>"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Text: the first column left-aligned, the others right-aligned to their widest cell, the code last") {
  og_opt::ReportTable t = sample().tables[0];
  t.rows.push_back({"long_rule.cpp:100", "12345", "Op(\"A\")"});
  const std::string want =
      "rule                      fired  canonical form\n"
      "r.cpp:1                       2  Op(\"Relu\",\"x\")|1\n"
      "<script>alert(1)</script>     0  x & y\n"
      "long_rule.cpp:100         12345  Op(\"A\")\n";
  CHECK(og_opt::text_table(t) == want);
  // min_first widens the first column only.
  const std::string narrow = og_opt::text_table({.heading = "", .columns = {"a", "b"}, .rows = {{"x", "1"}}}, 4);
  CHECK(narrow == "a    b\nx    1\n");
}

TEST_CASE("a shortened cell: its full text on demand in HTML, listed after the table in Markdown") {
  auto r = sample();
  r.tables[0].code_full = {"Op(\"Relu\",LET(\"r\",Op(\"Relu\",\"x\")))", "x & y & z"};
  const auto h = html(r);
  CHECK(
      has(h,
          "<td><details><summary><code>Op(&quot;Relu&quot;,&quot;x&quot;)|1</code></summary><code>Op(&quot;Relu&quot;,"
          "LET(&quot;r&quot;,Op(&quot;Relu&quot;,&quot;x&quot;)))</code></details></td>"));
  CHECK(has(h, "<summary><code>x &amp; y</code></summary><code>x &amp; y &amp; z</code>"));
  const auto m = md(r);
  CHECK(has(m, "\ncanonical form in full:\n\n- r.cpp:1: `Op(\"Relu\",LET(\"r\",Op(\"Relu\",\"x\")))`\n"));
}

TEST_CASE("a picture given as SVG text is embedded; a section has its heading and note") {
  auto r = sample();
  r.picture_sections.push_back(
      {"One instance of each rule", "first firing", {{"r.cpp:1", "", "", "<?xml?>\n<svg><g/></svg>\n"}}});
  const auto h = html(r);
  CHECK(has(h,
            "<h2>One instance of each rule</h2>\n<p>first "
            "firing</p>\n<figure>\n<figcaption>r.cpp:1</figcaption>\n<svg><g/></svg>\n</figure>"));
  CHECK(has(md(r), "\n## One instance of each rule\n\nfirst firing\n\nr.cpp:1\n"));
}

TEST_CASE("short pattern: match -> replacement, Op and LET left out, cut to the width from the deepest level") {
  using og_opt::short_pattern;
  CHECK(short_pattern(R"(DEF_PACKAGE_OPTIMIZATION(EARLY,Op("Relu",LET("r",Op("Relu","x"))),true,"r"))") ==
        "Relu(Relu(x)) -> r");
  CHECK(short_pattern(R"(DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY,relaxed_precision_flag,Op("A",Op("$Const")),)"
                      R"(EQ(DTYPE_OF("*"),DType::Float32),Op("B","x",WITH_SIZE("x",Op("C",1U,"y,z"))))))") ==
        "A($Const) -> B(x,WITH_SIZE(x,C(1U,y,z)))");
  const std::string deep =
      R"(DEF_PACKAGE_OPTIMIZATION(EARLY,Op("Div",Op("Mul","x",Op("Clip",Op("Add","x","three"),"lo","hi")),"six"),true,Op("HardSwish","x")))";
  CHECK(short_pattern(deep) == "Div(Mul(x,Clip(Add(x,three),lo,hi)),six) -> HardSwish(x)");
  CHECK(short_pattern(deep, 40) == "Div(Mul(x,Clip(…)),six) -> HardSwish(x)");
  CHECK(short_pattern(deep, 20) == "Div(…) -> HardSwish…");
  // Text that is no rule is only cut.
  CHECK(short_pattern("not a rule", 5) == "not …");
}
