// lowering_bench [--runs R] [--input-shape NAME=D0,...] [--option NAME=V] MODEL.onnx...
// The lowering package (examples/htp_lowering) on whole models, by phase, as og-opt runs it
// (constant folding in the rewrite loop, CSE between passes without merging constants, the
// result written as graph text). Per model: ONNX nodes, ops before and after (all, and without
// constants), `onnx.*` ops left, and the median (and minimum) of R runs (default 5) of each phase:
//   import   read, ONNX's per-node inference with the values known at import (shape
//            computations become constants there), graph building
//   shapes   the PRE_OPTIMIZATION pass: shape ops left by the importer made constants, with the
//            folds of what they feed
//   rewrite  the other passes' rule work (matching and replacing), folding and CSE excluded
//   fold     the constant folder (in every pass), CSE (between passes)
//   write    the result as graph text (in memory)
// and the rewrite time per op of the imported graph.
#include "common/args.hpp"
#include "common/host.hpp"
#include "onnx_import.hpp"

#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {
using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

struct Counts {
  std::size_t ops = 0, non_const = 0, onnx = 0;
};
Counts count(const optgrammar::Graph& g) {
  Counts c;
  for (auto op : g.live_ops()) {
    ++c.ops;
    if (!g.is_const(op)) ++c.non_const;
    if (g.name(op).starts_with("onnx.")) ++c.onnx;
  }
  return c;
}

struct Phases {
  double import = 0, shapes = 0, rewrite = 0, fold = 0, cse = 0, write = 0;
  double total() const { return import + shapes + rewrite + fold + cse + write; }
};
}  // namespace

int main(int argc, char** argv) {
  bench::print_host("lowering_bench", true);
  namespace oi = optgrammar::onnx_import;
  std::size_t runs = 5;
  oi::ImportOptions opt;
  std::vector<std::pair<std::string, std::uint64_t>> options;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      if (!bench::parse_count("lowering_bench", "--runs", argv[++i], bench::most_repeats, runs)) return 2;
    } else if (a == "--input-shape" && i + 1 < argc) {
      if (!opt.add_input_shape(argv[++i])) {
        std::fprintf(stderr, "--input-shape wants NAME=D0,D1,... (dims: integers >= 0): %s\n", argv[i]);
        return 2;
      }
    } else if (a == "--option" && i + 1 < argc) {
      const std::string o = argv[++i];
      const auto eq = o.find('=');
      std::size_t v = 0;
      if (eq == std::string::npos ||
          !bench::parse_count("lowering_bench", "--option", o.substr(eq + 1).c_str(), SIZE_MAX, v))
        return 2;
      options.emplace_back(o.substr(0, eq), v);
    } else {
      models.push_back(a);
    }
  }
  if (models.empty()) {
    std::fprintf(stderr,
                 "usage: lowering_bench [--runs R] [--input-shape NAME=D0,...] [--option NAME=V] MODEL.onnx...\n");
    return 2;
  }
  const auto package = optgrammar::RuleSet::global().select([](const optgrammar::RuleInfo& r) {
    return std::filesystem::path(r.file).parent_path().filename() == "htp_lowering";
  });
  for (const auto& m : models) {
    std::vector<Phases> all;
    std::size_t nodes = 0;
    Counts before, after;
    std::map<std::string, std::size_t> left;
    try {
      for (std::size_t r = 0; r < runs; ++r) {
        Phases p;
        auto t0 = clock_type::now();
        auto im = oi::import_file(m, opt);
        p.import = ms_since(t0);
        for (const auto& [name, v] : options) im.graph.set_option(name, std::uint64_t{v});
        nodes = im.nodes;
        before = count(im.graph);
        optgrammar::DriverOptions d;
        optgrammar::engine::ConstantFolder folder;
        optgrammar::engine::Cse cse({.merge_constants = false});  // as og-opt (without --cse-constants)
        double fold_ms = 0, fold_in_shapes = 0, cse_ms = 0;
        bool in_shapes = true;
        d.visit = [&](optgrammar::Rewriter& rw, optgrammar::OpRef op) {
          const auto t = clock_type::now();
          const bool folded = folder.visit(rw, op);
          const double e = ms_since(t);
          fold_ms += e;
          if (in_shapes) fold_in_shapes += e;
          return folded;
        };
        int hooks = 0;  // the hook runs before the first pass (PRE_OPTIMIZATION) and after each
        d.between_passes = [&](optgrammar::Rewriter& rw) {
          in_shapes = ++hooks < 2;
          const auto t = clock_type::now();
          cse.run(rw);
          cse_ms += ms_since(t);
        };
        const optgrammar::RunReport rep = optgrammar::run_rules(im.graph, package, d);
        double shapes = 0, passes = 0;
        for (const auto& pr : rep.passes) {
          passes += pr.seconds * 1e3;
          if (pr.name == "PRE_OPTIMIZATION") shapes += pr.seconds * 1e3;
        }
        p.shapes = shapes - fold_in_shapes;
        p.rewrite = passes - shapes - (fold_ms - fold_in_shapes);
        p.fold = fold_ms;
        p.cse = cse_ms;
        t0 = clock_type::now();
        std::ostringstream os;
        optgrammar::write_graph_text(os, im.graph);
        p.write = ms_since(t0);
        after = count(im.graph);
        left.clear();
        for (auto op : im.graph.live_ops())
          if (im.graph.name(op).starts_with("onnx.")) ++left[std::string(im.graph.name(op))];
        all.push_back(p);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", m.c_str(), e.what());
      return 1;
    }
    auto median = [&](double Phases::*f) {
      std::vector<double> v;
      for (const auto& p : all) v.push_back(p.*f);
      std::sort(v.begin(), v.end());
      return std::pair{v[v.size() / 2], v.front()};
    };
    std::vector<double> tot;
    for (const auto& p : all) tot.push_back(p.total());
    std::sort(tot.begin(), tot.end());
    std::printf("%s: %zu ONNX nodes; ops %zu -> %zu (not constants %zu -> %zu); onnx.* left: %zu", m.c_str(), nodes,
                before.ops, after.ops, before.non_const, after.non_const, after.onnx);
    for (const auto& [n, k] : left) std::printf(" %s x%zu", n.c_str(), k);
    std::printf("\n  median (min) over %zu runs, ms:", runs);
    for (auto [name, f] : {std::pair{"import", &Phases::import},
                           {"shapes", &Phases::shapes},
                           {"rewrite", &Phases::rewrite},
                           {"fold", &Phases::fold},
                           {"cse", &Phases::cse},
                           {"write", &Phases::write}}) {
      const auto [med, mn] = median(f);
      std::printf(" %s %.2f (%.2f)", name, med, mn);
    }
    const auto [rw, rw_min] = median(&Phases::rewrite);
    std::printf("; total %.2f (%.2f); rewrite per op %.3f us\n", tot[tot.size() / 2], tot.front(),
                rw * 1e3 / static_cast<double>(std::max<std::size_t>(before.ops, 1)));
  }
  bench::print_host("lowering_bench", false);
  return 0;
}
