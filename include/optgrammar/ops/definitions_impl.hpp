// The one definition of ops::definitions() for a program built with
// OPTGRAMMAR_SEPARATE_OP_DEFINITIONS (docs/embedding.md, "Compile the kernels once"). Include it
// in exactly one file of that program; every other file then leaves the folding kernels to it.
#pragma once

#ifndef OPTGRAMMAR_SEPARATE_OP_DEFINITIONS
#error \
    "optgrammar/ops/definitions_impl.hpp is for programs built with OPTGRAMMAR_SEPARATE_OP_DEFINITIONS defined in every file; without it, ops::definitions() is already inline in every file"
#endif

#include "optgrammar/ops/all_definitions.hpp"

namespace optgrammar::ops {

Definitions& definitions() { return detail::make_definitions(); }

}  // namespace optgrammar::ops
