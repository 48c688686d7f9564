// og-opt's report: built once from the run, printed, and written by --report as Markdown or HTML.
#pragma once

#include "load_rules.hpp"
#include "options.hpp"
#include "outputs.hpp"
#include "pictures.hpp"
#include "report.hpp"
#include "result_check.hpp"
#include "rule_instances.hpp"
#include "rule_text.hpp"
#include "run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace og_opt {

/// How many live ops of each name a graph has.
inline std::map<std::string, std::size_t> op_counts(const optgrammar::Graph& g) {
  std::map<std::string, std::size_t> n;
  for (optgrammar::OpRef r : g.live_ops()) ++n[std::string(g.name(r))];
  return n;
}

/// Width of the short patterns in the printed rule table (the lines stay within 200 characters).
inline constexpr std::size_t pattern_width = 120;

/// The facts, the pass table, the rule table (short patterns, the canonical forms in full beside
/// them) and the op counts by type of a run. `lines`: what was printed before the run (the
/// graph, the packages), which the report files repeat.
inline Report summarize(const Options& o, const std::string& stem, const std::vector<std::string>& lines,
                        const RunResult& run, const std::map<std::string, std::size_t>& ops_before,
                        const std::map<std::string, std::size_t>& ops_after) {
  const auto& rep = run.report;
  Report summary;
  summary.title = "og-opt report: " + stem;
  summary.facts = lines;
  std::uint64_t fired = 0;
  for (const auto& st : rep.stats) fired += st.fired;
  const std::uint64_t cse_merges = o.no_cse ? 0 : run.cse.merged_ops + run.cse.merged_constants;
  summary.facts.push_back(fmt::format("rules: {} in {} pass(es)", rep.rules.size(), rep.passes.size()));
  summary.facts.push_back(
      fmt::format("ops: {} before, {} after ({} rewrites by rules, {} constant folds, {} CSE merges, "
                  "{} dead ops removed) in {:.3f} ms",
                  rep.ops_before, rep.ops_after, fired, rep.rewrites - fired - cse_merges, cse_merges, rep.dead_removed,
                  rep.seconds * 1e3));
  if (o.no_fold)
    summary.facts.push_back("fold: off");
  else {
    const auto& f = run.fold;
    summary.facts.push_back(
        fmt::format("fold: {} folded, {} skipped as too large (> {} elements), {} without kernel, {} "
                    "inhibited by flags, {} breaking their definition",
                    f.folded, f.skipped_too_large, o.fold_max, f.no_kernel, f.inhibited, f.invalid));
  }
  if (o.no_cse)
    summary.facts.push_back("cse: off");
  else {
    const auto& c = run.cse;
    summary.facts.push_back(fmt::format("cse: {} ops and {} constants merged in {} sweeps (constants {})", c.merged_ops,
                                        c.merged_constants, c.runs, o.cse_constants ? "merged" : "kept"));
  }
  // A pass's rewrites are its rules' and the constant folds between them (CSE runs between passes).
  auto& passes = summary.tables.emplace_back();
  passes.heading = "Passes";
  passes.columns = {"pass", "priority", "rules fired", "folds", "time (ms)"};
  for (const auto& p : rep.passes) {
    std::uint64_t pass_fired = 0;
    for (std::size_t i = 0; i < rep.rules.size(); ++i)
      if (rep.rules[i]->priority == p.priority) pass_fired += rep.stats[i].fired;
    passes.rows.push_back({p.name, std::to_string(p.priority), std::to_string(pass_fired),
                           std::to_string(p.rewrites - pass_fired), fmt::format("{:.3f}", p.seconds * 1e3)});
  }
  // failed: the replacement failed part-way and was rolled back (--trace gives each reason).
  auto& rules_table = summary.tables.emplace_back();
  rules_table.heading = "Rules";
  rules_table.columns = {"rule", "tried", "matched", "fired", "failed", "pattern (match -> replacement)"};
  rules_table.code_column = 5;
  for (std::size_t i = 0; i < rep.rules.size(); ++i) {
    const auto& st = rep.stats[i];
    rules_table.rows.push_back({rep.rules[i]->name, std::to_string(st.tried), std::to_string(st.matched),
                                std::to_string(st.fired), std::to_string(st.failed),
                                short_pattern(rep.rules[i]->canonical, pattern_width)});
    rules_table.code_full.push_back(rep.rules[i]->canonical);
  }
  auto& ops = summary.tables.emplace_back();
  ops.heading = "Ops by type";
  ops.columns = {"op", "before", "after"};
  std::map<std::string, std::pair<std::size_t, std::size_t>> both;
  for (const auto& [name, n] : ops_before) both[name].first = n;
  for (const auto& [name, n] : ops_after) both[name].second = n;
  std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>> sorted(both.begin(), both.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return std::max(a.second.first, a.second.second) > std::max(b.second.first, b.second.second);
  });
  for (const auto& [name, n] : sorted) ops.rows.push_back({name, std::to_string(n.first), std::to_string(n.second)});
  return summary;
}

