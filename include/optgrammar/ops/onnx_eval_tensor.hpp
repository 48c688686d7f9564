// Reference evaluation of the imported ONNX ops that select, move, generate or sort elements
// (onnx.hpp's table): Where, the integer elementwise ops (Mod, BitShift), ConstantOfShape,
// Range, EyeLike, OneHot, Size, Trilu, CumSum, ArgMax/ArgMin, TopK, the Gather and Scatter
// families, Compress, NonZero, Unique, ReverseSequence, Pad, Split, DepthToSpace, SpaceToDepth,
// Upsample, MaxUnpool, Einsum and Det. Same conventions as onnx_eval.hpp: attributes first, then
// inputs; computed in double (integers exactly where the op is integral) and stored in the
// output's dtype; a kernel returns false when the operands do not fit what it computes.
#pragma once

#include "optgrammar/ops/onnx_eval.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace optgrammar::ops::onnx_eval {

// ---- helpers --------------------------------------------------------------------------------

/// Rows of a tensor split at `axis`: outer (before), the axis' length, inner (after).
struct AxisSplit {
  std::size_t outer = 1, len = 1, inner = 1;
};
inline AxisSplit split_at(const Dims& d, std::size_t axis) {
  AxisSplit s;
  for (std::size_t k = 0; k < axis; ++k) s.outer *= d[k];
  s.len = d[axis];
  for (std::size_t k = axis + 1; k < d.size(); ++k) s.inner *= d[k];
  return s;
}

/// An index along an axis of length n, negative ones counted from the end; false when outside.
inline bool wrap_index(std::int64_t& i, std::size_t n) {
  if (i < 0) i += static_cast<std::int64_t>(n);
  return i >= 0 && i < static_cast<std::int64_t>(n);
}

/// Input k's values as doubles.
inline std::vector<double> values_of(const ValueView& x) {
  std::vector<double> out(x.def->element_count());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = get(x.def->dtype, x.data.data(), i);
  return out;
}

/// Copies element `from` of x to element `to` of out (same dtype).
inline void copy_element(const ValueView& x, std::size_t from, std::span<std::byte> out, std::size_t to) {
  const std::size_t es = element_size(x.def->dtype);
  std::memcpy(out.data() + to * es, x.data.data() + from * es, es);
}

/// Two inputs broadcast to the output: f(i, offset in a, offset in b) for every output element.
template <class F>
bool broadcast2(const Args& a, const OutputDef& o, F&& f) {
  if (a.n_inputs() < 2 || !a.inputs_have_data()) return false;
  const Dims od = dims_of(o);
  auto ao = broadcast_offsets(dims_of(*a.in(0).def), od), bo = broadcast_offsets(dims_of(*a.in(1).def), od);
  if (!ao || !bo) return false;
  for (std::size_t i = 0; i < ao->size(); ++i) f(i, (*ao)[i], (*bo)[i]);
  return true;
}

// ---- elementwise ----------------------------------------------------------------------------

/// Where(condition, X, Y): X where the condition holds, else Y, all broadcast.
inline bool where(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 3 || !a.inputs_have_data()) return false;
  const OutputDef& o = *v.declared;
  const Dims od = dims_of(o);
  const ValueView &c = a.in(0), &x = a.in(1), &y = a.in(2);
  if (x.def->dtype != o.dtype || y.def->dtype != o.dtype) return false;
  auto co = broadcast_offsets(dims_of(*c.def), od), xo = broadcast_offsets(dims_of(*x.def), od),
       yo = broadcast_offsets(dims_of(*y.def), od);
  if (!co || !xo || !yo) return false;
  for (std::size_t i = 0; i < co->size(); ++i) {
    if (get(c.def->dtype, c.data.data(), (*co)[i]) != 0)
      copy_element(x, (*xo)[i], out, i);
    else
      copy_element(y, (*yo)[i], out, i);
  }
  return true;
}

