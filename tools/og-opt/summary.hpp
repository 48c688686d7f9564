// og-opt's report: built once from the run, printed, and written by --report as Markdown or HTML.
#pragma once

#include "options.hpp"
#include "outputs.hpp"
#include "pictures.hpp"
#include "report.hpp"
#include "result_check.hpp"
#include "run.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace og_opt {

/// The counts, the fold and CSE counters, the pass table and the rule table of a run.
inline Report summarize(const Options& o, const std::string& stem, const RunResult& run) {
  const auto& rep = run.report;
  Report summary;
  summary.title = "og-opt report: " + stem;
  summary.facts.push_back(fmt::format("rules: {} in {} pass(es)", rep.rules.size(), rep.passes.size()));
  summary.facts.push_back(fmt::format("ops: {} before, {} after ({} rewrites, {} dead ops removed) in {:.3f} ms",
                                      rep.ops_before, rep.ops_after, rep.rewrites, rep.dead_removed, rep.seconds * 1e3));
  if (o.no_fold) summary.facts.push_back("fold: off");
  else {
    const auto& f = run.fold;
    summary.facts.push_back(fmt::format("fold: {} folded, {} skipped as too large (> {} elements), {} without kernel, {} "
                                        "inhibited by flags, {} breaking their definition",
                                        f.folded, f.skipped_too_large, o.fold_max, f.no_kernel, f.inhibited, f.invalid));
  }
  if (o.no_cse) summary.facts.push_back("cse: off");
  else {
    const auto& c = run.cse;
    summary.facts.push_back(fmt::format("cse: {} ops and {} constants merged in {} sweeps (constants {})", c.merged_ops,
                                        c.merged_constants, c.runs, o.cse_constants ? "merged" : "kept"));
  }
  auto& passes = summary.tables.emplace_back();
  passes.heading = "Passes";
  passes.columns = {"pass", "priority", "rewrites", "time (ms)"};
  for (const auto& p : rep.passes)
    passes.rows.push_back({p.name, std::to_string(p.priority), std::to_string(p.rewrites), fmt::format("{:.3f}", p.seconds * 1e3)});
  // failed: the replacement failed part-way and was rolled back (--trace gives each reason).
  auto& rules_table = summary.tables.emplace_back();
  rules_table.heading = "Rules";
  rules_table.columns = {"rule", "tried", "matched", "fired", "failed", "canonical form"};
  rules_table.code_column = 5;
  for (std::size_t i = 0; i < rep.rules.size(); ++i) {
    const auto& st = rep.stats[i];
    rules_table.rows.push_back({rep.rules[i]->name, std::to_string(st.tried), std::to_string(st.matched),
                                std::to_string(st.fired), std::to_string(st.failed), rep.rules[i]->canonical});
  }
  return summary;
}

/// The report on the terminal: the facts, then the pass and rule tables.
inline void print_summary(std::FILE* report, const Report& summary) {
  for (const auto& f : summary.facts) fmt::print(report, "{}\n", f);
  fmt::print(report, "\n{}\n{}", text_table(summary.tables[0], 8), text_table(summary.tables[1], 24));
}

/// --report: the summary with --check's differences and the pictures, as Markdown or HTML.
inline bool write_report_file(Report& r, const Options& o, Outputs& out, const std::vector<OutputDiff>& diffs,
                              const PictureCaptions& captions, std::FILE* report) {
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
      ct.rows.push_back({std::to_string(k), fmt::format("{:.3g}", diffs[k].max_abs), fmt::format("{:.3g}", diffs[k].max_rel)});
  }
  if (!out.svg.empty()) {
    r.pictures.push_back({"Before (" + captions.before + ")", rel(out.before_svg), out.before_svg});
    r.pictures.push_back({"After (" + captions.after + ")", rel(out.svg), out.svg});
  }
  if (out.report_html) write_html(out.report.stream(), r);
  else write_markdown(out.report.stream(), r);
  if (!out.report.commit()) return false;
  fmt::print(report, "report: {}\n", o.report_file);
  return true;
}

}  // namespace og_opt
