// What a translation unit whose rules split with AUTOSPLIT includes besides rules.hpp: the check
// of a finished split (engine/autosplit_check.hpp) with its indexing maps (index/), which other
// rule translation units do not pay for. A rule with AUTOSPLIT written where this header is not
// included before it gets the compile error rule_error::autosplit_header on its own line.
//   #include <optgrammar/autosplit.hpp>
#pragma once

#include "optgrammar/engine/autosplit_check.hpp"
#include "optgrammar/rules.hpp"

#undef OPTGRAMMAR_SPLIT_CHECK_INCLUDED_
#define OPTGRAMMAR_SPLIT_CHECK_INCLUDED_ true
