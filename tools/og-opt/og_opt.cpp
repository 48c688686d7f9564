// og-opt: the main job. Loads a graph (text format) or builds the built-in default, applies the
// rule package linked into it, prints a report, writes the result as text and as Graphviz DOT.
#include "w1/w1_graph.hpp"
#include "onnx_import.hpp"
#include "result_check.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/core/verify.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/ops/verify.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  CLI::App app{"og-opt: apply a package of optgrammar rules to a graph until nothing changes"};
  std::string input, out_text, out_dot, trace_file;
  std::size_t blocks = 4;
  bool list_rules = false, verify_each = false, no_fold = false, no_cse = false, cse_constants = false, verify_ops = false;
  std::uint64_t budget = 16;
  std::size_t fold_max = optgrammar::engine::FoldOptions{}.max_elements;
  app.add_option("graph", input, "Graph in the optgrammar text format, or an ONNX model (.onnx) (default: the built-in W1 graph)")
      ->check(CLI::ExistingFile);
  std::size_t check_n = 0;
  double check_tolerance = 1e-4;
  app.add_option("--check", check_n, "Interpret the graph on N random inputs before and after rewriting and compare the outputs");
  app.add_option("--check-tolerance", check_tolerance, "Relative tolerance of --check")->capture_default_str();
  std::vector<std::string> input_shapes;
  app.add_option("--input-shape", input_shapes, "Shape of an ONNX input with symbolic dims: NAME=D0,D1,... (repeatable)");
  app.add_option("--blocks", blocks, "Blocks of the built-in W1 graph")->check(CLI::Range(1, 10000000))->capture_default_str();
  app.add_option("-o,--output", out_text, "Write the optimized graph as text here (default: <name>.opt.ogt)");
  app.add_option("--dot", out_dot, "Write the optimized graph as Graphviz DOT here (default: <name>.opt.dot)");
  app.add_option("--trace", trace_file, "Write one line per rewrite (rule, ops) to this file ('-' for stdout)");
  app.add_option("--rewrite-budget", budget, "Rewrites per op before a pass is declared cyclic")->capture_default_str();
  app.add_flag("--verify-each", verify_each, "Verify the graph after every rewrite");
  app.add_flag("--no-fold", no_fold, "Do not fold constants in the rewrite loop");
  app.add_option("--fold-max-elements", fold_max, "Largest fold (output elements); larger ones are skipped and counted")
      ->capture_default_str();
  app.add_flag("--no-cse", no_cse, "Do not merge common subexpressions between passes");
  app.add_flag("--cse-constants", cse_constants,
               "Let CSE merge constants with equal payloads too (off by default: W1 keeps each block's constants)");
  app.add_flag("--verify-ops", verify_ops, "Check the ops against their definitions before and after (unknown ops allowed)");
  app.add_flag("--list-rules", list_rules, "Print the package's rules in rule order (canonical form) and exit");
  CLI11_PARSE(app, argc, argv);

  const auto& rules = optgrammar::RuleSet::global();
  if (list_rules) {
    for (const auto* r : rules.rules()) fmt::print("{}: {}\n", r->name, r->canonical);
    return 0;
  }
  optgrammar::Graph g;
  std::string stem;
  try {
    if (input.empty()) {
      g = w1::build(blocks);
      stem = "w1";
      fmt::print("graph: built-in W1 redundant conv chain, {} blocks\n", blocks);
    } else if (input.ends_with(".onnx")) {
      optgrammar::onnx_import::ImportOptions io;
      for (const auto& s : input_shapes) {  // NAME=D0,D1,...
        const auto eq = s.find('=');
        if (eq == std::string::npos) throw std::runtime_error("--input-shape wants NAME=D0,D1,...: " + s);
        auto& dims = io.input_shapes[s.substr(0, eq)];
        std::stringstream ds(s.substr(eq + 1));
        for (std::string d; std::getline(ds, d, ',');) dims.push_back(std::stoul(d));
      }
      auto m = optgrammar::onnx_import::import_file(input, io);
      g = std::move(m.graph);
      stem = input.substr(0, input.rfind('.'));
      fmt::print("graph: {} (ONNX, opset {}, {} nodes)\n", input, m.opset, m.nodes);
    } else {
      std::ifstream is(input);
      g = optgrammar::read_graph_text(is, input);
      stem = input.substr(0, input.rfind('.'));
      fmt::print("graph: {}\n", input);
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  if (auto problems = optgrammar::verify(g); !problems.empty()) {
    std::cerr << "og-opt: the input graph is invalid: " << problems.front()
              << (problems.size() > 1 ? fmt::format(" (and {} more problems)", problems.size() - 1) : "") << "\n";
    return 1;
  }
  if (verify_ops)
    if (auto problems = optgrammar::ops::verify_ops(g); !problems.empty()) {
      std::cerr << "og-opt: the input graph breaks its op definitions: " << problems.front() << "\n";
      return 1;
    }
  if (out_text.empty()) out_text = stem + ".opt.ogt";
  if (out_dot.empty()) out_dot = stem + ".opt.dot";

  // Every output file is opened before the run, so that a path that cannot be written is reported
  // (with the reason) before any work, and never after the work is done. Files opened for a run
  // that then fails are removed, not left empty.
  std::vector<std::string> opened;
  auto open_out = [&](std::ofstream& f, const std::string& path, const char* what) {
    errno = 0;
    f.open(path);
    if (!f) {
      std::cerr << "og-opt: cannot write the " << what << " " << path << ": "
                << (errno ? std::strerror(errno) : "cannot open") << "\n";
      return false;
    }
    opened.push_back(path);
    return true;
  };
  auto remove_opened = [&] {
    for (const auto& p : opened) std::filesystem::remove(p);
  };
  std::ofstream text_os, dot_os, trace_os;
  if (!open_out(text_os, out_text, "text output") || !open_out(dot_os, out_dot, "DOT output") ||
      (!trace_file.empty() && trace_file != "-" && !open_out(trace_os, trace_file, "trace"))) {
    remove_opened();
    return 1;
  }

  og_opt::CheckRun check;
  if (check_n > 0) try {
      check = og_opt::check_before(g, check_n);
    } catch (const std::exception& e) {
      std::cerr << "og-opt: --check: the interpreter cannot run the input graph: " << e.what() << "\n";
      remove_opened();
      return 1;
    }
  optgrammar::DriverOptions opt;
  opt.rewrite_budget_per_op = budget;
  opt.verify_each_rewrite = verify_each;
  if (trace_file == "-") opt.trace = &std::cout;
  else if (!trace_file.empty()) opt.trace = &trace_os;
  optgrammar::engine::ConstantFolder folder({.max_elements = fold_max});
  optgrammar::engine::Cse cse({.merge_constants = cse_constants});
  if (!no_fold) opt.visit = folder.visitor();
  if (!no_cse) opt.between_passes = cse.hook();
  optgrammar::RunReport rep;
  try {
    rep = optgrammar::run_rules(g, rules, opt);
  } catch (const optgrammar::CycleError& e) {
    std::cerr << "og-opt: " << e.what() << "\n";
    remove_opened();
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "og-opt: rewriting failed: " << e.what() << "\n";
    remove_opened();
    return 3;
  }
  fmt::print("rules: {} in {} pass(es)\n", rep.rules.size(), rep.passes.size());
  fmt::print("ops: {} before, {} after ({} rewrites, {} dead ops removed) in {:.3f} ms\n", rep.ops_before, rep.ops_after,
             rep.rewrites, rep.dead_removed, rep.seconds * 1e3);
  if (no_fold) fmt::print("fold: off\n");
  else {
    const auto& f = folder.stats();
    fmt::print("fold: {} folded, {} skipped as too large (> {} elements), {} without kernel, {} inhibited by flags\n",
               f.folded, f.skipped_too_large, fold_max, f.no_kernel, f.inhibited);
  }
  if (no_cse) fmt::print("cse: off\n");
  else {
    const auto& c = cse.stats();
    fmt::print("cse: {} ops and {} constants merged in {} sweeps (constants {})\n", c.merged_ops, c.merged_constants, c.runs,
               cse_constants ? "merged" : "kept");
  }
  std::size_t pw = 8, rw = 24;  // column widths: the longest pass and rule names
  for (const auto& p : rep.passes) pw = std::max(pw, p.name.size());
  for (const auto* r : rep.rules) rw = std::max(rw, r->name.size());
  fmt::print("\n{:<{}} {:>9} {:>10} {:>12}\n", "pass", pw, "priority", "rewrites", "time (ms)");
  for (const auto& p : rep.passes)
    fmt::print("{:<{}} {:>9} {:>10} {:>12.3f}\n", p.name, pw, p.priority, p.rewrites, p.seconds * 1e3);
  fmt::print("\n{:<{}} {:>8} {:>8} {:>8}  {}\n", "rule", rw, "tried", "matched", "fired", "canonical form");
  for (std::size_t i = 0; i < rep.rules.size(); ++i) {
    const auto& s = rep.stats[i];
    fmt::print("{:<{}} {:>8} {:>8} {:>8}  {}\n", rep.rules[i]->name, rw, s.tried, s.matched, s.fired, rep.rules[i]->canonical);
  }
  if (auto problems = optgrammar::verify(g); !problems.empty()) {
    std::cerr << "og-opt: the result graph is invalid: " << problems.front()
              << (problems.size() > 1 ? fmt::format(" (and {} more problems)", problems.size() - 1) : "") << "\n";
    remove_opened();
    return 1;
  }
  if (verify_ops)
    if (auto problems = optgrammar::ops::verify_ops(g); !problems.empty()) {
      std::cerr << "og-opt: the result graph breaks its op definitions: " << problems.front() << "\n";
      remove_opened();
      return 1;
    }
  if (check_n > 0) {
    std::vector<og_opt::OutputDiff> diffs;
    try {
      diffs = og_opt::check_after(g, check, check_tolerance);
    } catch (const std::exception& e) {
      std::cerr << "og-opt: --check: the interpreter cannot run the result graph: " << e.what() << "\n";
      remove_opened();
      return 1;
    }
    bool ok = true;
    for (std::size_t k = 0; k < diffs.size(); ++k) {
      fmt::print("check: output {}: max abs diff {:.3g}, max rel diff {:.3g} over {} inputs{}\n", k, diffs[k].max_abs,
                 diffs[k].max_rel, check_n, diffs[k].ok ? "" : " (beyond tolerance)");
      if (!diffs[k].ok) {
        std::cerr << "og-opt: --check: output " << k << " changed beyond the tolerance " << check_tolerance;
        if (!diffs[k].problem.empty()) std::cerr << ": " << diffs[k].problem;
        std::cerr << "\n";
        ok = false;
      }
    }
    if (!ok) {
      remove_opened();
      return 4;
    }
  }
  optgrammar::write_graph_text(text_os, g);
  optgrammar::write_dot(dot_os, g, stem);
  text_os.close();
  dot_os.close();
  trace_os.close();
  for (const auto& [f, path] : {std::pair{&text_os, &out_text}, std::pair{&dot_os, &out_dot}, std::pair{&trace_os, &trace_file}})
    if (f->fail() && !path->empty() && *path != "-") {
      std::cerr << "og-opt: writing " << *path << " failed (disk full?)\n";
      return 1;
    }
  fmt::print("\nwrote {} and {}\n", out_text, out_dot);
  return 0;
}