/// Mod(fmod; A, B): fmod 0 takes the sign of the divisor (integers), fmod 1 the dividend's (C's
/// fmod). Integers are exact; a zero divisor gives 0.
inline bool mod(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  const bool c_style = a.attr_int(0) != 0;
  const OutputDef& o = *v.declared;
  if (!a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &y = a.in(1);
  if (is_float(o.dtype))
    return broadcast2(a, o, [&](std::size_t i, std::size_t p, std::size_t q) {
      const double n = get(x.def->dtype, x.data.data(), p), d = get(y.def->dtype, y.data.data(), q);
      double r = std::fmod(n, d);
      if (!c_style && r != 0 && ((r < 0) != (d < 0))) r += d;
      put(o.dtype, out.data(), i, r);
    });
  return broadcast2(a, o, [&](std::size_t i, std::size_t p, std::size_t q) {
    const std::int64_t n = get_int(x.def->dtype, x.data.data(), p), d = get_int(y.def->dtype, y.data.data(), q);
    std::int64_t r = d == 0 || (d == -1) ? 0 : n % d;
    if (!c_style && r != 0 && ((r < 0) != (d < 0))) r += d;
    store_int(o.dtype, out.data(), i, r);
  });
}

/// BitShift(direction; X, Y): X shifted left (direction 0) or right (1) by Y bits, unsigned;
/// shifts past the width give 0.
inline bool bit_shift(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  const bool right = a.attr_int(0) != 0;
  const OutputDef& o = *v.declared;
  if (!a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &y = a.in(1);
  const unsigned width = static_cast<unsigned>(8 * element_size(o.dtype));
  return broadcast2(a, o, [&](std::size_t i, std::size_t p, std::size_t q) {
    std::uint64_t n = static_cast<std::uint64_t>(get_int(x.def->dtype, x.data.data(), p));
    if (width < 64) n &= (std::uint64_t{1} << width) - 1;
    const auto s = static_cast<std::uint64_t>(get_int(y.def->dtype, y.data.data(), q));
    const std::uint64_t r = s >= width ? 0 : right ? n >> s : n << s;
    store_int(o.dtype, out.data(), i, static_cast<std::int64_t>(r));
  });
}

// ---- generators -----------------------------------------------------------------------------

/// ConstantOfShape(value; input): every element the value (a one-element tensor; absent: 0).
inline bool constant_of_shape(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  const ValueView& val = a.attr(0);
  const OutputDef& o = *v.declared;
  const std::size_t es = element_size(o.dtype);
  std::vector<std::byte> one(es);
  if (val.def && val.known && val.def->element_count() >= 1) {
    if (val.def->dtype == o.dtype)
      std::memcpy(one.data(), val.data.data(), es);
    else
      put(o.dtype, one.data(), 0, get(val.def->dtype, val.data.data(), 0));
  } else {
    put(o.dtype, one.data(), 0, 0.0);
  }
  for (std::size_t i = 0; i < o.element_count(); ++i) std::memcpy(out.data() + i * es, one.data(), es);
  return true;
}

/// Range(start, limit, delta): start + i * delta for i below max(ceil((limit - start) / delta), 0).
inline bool range(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 3 || !a.inputs_have_data()) return false;
  const OutputDef& o = *v.declared;
  if (!is_float(o.dtype)) {
    const std::int64_t s = get_int(a.in(0).def->dtype, a.in(0).data.data(), 0),
                       l = get_int(a.in(1).def->dtype, a.in(1).data.data(), 0),
                       d = get_int(a.in(2).def->dtype, a.in(2).data.data(), 0);
    if (d == 0) return false;
    const std::int64_t n = std::max<std::int64_t>(0, (l - s + d + (d > 0 ? -1 : 1)) / d);
    if (static_cast<std::size_t>(n) != o.element_count()) return false;
    for (std::int64_t i = 0; i < n; ++i) store_int(o.dtype, out.data(), static_cast<std::size_t>(i), s + i * d);
    return true;
  }
  const double s = get(a.in(0).def->dtype, a.in(0).data.data(), 0), l = get(a.in(1).def->dtype, a.in(1).data.data(), 0),
               d = get(a.in(2).def->dtype, a.in(2).data.data(), 0);
  if (d == 0) return false;
  const double n = std::max(0.0, std::ceil((l - s) / d));
  if (n != static_cast<double>(o.element_count())) return false;
  // In the output's precision step by step, as ONNX Runtime accumulates.
  double x = s;
  for (std::size_t i = 0; i < o.element_count(); ++i) {
    put(o.dtype, out.data(), i, x);
    x = get(o.dtype, out.data(), i) + d;
    if (o.dtype == DType::Float32) x = static_cast<float>(x);
  }
  return true;
}

/// EyeLike(dtype, k; input): ones on the k-th diagonal of a 2-d output, zeros elsewhere.
inline bool eye_like(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  const OutputDef& o = *v.declared;
  if (o.rank != 2) return false;
  const std::int64_t k = a.attr_int(1);
  for (std::size_t i = 0; i < o.dims[0]; ++i)
    for (std::size_t j = 0; j < o.dims[1]; ++j)
      put(o.dtype, out.data(), i * o.dims[1] + j,
          static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i) == k ? 1.0 : 0.0);
  return true;
}

/// Size(data): its element count, a scalar.
inline bool size(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 1 || v.declared->element_count() != 1) return false;
  store_int(v.declared->dtype, out.data(), 0, static_cast<std::int64_t>(a.in(0).def->element_count()));
  return true;
}

/// OneHot(axis; indices, depth, values): a new axis of length depth holding values[1] where it
/// equals the index (negative ones counted from depth) and values[0] elsewhere.
inline bool one_hot(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 3 || !a.inputs_have_data()) return false;
  const OutputDef& o = *v.declared;
  const ValueView &ind = a.in(0), &vals = a.in(2);
  auto ax = axis_of(a.attr_int(0), o.rank);
  if (!ax || vals.def->element_count() != 2 || vals.def->dtype != o.dtype) return false;
  const auto depth = static_cast<std::int64_t>(get(a.in(1).def->dtype, a.in(1).data.data(), 0));
  const AxisSplit s = split_at(dims_of(o), *ax);
  if (static_cast<std::int64_t>(s.len) != depth || s.outer * s.inner != ind.def->element_count()) return false;
  for (std::size_t p = 0; p < s.outer; ++p)
    for (std::size_t j = 0; j < s.len; ++j)
      for (std::size_t q = 0; q < s.inner; ++q) {
        auto i = static_cast<std::int64_t>(get(ind.def->dtype, ind.data.data(), p * s.inner + q));
        if (i < 0) i += depth;
        copy_element(vals, i == static_cast<std::int64_t>(j) ? 1 : 0, out, (p * s.len + j) * s.inner + q);
      }
  return true;
}

// ---- triangles, scans, sorting --------------------------------------------------------------

/// Trilu(upper; input, k): the upper (j - i >= k) or lower (j - i <= k) triangle of the last two
/// dims, zeros elsewhere.
inline bool trilu(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const OutputDef& o = *v.declared;
  if (x.def->rank < 2 || x.def->element_count() != o.element_count() || x.def->dtype != o.dtype) return false;
  const bool upper = a.attr_int(0) != 0;
  const std::int64_t k = a.present(1) ? get_int(a.in(1).def->dtype, a.in(1).data.data(), 0) : 0;
  const std::size_t R = x.def->dims[x.def->rank - 2], C = x.def->dims[x.def->rank - 1];
  const std::size_t es = element_size(o.dtype);
  if (!out.empty()) std::memset(out.data(), 0, out.size());
  for (std::size_t i = 0; i < o.element_count(); ++i) {
    const auto c = static_cast<std::int64_t>(i % C), r = static_cast<std::int64_t>((i / C) % R);
    if (upper ? c - r >= k : c - r <= k) std::memcpy(out.data() + i * es, x.data.data() + i * es, es);
  }
  return true;
}

