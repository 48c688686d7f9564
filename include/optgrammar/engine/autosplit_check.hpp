// The check of a finished AUTOSPLIT with indexing maps (index/): the parts cover the output
// exactly once, each part has the shape of its tile, every slice a part takes lies inside its
// input, and for inputs of the output's shape (elementwise reads) every slice holds what the
// part's tile reads. Included through <optgrammar/autosplit.hpp> by translation units whose rules
// split.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/autosplit.hpp"
#include "optgrammar/index/op_maps.hpp"
#include "optgrammar/index/tiling.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace optgrammar {

namespace engine {

/// What one AUTOSPLIT made, as the check needs it.
struct AutosplitRecord {
  struct Slice {
    OpRef input;
    index::Box box;
  };
  struct Part {
    std::size_t start = 0, size = 0;
    OpRef result;
    std::vector<Slice> slices;
  };
  std::vector<Part> parts;

  /// Records part [start, start+size) built as `result`, with the Slice_shape ops made since op
  /// index `first` (their start and size shapes give the slice).
  [[gnu::noinline]] void add_part(const Graph& g, std::size_t start, std::size_t size, OpRef result, std::size_t first) {
    static const OpNameId slice_id = intern_op_name("Slice_shape");
    Part p{start, size, result, {}};
    for (std::size_t i = first; i < g.size(); ++i) {
      OpRef r{static_cast<std::uint32_t>(i)};
      if (!g.alive(r) || g.name_id(r) != slice_id || g.n_inputs(r) != 3) continue;
      const OutputDef& st = g.output(g.input(r, 1));
      const OutputDef& sz = g.output(g.input(r, 2));
      index::Box box;
      for (std::uint32_t d = 0; d < sz.rank; ++d) {
        auto lo = static_cast<std::int64_t>(st.dim(d));
        box.push_back({lo, lo + static_cast<std::int64_t>(sz.dims[d]) - 1});
      }
      p.slices.push_back({g.input(r, 0), std::move(box)});
    }
    parts.push_back(std::move(p));
  }

  /// An empty string when the split is right, else what is wrong (one line per problem).
  [[gnu::noinline]] std::string check(const Graph& g, const OutputDef& out, int dim) const {
    std::string problems;
    auto problem = [&](const std::string& s) { problems += (problems.empty() ? "" : "\n") + s; };
    index::Shape shape(out.dims.begin(), out.dims.begin() + out.rank);
    // Each part has its tile's shape.
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const OutputDef& d = g.output(parts[k].result);
      OutputDef want = out;
      want.dims[static_cast<std::size_t>(dim)] = parts[k].size;
      if (!d.same_shape(want))
        problem("part " + std::to_string(k) + " [" + std::to_string(parts[k].start) + ", " +
                std::to_string(parts[k].start + parts[k].size - 1) + "] does not have its tile's shape");
    }
    // Every slice inside its input.
    for (std::size_t k = 0; k < parts.size(); ++k)
      for (const auto& sl : parts[k].slices) {
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
    for (const auto& p : parts)
      for (const auto& sl : p.slices) {
        const OutputDef& in = g.output(sl.input);
        bool same = in.rank == out.rank && std::equal(in.dims.begin(), in.dims.begin() + in.rank, out.dims.begin());
        if (same && std::find(elementwise.begin(), elementwise.end(), sl.input) == elementwise.end())
          elementwise.push_back(sl.input);
      }
    for (std::size_t e = 0; e < elementwise.size(); ++e) spec.inputs.push_back({shape, index::elementwise_map(shape)});
    for (const auto& p : parts) {
      index::TilePart t;
      t.start = static_cast<std::int64_t>(p.start);
      t.size = static_cast<std::int64_t>(p.size);
      for (OpRef x : elementwise) {
        index::Box box = index::full_box(shape);  // an unsliced input is read whole
        for (const auto& sl : p.slices)
          if (sl.input == x) box = sl.box;
        t.input_slices.push_back(box);
      }
      spec.parts.push_back(std::move(t));
    }
    index::TilingResult res = index::check_tiling(spec);
    if (!res.ok()) problem(res.message());
    return problems;
  }
};

template <class Rule>
struct autosplit_record {
  using type = AutosplitRecord;
};

}  // namespace engine
}  // namespace optgrammar
