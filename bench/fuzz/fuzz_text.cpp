// libFuzzer target: the graph text reader on arbitrary bytes. Whatever it accepts must write
// back and read again to the same text; verification and DOT must not fail on it.
#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/text_io.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace optgrammar;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Graph g;
  std::vector<int> lines;
  try {
    g = from_text(text, "fuzz.ogt", &lines);
  } catch (const TextError&) {
    return 0;  // rejected with file:line:col: fine
  }
  if (lines.size() != g.size()) std::abort();
  (void)verify(g);
  std::ostringstream dot;
  write_dot(dot, g);
  const std::string once = to_text(g);
  Graph back = from_text(once, "fuzz-again.ogt");  // throws (a finding) if the writer wrote what the reader rejects
  if (to_text(back) != once) std::abort();
  return 0;
}