/// CumSum(exclusive, reverse; x, axis): running sums along axis (integers exactly).
inline bool cum_sum(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 2 || !a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const OutputDef& o = *v.declared;
  const Dims xd = dims_of(*x.def);
  auto ax = axis_of(get_int(a.in(1).def->dtype, a.in(1).data.data(), 0), xd.size());
  if (!ax || x.def->element_count() != o.element_count()) return false;
  const bool exclusive = a.attr_int(0) != 0, reverse = a.attr_int(1) != 0, exact = !is_float(o.dtype);
  const AxisSplit s = split_at(xd, *ax);
  for (std::size_t p = 0; p < s.outer; ++p)
    for (std::size_t q = 0; q < s.inner; ++q) {
      double acc = 0;
      std::int64_t iacc = 0;
      for (std::size_t t = 0; t < s.len; ++t) {
        const std::size_t j = reverse ? s.len - 1 - t : t, off = (p * s.len + j) * s.inner + q;
        if (exact) {
          const std::int64_t e = get_int(x.def->dtype, x.data.data(), off);
          if (!exclusive) iacc += e;
          store_int(o.dtype, out.data(), off, iacc);
          if (exclusive) iacc += e;
        } else {
          const double e = get(x.def->dtype, x.data.data(), off);
          if (!exclusive) acc += e;
          put(o.dtype, out.data(), off, acc);
          if (exclusive) acc += e;
        }
      }
    }
  return true;
}

/// ArgMax / ArgMin(axis, keepdims, select_last_index; data): Int64 positions of the first (or
/// last) extreme along axis.
template <bool is_max>
bool arg_extreme(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  auto ax = axis_of(a.attr_int(0), xd.size());
  if (!ax) return false;
  const bool last = a.attr_int(2) != 0;
  const AxisSplit s = split_at(xd, *ax);
  if (s.outer * s.inner != v.declared->element_count() || s.len == 0) return false;
  for (std::size_t p = 0; p < s.outer; ++p)
    for (std::size_t q = 0; q < s.inner; ++q) {
      std::size_t best = 0;
      double bv = get(x.def->dtype, x.data.data(), p * s.len * s.inner + q);
      for (std::size_t j = 1; j < s.len; ++j) {
        const double e = get(x.def->dtype, x.data.data(), (p * s.len + j) * s.inner + q);
        const bool better = is_max ? (e > bv || (last && e == bv)) : (e < bv || (last && e == bv));
        if (better) {
          bv = e;
          best = j;
        }
      }
      store_int(v.declared->dtype, out.data(), p * s.inner + q, static_cast<std::int64_t>(best));
    }
  return true;
}

/// TopK(axis, k, largest, sorted, output; X, K): output 0 the k largest (smallest) values along
/// axis, output 1 their Int64 positions; equal values keep their order (the lower index first).
/// k is the input K (the attribute in opset 1).
inline bool top_k(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  auto ax = axis_of(a.attr_int(0), xd.size());
  if (!ax) return false;
  const bool largest = a.attr_int(2) != 0, indices = a.attr_int(4) == 1;
  const auto k =
      static_cast<std::size_t>(a.present(1) ? get_int(a.in(1).def->dtype, a.in(1).data.data(), 0) : a.attr_int(1));
  const AxisSplit s = split_at(xd, *ax);
  const OutputDef& o = *v.declared;
  if (k > s.len || s.outer * k * s.inner != o.element_count() || (!indices && o.dtype != x.def->dtype)) return false;
  std::vector<std::size_t> order(s.len);
  std::vector<double> row(s.len);
  for (std::size_t p = 0; p < s.outer; ++p)
    for (std::size_t q = 0; q < s.inner; ++q) {
      for (std::size_t j = 0; j < s.len; ++j) row[j] = get(x.def->dtype, x.data.data(), (p * s.len + j) * s.inner + q);
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t l, std::size_t r) { return largest ? row[l] > row[r] : row[l] < row[r]; });
      for (std::size_t j = 0; j < k; ++j) {
        const std::size_t to = (p * k + j) * s.inner + q;
        if (indices)
          store_int(o.dtype, out.data(), to, static_cast<std::int64_t>(order[j]));
        else
          copy_element(x, (p * s.len + order[j]) * s.inner + q, out, to);
      }
    }
  return true;
}

// ---- gather and scatter ---------------------------------------------------------------------

/// GatherElements(axis; data, indices): out[i] = data[i with its axis coordinate replaced by
/// indices[i]].
inline bool gather_elements(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 2 || !a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &ind = a.in(1);
  const Dims xd = dims_of(*x.def), id = dims_of(*ind.def), xs = strides_of(xd);
  auto ax = axis_of(a.attr_int(0), xd.size());
  if (!ax || id.size() != xd.size() || ind.def->element_count() != v.declared->element_count() ||
      x.def->dtype != v.declared->dtype)
    return false;
  for (std::size_t i = 0; i < ind.def->element_count(); ++i) {
    Dims idx = unravel(i, id);
    std::int64_t g = get_int(ind.def->dtype, ind.data.data(), i);
    if (!wrap_index(g, xd[*ax])) return false;
    idx[*ax] = static_cast<std::size_t>(g);
    std::size_t off = 0;
    for (std::size_t k = 0; k < xd.size(); ++k) {
      if (idx[k] >= xd[k]) return false;
      off += idx[k] * xs[k];
    }
    copy_element(x, off, out, i);
  }
  return true;
}

