// og-opt --why-not on a package's semantic graphs: at the end of each pass, every op named as the
// root of a rule of that pass that did not fire there (a near miss) is explained
// (RuleInfo::explain, engine/explain.hpp). The explanation must name a node of the rule (and, for a
// constraint that fails, show a value the failing term read), and its verdict must be the rule's
// own: the apply function, run on a copy of the graph, matches exactly where the explanation says
// the match holds, and neither fires nor fails where it says the constraint is false.
#pragma once

#include "semantic_check.hpp"

#include <optgrammar/engine/explain.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace semantic {

struct NearMisses {
  std::uint64_t graphs = 0, explained = 0;                   ///< graphs run, near misses explained
  std::uint64_t match = 0, constraint = 0, replacement = 0;  ///< by where the explanation stops
  std::vector<std::string> problems;                         ///< the first few explanations that fall short, in words
};

/// The rule's own verdict on `root`, from its apply function on a copy of `g`, against `e`'s.
inline std::string disagreement(const RuleInfo& r, const Graph& g, OpRef root, const Explanation& e) {
  Graph copy = g;
  std::vector<RuleStats> stats(r.index + 1);
  Rewriter rw(copy, stats);
  const bool fired = r.apply(rw, r, root);
  const RuleStats& st = stats[r.index];
  using V = Explanation::Verdict;
  if ((e.verdict == V::match_failed) != (st.matched == 0))
    return st.matched ? "the rule matched" : "the rule did not match";
  if (e.verdict == V::constraint_false && (fired || st.failed)) return "the constraint held";
  if (e.verdict == V::passes && e.fires != fired) return "the rule fired otherwise";
  return {};
}

/// Explains the near misses of every rule of `p` on graphs first_seed ... first_seed + n - 1.
inline NearMisses explain_near_misses(const Package& p, std::uint64_t n, std::uint64_t first_seed) {
  NearMisses out;
  auto problem = [&](const RuleInfo& r, const Graph& g, OpRef o, const std::string& what) {
    if (out.problems.size() < 5) out.problems.push_back(str(r.name, " on %", o.index, " (", g.name(o), "): ", what));
  };
  for (std::uint64_t seed = first_seed; seed < first_seed + n; ++seed) {
    Graph g = build_graph(p, draw_graph(p, seed));
    engine::ConstantFolder folder({.max_elements = 4096});
    engine::Cse cse({.merge_constants = false});
    auto cse_hook = cse.hook();
    DriverOptions opt;
    if (p.fold) opt.visit = folder.visitor();
    const std::vector<const RuleInfo*>& rules = p.rules.rules();
    opt.between_passes = [&](Rewriter& rw) {
      if (rw.pass_name) {  // the end of a pass (not the call before the first)
        Graph& gr = rw.graph();
        for (const RuleInfo* r : rules) {
          if (r->pass_name != *rw.pass_name || !r->explain) continue;
          for (OpRef o : gr.live_ops()) {
            if (gr.name_id(o) != r->root) continue;
            Explanation e;
            r->explain(*r, gr, o, e);
            ++out.explained;
            using V = Explanation::Verdict;
            (e.verdict == V::match_failed       ? out.match
             : e.verdict == V::constraint_false ? out.constraint
                                                : out.replacement)++;
            if (e.verdict != V::passes && (e.findings.empty() || node_text(*r, e.findings[0].node).empty()))
              problem(*r, gr, o, "no node named");
            if (e.verdict == V::constraint_false) {
              bool valued = false;
              for (const auto& f : e.findings) valued = valued || !f.values.empty();
              if (!valued) problem(*r, gr, o, "no value shown for " + node_text(*r, e.findings.at(0).node));
            }
            if (e.verdict == V::passes && e.rewrite.empty()) problem(*r, gr, o, "no word on the replacement");
            if (auto d = disagreement(*r, gr, o, e); !d.empty()) problem(*r, gr, o, "the explanation disagrees: " + d);
          }
        }
      }
      if (p.cse) cse_hook(rw);
    };
    run_rules(g, p.rules, opt);
    ++out.graphs;
  }
  return out;
}

}  // namespace semantic
