// What an op-package author includes: the rule language, the op registry and DEF_TENSOR_PROPERTIES: everything a
// translation unit that defines rules needs (rules that split with AUTOSPLIT also include
// <optgrammar/autosplit.hpp>). A program that runs rules includes <optgrammar/runtime.hpp>.
//
//   #include <optgrammar/rules.hpp>
//   DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
#pragma once

#include "optgrammar/core/context.hpp"
#include "optgrammar/core/graph.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/package/define.hpp"
#include "optgrammar/package/properties.hpp"