/// The element offset in `data` (of dims dd, strides ds) that index tuple t of `ind` (its last
/// dim k) names, after `batch` leading batch dims; false when an index is outside.
inline bool nd_offset(const ValueView& ind, std::size_t t, std::size_t k, const Dims& dd, const Dims& ds,
                      std::size_t batch, std::size_t batch_index, std::size_t& off) {
  off = 0;
  for (std::size_t b = 0; b < batch; ++b) {
    // batch_index is the flat index over the first `batch` dims
    std::size_t inner = 1;
    for (std::size_t c = b + 1; c < batch; ++c) inner *= dd[c];
    off += (batch_index / inner % dd[b]) * ds[b];
  }
  for (std::size_t j = 0; j < k; ++j) {
    std::int64_t i = get_int(ind.def->dtype, ind.data.data(), t * k + j);
    if (!wrap_index(i, dd[batch + j])) return false;
    off += static_cast<std::size_t>(i) * ds[batch + j];
  }
  return true;
}

/// GatherND(batch_dims; data, indices): slices of data at the index tuples of indices' last dim.
inline bool gather_nd(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 2 || !a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &ind = a.in(1);
  const Dims xd = dims_of(*x.def), id = dims_of(*ind.def), xs = strides_of(xd);
  const auto batch = static_cast<std::size_t>(std::max<std::int64_t>(0, a.attr_int(0)));
  if (id.empty() || x.def->dtype != v.declared->dtype) return false;
  const std::size_t k = id.back();
  if (batch + k > xd.size() || batch >= id.size()) return false;
  std::size_t slice = 1, tuples = ind.def->element_count() / std::max<std::size_t>(1, k), per_batch = 1;
  for (std::size_t d = batch + k; d < xd.size(); ++d) slice *= xd[d];
  for (std::size_t d = batch; d + 1 < id.size(); ++d) per_batch *= id[d];
  if (k == 0) tuples = count(Dims(id.begin(), id.end() - 1));
  if (tuples * slice != v.declared->element_count()) return false;
  for (std::size_t t = 0; t < tuples; ++t) {
    std::size_t off = 0;
    if (!nd_offset(ind, t, k, xd, xs, batch, t / std::max<std::size_t>(1, per_batch), off)) return false;
    for (std::size_t e = 0; e < slice; ++e) copy_element(x, off + e, out, t * slice + e);
  }
  return true;
}

/// How Scatter* combines an update with the element it lands on.
enum class Combine : int { none, add, mul, max, min };
inline double combine(Combine c, double old, double u) {
  switch (c) {
    case Combine::none: return u;
    case Combine::add: return old + u;
    case Combine::mul: return old * u;
    case Combine::max: return std::max(old, u);
    case Combine::min: return std::min(old, u);
  }
  return u;
}
inline void scatter_one(const ValueView& upd, std::size_t from, std::span<std::byte> out, std::size_t to, DType t,
                        Combine c) {
  if (c == Combine::none)
    copy_element(upd, from, out, to);
  else
    put(t, out.data(), to, combine(c, get(t, out.data(), to), get(upd.def->dtype, upd.data.data(), from)));
}

/// ScatterElements(axis, reduction; data, indices, updates) and Scatter(axis; ...) of opsets 9
/// and 10 (HasReduction false): data with updates[i] written (or combined) at i with its axis
/// coordinate replaced by indices[i].
template <bool HasReduction>
bool scatter_elements(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 3 || !a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &ind = a.in(1), &upd = a.in(2);
  const Dims xd = dims_of(*x.def), id = dims_of(*ind.def), xs = strides_of(xd);
  auto ax = axis_of(a.attr_int(0), xd.size());
  const Combine c = HasReduction ? static_cast<Combine>(a.attr_int(1)) : Combine::none;
  if (!ax || id.size() != xd.size() || upd.def->element_count() != ind.def->element_count() ||
      x.def->dtype != v.declared->dtype || upd.def->dtype != x.def->dtype ||
      x.def->element_count() != v.declared->element_count())
    return false;
  if (!out.empty()) std::memcpy(out.data(), x.data.data(), out.size());
  for (std::size_t i = 0; i < ind.def->element_count(); ++i) {
    Dims idx = unravel(i, id);
    std::int64_t g = get_int(ind.def->dtype, ind.data.data(), i);
    if (!wrap_index(g, xd[*ax])) return false;
    idx[*ax] = static_cast<std::size_t>(g);
    std::size_t off = 0;
    for (std::size_t k = 0; k < xd.size(); ++k) {
      if (idx[k] >= xd[k]) return false;
      off += idx[k] * xs[k];
    }
    scatter_one(upd, i, out, off, x.def->dtype, c);
  }
  return true;
}

/// ScatterND(reduction; data, indices, updates): data with the slices of updates written (or
/// combined) at the index tuples of indices' last dim.
inline bool scatter_nd(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 3 || !a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &ind = a.in(1), &upd = a.in(2);
  const Dims xd = dims_of(*x.def), id = dims_of(*ind.def), xs = strides_of(xd);
  const Combine c = static_cast<Combine>(a.attr_int(0));
  if (id.empty() || x.def->dtype != v.declared->dtype || upd.def->dtype != x.def->dtype ||
      x.def->element_count() != v.declared->element_count())
    return false;
  const std::size_t k = id.back();
  if (k > xd.size()) return false;
  std::size_t slice = 1;
  for (std::size_t d = k; d < xd.size(); ++d) slice *= xd[d];
  const std::size_t tuples = count(Dims(id.begin(), id.end() - 1));
  if (tuples * slice != upd.def->element_count()) return false;
  if (!out.empty()) std::memcpy(out.data(), x.data.data(), out.size());
  for (std::size_t t = 0; t < tuples; ++t) {
    std::size_t off = 0;
    if (!nd_offset(ind, t, k, xd, xs, 0, 0, off)) return false;
    for (std::size_t e = 0; e < slice; ++e) scatter_one(upd, t * slice + e, out, off + e, x.def->dtype, c);
  }
  return true;
}

