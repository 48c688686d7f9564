// The check of a finished AUTOSPLIT with indexing maps (index/). The driver (engine/driver.hpp)
// includes it and installs it where rules find it (split_check_hook, engine/autosplit.hpp): a
// program compiles it once, in the file that runs rules, not in each rule file.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/autosplit.hpp"
#include "optgrammar/index/op_maps.hpp"
#include "optgrammar/index/tiling.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace optgrammar {

namespace engine {

namespace detail {
/// A slice the split took: its input and the box of it, from a Slice_shape op's start and size shapes.
struct SplitSlice {
  OpRef input;
  index::Box box;
};

/// The slices among the ops made for one part.
inline std::vector<SplitSlice> part_slices(const Graph& g, const SplitRecord::Part& p) {
  static const OpNameId slice_id = intern_op_name("Slice_shape");
  std::vector<SplitSlice> v;
  for (std::size_t i = p.first_op; i < p.end_op && i < g.size(); ++i) {
    OpRef r{static_cast<std::uint32_t>(i)};
    if (!g.alive(r) || g.name_id(r) != slice_id || g.n_inputs(r) != 3) continue;
    const OutputDef& st = g.output(g.input(r, 1));
    const OutputDef& sz = g.output(g.input(r, 2));
    index::Box box;
    for (std::uint32_t d = 0; d < sz.rank; ++d) {
      auto lo = static_cast<std::int64_t>(st.dim(d));
      box.push_back({lo, lo + static_cast<std::int64_t>(sz.dims[d]) - 1});
    }
    v.push_back({g.input(r, 0), std::move(box)});
  }
  return v;
}
}  // namespace detail

/// The check of a finished split (SplitCheck): each part has the shape of its tile, every slice a
/// part takes lies inside its input, the parts cover the output exactly once, and for inputs of
/// the output's shape (elementwise reads) every slice holds what the part's tile reads.
[[gnu::noinline]] inline std::string check_split(const Graph& g, const SplitRecord& rec, const OutputDef& out,
                                                 int dim) {
  std::string problems;
  auto problem = [&](const std::string& s) { problems += (problems.empty() ? "" : "\n") + s; };
  index::Shape shape(out.dims.begin(), out.dims.begin() + out.rank);
  std::vector<std::vector<detail::SplitSlice>> slices;
  for (const auto& p : rec.parts) slices.push_back(detail::part_slices(g, p));
  // Each part has its tile's shape.
  for (std::size_t k = 0; k < rec.parts.size(); ++k) {
    const auto& p = rec.parts[k];
    const OutputDef& d = g.output(p.result);
    OutputDef want = out;
    want.dims[static_cast<std::size_t>(dim)] = p.size;
    if (!d.same_shape(want))
      problem("part " + std::to_string(k) + " [" + std::to_string(p.start) + ", " +
              std::to_string(p.start + p.size - 1) + "] does not have its tile's shape");
  }
  // Every slice inside its input.
  for (std::size_t k = 0; k < rec.parts.size(); ++k)
    for (const auto& sl : slices[k]) {
      const OutputDef& in = g.output(sl.input);
      bool inside = sl.box.size() == in.rank;
      for (std::size_t d = 0; inside && d < sl.box.size(); ++d)
        inside = sl.box[d].lo >= 0 && sl.box[d].hi < static_cast<std::int64_t>(in.dims[d]) && !sl.box[d].empty();
      if (!inside)
        problem("part " + std::to_string(k) + ": a slice of op %" + std::to_string(sl.input.index) +
                " reaches outside that input");
    }
  // Coverage, and slices of inputs read elementwise, with the indexing maps.
  index::TilingSpec spec;
  spec.output = shape;
  spec.dim = dim;
  std::vector<OpRef> elementwise;
  for (const auto& part : slices)
    for (const auto& sl : part) {
      const OutputDef& in = g.output(sl.input);
      bool same = in.rank == out.rank && std::equal(in.dims.begin(), in.dims.begin() + in.rank, out.dims.begin());
      if (same && std::find(elementwise.begin(), elementwise.end(), sl.input) == elementwise.end())
        elementwise.push_back(sl.input);
    }
  for (std::size_t e = 0; e < elementwise.size(); ++e) spec.inputs.push_back({shape, index::elementwise_map(shape)});
  for (std::size_t k = 0; k < rec.parts.size(); ++k) {
    index::TilePart t;
    t.start = static_cast<std::int64_t>(rec.parts[k].start);
    t.size = static_cast<std::int64_t>(rec.parts[k].size);
    for (OpRef x : elementwise) {
      index::Box box = index::full_box(shape);  // an unsliced input is read whole
      for (const auto& sl : slices[k])
        if (sl.input == x) box = sl.box;
      t.input_slices.push_back(box);
    }
    spec.parts.push_back(std::move(t));
  }
  index::TilingResult res = index::check_tiling(spec);
  if (!res.ok()) problem(res.message());
  return problems;
}

/// Makes check_split the one AUTOSPLIT calls (split_check_hook): done when a program starts, in
/// every program that includes this header, and again by run_rules.
inline bool install_split_check() noexcept {
  split_check_hook().store(&check_split, std::memory_order_relaxed);
  return true;
}
inline const bool split_check_installed = install_split_check();

}  // namespace engine
}  // namespace optgrammar
