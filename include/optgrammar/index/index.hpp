// Indexing maps: everything of index/ in one include.
#pragma once

#include "optgrammar/index/affine_expr.hpp"
#include "optgrammar/index/compose.hpp"
#include "optgrammar/index/indexing_map.hpp"
#include "optgrammar/index/interval.hpp"
#include "optgrammar/index/op_maps.hpp"
#include "optgrammar/index/parser.hpp"
#include "optgrammar/index/simplify.hpp"
#include "optgrammar/index/tiling.hpp"