// ---- data-dependent selections --------------------------------------------------------------

/// Compress(axis; input, condition): the slices along axis (the flattened input when axis is
/// absent) whose condition element is true; condition may be shorter than the axis.
inline bool compress(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 2 || !a.inputs_have_data()) return false;
  const ValueView &x = a.in(0), &c = a.in(1);
  Dims xd = dims_of(*x.def);
  std::size_t axis = 0;
  if (a.attr(0).def && a.attr(0).def->element_count() > 0) {
    auto ax = axis_of(a.attr_int(0), xd.size());
    if (!ax) return false;
    axis = *ax;
  } else {
    xd = {x.def->element_count()};
  }
  const AxisSplit s = split_at(xd, axis);
  std::size_t to = 0;
  for (std::size_t p = 0; p < s.outer; ++p)
    for (std::size_t j = 0; j < s.len && j < c.def->element_count(); ++j) {
      if (get(c.def->dtype, c.data.data(), j) == 0) continue;
      for (std::size_t q = 0; q < s.inner; ++q) {
        if (to >= v.declared->element_count()) return false;
        copy_element(x, (p * s.len + j) * s.inner + q, out, to++);
      }
    }
  return to == v.declared->element_count();
}

/// NonZero(X): Int64 [rank, n], the coordinates of the n non-zero elements in row-major order.
inline bool non_zero(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 1 || !a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  const std::size_t r = std::max<std::size_t>(1, xd.size());
  std::vector<std::size_t> hits;
  for (std::size_t i = 0; i < x.def->element_count(); ++i)
    if (get(x.def->dtype, x.data.data(), i) != 0) hits.push_back(i);
  const std::size_t n = hits.size();
  if (r * n != v.declared->element_count()) return false;
  for (std::size_t h = 0; h < n; ++h) {
    const Dims idx = xd.empty() ? Dims{0} : unravel(hits[h], xd);
    for (std::size_t d = 0; d < r; ++d)
      store_int(v.declared->dtype, out.data(), d * n + h, static_cast<std::int64_t>(idx[d]));
  }
  return true;
}

