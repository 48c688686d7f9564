// Output→input indexing maps of the builtin ops.
//
// Each function returns the map from the op's output index (d_i, bounded by the output shape)
// to the index of one operand; range variables s_j stand for the several operand elements an
// output element reads (reduce, dot). Arguments are validated; a bad one throws
// std::invalid_argument naming the op and the argument.
//
//   transpose_map({3, 12288, 6, 128}, {0, 2, 3, 1})
//     == (d0, d1, d2, d3) -> (d0, d3, d1, d2), d0 in [0, 2], d1 in [0, 5], d2 in [0, 127], d3 in [0, 12287]
#pragma once

#include "optgrammar/index/simplify.hpp"

#include <stdexcept>
#include <string>

namespace optgrammar::index {

namespace detail {
[[noreturn]] inline void bad_op(std::string const& op, std::string const& what) {
  throw std::invalid_argument(op + ": " + what);
}
inline void check_shape(std::string const& op, Shape const& s, char const* which) {
  for (auto n : s)
    if (n < 0) bad_op(op, std::string(which) + " has a negative extent");
}
inline std::vector<Interval> bounds_of(Shape const& s) { return full_box(s); }
}  // namespace detail

/// Elementwise ops (add, mul, exp, ...): the identity on `shape`. `(d0, d1) -> (d0, d1)`.
inline IndexingMap elementwise_map(Shape const& shape) {
  detail::check_shape("elementwise", shape, "shape");
  return IndexingMap::identity(shape);
}

/// Broadcast of `operand` into `output`: operand dimension i becomes output dimension dims[i]
/// (XLA's `dimensions=`). An operand dimension of extent 1 under a larger output dimension is
/// read at index 0 (numpy-style stretching). `broadcast_map({20}, {10, 20, 30}, {1})` is
/// `(d0, d1, d2) -> (d1)`.
inline IndexingMap broadcast_map(Shape const& operand, Shape const& output, std::vector<int> const& dims) {
  detail::check_shape("broadcast", operand, "operand");
  detail::check_shape("broadcast", output, "output");
  if (dims.size() != operand.size()) detail::bad_op("broadcast", "needs one output dimension per operand dimension");
  IndexingMap m;
  m.dims = detail::bounds_of(output);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    int o = dims[i];
    if (o < 0 || static_cast<std::size_t>(o) >= output.size())
      detail::bad_op("broadcast", "dimension " + std::to_string(o) + " is not an output dimension");
    if (i > 0 && dims[i - 1] >= o) detail::bad_op("broadcast", "dimensions must be strictly increasing");
    if (operand[i] == output[static_cast<std::size_t>(o)])
      m.results.push_back(dim(o));
    else if (operand[i] == 1)
      m.results.push_back(constant(0));
    else
      detail::bad_op("broadcast", "operand dimension " + std::to_string(i) + " (extent " + std::to_string(operand[i]) +
                                      ") does not match output dimension " + std::to_string(o));
  }
  return m;
}

/// Numpy-style broadcast: the operand's dimensions align with the output's last ones.
inline IndexingMap numpy_broadcast_map(Shape const& operand, Shape const& output) {
  if (operand.size() > output.size()) detail::bad_op("broadcast", "operand has a higher rank than the output");
  std::vector<int> dims;
  for (std::size_t i = 0; i < operand.size(); ++i) dims.push_back(static_cast<int>(output.size() - operand.size() + i));
  return broadcast_map(operand, output, dims);
}

/// Transpose: output dimension i is operand dimension perm[i] (XLA's `dimensions=`).
inline IndexingMap transpose_map(Shape const& operand, std::vector<int> const& perm) {
  detail::check_shape("transpose", operand, "operand");
  if (perm.size() != operand.size()) detail::bad_op("transpose", "permutation length differs from the rank");
  std::vector<bool> seen(perm.size(), false);
  IndexingMap m;
  m.results.assign(perm.size(), constant(0));
  for (std::size_t i = 0; i < perm.size(); ++i) {
    auto p = static_cast<std::size_t>(perm[i]);
    if (perm[i] < 0 || p >= perm.size() || seen[p]) detail::bad_op("transpose", "not a permutation");
    seen[p] = true;
    m.dims.push_back({0, operand[p] - 1});
    m.results[p] = dim(static_cast<int>(i));
  }
  return m;
}

