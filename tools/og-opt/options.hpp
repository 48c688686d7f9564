// og-opt's command line: the options as data, and their parsing (CLI11).
#pragma once

#include <optgrammar/engine/fold_step.hpp>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace og_opt {

/// Everything the command line says, with og-opt's defaults.
struct Options {
  std::string input;  ///< the graph or model; empty: the built-in W1 graph
  std::string out_text, out_dot, trace_file, svg_file, report_file;
  std::size_t blocks = 4;
  bool list_rules = false, verify_each = false, no_fold = false, no_cse = false, cse_constants = false,
       verify_ops = false, no_verify = false, relaxed_precision = false, in_place = false, verify_splits = false;
  std::uint64_t budget = 16;
  std::size_t fold_max = optgrammar::engine::FoldOptions{}.max_elements;
  std::size_t check_n = 0;
  double check_tolerance = 1e-4;
  std::vector<std::string> input_shapes, input_values;
  std::vector<std::string> package_paths;
  std::string builtin_rules = "w1";
  std::vector<std::string> graph_options;
  std::size_t svg_max_ops = 150;
  unsigned svg_context = 1;
};

/// Parses the command line into `o`. Returns the exit status when og-opt is done (--help, or a
/// command line CLI11 refuses, with its message printed), nothing when the run goes on.
inline std::optional<int> parse_command_line(int argc, char** argv, Options& o) {
  CLI::App app{"og-opt: apply a package of optgrammar rules to a graph until nothing changes"};
  app.add_option("graph", o.input,
                 "Graph in the optgrammar text format ('-': standard input), or an ONNX model (a name ending in .onnx, "
                 "or binary content) (default: the built-in W1 graph)");
  // Unsigned options get a range: CLI11 would take "-1" as 2^64 - 1 and a number too large for the
  // type as its largest value, and run with that.
  app.add_option("--check", o.check_n, "Interpret the graph on N random inputs before and after rewriting and compare the outputs")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}));
  app.add_option("--check-tolerance", o.check_tolerance, "Relative tolerance of --check")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            double d = 0;
            const char* end = v.data() + v.size();
            if (std::from_chars(v.data(), end, d).ptr != end || !std::isfinite(d) || d < 0)
              return "Value " + v + " is not a finite number >= 0";
            return {};
          },
          "NUMBER >= 0"))
      ->capture_default_str();
  app.add_option("--input-shape", o.input_shapes, "Shape of an ONNX input with symbolic dims: NAME=D0,D1,... (repeatable)");
  app.add_option("--input-value", o.input_values,
                 "An ONNX input imported as a constant of these values, e.g. a sample rate the model branches on: NAME=V0,V1,... (repeatable)");
  app.add_option("--blocks", o.blocks, "Blocks of the built-in W1 graph")->check(CLI::Range(1, 10000000))->capture_default_str();
  app.add_option("-o,--output", o.out_text, "Write the optimized graph as text here ('-' for stdout; default: <name>.opt.ogt)");
  app.add_option("--dot", o.out_dot, "Write the optimized graph as Graphviz DOT here ('-' for stdout; default: <name>.opt.dot)");
  app.add_option("--trace", o.trace_file, "Write one line per rewrite (rule, ops) to this file ('-' for stdout)");
  app.add_option("--rewrite-budget", o.budget, "Rewrites per op before a pass is declared cyclic")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->capture_default_str();
  app.add_flag("--verify-each", o.verify_each, "Verify the graph after every rewrite");
  app.add_flag("--verify-splits", o.verify_splits,
               "Check every AUTOSPLIT with indexing maps when it is built; a wrong split is rolled back and counted "
               "as failed (on by default in builds without NDEBUG)");
  app.add_flag("--in-place", o.in_place,
               "Let a rewrite whose result is one new op over matched ops, and each constant fold, put it in its "
               "root's slot (less fresh memory)");
  app.add_flag("--no-fold", o.no_fold, "Do not fold constants in the rewrite loop");
  app.add_option("--fold-max-elements", o.fold_max, "Largest fold (output elements); larger ones are skipped and counted")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40))
      ->capture_default_str();
  app.add_flag("--no-cse", o.no_cse, "Do not merge common subexpressions between passes");
  app.add_flag("--cse-constants", o.cse_constants,
               "Let CSE merge constants with equal payloads too (off by default: W1 keeps each block's constants)");
  app.add_flag("--verify-ops", o.verify_ops, "Check the ops against their definitions (the default; kept for old scripts)");
  app.add_flag("--no-verify", o.no_verify,
               "Do not check the input and result graphs against the op definitions (structure is always checked)");
  app.add_flag("--relaxed-precision", o.relaxed_precision,
               "Set the graph option relaxed_precision_flag: rules flagged relaxed_precision_flag may run (fp32 ops computed in fp16)");
  app.add_flag("--list-rules", o.list_rules, "Print the package's rules in rule order (canonical form) and exit");
  app.add_option("--package", o.package_paths,
                 "Load this op package (a shared library built with optgrammar_add_op_package) and run its rules "
                 "instead of the built-in ones (repeatable)")
      ->allow_extra_args(false);
  // Built-in rule packages and graph options (docs/htp_lowering.md).
  app.add_option("--rules", o.builtin_rules,
                 "The built-in rule package to run when no --package is given: the rules whose source lies in a "
                 "folder of this name (w1, htp_lowering)")
      ->capture_default_str();
  app.add_option("--option", o.graph_options, "Set a graph option the rules read: NAME=UNSIGNED (repeatable), e.g. htp_tile_elements=65536");
  app.add_option("--svg", o.svg_file, "Pictures through Graphviz's dot: the result to FILE, the input graph to FILE with .before before .svg");
  app.add_option("--svg-max-ops", o.svg_max_ops,
                 "A graph with more ops than N is pictured by its changed region only (the ops the rewriting "
                 "removed or created and their neighbours), at most N ops; 0: always the whole graph")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}))
      ->capture_default_str();
  app.add_option("--svg-context", o.svg_context, "Producer/consumer steps around the changed ops in a region picture")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str();
  app.add_option("--report", o.report_file,
                 "Write the report to FILE.md (Markdown) or FILE.html (one self-contained HTML file, pictures "
                 "inline): counts, the pass and rule tables, fold/CSE, --check's differences, the --svg pictures");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if ((!o.input_shapes.empty() || !o.input_values.empty()) && o.input.empty())
    std::cerr << "og-opt: warning: --input-shape and --input-value apply to ONNX models only; ignored\n";
  return std::nullopt;
}

}  // namespace og_opt
