// Constant folding in the rewrite loop: an op whose inputs are all constants (`$Const`, or
// `$Shape` parameters) becomes a `$Const` computed through its op definition's eval (fold/
// kernels: HVX on Hexagon, portable elsewhere).
//
//   engine::ConstantFolder folder;            // max 1 << 22 elements per fold by default
//   DriverOptions opt;
//   opt.visit = folder.visitor();             // or [&](Rewriter& rw, OpRef r) { return folder.visit(rw, r); }
//   run_rules(g, rules, opt);
//   folder.stats().folded;
//
// What folds: a live op with a definition that has eval and `folds`, is neither side-effecting
// nor constant-like, has at least one input and only constant inputs, and whose registry flags
// (OpRegistry::flags, default IS_CONST) have IS_CONST without INHIBIT_CONST_PROP. A fold larger
// than max_elements output elements is skipped and counted (never attempted, so never a stall).
// The new constant has the op's declared output definition and inherits its op id. With
// DriverOptions::rewrite_in_place it takes the folded op's slot (Rewriter::fold_in_place) where
// the graph allows it; otherwise it is appended and replaces the op.
#pragma once

#include "optgrammar/engine/driver.hpp"
#include "optgrammar/ops/definition_verify.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace optgrammar::engine {

struct FoldOptions {
  /// Largest output (in elements) folded; larger folds are skipped and counted.
  std::size_t max_elements = std::size_t{1} << 22;
  /// Kernels to run (the interpreter uses reference; the folder the fast backend by default).
  ops::Backend backend = ops::Backend::fast;
};

struct FoldStats {
  std::uint64_t folded = 0;             ///< ops replaced by a constant
  std::uint64_t skipped_too_large = 0;  ///< foldable, but over max_elements (per visit)
  std::uint64_t no_kernel = 0;          ///< constant inputs, but no eval or eval refused the types (per visit)
  std::uint64_t inhibited = 0;          ///< constant inputs, but flags forbid it (per visit)
  std::uint64_t invalid = 0;            ///< constant inputs, but the op breaks its definition (per visit)
  std::uint64_t bytes_out = 0;          ///< bytes of constants produced
};

class ConstantFolder {
 public:
  explicit ConstantFolder(FoldOptions opt = {}) : opt_(opt) {}

  const FoldStats& stats() const noexcept { return stats_; }
  const FoldOptions& options() const noexcept { return opt_; }

  /// Whether every input of r is a constant and r could be folded by its kind (not by size).
  bool candidate(const Graph& g, OpRef r) const {
    const std::uint32_t n = g.n_inputs(r);
    if (n == 0) return false;
    for (std::uint32_t k = 0; k < n; ++k) {
      OpRef in = g.input(r, k);
      if (!g.is_const(in) && g.name_id(in) != op_names::shape) return false;
    }
    return true;
  }

  /// Folds r into a new constant (not yet wired in); an invalid ref when it does not fold.
  OpRef fold(Graph& g, OpRef r) {
    if (!compute(g, r)) return OpRef{};
    return add_folded(g, r);
  }

  /// The DriverOptions::visit hook: replaces r by its folded constant (in r's slot when the
  /// Rewriter may: Rewriter::can_fold_in_place). True when it did.
  bool visit(Rewriter& rw, OpRef r) {
    Graph& g = rw.graph();
    if (!compute(g, r)) return false;
    const bool here = rw.can_fold_in_place(r);
    // Provenance: the constant is the fold's, standing for what the folded op stood for.
    std::uint32_t origin = Origins::none;
    if (g.tracks_origins()) [[unlikely]] {
      std::vector<std::uint32_t> from;
      g.origins().sources_of(r.index, from);
      origin = g.origins().add(g.origins().name_id("fold"), std::move(from));
    }
    const OpRef c = here ? r : add_folded(g, r);
    if (rw.trace)
      rw.trace << (rw.pass_name ? *rw.pass_name : std::string("-")) << " fold %" << r.index << "(" << g.name(r)
               << ") -> %" << c.index << "($Const)\n";
    if (here)
      rw.fold_in_place(r, std::span<const std::byte>(buf_));
    else
      rw.replace(r, c);
    if (origin != Origins::none) g.origins().set(c.index, origin);
    return true;
  }
  std::function<bool(Rewriter&, OpRef)> visitor() {
    return [this](Rewriter& rw, OpRef r) { return visit(rw, r); };
  }

  /// Folds the whole graph to a fixed point outside the driver; returns how many ops folded.
  std::uint64_t run(Graph& g) {
    std::vector<RuleStats> none;
    Rewriter rw(g, none);
    rw.fill_queue(false);
    const std::uint64_t before = stats_.folded;
    for (OpRef r = rw.pop(); r.valid(); r = rw.pop()) visit(rw, r);
    return stats_.folded - before;
  }

 private:
  /// Computes r's value into buf_ and counts the fold; false (counting why, where it is one of
  /// FoldStats' reasons) when r does not fold.
  bool compute(Graph& g, OpRef r) {
    if (!candidate(g, r)) return false;
    const ops::OpDefinition* def = ops::find_definition(g.name_id(r));
    if (def && (def->has(ops::Trait::side_effecting) || def->has(ops::Trait::constant_like))) return false;
    const std::uint32_t flags = OpRegistry::instance().flags(g.name_id(r));
    if (!(flags & Flags::IS_CONST) || (flags & Flags::INHIBIT_CONST_PROP)) {
      ++stats_.inhibited;
      return false;
    }
    if (!def || !def->eval) {
      ++stats_.no_kernel;
      return false;
    }
    if (!def->folds) return false;  // its constant inputs are an encoding rules read (OpDefinition::folds)
    // A kernel trusts its operands to fit the definition (counts, shapes): an op that breaks it
    // (a graph loaded without verification) is left alone rather than read out of bounds.
    problems_.clear();
    ops::verify_op(g, r, *def, problems_, views_);
    if (!problems_.empty()) {
      ++stats_.invalid;
      return false;
    }
    const OutputDef out = g.output(r);
    if (out.element_count() > opt_.max_elements) {
      ++stats_.skipped_too_large;
      return false;
    }
    buf_.assign(out.byte_size(), std::byte{0});
    if (!def->eval(ops::op_view(g, r, views_), std::span<std::byte>(buf_), opt_.backend)) {
      ++stats_.no_kernel;
      return false;
    }
    ++stats_.folded;
    stats_.bytes_out += buf_.size();
    return true;
  }
  /// Appends the constant compute() left in buf_, with r's output definition and op id.
  OpRef add_folded(Graph& g, OpRef r) {
    const OpRef c = g.add_const(g.output_index(r), std::span<const std::byte>(buf_));
    g.set_op_id(c, g.op_id(r));
    return c;
  }

  FoldOptions opt_;
  FoldStats stats_;
  std::vector<std::byte> buf_;
  std::vector<ops::ValueView> views_;
  std::vector<std::string> problems_;
};

}  // namespace optgrammar::engine
