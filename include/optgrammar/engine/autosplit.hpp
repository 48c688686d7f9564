// AUTOSPLIT's light run-time pieces, which every rule translation unit sees: the op that joins the
// parts and the verify mode.
#pragma once

#include "optgrammar/core/graph.hpp"

#include <atomic>
#include <cstddef>

namespace optgrammar::engine {

/// The op AUTOSPLIT joins its parts with: Concat(axis, part0, part1, ...), `axis` an Int32 scalar
/// constant holding the split dimension.
[[gnu::noinline]] inline OpNameId autosplit_concat_op() {
  static const OpNameId id = intern_op_name("Concat");
  return id;
}

namespace detail {
inline std::atomic<bool>& autosplit_verify_flag() {
#if defined(OPTGRAMMAR_VERIFY_AUTOSPLIT) || !defined(NDEBUG)
  static std::atomic<bool> on{true};
#else
  static std::atomic<bool> on{false};
#endif
  return on;
}
}  // namespace detail

/// Verify mode: every AUTOSPLIT is checked when it is built, and a split that fails the check is
/// not applied (the rule fails and the graph is rolled back). On by default in builds without
/// NDEBUG or with OPTGRAMMAR_VERIFY_AUTOSPLIT defined.
inline bool autosplit_verify_enabled() { return detail::autosplit_verify_flag().load(std::memory_order_relaxed); }
inline void set_autosplit_verify(bool on) { detail::autosplit_verify_flag().store(on, std::memory_order_relaxed); }

/// The check of a finished split (AutosplitRecord, engine/autosplit_check.hpp) is a class of its
/// own header, which brings the indexing maps (index/): only translation units with a rule that
/// splits include it (through <optgrammar/autosplit.hpp>). The matcher names it through this
/// template, so that nothing of it is needed where no rule splits.
template <class Rule>
struct autosplit_record;

}  // namespace optgrammar::engine

// The names programs use, from the engine's namespace.
namespace optgrammar {
using engine::autosplit_concat_op;
using engine::autosplit_verify_enabled;
using engine::set_autosplit_verify;
}  // namespace optgrammar
