// The graph text format with a side data file (docs/graph-text-format.md, "Large constants beside
// the text"): large constants are written to a binary file next to the text and read back from
// it; a side file that is not the one written with the text is refused at the text's line.
#include <optgrammar/core/text_io.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace optgrammar;

namespace {
/// An input, a large f32 constant (1000 elements), a small i32 one, an f16 one of 40 elements.
Graph sample() {
  Graph g;
  const OpRef x = g.add_input(OutputDef::make(DType::Float32, {1000}));
  std::vector<float> w(1000);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.001f * static_cast<float>(i) - 0.3f;
  const OpRef c = g.add_const(OutputDef::make(DType::Float32, {1000}),
                              std::span(reinterpret_cast<const std::byte*>(w.data()), w.size() * 4));
  const std::int32_t p[4] = {0, 3, 1, 2};
  g.add_const(OutputDef::make(DType::Int32, {4}), std::span(reinterpret_cast<const std::byte*>(p), sizeof p));
  std::vector<std::uint16_t> h(40, 0x3c00);
  g.add_const(OutputDef::make(DType::Float16, {40}),
              std::span(reinterpret_cast<const std::byte*>(h.data()), h.size() * 2));
  g.add_output(g.add_op("Add", {x, c}, OutputDef::make(DType::Float32, {1000})));
  return g;
}

struct Files {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "og_graph_text_side_data";
  Files() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Files() { std::filesystem::remove_all(dir); }
  std::string path(const char* name) const { return (dir / name).string(); }
};

/// Writes g as text to dir/name, its constants over 16 elements to dir/name.bin.
std::string write_beside(const Graph& g, const Files& f, const char* name) {
  std::ofstream data(f.path(name) + ".bin", std::ios::binary);
  WriteOptions o;
  o.side_data_over = 16;
  o.side_data = &data;
  o.side_data_name = std::string(name) + ".bin";
  const std::string text = to_text(g, o);
  data.close();
  std::ofstream(f.path(name)) << text;
  return text;
}

Graph read(const std::string& path) {
  std::ifstream is(path);
  return read_graph_text(is, path);
}
}  // namespace

TEST_CASE("side data: large constants beside the text, read back to the same graph") {
  Files f;
  const Graph g = sample();
  const std::string text = write_beside(g, f, "g.ogt");
  // 1000 f32 and 40 f16 elements beside; the small i32 constant inline.
  CHECK(std::filesystem::file_size(f.path("g.ogt.bin")) == 1000 * 4 + 40 * 2);
  CHECK(text.find("data_file \"g.ogt.bin\" size=4080 fnv1a=") != std::string::npos);
  CHECK(text.find("data=@0\n") != std::string::npos);
  CHECK(text.find("data=@4000\n") != std::string::npos);
  CHECK(text.find("data=[0,3,1,2]") != std::string::npos);
  const Graph back = read(f.path("g.ogt"));
  CHECK(to_text(back) == to_text(g));  // everything inline: the same constants, bit for bit
}

TEST_CASE("side data: a side file that is not the one written with the text is refused") {
  Files f;
  write_beside(sample(), f, "g.ogt");
  SECTION("changed bytes: the checksum differs") {
    std::fstream data(f.path("g.ogt.bin"), std::ios::in | std::ios::out | std::ios::binary);
    data.seekp(10);
    data.put('\x7f');
    data.close();
    CHECK_THROWS_WITH(read(f.path("g.ogt")),
                      Catch::Matches(".*g\\.ogt:2:1: error: the side data file .*g\\.ogt\\.bin is "
                                     "not the one this text was written with \\(its checksum differs\\)"));
  }
  SECTION("cut short") {
    std::filesystem::resize_file(f.path("g.ogt.bin"), 100);
    CHECK_THROWS_WITH(read(f.path("g.ogt")), Catch::Contains(":2:1: error: the side data file") &&
                                                 Catch::Contains("has 100 bytes, not the 4080"));
  }
  SECTION("missing") {
    std::filesystem::remove(f.path("g.ogt.bin"));
    CHECK_THROWS_WITH(read(f.path("g.ogt")), Catch::Contains(":2:1: error: cannot read the side data file"));
  }
}

TEST_CASE("side data: offsets past the file and data=@ without a data_file line are refused") {
  Files f;
  const std::string text = write_beside(sample(), f, "g.ogt");
  std::string past = text;
  past.replace(past.find("data=@4000"), 10, "data=@4050");
  CHECK_THROWS_WITH(
      from_text(past, f.path("g.ogt")),
      Catch::Contains("error: constant %3's 80 bytes at 4050 run past the end of the side data file (4080 bytes)"));
  std::string none = text;
  none.erase(none.find("data_file"), none.find('\n', none.find("data_file")) + 1 - none.find("data_file"));
  CHECK_THROWS_WITH(from_text(none, f.path("g.ogt")),
                    Catch::Contains("error: data=@... needs a data_file line before it"));
}
