// AUTOSPLIT's run-time pieces that every rule translation unit sees: the op that joins the parts,
// the verify mode, and what a split records for its check. The check itself, with the indexing
// maps it needs (index/), is engine/autosplit_check.hpp: the driver includes it, so a program
// compiles it once, in the file that runs rules, and a rule file that splits pays for none of it.
#pragma once

#include "optgrammar/core/graph.hpp"

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

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

/// What one AUTOSPLIT made, as its check needs it: each part's range along the split dimension,
/// the op that computes it, and the ops made while it was built (the check reads the slices among
/// them).
struct SplitRecord {
  struct Part {
    std::size_t start = 0, size = 0;
    OpRef result;
    std::size_t first_op = 0, end_op = 0;  ///< ops [first_op, end_op) were made for this part
  };
  std::vector<Part> parts;
};

/// The check of a finished split: an empty string when the split is right, else what is wrong,
/// one line per problem (engine/autosplit_check.hpp defines it).
using SplitCheck = std::string (*)(const Graph& g, const SplitRecord& rec, const OutputDef& out, int dim);

/// Where the check is found at run time. The driver's header installs it (engine/autosplit_check.hpp),
/// so rule files, a package's plugin among them, call it through this pointer instead of compiling it.
inline std::atomic<SplitCheck>& split_check_hook() {
  static std::atomic<SplitCheck> hook{nullptr};
  return hook;
}

}  // namespace optgrammar::engine

// The names programs use, from the engine's namespace.
namespace optgrammar {
using engine::autosplit_concat_op;
using engine::autosplit_verify_enabled;
using engine::set_autosplit_verify;
}  // namespace optgrammar
