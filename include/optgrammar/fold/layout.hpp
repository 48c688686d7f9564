// Shapes for folding: numpy broadcasting of rank <= 4 operands, Transpose and Reshape of
// constants. Generic over a backend type (reference::backend, portable::backend,
// hvx::backend): the contiguous rows go through the backend's vector kernels, so broadcasting
// gives the same bits as the elementwise kernels.
#pragma once

#include "optgrammar/fold/base.hpp"

namespace optgrammar::fold {

/// numpy broadcasting: shapes are aligned at their last dimension; each aligned pair of
/// dimensions must be equal or one of them 1; the result takes the larger. Returns false
/// (and leaves `out` unspecified) when the shapes do not broadcast or a rank exceeds 4.
/// broadcast_shape({2,1,3}, {4,1}, out) gives {2,4,3}.
constexpr bool broadcast_shape(const Shape& a, const Shape& b, Shape& out) {
  if (a.rank < 0 || a.rank > 4 || b.rank < 0 || b.rank > 4) return false;
  const int r = a.rank > b.rank ? a.rank : b.rank;
  out.rank = r;
  for (int i = 0; i < r; ++i) {
    const int ia = a.rank - r + i, ib = b.rank - r + i;
    const int64_t da = ia >= 0 ? a.dims[ia] : 1, db = ib >= 0 ? b.dims[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out.dims[i] = da == 1 ? db : da;
  }
  return true;
}

namespace detail {
/// Left-pads `s` to rank 4 and gives its element strides as seen from the 4-d `out`
/// (0 along broadcast dimensions).
constexpr void padded_strides(const Shape& s, int64_t strides[4]) {
  int64_t dims[4] = {1, 1, 1, 1};
  for (int i = 0; i < s.rank; ++i) dims[4 - s.rank + i] = s.dims[i];
  int64_t step = 1;
  for (int i = 3; i >= 0; --i) {
    strides[i] = dims[i] == 1 ? 0 : step;
    step *= dims[i];
  }
}
constexpr void padded_dims(const Shape& s, int64_t dims[4]) {
  for (int i = 0; i < 4; ++i) dims[i] = 1;
  for (int i = 0; i < s.rank; ++i) dims[4 - s.rank + i] = s.dims[i];
}

/// Calls row(a_offset, b_offset, out_offset, a_step, b_step, len) for every innermost row of
/// the broadcast; a_step/b_step are 1 (contiguous) or 0 (the element repeats).
template <class Row>
constexpr bool for_each_broadcast_row(const Shape& sa, const Shape& sb, const Shape& so, Row&& row) {
  Shape expect;
  if (!broadcast_shape(sa, sb, expect) || !same_shape(expect, so)) return false;
  int64_t as[4], bs[4], d[4];
  padded_strides(sa, as);
  padded_strides(sb, bs);
  padded_dims(so, d);
  int64_t o = 0;
  for (int64_t i0 = 0; i0 < d[0]; ++i0)
    for (int64_t i1 = 0; i1 < d[1]; ++i1)
      for (int64_t i2 = 0; i2 < d[2]; ++i2) {
        const int64_t ao = i0 * as[0] + i1 * as[1] + i2 * as[2];
        const int64_t bo = i0 * bs[0] + i1 * bs[1] + i2 * bs[2];
        row(ao, bo, o, as[3], bs[3], d[3]);
        o += d[3];
      }
  return true;
}

/// Rows where one operand repeats are run against a splatted scratch row of this many elements.
inline constexpr int64_t splat_elems = 256;

/// Runs contiguous(a, b, out, n) over one broadcast row, splatting a repeating operand.
template <class T, class Contig>
void broadcast_row(const T* a, int64_t a_step, const T* b, int64_t b_step, T* out, int64_t len, Contig&& contiguous) {
  if (a_step == 1 && b_step == 1) {
    contiguous(a, b, out, static_cast<size_t>(len));
    return;
  }
  T sa[splat_elems], sb[splat_elems];
  const int64_t chunk = len < splat_elems ? len : splat_elems;
  if (a_step == 0)
    for (int64_t i = 0; i < chunk; ++i) sa[i] = a[0];
  if (b_step == 0)
    for (int64_t i = 0; i < chunk; ++i) sb[i] = b[0];
  for (int64_t i = 0; i < len; i += chunk) {
    const int64_t m = len - i < chunk ? len - i : chunk;
    contiguous(a_step == 0 ? sa : a + i, b_step == 0 ? sb : b + i, out + i, static_cast<size_t>(m));
  }
}

template <class T, class Contig>
bool broadcast_apply(const T* a, const Shape& sa, const T* b, const Shape& sb, T* out, const Shape& so,
                     Contig&& contiguous) {
  return for_each_broadcast_row(sa, sb, so,
                                [&](int64_t ao, int64_t bo, int64_t oo, int64_t astep, int64_t bstep, int64_t len) {
                                  broadcast_row(a + ao, astep, b + bo, bstep, out + oo, len, contiguous);
                                });
}
}  // namespace detail

/// out = a (op) b with numpy broadcasting; `so` must equal broadcast_shape(sa, sb). Returns
/// false (writing nothing) when the shapes do not broadcast to `so`.
template <class Backend, BinOp op, class T>
bool binary_broadcast(const T* a, const Shape& sa, const T* b, const Shape& sb, T* out, const Shape& so) {
  return detail::broadcast_apply(
      a, sa, b, sb, out, so, [](const T* x, const T* y, T* o, size_t n) { Backend::template binary<op>(x, y, o, n); });
}

/// Quantized Add with numpy broadcasting.
template <class Backend, class Q>
bool qadd_broadcast(const Q* a, const Shape& sa, const Q* b, const Shape& sb, Q* out, const Shape& so, QAddParams p) {
  return detail::broadcast_apply(a, sa, b, sb, out, so,
                                 [&](const Q* x, const Q* y, Q* o, size_t n) { Backend::qadd(x, y, o, n, p); });
}

/// Quantized Mul with numpy broadcasting.
template <class Backend, class Q>
bool qmul_broadcast(const Q* a, const Shape& sa, const Q* b, const Shape& sb, Q* out, const Shape& so, QMulParams p) {
  return detail::broadcast_apply(a, sa, b, sb, out, so,
                                 [&](const Q* x, const Q* y, Q* o, size_t n) { Backend::qmul(x, y, o, n, p); });
}

/// The shape of Transpose(in, perm): out.dims[i] = in.dims[perm[i]]. False if perm is not a
/// permutation of 0..rank-1.
constexpr bool transpose_shape(const Shape& in, const int* perm, Shape& out) {
  bool seen[4] = {false, false, false, false};
  out.rank = in.rank;
  for (int i = 0; i < in.rank; ++i) {
    if (perm[i] < 0 || perm[i] >= in.rank || seen[perm[i]]) return false;
    seen[perm[i]] = true;
    out.dims[i] = in.dims[perm[i]];
  }
  return true;
}

/// Transpose of a constant: out[i0,..] = in[.. i_k at position perm[k] ..]. Writes the output
/// in order; the innermost loop is a plain copy when the last axis stays last.
template <class T>
bool transpose(const T* in, const Shape& s, const int* perm, T* out) {
  Shape so;
  if (s.rank < 0 || s.rank > 4 || !transpose_shape(s, perm, so)) return false;
  int64_t in_strides[4] = {0, 0, 0, 0};
  {
    int64_t step = 1;
    for (int i = s.rank - 1; i >= 0; --i) {
      in_strides[i] = step;
      step *= s.dims[i];
    }
  }
  // Output axis j walks input axis perm[j]; pad to 4 axes in front with length-1 axes.
  int64_t d[4] = {1, 1, 1, 1}, st[4] = {0, 0, 0, 0};
  for (int j = 0; j < s.rank; ++j) {
    d[4 - s.rank + j] = so.dims[j];
    st[4 - s.rank + j] = in_strides[perm[j]];
  }
  T* o = out;
  for (int64_t i0 = 0; i0 < d[0]; ++i0)
    for (int64_t i1 = 0; i1 < d[1]; ++i1)
      for (int64_t i2 = 0; i2 < d[2]; ++i2) {
        const T* row = in + i0 * st[0] + i1 * st[1] + i2 * st[2];
        const int64_t step = st[3];
        for (int64_t i3 = 0; i3 < d[3]; ++i3) o[i3] = row[i3 * step];
        o += d[3];
      }
  return true;
}

/// Reshape of a constant: the row-major data is unchanged, so it is a copy; false when the
/// element counts differ.
template <class T>
bool reshape(const T* in, const Shape& from, T* out, const Shape& to) {
  const int64_t n = element_count(from);
  if (n != element_count(to)) return false;
  for (int64_t i = 0; i < n; ++i) out[i] = in[i];
  return true;
}

}  // namespace optgrammar::fold
