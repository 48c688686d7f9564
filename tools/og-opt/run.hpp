// og-opt's run: the rules to a fixed point, with constant folding and CSE between rewrites.
#pragma once

#include "options.hpp"

#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <ostream>
#include <string>

namespace og_opt {

struct RunResult {
  optgrammar::RunReport report;
  optgrammar::engine::FoldStats fold;
  optgrammar::engine::CseStats cse;
};

/// Runs `rules` on `g` as the options say (the graph options of --relaxed-precision and --option
/// set first, also on the graphs --verify synthesizes), one line per rewrite to `trace` and every rule tried
/// and fired to `watch` when given; `pass_end`, when given, is called at the end of each pass
/// (numbered from 1) before CSE. False when the rewriting fails (a cycle), with the message
/// printed, or put in `error` when given.
inline bool run(optgrammar::Graph& g, const optgrammar::RuleSet& rules, const Options& o, std::ostream* trace,
                optgrammar::RuleWatch* watch, RunResult& out, std::string* error = nullptr,
                const std::function<void(optgrammar::Rewriter&, std::size_t)>& pass_end = {}) {
  // Provenance (core/origins.hpp): each op the run makes records its rule and the sources it
  // stands for; an imported model's ops already name their ONNX nodes.
  g.track_origins();
  if (o.relaxed_precision) g.set_option("relaxed_precision_flag", true);
  for (const auto& spec : o.graph_options) {  // --option NAME=UNSIGNED, as the command line checked
    std::string name;
    std::uint64_t value = 0;
    if (parse_graph_option(spec, name, value)) g.set_option(name, value);
  }
  if (o.verify_splits) optgrammar::set_autosplit_verify(true);
  optgrammar::DriverOptions opt;
  opt.rewrite_budget_per_op = o.budget;
  opt.verify_each_rewrite = o.verify_each;
  opt.rewrite_in_place = o.in_place;
  if (trace) opt.trace = trace;
  opt.watch = watch;
  optgrammar::engine::ConstantFolder folder({.max_elements = o.fold_max});
  optgrammar::engine::Cse cse({.merge_constants = o.cse_constants});
  if (!o.no_fold) opt.visit = folder.visitor();
  if (!o.no_cse) opt.between_passes = cse.hook();
  if (pass_end) {
    // between_passes runs before the first pass and after each one.
    opt.between_passes = [&pass_end, cse_hook = std::move(opt.between_passes),
                          passes = std::size_t{0}](optgrammar::Rewriter& rw) mutable {
      if (passes > 0) pass_end(rw, passes);
      ++passes;
      if (cse_hook) cse_hook(rw);
    };
  }
  try {
    out.report = optgrammar::run_rules(g, rules, opt);
  } catch (const std::exception& e) {
    const bool cycle = dynamic_cast<const optgrammar::CycleError*>(&e) != nullptr;
    const std::string message = (cycle ? "" : "rewriting failed: ") + std::string(e.what());
    if (error)
      *error = message;
    else
      std::cerr << "og-opt: " << message << "\n";
    return false;
  }
  out.fold = folder.stats();
  out.cse = cse.stats();
  return true;
}

}  // namespace og_opt