/// Unique(axis, sorted, output; X): output 0 the distinct elements (slices along axis when it
/// is given) in ascending order (sorted) or in order of first appearance, 1 the Int64 position of
/// each one's first appearance, 2 for every input element (slice) its entry in output 0, 3 how
/// often each appears.
inline bool unique(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 1 || !a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  Dims xd = dims_of(*x.def);
  std::size_t axis = 0;
  if (a.attr(0).def && a.attr(0).def->element_count() > 0) {
    auto ax = axis_of(a.attr_int(0), xd.size());
    if (!ax) return false;
    axis = *ax;
  } else {
    xd = {x.def->element_count()};
  }
  const bool sorted = a.attr_int(1) != 0;
  const auto which = a.attr_int(2);
  const AxisSplit s = split_at(xd, axis);
  auto slice = [&](std::size_t j) {
    std::vector<double> e;
    for (std::size_t p = 0; p < s.outer; ++p)
      for (std::size_t q = 0; q < s.inner; ++q)
        e.push_back(get(x.def->dtype, x.data.data(), (p * s.len + j) * s.inner + q));
    return e;
  };
  std::vector<std::vector<double>> slices(s.len);
  for (std::size_t j = 0; j < s.len; ++j) slices[j] = slice(j);
  std::vector<std::size_t> firsts;  // the first position of each distinct slice, in order of appearance
  std::vector<std::size_t> inverse(s.len);
  for (std::size_t j = 0; j < s.len; ++j) {
    std::size_t u = 0;
    while (u < firsts.size() && slices[firsts[u]] != slices[j]) ++u;
    if (u == firsts.size()) firsts.push_back(j);
    inverse[j] = u;
  }
  std::vector<std::size_t> order(firsts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (sorted)
    std::sort(order.begin(), order.end(),
              [&](std::size_t l, std::size_t r) { return slices[firsts[l]] < slices[firsts[r]]; });
  std::vector<std::size_t> rank(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  const std::size_t nu = order.size();
  const OutputDef& o = *v.declared;
  switch (which) {
    case 0: {
      if (s.outer * nu * s.inner != o.element_count() || o.dtype != x.def->dtype) return false;
      for (std::size_t p = 0; p < s.outer; ++p)
        for (std::size_t u = 0; u < nu; ++u)
          for (std::size_t q = 0; q < s.inner; ++q)
            copy_element(x, (p * s.len + firsts[order[u]]) * s.inner + q, out, (p * nu + u) * s.inner + q);
      return true;
    }
    case 1:
    case 3: {
      if (o.element_count() != nu) return false;
      for (std::size_t u = 0; u < nu; ++u) {
        std::int64_t r = static_cast<std::int64_t>(firsts[order[u]]);
        if (which == 3) r = std::count(inverse.begin(), inverse.end(), order[u]);
        store_int(o.dtype, out.data(), u, r);
      }
      return true;
    }
    case 2: {
      if (o.element_count() != s.len) return false;
      for (std::size_t j = 0; j < s.len; ++j)
        store_int(o.dtype, out.data(), j, static_cast<std::int64_t>(rank[inverse[j]]));
      return true;
    }
    default: return false;
  }
}

/// ReverseSequence(batch_axis, time_axis; input, sequence_lens): per batch entry b, the first
/// sequence_lens[b] steps along time_axis reversed, the rest as they are.
inline bool reverse_sequence(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() != 2 || !a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  auto bax = axis_of(a.attr_int(0), xd.size()), tax = axis_of(a.attr_int(1), xd.size());
  if (!bax || !tax || *bax == *tax || x.def->element_count() != v.declared->element_count()) return false;
  const auto lens = a.input_ints(1);
  if (lens.size() != xd[*bax]) return false;
  const Dims xs = strides_of(xd);
  for (std::size_t i = 0; i < x.def->element_count(); ++i) {
    Dims idx = unravel(i, xd);
    const std::int64_t len = std::clamp<std::int64_t>(lens[idx[*bax]], 0, static_cast<std::int64_t>(xd[*tax]));
    if (static_cast<std::int64_t>(idx[*tax]) < len) idx[*tax] = static_cast<std::size_t>(len - 1) - idx[*tax];
    std::size_t off = 0;
    for (std::size_t k = 0; k < xd.size(); ++k) off += idx[k] * xs[k];
    copy_element(x, off, out, i);
  }
  return true;
}

// ---- padding, splitting, rearranging --------------------------------------------------------

/// Pad(mode, pads, value; data, pads, constant_value): each axis grown by pads[k] before and
/// pads[r + k] after (negative: cropped); new elements are the constant (mode constant), the
/// nearest edge element (edge) or the mirror image without the edge (reflect). The inputs win
/// over the attributes of opsets before 11.
inline bool pad(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def), xs = strides_of(xd), od = dims_of(*v.declared);
  const std::size_t r = xd.size();
  const int mode = static_cast<int>(a.attr_int(0));
  auto pads = a.present(1) ? a.input_ints(1) : a.attr_ints(1);
  double value = a.attr_scalar(2);
  if (a.present(2)) value = get(a.in(2).def->dtype, a.in(2).data.data(), 0);
  if (pads.empty()) pads.assign(2 * r, 0);
  if (pads.size() != 2 * r || od.size() != r || x.def->dtype != v.declared->dtype) return false;
  for (std::size_t k = 0; k < r; ++k)
    if (static_cast<std::int64_t>(xd[k]) + pads[k] + pads[r + k] != static_cast<std::int64_t>(od[k])) return false;
  std::vector<std::byte> fill(element_size(x.def->dtype));
  put(x.def->dtype, fill.data(), 0, value);
  const std::size_t es = fill.size();
  for (std::size_t i = 0; i < v.declared->element_count(); ++i) {
    const Dims idx = unravel(i, od);
    std::size_t off = 0;
    bool inside = true;
    for (std::size_t k = 0; k < r && inside; ++k) {
      std::int64_t p = static_cast<std::int64_t>(idx[k]) - pads[k];
      const auto n = static_cast<std::int64_t>(xd[k]);
      if (p < 0 || p >= n) {
        if (mode == 0 || n == 0)
          inside = false;
        else if (mode == 2)
          p = std::clamp<std::int64_t>(p, 0, n - 1);
        else if (n == 1)
          p = 0;
        else {  // reflect, period 2(n - 1)
          const std::int64_t period = 2 * (n - 1);
          p = ((p % period) + period) % period;
          if (p >= n) p = period - p;
        }
      }
      off += static_cast<std::size_t>(p) * xs[k];
    }
    if (inside)
      std::memcpy(out.data() + i * es, x.data.data() + off * es, es);
    else
      std::memcpy(out.data() + i * es, fill.data(), es);
  }
  return true;
}

/// Split(axis, split, output; input, split): output k of the parts along axis; their lengths are
/// the split input (the attribute before opset 13), else equal.
inline bool split(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  auto ax = axis_of(a.attr_int(0), xd.size());
  const OutputDef& o = *v.declared;
  if (!ax || o.rank != xd.size() || o.dtype != x.def->dtype) return false;
  for (std::size_t i = 0; i < xd.size(); ++i)  // the part is x's box along axis: the other dims are x's
    if (i != *ax && o.dims[i] != xd[i]) return false;
  const auto k = static_cast<std::size_t>(a.attr_int(2));
  const auto parts = a.present(1) ? a.input_ints(1) : a.attr_ints(1);
  std::size_t start = k * o.dims[*ax];
  if (!parts.empty()) {
    // ONNX's parts are lengths that add up to x's along axis.
    std::int64_t total = 0;
    for (const std::int64_t p : parts) {
      if (p < 0) return false;
      total += p;
    }
    if (static_cast<std::size_t>(total) != xd[*ax]) return false;
    if (k >= parts.size() || static_cast<std::size_t>(parts[k]) != o.dims[*ax]) return false;
    start = 0;
    for (std::size_t j = 0; j < k; ++j) start += static_cast<std::size_t>(parts[j]);
  }
  if (start + o.dims[*ax] > xd[*ax]) return false;
  const AxisSplit s = split_at(xd, *ax);
  const std::size_t len = o.dims[*ax];
  for (std::size_t p = 0; p < s.outer; ++p)
    for (std::size_t j = 0; j < len; ++j)
      for (std::size_t q = 0; q < s.inner; ++q)
        copy_element(x, (p * s.len + start + j) * s.inner + q, out, (p * len + j) * s.inner + q);
  return true;
}

/// DepthToSpace(blocksize, mode; input) and SpaceToDepth(blocksize; input), NCHW: channel
/// blocks moved into b x b spatial blocks (DCR: depth, then column, then row; CRD: column, row,
/// depth) and back (SpaceToDepth's order is DCR's).
template <bool ToSpace>
bool depth_space(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const OutputDef& o = *v.declared;
  if (x.def->rank != 4 || o.rank != 4 || x.def->dtype != o.dtype) return false;
  if (a.attr_int(0) < 1) return false;  // ONNX's blocksize is positive
  const auto b = static_cast<std::size_t>(a.attr_int(0));
  const bool crd = ToSpace && a.attr_int(1) == 1;
  // The space (wide) side and the depth (deep) side.
  const OutputDef& wide = ToSpace ? o : *x.def;
  const OutputDef& deep = ToSpace ? *x.def : o;
  const std::size_t N = wide.dims[0], C = wide.dims[1], H = deep.dims[2], W = deep.dims[3];
  if (deep.dims[1] != C * b * b || wide.dims[2] != H * b || wide.dims[3] != W * b || deep.dims[0] != N) return false;
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t c = 0; c < C; ++c)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < b; ++i)
          for (std::size_t w = 0; w < W; ++w)
            for (std::size_t j = 0; j < b; ++j) {
              const std::size_t dc = crd ? (c * b + i) * b + j : (i * b + j) * C + c;
              const std::size_t deep_off = ((n * C * b * b + dc) * H + h) * W + w;
              const std::size_t wide_off = ((n * C + c) * H * b + h * b + i) * W * b + w * b + j;
              if (ToSpace)
                copy_element(x, deep_off, out, wide_off);
              else
                copy_element(x, wide_off, out, deep_off);
            }
  return true;
}

