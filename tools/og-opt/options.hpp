// og-opt's command line: the options as data, and their parsing (CLI11).
#pragma once

#include "onnx_import.hpp"

#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/engine/rule_set.hpp>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace og_opt {

/// The exit status of a command line og-opt refuses (CLI11's message names the argument).
inline constexpr int bad_arguments_status = 2;

/// Reads a graph option NAME=UNSIGNED (--option). False when `spec` is not of that form.
inline bool parse_graph_option(std::string_view spec, std::string& name, std::uint64_t& value) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == spec.size()) return false;
  const char* end = spec.data() + spec.size();
  if (std::from_chars(spec.data() + eq + 1, end, value).ptr != end) return false;
  name = std::string(spec.substr(0, eq));
  return true;
}

/// The built-in rule packages (--rules): the folders the linked-in rules' sources lie in.
inline std::set<std::string> builtin_packages() {
  std::set<std::string> names;
  for (const optgrammar::RuleInfo* r : optgrammar::RuleSet::global().rules())
    names.insert(std::filesystem::path(r->file).parent_path().filename().string());
  return names;
}

/// A CLI11 validator of a NAME=... value of --input-shape or --input-value: the importer's own
/// reading of it (`add`), so that the command line refuses what the import would.
inline CLI::Validator import_spec(bool (optgrammar::onnx_import::ImportOptions::*add)(std::string_view),
                                  std::string form) {
  return CLI::Validator(
      [add, form](std::string& v) -> std::string {
        optgrammar::onnx_import::ImportOptions scratch;
        return (scratch.*add)(v) ? std::string{} : "wants " + form + ": " + v;
      },
      form);
}

/// Everything the command line says, with og-opt's defaults.
struct Options {
  std::string input;  ///< the graph or model; empty: the built-in W1 demo graph
  std::string out_text, out_dot, trace_file, svg_file, report_file;
  std::size_t blocks = 4;
  std::string huge_pages = "on";  ///< --huge-pages: the graph's records on huge pages (load_graph.hpp)
  bool verbose = false;           ///< the rules' canonical forms in the printed rule table
  bool list_rules = false, verify_each = false, no_fold = false, no_cse = false, cse_constants = false,
       verify_ops = false, no_verify = false, relaxed_precision = false, in_place = false, verify_splits = false;
  std::uint64_t budget = 16;
  std::size_t fold_max = optgrammar::engine::FoldOptions{}.max_elements;
  std::size_t check_n = 0;
  double check_tolerance = 1e-4, check_atol = 1e-5;
  std::vector<std::string> input_shapes, input_values;
  std::vector<std::string> package_paths;
  std::string builtin_rules = "w1";
  std::vector<std::string> graph_options;
  std::size_t svg_max_ops = 150;
  unsigned svg_context = 1;
  std::string data_mode;  ///< how -o writes large constants: side, inline, elided (empty: side, inline to stdout)
  std::size_t data_inline_max = 16;
  std::string why_not;                      ///< --why-not RULE: a rule's name or a unique part of it (empty: none)
  std::optional<std::uint32_t> why_not_at;  ///< --at %N
  std::size_t verify_n = 0;                 ///< --verify N: graphs each rule fires on (0: no verification)
  std::uint64_t seed = 1;
};

