// onnx_import_bench [--runs R] [--input-shape NAME=D0,D1,...] [--lower] MODEL.onnx...
// Imports each model R times (default 11) and prints one line per model: nodes, graph ops (all,
// and without constants), median and minimum wall time of the import in milliseconds. With
// --lower, each run also applies the lowering package (examples/htp_lowering) with constant
// folding and CSE, as `og-opt --rules htp_lowering` does, and the time is import plus lowering;
// the op counts are then those after lowering.
#include "common/args.hpp"
#include "common/host.hpp"
#include "onnx_import.hpp"

#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  bench::print_host("onnx_import_bench", true);
  namespace oi = optgrammar::onnx_import;
  std::size_t runs = 11;
  oi::ImportOptions opt;
  std::vector<std::string> models;
  bool lower = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lower") {
      lower = true;
    } else if (a == "--runs" && i + 1 < argc) {
      if (!bench::parse_count("onnx_import_bench", "--runs", argv[++i], bench::most_repeats, runs)) return 2;
    } else if (a == "--input-shape" && i + 1 < argc) {
      if (!opt.add_input_shape(argv[++i])) {
        std::fprintf(stderr, "--input-shape wants NAME=D0,D1,... (dims: integers >= 0): %s\n", argv[i]);
        return 2;
      }
    } else {
      models.push_back(a);
    }
  }
  if (models.empty()) {
    std::fprintf(stderr, "usage: onnx_import_bench [--runs R] [--input-shape NAME=D0,...] [--lower] MODEL.onnx...\n");
    return 2;
  }
  const auto package = optgrammar::RuleSet::global().select([](const optgrammar::RuleInfo& r) {
    return std::filesystem::path(r.file).parent_path().filename() == "htp_lowering";
  });
  for (const auto& m : models) {
    std::vector<double> ms;
    std::size_t nodes = 0, ops = 0, non_const = 0;
    try {
      for (std::size_t r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        auto im = oi::import_file(m, opt);
        if (lower) {
          optgrammar::DriverOptions d;
          optgrammar::engine::ConstantFolder folder;
          optgrammar::engine::Cse cse({.merge_constants = false});  // as og-opt (without --cse-constants)
          d.visit = folder.visitor();
          d.between_passes = cse.hook();
          optgrammar::run_rules(im.graph, package, d);
        }
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        nodes = im.nodes;
        ops = non_const = 0;
        for (auto op : im.graph.live_ops()) {
          ++ops;
          if (!im.graph.is_const(op)) ++non_const;
        }
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s: %zu nodes, %zu graph ops (%zu not constants), %s median %.2f ms, min %.2f ms over %zu runs\n",
                m.c_str(), nodes, ops, non_const, lower ? "import+lowering" : "import", ms[ms.size() / 2], ms.front(),
                runs);
  }
  bench::print_host("onnx_import_bench", false);
  return 0;
}