/// The report on the terminal: the facts not printed yet (from `from` on), the pass table, the rule
/// table (with --verbose the canonical forms in full, else the short patterns) and with --verbose
/// the op counts by type.
inline void print_summary(std::FILE* report, const Report& summary, std::size_t from, bool verbose) {
  for (std::size_t i = from; i < summary.facts.size(); ++i) fmt::print(report, "{}\n", summary.facts[i]);
  ReportTable rules = summary.tables[1];
  if (verbose) {
    for (std::size_t i = 0; i < rules.rows.size(); ++i) rules.rows[i][rules.code_column] = rules.code_full[i];
    rules.columns[rules.code_column] = "canonical form";
  }
  fmt::print(report, "\n{}\n{}", text_table(summary.tables[0], 8), text_table(rules, 24));
  if (verbose) fmt::print(report, "\n{}", text_table(summary.tables[2]));
}

/// --report: the summary with --check's differences, the pictures of --svg, and one instance of
/// each rule that fired (pictured when Graphviz's dot is installed), as Markdown or HTML.
inline bool write_report_file(Report& r, const optgrammar::Graph& g, const Options& o, Outputs& out,
                              const std::vector<OutputDiff>& diffs, const PictureCaptions& captions,
                              const std::vector<RuleInstance>& instances, std::FILE* report) {
  const auto rel = [&](const std::string& path) {
    return std::filesystem::absolute(path)
        .lexically_relative(std::filesystem::absolute(o.report_file).parent_path())
        .string();
  };
  if (o.check_n > 0) {
    auto& ct = r.tables.emplace_back();
    ct.heading = fmt::format("Check ({} random inputs, tolerance {})", o.check_n, o.check_tolerance);
    ct.columns = {"output", "max abs diff", "max rel diff"};
    for (std::size_t k = 0; k < diffs.size(); ++k)
      ct.rows.push_back(
          {std::to_string(k), fmt::format("{:.3g}", diffs[k].max_abs), fmt::format("{:.3g}", diffs[k].max_rel)});
  }
  // Provenance: each op the run made, the rule (or fold) that made it and the sources it stands for.
  constexpr std::size_t report_made_rows = 200;  // rows of the provenance table
  auto& made = r.tables.emplace_back();
  made.columns = {"op", "made by", "from"};
  std::size_t n_made = 0;
  for (optgrammar::OpRef op : g.live_ops()) {
    if (g.origins().of(op.index) == optgrammar::Origins::none || g.made_by(op) == "imported") continue;
    if (++n_made > report_made_rows) continue;
    std::string from;
    for (std::string_view f : g.made_from(op)) from.append(from.empty() ? "" : ", ").append(f);
    made.rows.push_back({fmt::format("%{} {}", op.index, g.name(op)), std::string(g.made_by(op)), from});
  }
  made.heading = fmt::format("Ops made by the run ({}{})", n_made,
                             n_made > report_made_rows ? fmt::format(", the first {} listed", report_made_rows) : "");
  if (!out.svg.empty()) {
    auto& changed = r.picture_sections.emplace_back();
    changed.heading = "The graph before and after";
    changed.note = "Ops the run removed or changed are red (before), ops it made or changed green (after).";
    changed.pictures.push_back({"Before (" + captions.before + ")", rel(out.before_svg), out.before_svg, ""});
    changed.pictures.push_back({"After (" + captions.after + ")", rel(out.svg), out.svg, ""});
  }
  if (!instances.empty()) {
    auto& section = r.picture_sections.emplace_back();
    section.heading = "One instance of each rule that fired";
    const bool draw = out.report_html && graphviz_installed();
    section.note =
        std::string(
            "In rule order, the first time each rule fired: the ops its match bound (red) and their neighbours, and "
            "the ops the rewrite made (green) and their readers") +
        (draw || !out.report_html ? "." : " (the pictures need Graphviz's dot, which is not installed).");
    std::vector<const RuleInstance*> in_rule_order;
    for (const RuleInstance& inst : instances) in_rule_order.push_back(&inst);
    std::sort(in_rule_order.begin(), in_rule_order.end(),
              [](const RuleInstance* a, const RuleInstance* b) { return a->rule->index < b->rule->index; });
    for (const RuleInstance* one : in_rule_order) {
      const RuleInstance& inst = *one;
      ReportPicture p;
      p.caption = fmt::format("{}: %{} -> %{} ({} op(s) matched, {} made): {}", inst.rule->name, inst.root, inst.result,
                              inst.matched, inst.made, short_pattern(inst.rule->canonical, pattern_width));
      if (draw) p.svg = svg_of(inst.dot());
      section.pictures.push_back(std::move(p));
    }
  }
  if (out.report_html)
    write_html(out.report.stream(), r);
  else
    write_markdown(out.report.stream(), r);
  if (!out.report.commit()) return false;
  fmt::print(report, "report: {}\n", o.report_file);
  return true;
}

}  // namespace og_opt
