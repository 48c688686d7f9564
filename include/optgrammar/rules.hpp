// What an op-package author includes: the whole rule language (AUTOSPLIT and OP_ITER included),
// the op registry and DEF_TENSOR_PROPERTIES: everything a translation unit that defines rules
// needs. A program that runs rules includes <optgrammar/runtime.hpp>.
//
//   #include <optgrammar/rules.hpp>
//   DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
#pragma once

#include "optgrammar/core/context.hpp"
#include "optgrammar/core/graph.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/package/define.hpp"
#include "optgrammar/package/tensor_properties.hpp"