/// Reverse along `dims`: d_i -> extent-1 - d_i there. `(d0, d1) -> (d0, -d1 + 16)`.
inline IndexingMap reverse_map(Shape const& shape, std::vector<int> const& dims) {
  IndexingMap m = IndexingMap::identity(shape);
  for (int d : dims) {
    if (d < 0 || static_cast<std::size_t>(d) >= shape.size()) detail::bad_op("reverse", "dimension out of range");
    m.results[static_cast<std::size_t>(d)] = -dim(d) + (shape[static_cast<std::size_t>(d)] - 1);
  }
  return m;
}

/// Strided slice [start, limit) step stride per dimension (XLA's `slice={[5:10:1], ...}`).
/// The output extent is ceil((limit - start) / stride); the map is d_i * stride + start.
inline IndexingMap slice_map(Shape const& operand, std::vector<std::int64_t> const& starts,
                             std::vector<std::int64_t> const& limits, std::vector<std::int64_t> const& strides) {
  detail::check_shape("slice", operand, "operand");
  std::size_t r = operand.size();
  if (starts.size() != r || limits.size() != r || strides.size() != r)
    detail::bad_op("slice", "needs starts, limits and strides for every dimension");
  IndexingMap m;
  for (std::size_t i = 0; i < r; ++i) {
    if (strides[i] <= 0) detail::bad_op("slice", "stride of dimension " + std::to_string(i) + " must be positive");
    if (starts[i] < 0 || limits[i] > operand[i] || starts[i] > limits[i])
      detail::bad_op("slice", "[" + std::to_string(starts[i]) + ":" + std::to_string(limits[i]) +
                                  "] is outside dimension " + std::to_string(i) + " of extent " +
                                  std::to_string(operand[i]));
    std::int64_t n = ceil_div(limits[i] - starts[i], strides[i]);
    m.dims.push_back({0, n - 1});
    m.results.push_back(dim(static_cast<int>(i)) * strides[i] + starts[i]);
  }
  return m;
}

/// Slice given by offsets and output sizes (and optional strides, default 1), the way AUTOSPLIT
/// cuts its parts: `slice_map_sizes({64, 32}, {16, 0}, {16, 32})` reads rows 16..31.
inline IndexingMap slice_map_sizes(Shape const& operand, std::vector<std::int64_t> const& offsets, Shape const& sizes,
                                   std::vector<std::int64_t> strides = {}) {
  if (strides.empty()) strides.assign(operand.size(), 1);
  if (offsets.size() != operand.size() || sizes.size() != operand.size() || strides.size() != operand.size())
    detail::bad_op("slice", "needs offsets, sizes and strides for every dimension");
  std::vector<std::int64_t> limits;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    if (sizes[i] < 0 || strides[i] <= 0)
      detail::bad_op("slice", "negative size or non-positive stride in dimension " + std::to_string(i));
    limits.push_back(sizes[i] == 0 ? offsets[i] : offsets[i] + (sizes[i] - 1) * strides[i] + 1);
  }
  return slice_map(operand, offsets, limits, strides);
}

/// Concatenation along `dim`: one map per operand, each defined on the part of the output that
/// operand fills (d_dim in [offset, offset + extent - 1]) and shifting d_dim by the offset.
inline std::vector<IndexingMap> concat_maps(std::vector<Shape> const& operands, int dim_) {
  if (operands.empty()) detail::bad_op("concat", "needs at least one operand");
  auto d = static_cast<std::size_t>(dim_);
  if (dim_ < 0 || d >= operands[0].size()) detail::bad_op("concat", "dimension out of range");
  Shape out = operands[0];
  out[d] = 0;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    detail::check_shape("concat", operands[k], "operand");
    if (operands[k].size() != out.size())
      detail::bad_op("concat", "operand " + std::to_string(k) + " has a different rank");
    for (std::size_t i = 0; i < out.size(); ++i)
      if (i != d && operands[k][i] != operands[0][i])
        detail::bad_op("concat", "operand " + std::to_string(k) + " differs in dimension " + std::to_string(i));
    out[d] += operands[k][d];
  }
  std::vector<IndexingMap> maps;
  std::int64_t off = 0;
  for (auto const& s : operands) {
    IndexingMap m = IndexingMap::identity(out);
    m.dims[d] = {off, off + s[d] - 1};
    m.results[d] = dim(dim_) - off;
    maps.push_back(std::move(m));
    off += s[d];
  }
  return maps;
}