/// Parses the command line into `o`. Returns the exit status when og-opt is done (--help, or a
/// command line CLI11 refuses, with its message printed), nothing when the run goes on.
inline std::optional<int> parse_command_line(int argc, char** argv, Options& o) {
  CLI::App app{"og-opt: apply a package of optgrammar rules to a graph until nothing changes"};
  // Unsigned options get a range: CLI11 would take "-1" as 2^64 - 1 and a number too large for the
  // type as its largest value, and run with that.
  auto* check =
      app.add_option("--check", o.check_n,
                     "Interpret the graph on N random inputs before and after rewriting and compare the outputs");
  check->check(CLI::Range(std::size_t{0}, std::size_t{1000000}));
  const CLI::Validator non_negative(
      [](std::string& v) -> std::string {
        double d = 0;
        const char* end = v.data() + v.size();
        if (std::from_chars(v.data(), end, d).ptr != end || !std::isfinite(d) || d < 0)
          return "Value " + v + " is not a finite number >= 0";
        return {};
      },
      "NUMBER >= 0");
  // --check or --verify (checked after parsing: CLI11's needs() wants all of the options it names).
  auto* tolerance = app.add_option("--check-tolerance", o.check_tolerance, "Relative tolerance of --check and --verify")
                        ->check(non_negative)
                        ->capture_default_str();
  auto* atol = app.add_option("--check-atol", o.check_atol,
                              "Absolute tolerance of --check and --verify (added to the relative one; a quantized "
                              "model's: its output's step)")
                   ->check(non_negative)
                   ->capture_default_str();
  // A repeatable option takes one value each time it is given (allow_extra_args(false)): CLI11
  // would otherwise take the words after it as more values, the graph's path among them.
  // An option that does not apply to the input is an error, not a run of another job: the ONNX
  // options need a graph (a graph in the text format is refused when read), --blocks excludes one.
  auto* input_shape = app.add_option("--input-shape", o.input_shapes,
                                     "Shape of an ONNX input with symbolic dims: NAME=D0,D1,... (repeatable)")
                          ->allow_extra_args(false)
                          ->check(import_spec(&optgrammar::onnx_import::ImportOptions::add_input_shape,
                                              "NAME=D0,D1,... (dims: integers >= 0)"));
  auto* input_value =
      app.add_option("--input-value", o.input_values,
                     "An ONNX input imported as a constant of these values, e.g. a sample rate the model branches on: "
                     "NAME=V0,V1,... (repeatable)")
          ->allow_extra_args(false)
          ->check(import_spec(&optgrammar::onnx_import::ImportOptions::add_input_value, "NAME=V0,V1,... (numbers)"));
  auto* blocks =
      app.add_option("--blocks", o.blocks, "Blocks of the built-in W1 demo graph (run when no graph is given)")
          ->check(CLI::Range(1, 10000000))
          ->capture_default_str();
  // The graph is defined after the options that depend on it, so that CLI11 names the option
  // first when it refuses the pair ("--blocks excludes graph").
  auto* graph = app.add_option("graph", o.input,
                               "Graph in the optgrammar text format ('-': standard input), or an ONNX model (a name "
                               "ending in .onnx, or binary content); without one, og-opt runs its built-in W1 demo "
                               "graph (--blocks)");
  input_shape->needs(graph);
  input_value->needs(graph);
  blocks->excludes(graph);
  app.add_option("-o,--output", o.out_text,
                 "Write the optimized graph as text here ('-' for stdout; default: <name>.opt.ogt)");
  app.add_option("--data", o.data_mode,
                 "How -o writes constants of more than --data-inline-max elements: side (to a binary side file "
                 "FILE.bin next to the text, which the reader takes back; the default), inline (as decimal text; the "
                 "default when -o is '-'), elided (left out: a listing that cannot be read back)")
      ->check(CLI::IsMember({"side", "inline", "elided"}));
  app.add_option("--data-inline-max", o.data_inline_max, "Constants of at most N elements are written inline")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40))
      ->capture_default_str();
  app.add_option("--dot", o.out_dot,
                 "Write the optimized graph as Graphviz DOT here ('-' for stdout; default: <name>.opt.dot)");
  app.add_option("--trace", o.trace_file, "Write one line per rewrite (rule, ops) to this file ('-' for stdout)");
  app.add_option("--rewrite-budget", o.budget, "Rewrites per op before a pass is declared cyclic")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--huge-pages", o.huge_pages,
                 "Map the graph's op and input records in 2 MB-aligned blocks advised to transparent huge pages "
                 "(fewer page faults for a large graph); off: operator new")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  app.add_flag("--verify-each", o.verify_each, "Verify the graph after every rewrite");
  app.add_flag("--verify-splits", o.verify_splits,
               "Check every AUTOSPLIT with indexing maps when it is built; a wrong split is rolled back and counted "
               "as failed (on by default in builds without NDEBUG)");
  app.add_flag("--in-place", o.in_place,
               "Let a rewrite whose result is one new op over matched ops, and each constant fold, put it in its "
               "root's slot (less fresh memory)");
  auto* no_fold = app.add_flag("--no-fold", o.no_fold, "Do not fold constants in the rewrite loop");
  app.add_option("--fold-max-elements", o.fold_max,
                 "Largest fold (output elements); larger ones are skipped and counted")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40))
      ->excludes(no_fold)
      ->capture_default_str();
  auto* no_cse = app.add_flag("--no-cse", o.no_cse, "Do not merge common subexpressions between passes");
  app.add_flag("--cse-constants", o.cse_constants,
               "Let CSE merge constants with equal payloads too (off by default: W1 keeps each block's constants)")
      ->excludes(no_cse);
  app.add_flag("--verify-ops", o.verify_ops,
               "Check the ops against their definitions (the default; kept for old scripts)");
  app.add_flag("--no-verify", o.no_verify,
               "Do not check the input and result graphs against the op definitions (structure is always checked)");
  app.add_flag("--relaxed-precision", o.relaxed_precision,
               "Set the graph option relaxed_precision_flag: rules flagged relaxed_precision_flag may run (fp32 ops "
               "computed in fp16)");
  auto* verify =
      app.add_option("--verify", o.verify_n,
                     "Verify the package: for each rule, rewrite up to N graphs synthesized from its pattern (until it "
                     "fired on N) and compare them interpreted before and after; counterexamples go to the folder -o "
                     "names (default og-opt-verify)")
          ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
          ->excludes(graph)
          ->excludes(blocks);
  app.add_option("--seed", o.seed, "Seed of --verify's draws")->needs(verify)->capture_default_str();
  app.add_flag("--list-rules", o.list_rules, "Print the package's rules in rule order (canonical form) and exit");
  app.add_flag("-v,--verbose", o.verbose,
               "Print each rule's canonical form in the rule table (by default a short pattern: match -> replacement), "
               "the op counts by type and the graph records' memory (records:)");
  auto* package =
      app.add_option("--package", o.package_paths,
                     "Load this op package (a shared library built with optgrammar_add_op_package) and run its rules "
                     "instead of the built-in ones (repeatable)")
          ->allow_extra_args(false);
  // Built-in rule packages and graph options (docs/htp_lowering.md).
  app.add_option("--rules", o.builtin_rules,
                 "The built-in rule package to run when no --package is given: the rules whose source lies in a "
                 "folder of this name (w1, htp_lowering)")
      ->excludes(package)
      ->check(CLI::IsMember(builtin_packages()))
      ->capture_default_str();
  app.add_option("--option", o.graph_options,
                 "Set a graph option the rules read: NAME=UNSIGNED (repeatable), e.g. htp_tile_elements=65536")
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            std::string name;
            std::uint64_t value = 0;
            return parse_graph_option(v, name, value) ? std::string{} : "wants NAME=UNSIGNED: " + v;
          },
          "NAME=UNSIGNED"));
  auto* svg = app.add_option(
      "--svg", o.svg_file,
      "Pictures through Graphviz's dot: the result to FILE, the input graph to FILE with .before before .svg");
  app.add_option("--svg-max-ops", o.svg_max_ops,
                 "A graph with more ops than N is pictured by its changed region only (the ops the rewriting "
                 "removed or created and their neighbours), at most N ops; 0: always the whole graph")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}))
      ->needs(svg)
      ->capture_default_str();
  app.add_option("--svg-context", o.svg_context, "Producer/consumer steps around the changed ops in a region picture")
      ->check(CLI::Range(0u, 64u))
      ->needs(svg)
      ->capture_default_str();
  app.add_option("--report", o.report_file,
                 "Write the report to FILE.md (Markdown) or FILE.html (one self-contained HTML file, pictures "
                 "inline): counts, the pass and rule tables, fold/CSE, --check's differences, the --svg pictures")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            return v.ends_with(".md") || v.ends_with(".html") ? std::string{}
                                                              : "give a FILE ending in .md (Markdown) or .html: " + v;
          },
          "FILE.md|FILE.html"));
  auto* why_not = app.add_option("--why-not", o.why_not,
                                 "Explain why RULE (a rule's name, e.g. cnn.cpp:120, or a unique part of its name or "
                                 "canonical text) did not fire: on each op named as its root, at the end of its pass, "
                                 "the first part of its match or the first term of its constraint that failed, with "
                                 "the values found");
  app.add_option_function<std::string>(
         "--at",
         [&o](const std::string& v) {
           std::uint32_t n = 0;
           const std::string_view t = v.starts_with('%') ? std::string_view(v).substr(1) : std::string_view(v);
           const char* end = t.data() + t.size();
           if (t.empty() || std::from_chars(t.data(), end, n).ptr != end)
             throw CLI::ValidationError("--at", "wants %N (an op index): " + v);
           o.why_not_at = n;
         },
         "--why-not on op %N only (its index in the graph as the rule's pass leaves it)")
      ->needs(why_not);
  app.failure_message(
      [](const CLI::App* a, const CLI::Error& e) { return "og-opt: error: " + CLI::FailureMessage::simple(a, e); });
  try {
    app.parse(argc, argv);
    // Checks of two options together, which CLI11's validators (of one value each) cannot make.
    if ((o.out_text == "-") + (o.out_dot == "-") + (o.trace_file == "-") > 1)
      throw CLI::ValidationError("-o, --dot, --trace", "at most one of them can be '-' (stdout)");
    for (const auto* t : {tolerance, atol})
      if (t->count() > 0 && check->count() == 0 && verify->count() == 0)
        throw CLI::ValidationError(t->get_name(), "requires --check or --verify");
    if (o.data_mode == "side" && o.out_text == "-")
      throw CLI::ValidationError("--data side", "needs -o FILE: the side file is written next to it");
  } catch (const CLI::ParseError& e) {
    // --help is done with status 0; every refused argument gets one status, whatever CLI11's kind.
    return app.exit(e) == 0 ? 0 : bad_arguments_status;
  }
  return std::nullopt;
}

}  // namespace og_opt
