// Checking a tiling (AUTOSPLIT) with indexing maps.
//
// AUTOSPLIT(dim, "tag", chunk, e) computes an op's output in parts along `dim` (slices of
// `chunk`, the last one smaller) and concatenates them along `dim`. That is right when
//   1. the parts, in list order, cover [0, extent) of `dim` exactly once (no gap, no overlap,
//      nothing outside the output), and
//   2. every input slice a part reads lies inside its input and holds every element the part's
//      outputs need, which the op's output→input map tells: input_box(map, tile).
// check_tiling verifies both and reports each fault with the part, input and dimension at fault.
#pragma once

#include "optgrammar/index/simplify.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

namespace optgrammar::index {

/// Bounding box of the elements `out_to_in` reads for the output elements in `tile` (one interval
/// per output dimension): the map's domain is cut to the tile, simplified, and each result
/// evaluated over it. std::nullopt when the tile reads nothing through this map (e.g. a concat
/// operand outside the tile, or the padding-only part of a pad).
inline std::optional<Box> input_box(IndexingMap const& out_to_in, Box const& tile) {
  if (tile.size() != out_to_in.num_dims())
    throw std::invalid_argument("input_box: tile has " + std::to_string(tile.size()) + " dimensions, the map has " +
                                std::to_string(out_to_in.num_dims()));
  IndexingMap m = out_to_in;
  for (std::size_t i = 0; i < tile.size(); ++i) {
    m.dims[i] = m.dims[i].intersect(tile[i]);
    if (m.dims[i].empty()) return std::nullopt;
  }
  m = simplify(std::move(m));
  if (m.known_empty) return std::nullopt;
  for (auto const& b : m.dims)
    if (b.empty()) return std::nullopt;
  for (auto const& b : m.ranges)
    if (b.empty()) return std::nullopt;
  Box box = result_ranges(m);
  for (auto const& iv : box)
    if (iv.empty()) return std::nullopt;
  return box;
}

/// One part of a tiling: output elements [start, start + size) along the split dimension, and
/// per input the slice (in the input's own coordinates) the part is given. A slice that is
/// empty in some dimension (lo > hi) means the part reads nothing of that input.
struct TilePart {
  std::int64_t start = 0;
  std::int64_t size = 0;
  std::vector<Box> input_slices;
};

/// One input of the tiled op: its shape and the op's output→input map for it.
struct TiledInput {
  Shape shape;
  IndexingMap map;
};

/// What check_tiling needs: the op's output shape, the split dimension, the op's inputs, and
/// the parts in the order they are concatenated.
struct TilingSpec {
  Shape output;
  int dim = 0;
  std::vector<TiledInput> inputs;
  std::vector<TilePart> parts;
};

enum class TilingFault {
  bad_spec,             ///< dimension out of range, wrong number of slices, rank mismatch
  empty_part,           ///< a part of size <= 0
  out_of_bounds,        ///< a part reaches outside the output
  gap,                  ///< output elements no part computes
  overlap,              ///< output elements two parts compute
  out_of_order,         ///< parts not in increasing order (the concatenation would misplace them)
  slice_outside_input,  ///< a slice reaches outside its input
  slice_too_small,      ///< a slice misses elements the part needs (per the indexing map)
};

inline char const* to_string(TilingFault f) {
  switch (f) {
    case TilingFault::bad_spec: return "bad spec";
    case TilingFault::empty_part: return "empty part";
    case TilingFault::out_of_bounds: return "out of bounds";
    case TilingFault::gap: return "gap";
    case TilingFault::overlap: return "overlap";
    case TilingFault::out_of_order: return "out of order";
    case TilingFault::slice_outside_input: return "slice outside input";
    case TilingFault::slice_too_small: return "slice too small";
  }
  return "?";
}

struct TilingIssue {
  TilingFault fault;
  int part = -1;   ///< index in TilingSpec::parts, -1 when not about one part
  int input = -1;  ///< index in TilingSpec::inputs, -1 when not about an input
  int dim = -1;    ///< dimension (of the output, or of the input for slice faults)
  std::string message;
};

struct TilingResult {
  std::vector<TilingIssue> issues;
  bool ok() const { return issues.empty(); }
  explicit operator bool() const { return ok(); }
  bool has(TilingFault f) const {
    return std::any_of(issues.begin(), issues.end(), [f](TilingIssue const& i) { return i.fault == f; });
  }
  /// "tiling ok", or one line per issue.
  std::string message() const {
    if (issues.empty()) return "tiling ok";
    std::string s;
    for (auto const& i : issues) s += (s.empty() ? "" : "\n") + i.message;
    return s;
  }
};

/// The output tile of a part: the whole output except [start, start+size-1] along `dim`.
inline Box part_tile(Shape const& output, int dim, std::int64_t start, std::int64_t size) {
  Box t = full_box(output);
  t.at(static_cast<std::size_t>(dim)) = {start, start + size - 1};
  return t;
}

/// Checks a tiling; see the top of this header. All issues are reported, not just the first.
inline TilingResult check_tiling(TilingSpec const& spec) {
  TilingResult res;
  auto issue = [&](TilingFault f, int part, int input, int d, std::string msg) {
    res.issues.push_back({f, part, input, d, std::move(msg)});
  };
  auto d = static_cast<std::size_t>(spec.dim);
  if (spec.dim < 0 || d >= spec.output.size()) {
    issue(TilingFault::bad_spec, -1, -1, spec.dim,
          "split dimension " + std::to_string(spec.dim) + " is not a dimension of the rank-" +
              std::to_string(spec.output.size()) + " output");
    return res;
  }
  for (std::size_t k = 0; k < spec.inputs.size(); ++k)
    if (spec.inputs[k].map.num_dims() != spec.output.size() ||
        spec.inputs[k].map.num_results() != spec.inputs[k].shape.size())
      issue(TilingFault::bad_spec, -1, static_cast<int>(k), -1,
            "input " + std::to_string(k) + ": its indexing map does not go from the output's rank (" +
                std::to_string(spec.output.size()) + ") to the input's rank (" +
                std::to_string(spec.inputs[k].shape.size()) + ")");
  if (!res.ok()) return res;

  std::int64_t extent = spec.output[d];
  std::string dname = "dimension " + std::to_string(spec.dim);
  // (Appended, not `"[" + std::to_string(lo)`: g++-12 -O3 warns falsely (-Wrestrict) on that form here.)
  auto range_txt = [](std::int64_t lo, std::int64_t hi) {
    return std::string("[").append(std::to_string(lo)).append(", ").append(std::to_string(hi)).append("]");
  };
  auto pname = [&](std::size_t p) {
    auto const& t = spec.parts[p];
    return "part " + std::to_string(p) + " " + range_txt(t.start, t.start + t.size - 1);
  };

  // 1. coverage of the split dimension
  std::vector<std::size_t> live;
  for (std::size_t p = 0; p < spec.parts.size(); ++p) {
    auto const& t = spec.parts[p];
    int pi = static_cast<int>(p);
    if (t.size <= 0) {
      issue(TilingFault::empty_part, pi, -1, spec.dim,
            "part " + std::to_string(p) + " has size " + std::to_string(t.size));
      continue;
    }
    if (t.start < 0 || t.start + t.size > extent)
      issue(TilingFault::out_of_bounds, pi, -1, spec.dim,
            pname(p) + " reaches outside " + dname + " of the output, " + range_txt(0, extent - 1));
    live.push_back(p);
  }
  for (std::size_t i = 1; i < live.size(); ++i)
    if (spec.parts[live[i]].start < spec.parts[live[i - 1]].start)
      issue(TilingFault::out_of_order, static_cast<int>(live[i]), -1, spec.dim,
            pname(live[i]) + " comes after " + pname(live[i - 1]) + " but starts before it: the concatenation along " +
                dname + " would misplace it");
  std::vector<std::size_t> sorted = live;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](auto a, auto b) { return spec.parts[a].start < spec.parts[b].start; });
  std::int64_t next = 0;  // first element not yet covered
  std::optional<std::size_t> prev;
  for (std::size_t p : sorted) {
    auto const& t = spec.parts[p];
    std::int64_t lo = std::max<std::int64_t>(t.start, 0), hi = std::min(t.start + t.size, extent) - 1;
    if (lo > next)
      issue(TilingFault::gap, static_cast<int>(p), -1, spec.dim,
            "gap: no part computes " + range_txt(next, lo - 1) + " of " + dname + " (" +
                (prev ? "between " + pname(*prev) + " and " + pname(p) : "before " + pname(p)) + ")");
    else if (lo < next && prev)
      issue(TilingFault::overlap, static_cast<int>(p), -1, spec.dim,
            "overlap: " + pname(*prev) + " and " + pname(p) + " both compute " + range_txt(lo, std::min(next - 1, hi)) +
                " of " + dname);
    if (hi + 1 > next) {
      next = hi + 1;
      prev = p;
    }
  }
  if (next < extent)
    issue(TilingFault::gap, prev ? static_cast<int>(*prev) : -1, -1, spec.dim,
          "gap: no part computes " + range_txt(next, extent - 1) + " of " + dname +
              (prev ? " (after " + pname(*prev) + ")" : ""));

  // 2. the slices each part reads
  for (std::size_t p = 0; p < spec.parts.size(); ++p) {
    auto const& t = spec.parts[p];
    int pi = static_cast<int>(p);
    if (t.input_slices.size() != spec.inputs.size()) {
      issue(TilingFault::bad_spec, pi, -1, -1,
            pname(p) + " gives " + std::to_string(t.input_slices.size()) + " input slices for " +
                std::to_string(spec.inputs.size()) + " inputs");
      continue;
    }
    if (t.size <= 0) continue;
    Interval own = Interval{t.start, t.start + t.size - 1}.intersect({0, extent - 1});
    if (own.empty()) continue;
    Box tile = part_tile(spec.output, spec.dim, own.lo, own.size());
    for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
      auto const& in = spec.inputs[k];
      Box const& slice = t.input_slices[k];
      int ki = static_cast<int>(k);
      std::string where = pname(p) + ", input " + std::to_string(k);
      if (slice.size() != in.shape.size()) {
        issue(TilingFault::bad_spec, pi, ki, -1,
              where + ": slice has rank " + std::to_string(slice.size()) + ", the input has rank " +
                  std::to_string(in.shape.size()));
        continue;
      }
      bool slice_empty = std::any_of(slice.begin(), slice.end(), [](Interval iv) { return iv.empty(); });
      if (!slice_empty)
        for (std::size_t i = 0; i < slice.size(); ++i)
          if (!Interval{0, in.shape[i] - 1}.contains(slice[i]))
            issue(TilingFault::slice_outside_input, pi, ki, static_cast<int>(i),
                  where + ": slice " + slice[i].to_string() + " of dimension " + std::to_string(i) +
                      " is outside the input's " + range_txt(0, in.shape[i] - 1));
      std::optional<Box> need = input_box(in.map, tile);
      if (!need) continue;
      for (std::size_t i = 0; i < need->size(); ++i)
        if (slice_empty || !slice[i].contains((*need)[i]))
          issue(TilingFault::slice_too_small, pi, ki, static_cast<int>(i),
                where + ": needs " + (*need)[i].to_string() + " of dimension " + std::to_string(i) +
                    " but its slice holds " + (slice_empty ? std::string("nothing") : slice[i].to_string()));
    }
  }
  return res;
}

/// The parts AUTOSPLIT makes: slices of `chunk` along `dim` (the last one smaller), each given
/// the bounding box of what it reads of every input (input_box; an input it does not read gets
/// an empty box). `check_tiling` on the result is the self-check of the construction.
inline std::vector<TilePart> autosplit_parts(Shape const& output, int dim, std::int64_t chunk,
                                             std::vector<TiledInput> const& inputs) {
  if (chunk <= 0) throw std::invalid_argument("autosplit_parts: chunk must be positive");
  auto d = static_cast<std::size_t>(dim);
  if (dim < 0 || d >= output.size()) throw std::invalid_argument("autosplit_parts: split dimension out of range");
  std::vector<TilePart> parts;
  for (std::int64_t s = 0; s < output[d]; s += chunk) {
    TilePart t;
    t.start = s;
    t.size = std::min(chunk, output[d] - s);
    Box tile = part_tile(output, dim, t.start, t.size);
    for (auto const& in : inputs) {
      auto b = input_box(in.map, tile);
      t.input_slices.push_back(b ? *b : Box(in.shape.size(), Interval{0, -1}));
    }
    parts.push_back(std::move(t));
  }
  return parts;
}

}  // namespace optgrammar::index