/// Shape of a concatenation (the sum of the operands' extents along `dim`).
inline Shape concat_shape(std::vector<Shape> const& operands, int dim_) {
  Shape out = operands.at(0);
  out.at(static_cast<std::size_t>(dim_)) = 0;
  for (auto const& s : operands) out[static_cast<std::size_t>(dim_)] += s.at(static_cast<std::size_t>(dim_));
  return out;
}

/// Row-major linear index of `idx` in `shape`: d0*stride0 + d1*stride1 + ...
inline AffineExpr linearize(std::vector<AffineExpr> const& idx, Shape const& shape) {
  AffineExpr e = constant(0);
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    e = idx[i] * stride + e;
    stride *= shape[i];
  }
  return e;
}

/// The multi-index in `shape` of row-major linear index `l`: (l floordiv s0, (l floordiv s1) mod n1, ...).
inline std::vector<AffineExpr> delinearize(AffineExpr const& l, Shape const& shape) {
  std::vector<AffineExpr> r(shape.size());
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    AffineExpr q = floordiv(l, stride);
    r[i] = i == 0 ? q : mod(q, shape[i]);
    stride *= shape[i];
  }
  return r;
}

/// Any reshape (same element count, row-major): the output index is linearized in the output
/// shape and delinearized in the operand shape, then simplified against the output's bounds, so
/// that collapse, expand and their mixtures come out in the seed's short forms, e.g.
/// `reshape_map({4, 8}, {32})` is `(d0) -> (d0 floordiv 8, d0 mod 8)`.
inline IndexingMap reshape_map(Shape const& operand, Shape const& output) {
  detail::check_shape("reshape", operand, "operand");
  detail::check_shape("reshape", output, "output");
  std::int64_t a = 1, b = 1;
  for (auto n : operand) a *= n;
  for (auto n : output) b *= n;
  if (a != b)
    detail::bad_op("reshape", "operand has " + std::to_string(a) + " elements but the output has " + std::to_string(b));
  IndexingMap m;
  m.dims = detail::bounds_of(output);
  std::vector<AffineExpr> idx;
  for (std::size_t i = 0; i < output.size(); ++i) idx.push_back(dim(static_cast<int>(i)));
  m.results = delinearize(linearize(idx, output), operand);
  return simplify(std::move(m));
}

/// Reduce over `dims` of `operand`: the output keeps the other dimensions in order (or all of
/// them with extent 1 at the reduced ones when keep_dims); the reduced ones become range
/// variables s0, s1, ... in increasing dimension order. `reduce_map({256, 10}, {0})` is
/// `(d0)[s0] -> (s0, d0)`, s0 in [0, 255].
inline IndexingMap reduce_map(Shape const& operand, std::vector<int> const& dims, bool keep_dims = false) {
  detail::check_shape("reduce", operand, "operand");
  std::vector<bool> reduced(operand.size(), false);
  for (int d : dims) {
    if (d < 0 || static_cast<std::size_t>(d) >= operand.size() || reduced[static_cast<std::size_t>(d)])
      detail::bad_op("reduce", "bad or repeated dimension " + std::to_string(d));
    reduced[static_cast<std::size_t>(d)] = true;
  }
  IndexingMap m;
  int nd = 0, ns = 0;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    if (reduced[i]) {
      m.ranges.push_back({0, operand[i] - 1});
      m.results.push_back(sym(ns++));
      if (keep_dims) {
        m.dims.push_back({0, 0});
        ++nd;
      }
    } else {
      m.dims.push_back({0, operand[i] - 1});
      m.results.push_back(dim(keep_dims ? static_cast<int>(i) : nd));
      ++nd;
    }
  }
  return m;
}

/// Map from an output of rank `output.size()` to a scalar (reduce's init value, pad's padding
/// value): `(d0, d1) -> ()`.
inline IndexingMap scalar_operand_map(Shape const& output) {
  IndexingMap m = IndexingMap::identity(output);
  m.results.clear();
  return m;
}

/// One dimension of a pad: `low` elements before, `high` after, `interior` between neighbours
/// (XLA's `low_high_interior`). Negative low/high crop.
struct PadDim {
  std::int64_t low = 0;
  std::int64_t high = 0;
  std::int64_t interior = 0;
};

/// Output extent of a padded dimension of extent n.
constexpr std::int64_t padded_extent(std::int64_t n, PadDim p) {
  return p.low + p.high + n + (n > 0 ? (n - 1) * p.interior : 0);
}

