// og-opt: the main job. Loads a graph (text format) or builds the built-in default, applies the
// rule package linked into it, prints a report, writes the result as text and as Graphviz DOT.
#include "w1/w1_graph.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/core/verify.hpp>
#include <optgrammar/engine/driver.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"og-opt: apply a package of optgrammar rules to a graph until nothing changes"};
  std::string input, out_text, out_dot, trace_file;
  std::size_t blocks = 4;
  bool list_rules = false, verify_each = false;
  std::uint64_t budget = 16;
  app.add_option("graph", input, "Graph in the optgrammar text format (default: the built-in W1 graph)")
      ->check(CLI::ExistingFile);
  app.add_option("--blocks", blocks, "Blocks of the built-in W1 graph")->check(CLI::Range(1, 10000000))->capture_default_str();
  app.add_option("-o,--output", out_text, "Write the optimized graph as text here (default: <name>.opt.ogt)");
  app.add_option("--dot", out_dot, "Write the optimized graph as Graphviz DOT here (default: <name>.opt.dot)");
  app.add_option("--trace", trace_file, "Write one line per rewrite (rule, ops) to this file ('-' for stdout)");
  app.add_option("--rewrite-budget", budget, "Rewrites per op before a pass is declared cyclic")->capture_default_str();
  app.add_flag("--verify-each", verify_each, "Verify the graph after every rewrite");
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
    std::cerr << "og-opt: the input graph is invalid: " << problems.front() << "\n";
    return 1;
  }
  if (out_text.empty()) out_text = stem + ".opt.ogt";
  if (out_dot.empty()) out_dot = stem + ".opt.dot";

  optgrammar::DriverOptions opt;
  opt.rewrite_budget_per_op = budget;
  opt.verify_each_rewrite = verify_each;
  std::ofstream trace_os;
  if (trace_file == "-") opt.trace = &std::cout;
  else if (!trace_file.empty()) {
    trace_os.open(trace_file);
    opt.trace = &trace_os;
  }
  optgrammar::RunReport rep;
  try {
    rep = optgrammar::run_rules(g, rules, opt);
  } catch (const optgrammar::CycleError& e) {
    std::cerr << "og-opt: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "og-opt: rewriting failed: " << e.what() << "\n";
    return 3;
  }
  fmt::print("rules: {} in {} pass(es)\n", rep.rules.size(), rep.passes.size());
  fmt::print("ops: {} before, {} after ({} rewrites, {} dead ops removed) in {:.3f} ms\n", rep.ops_before, rep.ops_after,
             rep.rewrites, rep.dead_removed, rep.seconds * 1e3);
  fmt::print("\n{:<8} {:>9} {:>10} {:>12}\n", "pass", "priority", "rewrites", "time (ms)");
  for (const auto& p : rep.passes) fmt::print("{:<8} {:>9} {:>10} {:>12.3f}\n", p.name, p.priority, p.rewrites, p.seconds * 1e3);
  fmt::print("\n{:<24} {:>8} {:>8} {:>8}  {}\n", "rule", "tried", "matched", "fired", "canonical form");
  for (std::size_t i = 0; i < rep.rules.size(); ++i) {
    const auto& s = rep.stats[i];
    fmt::print("{:<24} {:>8} {:>8} {:>8}  {}\n", rep.rules[i]->name, s.tried, s.matched, s.fired, rep.rules[i]->canonical);
  }
  if (auto problems = optgrammar::verify(g); !problems.empty()) {
    std::cerr << "og-opt: the result graph is invalid: " << problems.front() << "\n";
    return 1;
  }
  {
    std::ofstream os(out_text);
    optgrammar::write_graph_text(os, g);
    std::ofstream ds(out_dot);
    optgrammar::write_dot(ds, g, stem);
    if (!os || !ds) {
      std::cerr << "og-opt: cannot write " << out_text << " or " << out_dot << "\n";
      return 1;
    }
  }
  fmt::print("\nwrote {} and {}\n", out_text, out_dot);
  return 0;
}
