// Pass names of the rule language and their priorities.
//
// A pass spec in a rule is `NAME` or `NAME + N`; `NAME + N` is a pass of its own that runs after
// `NAME`. This table is plain data so that both the C++ front end and og-parse read the same one.
#pragma once

#include <string_view>

namespace optgrammar {

/// One named pass group: `EARLY` is {"EARLY", 3050}.
struct PassName {
  std::string_view name;
  int priority;
};

/// Every pass name a rule may use, in table order (current phases first, then the names op
/// packages use), as `X(NAME, priority)`. Several names may share a priority (GRAPH_CLEANUP and
/// PRE_OPTIMIZATION: 50). The C++ front end declares its pass words from this list.
#define OPTGRAMMAR_PASS_NAMES(X)    \
  X(PRE_OPTIMIZATION, 50)           \
  X(CLEANUP_GRAPH, 100)             \
  X(PRE_TRANSLATE, 1000)            \
  X(TRANSLATE, 2000)                \
  X(ANALYSIS, 3000)                 \
  X(QUANT_FIXES, 4000)              \
  X(PRE_RESHAPE_OP_SIMPLIFY, 5000)  \
  X(SPATIAL_RESHAPE, 6000)          \
  X(SPACE_DEPTH, 7000)              \
  X(POST_RESHAPE_OP_SIMPLIFY, 8000) \
  X(PRE_TILING, 10000)              \
  X(TILING, 11000)                  \
  X(CENTRAL_TILING, 11900)          \
  X(TILE_CLEANUP, 12000)            \
  X(POST_TILING, 13000)             \
  X(HARD_OPS, 20000)                \
  X(BEFORE_TCM_MIGRATION, 20800)    \
  X(TCM_MIGRATION, 21000)           \
  X(POST_TCM, 22000)                \
  X(FINAL_CLEANUP, 23000)           \
  X(AUX_CLEANUP, 25000)             \
  X(BEGIN, 0)                       \
  X(GRAPH_CLEANUP, 50)              \
  X(PRE_QNN, 1050)                  \
  X(QNN, 2050)                      \
  X(EARLY, 3050)                    \
  X(MIDDLE, 20050)                  \
  X(LATE, 21050)                    \
  X(LAYOUT_AND_PLACEMENT, 21100)

#define OPTGRAMMAR_PASS_NAME_ENTRY_(NAME, PRIORITY) PassName{#NAME, PRIORITY},
inline constexpr PassName pass_names[] = {OPTGRAMMAR_PASS_NAMES(OPTGRAMMAR_PASS_NAME_ENTRY_)};
#undef OPTGRAMMAR_PASS_NAME_ENTRY_

/// The priority of a pass name, or -1 when the name is not a pass.
constexpr int pass_priority(std::string_view name) noexcept {
  for (const auto& p : pass_names)
    if (p.name == name) return p.priority;
  return -1;
}

}  // namespace optgrammar