/// Pad: the output element d reads operand element (d - low) floordiv (interior + 1), where that
/// lands on an operand element: d in [low, low + (n-1)*(interior+1)] (cut to the output) and,
/// with interior padding, (d - low) mod (interior + 1) in [0, 0]. Elsewhere the output is the
/// padding value (scalar_operand_map).
inline IndexingMap pad_map(Shape const& operand, std::vector<PadDim> const& config) {
  detail::check_shape("pad", operand, "operand");
  if (config.size() != operand.size()) detail::bad_op("pad", "needs one padding config per dimension");
  IndexingMap m;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    PadDim p = config[i];
    if (p.interior < 0) detail::bad_op("pad", "negative interior padding in dimension " + std::to_string(i));
    std::int64_t out = padded_extent(operand[i], p);
    if (out < 0) detail::bad_op("pad", "dimension " + std::to_string(i) + " is cropped below zero");
    std::int64_t step = p.interior + 1;
    Interval hit{p.low, p.low + (operand[i] - 1) * step};
    m.dims.push_back(hit.intersect({0, out - 1}));
    AffineExpr d = dim(static_cast<int>(i)) - p.low;
    m.results.push_back(step == 1 ? d : floordiv(d, step));
    if (step > 1) m.constraints.push_back({mod(d, step), {0, 0}});
  }
  return m;
}

/// Output shape of a pad.
inline Shape pad_shape(Shape const& operand, std::vector<PadDim> const& config) {
  Shape s;
  for (std::size_t i = 0; i < operand.size(); ++i) s.push_back(padded_extent(operand[i], config.at(i)));
  return s;
}

/// Dot with batch and contracting dimensions. The output is batch dims, then lhs free dims, then
/// rhs free dims; the contracting dimensions are range variables shared by both operands.
/// `lhs` chooses the operand whose map is returned.
inline IndexingMap dot_map(Shape const& lhs_shape, Shape const& rhs_shape, std::vector<int> const& lhs_batch,
                           std::vector<int> const& rhs_batch, std::vector<int> const& lhs_contract,
                           std::vector<int> const& rhs_contract, bool lhs) {
  if (lhs_batch.size() != rhs_batch.size() || lhs_contract.size() != rhs_contract.size())
    detail::bad_op("dot", "batch and contracting dimension lists must pair up");
  auto role = [](Shape const& s, std::vector<int> const& batch, std::vector<int> const& contract) {
    std::vector<int> r(s.size(), -1);  // -1 free, 0 batch, 1 contracting
    for (int b : batch) r.at(static_cast<std::size_t>(b)) = 0;
    for (int c : contract) r.at(static_cast<std::size_t>(c)) = 1;
    return r;
  };
  auto lr = role(lhs_shape, lhs_batch, lhs_contract);
  auto rr = role(rhs_shape, rhs_batch, rhs_contract);
  IndexingMap m;
  int nd = 0;
  std::vector<AffineExpr> lres(lhs_shape.size()), rres(rhs_shape.size());
  for (std::size_t k = 0; k < lhs_batch.size(); ++k) {
    auto lb = static_cast<std::size_t>(lhs_batch[k]), rb = static_cast<std::size_t>(rhs_batch[k]);
    if (lhs_shape[lb] != rhs_shape[rb]) detail::bad_op("dot", "batch dimensions differ in extent");
    m.dims.push_back({0, lhs_shape[lb] - 1});
    lres[lb] = rres[rb] = dim(nd++);
  }
  for (std::size_t i = 0; i < lhs_shape.size(); ++i)
    if (lr[i] == -1) {
      m.dims.push_back({0, lhs_shape[i] - 1});
      lres[i] = dim(nd++);
    }
  for (std::size_t i = 0; i < rhs_shape.size(); ++i)
    if (rr[i] == -1) {
      m.dims.push_back({0, rhs_shape[i] - 1});
      rres[i] = dim(nd++);
    }
  for (std::size_t k = 0; k < lhs_contract.size(); ++k) {
    auto lc = static_cast<std::size_t>(lhs_contract[k]), rc = static_cast<std::size_t>(rhs_contract[k]);
    if (lhs_shape[lc] != rhs_shape[rc]) detail::bad_op("dot", "contracting dimensions differ in extent");
    m.ranges.push_back({0, lhs_shape[lc] - 1});
    lres[lc] = rres[rc] = sym(static_cast<int>(k));
  }
  m.results = lhs ? lres : rres;
  return m;
}

}  // namespace optgrammar::index
