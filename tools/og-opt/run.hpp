// og-opt's run: the rules to a fixed point, with constant folding and CSE between rewrites.
#pragma once

#include "options.hpp"

#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>

#include <exception>
#include <iostream>
#include <ostream>
#include <string>

namespace og_opt {

struct RunResult {
  optgrammar::RunReport report;
  optgrammar::engine::FoldStats fold;
  optgrammar::engine::CseStats cse;
};

/// Runs `rules` on `g` as the options say, one line per rewrite to `trace` and every rule tried
/// and fired to `watch` when given. False when the rewriting fails (a cycle), with the message
/// printed, or put in `error` when given.
inline bool run(optgrammar::Graph& g, const optgrammar::RuleSet& rules, const Options& o, std::ostream* trace,
                optgrammar::RuleWatch* watch, RunResult& out, std::string* error = nullptr) {
  // Provenance (core/origins.hpp): each op the run makes records its rule and the sources it
  // stands for; an imported model's ops already name their ONNX nodes.
  g.track_origins();
  if (o.relaxed_precision) g.set_option("relaxed_precision_flag", true);
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
  try {
    out.report = optgrammar::run_rules(g, rules, opt);
  } catch (const std::exception& e) {
    const bool cycle = dynamic_cast<const optgrammar::CycleError*>(&e) != nullptr;
    const std::string message = (cycle ? "" : "rewriting failed: ") + std::string(e.what());
    if (error) *error = message;
    else std::cerr << "og-opt: " << message << "\n";
    return false;
  }
  out.fold = folder.stats();
  out.cse = cse.stats();
  return true;
}

}  // namespace og_opt