/// Upsample(mode, scales; X, scales): nearest (floor(o / scale)) or linear (o / scale between
/// its two neighbours, the last edge-clamped) per axis; scales from the input (opset 9) or the
/// attribute (opset 7).
inline bool upsample(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def), od = dims_of(*v.declared), xs = strides_of(xd);
  const std::size_t r = xd.size();
  const bool linear = a.attr_int(0) != 0;
  std::vector<double> scales = a.attr_values(1);
  if (a.present(1)) scales = values_of(a.in(1));
  if (scales.size() != r || od.size() != r) return false;
  struct Tap {
    std::size_t lo, hi;
    double w;  // weight of hi
  };
  std::vector<std::vector<Tap>> taps(r);
  for (std::size_t k = 0; k < r; ++k)
    for (std::size_t o = 0; o < od[k]; ++o) {
      const double c = static_cast<double>(o) / scales[k];
      auto lo = static_cast<std::size_t>(std::clamp(std::floor(c), 0.0, static_cast<double>(xd[k] - 1)));
      if (!linear) {
        taps[k].push_back({lo, lo, 0.0});
        continue;
      }
      const std::size_t hi = std::min(lo + 1, xd[k] - 1);
      taps[k].push_back({lo, hi, std::clamp(c - static_cast<double>(lo), 0.0, 1.0)});
    }
  for (std::size_t i = 0; i < v.declared->element_count(); ++i) {
    const Dims idx = unravel(i, od);
    double sum = 0;
    for (std::size_t m = 0; m < (std::size_t{1} << r); ++m) {  // the 2^r corners
      double w = 1;
      std::size_t off = 0;
      for (std::size_t k = 0; k < r && w != 0; ++k) {
        const Tap& t = taps[k][idx[k]];
        const bool hi = (m >> k) & 1;
        w *= hi ? t.w : 1.0 - t.w;
        off += (hi ? t.hi : t.lo) * xs[k];
      }
      if (w != 0) sum += w * get(x.def->dtype, x.data.data(), off);
    }
    put(v.declared->dtype, out.data(), i, sum);
  }
  return true;
}

/// MaxUnpool(kernel_shape, pads, strides; X, I, output_shape): zeros of the output's shape with
/// X's elements put at the flat output positions I names (as ONNX Runtime and PyTorch's
/// max_unpool take them, also when output_shape is larger than the default unpooled shape).
inline bool max_unpool(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() < 2 || !a.in(0).known || !a.in(1).known) return false;
  const ValueView &x = a.in(0), &ind = a.in(1);
  if (x.def->element_count() != ind.def->element_count() || x.def->dtype != v.declared->dtype) return false;
  if (!out.empty()) std::memset(out.data(), 0, out.size());
  for (std::size_t i = 0; i < x.def->element_count(); ++i) {
    const std::int64_t to = get_int(ind.def->dtype, ind.data.data(), i);
    if (to < 0 || static_cast<std::size_t>(to) >= v.declared->element_count()) return false;
    copy_element(x, i, out, static_cast<std::size_t>(to));
  }
  return true;
}

// ---- Einsum and Det -------------------------------------------------------------------------

