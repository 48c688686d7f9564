// og-opt --why-not RULE [--at %N]: why a rule did not fire, in the rule's own words; and the report
// file's nearest misses of the rules that never fired. Both explain rules (RuleInfo::explain,
// engine/explain.hpp) on the graph as it stands when the rule's pass ends: the fixed point at which
// the rule had its last chance, before CSE runs between the passes.
#pragma once

#include "report.hpp"

#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/explain.hpp>
#include <optgrammar/engine/rule_set.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace og_opt {

/// The exit status of a --why-not RULE that names no rule, or more than one.
inline constexpr int why_not_rule_status = 2;

/// The rule `spec` names among `rules`: the one whose name is `spec`, else the only one whose
/// name or canonical text contains it. Otherwise nullptr, with the candidates in `candidates`
/// (none: unknown).
inline const optgrammar::RuleInfo* find_rule(const optgrammar::RuleSet& rules, std::string_view spec,
                                             std::vector<const optgrammar::RuleInfo*>& candidates) {
  candidates.clear();
  for (const optgrammar::RuleInfo* r : rules.rules())
    if (r->name == spec) return r;
  for (const optgrammar::RuleInfo* r : rules.rules())
    if (r->name.find(spec) != std::string::npos || r->canonical.find(spec) != std::string::npos)
      candidates.push_back(r);
  return candidates.size() == 1 ? candidates.front() : nullptr;
}

/// The part of the rule an explanation stops in.
inline std::string_view part_of(const optgrammar::Explanation& e) {
  using V = optgrammar::Explanation::Verdict;
  return e.verdict == V::match_failed ? "match" : e.verdict == V::constraint_false ? "constraint" : "replacement";
}

/// An explanation in lines: the verdict and the failing nodes in the rule's words, each with the
/// values its operands computed.
inline std::string explanation_text(const optgrammar::RuleInfo& r, const optgrammar::Graph& g, optgrammar::OpRef op,
                                    const optgrammar::Explanation& e) {
  using V = optgrammar::Explanation::Verdict;
  std::string out = fmt::format("%{} ({}): ", op.index, g.name(op));
  if (e.verdict == V::passes) return out + "match and constraint hold; " + e.rewrite + "\n";
  out += e.verdict == V::match_failed ? "the match fails" : "the constraint fails";
  for (std::size_t k = 0; k < e.findings.size(); ++k) {
    const optgrammar::engine::Finding& f = e.findings[k];
    out += fmt::format("{}at {}: {}\n", k == 0 ? " " : "  ", node_text(r, f.node), f.found);
    for (const auto& [node, value] : f.values) out += fmt::format("      {} = {}\n", node_text(r, node), value);
  }
  return out;
}

/// The pass (1 for the first) each rule of `rules` runs in, by RuleInfo::index: the set's own
/// grouping into passes (RuleSet::dispatch()).
inline std::vector<std::size_t> pass_numbers(const optgrammar::RuleSet& rules) {
  std::vector<std::size_t> pass(rules.rules().size());
  const auto& passes = rules.dispatch();
  for (std::size_t k = 0; k < passes.size(); ++k)
    for (const optgrammar::RuleInfo* r : passes[k].rules()) pass[r->index] = k + 1;
  return pass;
}

/// Explains rules at the end of their passes: `at_pass_end` is called by og-opt's run after each
/// pass (RunHooks).
class WhyNot {
 public:
  /// --why-not: the rule, and the op (--at %N) or none (every op named as the rule's root).
  WhyNot(const optgrammar::RuleSet& rules, const optgrammar::RuleInfo* rule, std::optional<std::uint32_t> at,
         bool misses)
      : rules_(rules), pass_(pass_numbers(rules)), rule_(rule), at_(at), misses_(misses) {}

  void at_pass_end(optgrammar::Rewriter& rw, std::size_t pass) {
    optgrammar::Graph& g = rw.graph();
    if (rule_ && pass_[rule_->index] == pass) explain_rule(g);
    if (!misses_) return;
    // the live ops by name, read once for all the pass's rules that never fired
    std::map<optgrammar::OpNameId, std::vector<optgrammar::OpRef>> by_name;
    for (const optgrammar::RuleInfo* r : rules_.rules())
      if (pass_[r->index] == pass && rw.stats(*r).fired == 0 && r->explain) by_name[r->root];
    if (by_name.empty()) return;
    for (optgrammar::OpRef o : g.live_ops())
      if (const auto it = by_name.find(g.name_id(o)); it != by_name.end()) it->second.push_back(o);
    for (const optgrammar::RuleInfo* r : rules_.rules())
      if (pass_[r->index] == pass && rw.stats(*r).fired == 0 && r->explain) nearest_misses(g, *r, by_name[r->root]);
  }

