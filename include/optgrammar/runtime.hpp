// What a program that runs rules includes: the rule language (rules.hpp), the driver that applies
// a rule set to a graph (engine/driver.hpp: run_rules, DriverOptions, the reports) and the graph
// verifier. A translation unit that only defines rules needs rules.hpp alone.
//
//   #include <optgrammar/runtime.hpp>
//   optgrammar::RunReport r = optgrammar::run_rules(graph, optgrammar::RuleSet::global());
#pragma once

#include "optgrammar/core/graph_verify.hpp"
#include "optgrammar/engine/driver.hpp"
#include "optgrammar/rules.hpp"
