// og_ops_doc_gen: writes the op reference (docs/ops.md) from the op definitions, or with --check
// compares it with the file and fails when they differ (the staleness test).
#include <optgrammar/ops/doc.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  const std::string want = optgrammar::ops::ops_markdown();
  if (argc == 3 && std::string(argv[1]) == "--check") {
    std::ifstream is(argv[2], std::ios::binary);
    const std::string have((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
    if (have != want) {
      std::cerr << argv[2] << " is stale: regenerate it with `cmake --build <build> --target og_ops_doc`\n";
      return 1;
    }
    std::cout << argv[2] << " is current\n";
    return 0;
  }
  if (argc != 2) {
    std::cerr << "usage: og_ops_doc_gen OUT.md | og_ops_doc_gen --check FILE.md\n";
    return 2;
  }
  std::ofstream os(argv[1], std::ios::binary);
  os << want;
  if (!os) {
    std::cerr << "cannot write " << argv[1] << "\n";
    return 1;
  }
  std::cout << "wrote " << argv[1] << "\n";
  return 0;
}