  /// What --why-not prints (empty when the rule's pass did not run).
  const std::string& text() const { return text_; }
  /// The report's table of the nearest misses (no rows: every rule fired, or none had a root).
  const ReportTable& misses() const { return table_; }

 private:
  void explain_rule(optgrammar::Graph& g) {
    const optgrammar::RuleInfo& r = *rule_;
    text_ = fmt::format(
        "why not {}: {}\ngraph: as it stands at the end of pass {} (the rule's pass, at its fixed "
        "point, before CSE)\n",
        r.name, r.canonical, r.pass_name);
    if (!r.explain) {
      text_ += "the rule is no DSL rule: it cannot be explained\n";
      return;
    }
    if ((r.flag_bits & optgrammar::engine::flags_switched_off(g)) != 0)
      text_ += fmt::format("the rule's flags ({}) switch it off in this graph: it was not tried\n", r.flags);
    std::vector<optgrammar::OpRef> ops;
    if (at_) {
      const optgrammar::OpRef o{*at_};
      if (*at_ >= g.size() || !g.alive(o)) {
        text_ += fmt::format("%{} is not in the graph at the end of the pass (an earlier rewrite removed it)\n", *at_);
        return;
      }
      ops.push_back(o);
    } else {
      for (optgrammar::OpRef o : g.live_ops())
        if (g.name_id(o) == r.root) ops.push_back(o);
      if (ops.empty()) {
        text_ += fmt::format("no op is named {} (the rule's root)\n", optgrammar::op_name_of(r.root));
        return;
      }
    }
    std::size_t n[3] = {};
    for (optgrammar::OpRef o : ops) {
      optgrammar::Explanation e;
      r.explain(r, g, o, e);
      ++n[static_cast<std::size_t>(e.verdict)];
      text_ += explanation_text(r, g, o, e);
    }
    text_ += fmt::format("{} op{}: the match fails on {}, the constraint on {}; both hold on {}\n", ops.size(),
                         ops.size() == 1 ? "" : "s", n[0], n[1], n[2]);
  }

  /// The rows of rule r in the report's table (`roots`: the ops named as its root): per failing node, how many ops
  /// failed there and one of them (with the first value the failing term read); the node furthest into the rule first.
  void nearest_misses(optgrammar::Graph& g, const optgrammar::RuleInfo& r,
                      const std::vector<optgrammar::OpRef>& roots) {
    constexpr std::size_t max_ops = 2000;  // ops explained per rule
    struct Group {
      std::size_t count = 0;
      std::string part, example;
    };
    std::map<std::tuple<int, std::uint32_t>, Group> groups;  // by (verdict, node), the furthest last
    std::size_t n = 0;
    for (optgrammar::OpRef o : roots) {
      if (++n > max_ops) break;
      optgrammar::Explanation e;
      r.explain(r, g, o, e);
      const std::uint32_t node = e.findings.empty() ? 0 : e.findings.front().node;
      Group& grp = groups[{static_cast<int>(e.verdict), node}];
      if (grp.count++ == 0) {
        grp.part = std::string(part_of(e));
        grp.example = fmt::format("%{}: {}", o.index, e.findings.empty() ? e.rewrite : e.findings.front().found);
        if (!e.findings.empty() && !e.findings.front().values.empty()) {
          const auto& [node, value] = e.findings.front().values.front();
          grp.example += fmt::format(" ({} = {})", node_text(r, node), value);
        }
      }
    }
    if (groups.empty()) return;
    if (table_.columns.empty()) {
      table_.heading = "Rules that never fired: their nearest misses (per rule, the part furthest into it first)";
      table_.columns = {"rule", "ops", "part", "e.g.", "fails at"};
      table_.code_column = 4;
    }
    for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
      const auto& [key, grp] = *it;
      const bool passes = std::get<0>(key) == static_cast<int>(optgrammar::Explanation::Verdict::passes);
      table_.rows.push_back({r.name, std::to_string(grp.count), grp.part, grp.example,
                             passes ? std::string("(the replacement)") : node_text(r, std::get<1>(key))});
    }
  }

  const optgrammar::RuleSet& rules_;
  std::vector<std::size_t> pass_;
  const optgrammar::RuleInfo* rule_;
  std::optional<std::uint32_t> at_;
  bool misses_;
  std::string text_;
  ReportTable table_;
};

}  // namespace og_opt
