// Probe rules: Op("P_<name>", "x") becomes Op("Yes", "x") when the constraint under test holds.
#pragma once
#include <optgrammar/runtime.hpp>

#include <string>

namespace probe {
using namespace optgrammar;

/// Runs the rules of `file` on Input → <op>(input, extra consts...) → Output; true when the probe
/// op was rewritten to "Yes".
inline bool fires(const std::string& op, const Graph& proto, OpRef probe_input, const std::string& file) {
  Graph g = proto;
  OpRef p = g.add_op(op, {probe_input}, g.output(probe_input));
  g.add_output(p);
  RuleSet set = RuleSet::global().select([&](const RuleInfo& r) { return r.file.find(file) != std::string::npos; });
  run_rules(g, set);
  for (auto r : g.live_ops())
    if (g.name(r) == "Yes") return true;
  return false;
}
}  // namespace probe
