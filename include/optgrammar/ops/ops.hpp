// Op definitions: records, builtin ops, verification against them, the Markdown reference.
#pragma once

#include "optgrammar/ops/builtin.hpp"
#include "optgrammar/ops/builtin_eval.hpp"
#include "optgrammar/ops/definition.hpp"
#include "optgrammar/ops/definition_verify.hpp"
#include "optgrammar/ops/doc.hpp"
