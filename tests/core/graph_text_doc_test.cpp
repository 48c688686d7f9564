// docs/graph-text-format.md against the reader and writer: the example the page quotes is
// tests/core/testdata/graph_text_example.ogt, word for word; that file loads, holds what the page
// says it holds, and is written back unchanged (it is in the writer's own form).
#include <optgrammar/core/text_io.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <variant>

namespace {
std::string slurp(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  REQUIRE(is);
  return {std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>()};
}

/// The fenced block that follows the line `<!-- example: FILE -->` on the page.
std::string quoted_example(const std::string& page, const std::string& file) {
  const std::string marker = "<!-- example: " + file + " -->\n";
  const std::size_t m = page.find(marker);
  if (m == std::string::npos) return "(no example marker for " + file + ")";
  const std::size_t open = page.find("```\n", m + marker.size());
  const std::size_t close = page.find("\n```\n", open + 4);
  if (open == std::string::npos || close == std::string::npos) return "(no fenced block after the marker)";
  return page.substr(open + 4, close + 1 - (open + 4));
}
}  // namespace

TEST_CASE("the graph text format page quotes its example file exactly") {
  const std::string page = slurp(OPTGRAMMAR_SOURCE_DIR "/docs/graph-text-format.md");
  const std::string example = slurp(OPTGRAMMAR_SOURCE_DIR "/tests/core/testdata/graph_text_example.ogt");
  CHECK(quoted_example(page, "tests/core/testdata/graph_text_example.ogt") == example);
}

TEST_CASE("the example of the graph text format page loads and writes back unchanged") {
  using namespace optgrammar;
  const std::string text = slurp(OPTGRAMMAR_SOURCE_DIR "/tests/core/testdata/graph_text_example.ogt");
  std::vector<int> lines;
  const Graph g = from_text(text, "graph_text_example.ogt", &lines);
  CHECK(g.live_count() == 7);
  const OptionValue* target = g.option("target");
  REQUIRE(target != nullptr);
  CHECK(std::get<std::string>(*target) == "v73");
  CHECK(std::get<std::uint64_t>(*g.option("fast_conv_max_filter")) == 3u);
  CHECK(std::get<bool>(*g.option("relaxed_precision_flag")));
  const OpRef q{3};
  CHECK(g.output(q).dtype == DType::QUInt8);
  CHECK(g.output(q).zero_offset == 128);
  CHECK(g.output(q).stepsize == 0.0078125f);
  CHECK(g.split_history(q).size() == 2);
  CHECK(g.op_id(q) == 4u);
  CHECK(g.is_const(OpRef{1}));
  CHECK(lines[3] == 8);  // %3 is defined on the file's 8th line
  CHECK(to_text(g) == text);
}
