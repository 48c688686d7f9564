// What an op-package author includes: the rule language, the op registry, the runtime.
//
//   #include <optgrammar/rules.hpp>
//   DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/core/verify.hpp"
#include "optgrammar/dsl/define.hpp"
#include "optgrammar/engine/context.hpp"
#include "optgrammar/engine/driver.hpp"