/// Einsum(equation; inputs...): the equation's bytes are attribute 0 (e.g. "ij,jk->ik"); the
/// implicit form (no "->") outputs the labels used once, in alphabetical order, after any
/// ellipsis dims. Computed by a loop over every label's values.
inline bool einsum(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  std::string eq = a.attr_text(0);
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const std::size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  // Labels: letters 0..51, the ellipsis' dims 64 + j (right-aligned: the last ellipsis dim is 64).
  constexpr int ell = 64;
  auto label_of = [](char c) { return c >= 'a' && c <= 'z' ? c - 'a' : c >= 'A' && c <= 'Z' ? 26 + (c - 'A') : -1; };
  std::vector<std::vector<int>> terms;
  std::size_t ell_rank = 0;
  {
    std::size_t at = 0, k = 0;
    for (;;) {
      const std::size_t comma = lhs.find(',', at);
      const std::string t = lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      if (k >= a.n_inputs()) return false;
      const std::size_t rank = a.in(k).def->rank;
      std::vector<int> labels;
      const std::size_t dots = t.find("...");
      std::size_t explicit_labels = t.size() - (dots == std::string::npos ? 0 : 3);
      if (explicit_labels > rank) return false;
      for (std::size_t i = 0; i < t.size(); ++i) {
        if (t.compare(i, 3, "...") == 0) {
          const std::size_t n = rank - explicit_labels;
          ell_rank = std::max(ell_rank, n);
          for (std::size_t j = n; j-- > 0;) labels.push_back(ell + static_cast<int>(j));
          i += 2;
          continue;
        }
        const int l = label_of(t[i]);
        if (l < 0) return false;
        labels.push_back(l);
      }
      if (labels.size() != rank) return false;
      terms.push_back(std::move(labels));
      ++k;
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (k != a.n_inputs()) return false;
  }
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    for (std::size_t i = 0; i < rhs.size(); ++i) {
      if (rhs.compare(i, 3, "...") == 0) {
        for (std::size_t j = ell_rank; j-- > 0;) out_labels.push_back(ell + static_cast<int>(j));
        i += 2;
        continue;
      }
      const int l = label_of(rhs[i]);
      if (l < 0) return false;
      out_labels.push_back(l);
    }
  } else {
    for (std::size_t j = ell_rank; j-- > 0;) out_labels.push_back(ell + static_cast<int>(j));
    std::array<int, 52> uses{};
    for (const auto& t : terms)
      for (int l : t)
        if (l < ell) ++uses[static_cast<std::size_t>(l)];
    for (int l = 0; l < 52; ++l)
      if (uses[static_cast<std::size_t>(l)] == 1) out_labels.push_back(l);
  }
  // The extent of every label (1-sized ellipsis dims broadcast).
  std::vector<std::size_t> extent(128, 0);
  std::vector<bool> seen(128, false);
  for (std::size_t k = 0; k < terms.size(); ++k)
    for (std::size_t i = 0; i < terms[k].size(); ++i) {
      const auto l = static_cast<std::size_t>(terms[k][i]);
      const std::size_t d = a.in(k).def->dims[i];
      if (!seen[l] || extent[l] == 1)
        extent[l] = d;
      else if (d != extent[l] && d != 1)
        return false;
      seen[l] = true;
    }
  std::vector<int> all = out_labels, summed;
  for (int l = 0; l < 128; ++l)
    if (seen[static_cast<std::size_t>(l)] && std::find(out_labels.begin(), out_labels.end(), l) == out_labels.end())
      summed.push_back(l);
  Dims od, sd;
  for (int l : out_labels) od.push_back(seen[static_cast<std::size_t>(l)] ? extent[static_cast<std::size_t>(l)] : 1);
  for (int l : summed) sd.push_back(extent[static_cast<std::size_t>(l)]);
  if (count(od) != v.declared->element_count()) return false;
  std::vector<std::vector<double>> vals;
  std::vector<Dims> strides;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    vals.push_back(values_of(a.in(k)));
    strides.push_back(strides_of(dims_of(*a.in(k).def)));
  }
  std::vector<std::size_t> value(128, 0);
  const std::size_t ns = count(sd);
  for (std::size_t o = 0; o < count(od); ++o) {
    const Dims oi = unravel(o, od);
    for (std::size_t i = 0; i < out_labels.size(); ++i) value[static_cast<std::size_t>(out_labels[i])] = oi[i];
    double sum = 0;
    for (std::size_t s = 0; s < ns; ++s) {
      const Dims si = unravel(s, sd);
      for (std::size_t i = 0; i < summed.size(); ++i) value[static_cast<std::size_t>(summed[i])] = si[i];
      double prod = 1;
      for (std::size_t k = 0; k < terms.size(); ++k) {
        std::size_t off = 0;
        for (std::size_t i = 0; i < terms[k].size(); ++i) {
          const std::size_t d = a.in(k).def->dims[i];
          off += (d == 1 ? 0 : value[static_cast<std::size_t>(terms[k][i])]) * strides[k][i];
        }
        prod *= vals[k][off];
      }
      sum += prod;
    }
    put(v.declared->dtype, out.data(), o, sum);
  }
  return true;
}

/// Det(X): the determinants of the square matrices in X's last two dims (LU decomposition with
/// partial pivoting, in double).
inline bool det(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  if (x.def->rank < 2) return false;
  const std::size_t n = x.def->dims[x.def->rank - 1];
  if (x.def->dims[x.def->rank - 2] != n) return false;
  const std::size_t batch = n ? x.def->element_count() / (n * n) : 0;
  if (batch != v.declared->element_count()) return false;
  std::vector<double> m(n * n);
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t i = 0; i < n * n; ++i) m[i] = get(x.def->dtype, x.data.data(), b * n * n + i);
    double d = 1;
    for (std::size_t c = 0; c < n && d != 0; ++c) {
      std::size_t p = c;
      for (std::size_t r = c + 1; r < n; ++r)
        if (std::fabs(m[r * n + c]) > std::fabs(m[p * n + c])) p = r;
      if (m[p * n + c] == 0) {
        d = 0;
        break;
      }
      if (p != c) {
        for (std::size_t j = 0; j < n; ++j) std::swap(m[p * n + j], m[c * n + j]);
        d = -d;
      }
      d *= m[c * n + c];
      for (std::size_t r = c + 1; r < n; ++r) {
        const double f = m[r * n + c] / m[c * n + c];
        for (std::size_t j = c; j < n; ++j) m[r * n + j] -= f * m[c * n + j];
      }
    }
    put(v.declared->dtype, out.data(), b, d);
  }
  return true;
}

}  // namespace optgrammar::ops::onnx_eval
