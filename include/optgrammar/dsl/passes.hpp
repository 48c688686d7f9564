// Pass names of the rule language and their priorities.
//
// A pass spec in a rule is `NAME` or `NAME + N`; `NAME + N` is a pass of its own that runs after
// `NAME`. This table is plain data so that both the C++ front end and og-parse read the same one.
#pragma once

#include <array>
#include <string_view>

namespace optgrammar {

/// One named pass group: `EARLY` is {"EARLY", 3050}.
struct PassName {
  std::string_view name;
  int priority;
};

/// Every pass name a rule may use, in table order (current phases first, then the names op
/// packages use). Several names may share a priority (GRAPH_CLEANUP and PRE_OPTIMIZATION: 50).
inline constexpr std::array<PassName, 29> pass_names{{
    {"PRE_OPTIMIZATION", 50},
    {"CLEANUP_GRAPH", 100},
    {"PRE_TRANSLATE", 1000},
    {"TRANSLATE", 2000},
    {"ANALYSIS", 3000},
    {"QUANT_FIXES", 4000},
    {"PRE_RESHAPE_OP_SIMPLIFY", 5000},
    {"SPATIAL_RESHAPE", 6000},
    {"SPACE_DEPTH", 7000},
    {"POST_RESHAPE_OP_SIMPLIFY", 8000},
    {"PRE_TILING", 10000},
    {"TILING", 11000},
    {"CENTRAL_TILING", 11900},
    {"TILE_CLEANUP", 12000},
    {"POST_TILING", 13000},
    {"HARD_OPS", 20000},
    {"BEFORE_TCM_MIGRATION", 20800},
    {"TCM_MIGRATION", 21000},
    {"POST_TCM", 22000},
    {"FINAL_CLEANUP", 23000},
    {"AUX_CLEANUP", 25000},
    {"BEGIN", 0},
    {"GRAPH_CLEANUP", 50},
    {"PRE_QNN", 1050},
    {"QNN", 2050},
    {"EARLY", 3050},
    {"MIDDLE", 20050},
    {"LATE", 21050},
    {"LAYOUT_AND_PLACEMENT", 21100},
}};

/// The priority of a pass name, or -1 when the name is not a pass.
constexpr int pass_priority(std::string_view name) noexcept {
  for (const auto& p : pass_names)
    if (p.name == name) return p.priority;
  return -1;
}

}  // namespace optgrammar
