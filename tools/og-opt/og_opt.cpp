// og-opt: the main job. Loads a graph (text format or ONNX) or builds the built-in default, applies
// the rule package linked into it or the packages given with --package, checks the result, prints
// a report, and writes the result as text and as Graphviz DOT. Each phase of the run is a function
// of its own (the headers beside this file); main runs them in order and maps a failure to the
// exit status docs/og-opt.md gives.
#include "check_graph.hpp"
#include "load_graph.hpp"
#include "load_rules.hpp"
#include "options.hpp"
#include "outputs.hpp"
#include "pictures.hpp"
#include "result_check.hpp"
#include "rule_instances.hpp"
#include "run.hpp"
#include "summary.hpp"
#include "verify_rules.hpp"
#include "why_not.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  og_opt::Options o;
  if (const auto done = og_opt::parse_command_line(argc, argv, o)) return *done;

  og_opt::LoadedRules loaded;
  if (!og_opt::load_rules(o, loaded)) return 1;
  if (o.list_rules) {
    for (const auto* r : loaded.rules.rules()) fmt::print("{}: {}\n", r->name, r->canonical);
    return 0;
  }
  if (o.verify_n > 0) return og_opt::verify_package(loaded, o);
  const optgrammar::RuleInfo* why_not = nullptr;
  if (!o.why_not.empty()) {
    std::vector<const optgrammar::RuleInfo*> candidates;
    why_not = og_opt::find_rule(loaded.rules, o.why_not, candidates);
    if (!why_not) {
      fmt::print(
          stderr, "og-opt: --why-not {}: {}\n", o.why_not,
          candidates.empty() ? "no rule's name or canonical text contains it" : "more than one rule fits; give one of");
      for (const auto* r : candidates) fmt::print(stderr, "  {}: {}\n", r->name, r->canonical);
      return og_opt::why_not_rule_status;
    }
  }
  std::FILE* const report = og_opt::report_stream(o);
  std::vector<std::string> printed = og_opt::package_lines(o, loaded);  // (the report files repeat them)
  for (const auto& line : printed) fmt::print(report, "{}\n", line);

  og_opt::InputGraph in;
  if (const int status = og_opt::load_graph(o, report, in)) return status;
  printed.push_back("graph: " + in.description);
  optgrammar::Graph& g = in.graph;
  if (!og_opt::prepare_graph(g, o, in.op_lines)) return 1;

  og_opt::Outputs out(o, in.stem);
  if (!out.open()) return 1;
  // --svg: a copy of the input graph now, both pictures drawn after the run (a large graph's
  // pictures show only the region that changed, which needs both states).
  optgrammar::Graph before_graph;
  if (!out.svg.empty()) before_graph = g;
  og_opt::CheckRun check;
  if (o.check_n > 0 && !og_opt::start_check(g, o.check_n, check)) return 1;

  const auto ops_before = og_opt::op_counts(g);
  og_opt::InstanceRecorder instances;  // for the report file: one instance of each rule that fires
  og_opt::RunResult result;
  // --why-not, and the report's nearest misses: rules explained at the end of their passes.
  og_opt::WhyNot explainer(loaded.rules, why_not, o.why_not_at, out.has_report);
  std::function<void(optgrammar::Rewriter&, std::size_t)> pass_end;
  if (why_not || out.has_report)
    pass_end = [&explainer](optgrammar::Rewriter& rw, std::size_t pass) { explainer.at_pass_end(rw, pass); };
  if (!og_opt::run(g, loaded.rules, o, out.has_trace ? &out.trace.stream() : nullptr,
                   out.has_report ? &instances : nullptr, result, nullptr, pass_end))
    return 3;
  og_opt::Report summary = og_opt::summarize(o, in.stem, printed, result, ops_before, og_opt::op_counts(g));
  if (o.verbose) summary.facts.push_back(og_opt::records_line(o));
  og_opt::print_summary(report, summary, printed.size(), o.verbose);
  if (why_not) fmt::print(report, "\n{}", explainer.text());
  if (!explainer.misses().rows.empty()) summary.appendix.push_back(explainer.misses());

  if (!og_opt::graph_is_valid(g, o, "", {}, "the result graph is invalid")) return 1;
  if (!out.write_graph(g, in.stem)) return 1;
  std::vector<og_opt::OutputDiff> diffs;
  if (o.check_n > 0)
    if (const int status = og_opt::finish_check(g, check, o.check_tolerance, o.check_atol, report, diffs))
      return status;

  if (!out.commit()) return 1;
  fmt::print(report, "\nwrote {} and {}\n", out.text_written(), out.dot.to_stdout() ? "stdout" : out.dot.path());
  og_opt::PictureCaptions captions;
  if (!out.svg.empty() && !og_opt::draw_pictures(before_graph, g, o, out, in.stem, report, captions)) return 1;
  if (out.has_report && !og_opt::write_report_file(summary, g, o, out, diffs, captions, instances.instances(), report))
    return 1;
  return 0;
}
