// Reference evaluation of the imported ONNX ops (`onnx.<OpType>`, see onnx.hpp): plain loops
// over row-major tensors of any rank, computed in double and stored in the output's dtype.
//
// Operand layout (the same for every onnx op): first the attributes, as constants in the order
// the op's table entry lists them, then the ONNX inputs in ONNX order. An absent optional input
// is a constant with no elements. Integer attributes are Int32, float attributes Float32, string
// attributes an Int32 index into the entry's list of choices.
#pragma once

#include "optgrammar/core/element.hpp"
#include "optgrammar/ops/definition.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace optgrammar::ops::onnx_eval {

// ---- elements -------------------------------------------------------------------------------

/// Element i of a value, as double (core/element.hpp).
inline double get(DType t, const std::byte* p, std::size_t i) { return element_value(t, p, i); }

/// Element i of an integer or bool value exactly (floats truncated).
inline std::int64_t get_int(DType t, const std::byte* p, std::size_t i) { return element_int(t, p, i); }

/// Stores v as element i: floats rounded, integers truncated toward zero and wrapped to the
/// storage width (NaN gives 0), Bool as v != 0.
inline void put(DType t, std::byte* p, std::size_t i, double v) { store_value(t, p, i, v); }

inline bool is_float(DType t) { return is_floating(t); }

// ---- shapes ---------------------------------------------------------------------------------

using Dims = std::vector<std::size_t>;

inline Dims dims_of(const OutputDef& d) { return Dims(d.dims.begin(), d.dims.begin() + d.rank); }

inline std::size_t count(const Dims& d) {
  std::size_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

/// Row-major strides of d.
inline Dims strides_of(const Dims& d) {
  Dims s(d.size(), 1);
  for (std::size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * d[k];
  return s;
}

/// For every element of `out` (row-major), the offset of the element of `in` that numpy
/// broadcasting maps to it. Empty optional when in does not broadcast to out.
inline std::optional<std::vector<std::size_t>> broadcast_offsets(const Dims& in, const Dims& out) {
  if (in.size() > out.size()) return std::nullopt;
  const std::size_t r = out.size(), lead = r - in.size();
  Dims st(r, 0);
  const Dims ins = strides_of(in);
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (in[k] != out[lead + k] && in[k] != 1) return std::nullopt;
    st[lead + k] = in[k] == 1 ? 0 : ins[k];
  }
  const std::size_t n = count(out);
  std::vector<std::size_t> offs(n);
  Dims idx(r, 0);
  std::size_t off = 0;
  for (std::size_t i = 0; i < n; ++i) {
    offs[i] = off;
    for (std::size_t k = r; k-- > 0;) {  // odometer
      if (++idx[k] < out[k]) {
        off += st[k];
        break;
      }
      off -= st[k] * (idx[k] - 1);
      idx[k] = 0;
    }
  }
  return offs;
}

// ---- operands -------------------------------------------------------------------------------

/// An onnx op's operands: `na` attributes, then the inputs.
struct Args {
  const OpView& v;
  std::size_t na;

  std::size_t n_inputs() const { return v.operands.size() - na; }
  const ValueView& in(std::size_t k) const { return v.operands[na + k]; }
  bool present(std::size_t k) const { return k < n_inputs() && in(k).def && in(k).def->element_count() > 0; }
  const ValueView& attr(std::size_t k) const { return v.operands[k]; }
  /// Attribute k as numbers (Int32 or Float32 constant).
  std::vector<double> attr_values(std::size_t k) const {
    const ValueView& a = attr(k);
    std::vector<double> out;
    if (!a.def || !a.known) return out;
    for (std::size_t i = 0; i < a.def->element_count(); ++i) out.push_back(get(a.def->dtype, a.data.data(), i));
    return out;
  }
  /// Attribute k's bytes as text (a free-text string attribute: Einsum's equation).
  std::string attr_text(std::size_t k) const {
    const ValueView& a = attr(k);
    if (!a.def || !a.known) return {};
    return std::string(reinterpret_cast<const char*>(a.data.data()), a.data.size());
  }
  /// Whether attribute k was given (an optional attribute without a default is an empty constant).
  bool has_attr(std::size_t k) const { return attr(k).def && attr(k).def->element_count() > 0; }
  double attr_scalar(std::size_t k) const {
    auto x = attr_values(k);
    return x.empty() ? 0.0 : x[0];
  }
  std::int64_t attr_int(std::size_t k) const { return static_cast<std::int64_t>(attr_scalar(k)); }
  std::vector<std::int64_t> attr_ints(std::size_t k) const {
    std::vector<std::int64_t> out;
    for (double d : attr_values(k)) out.push_back(static_cast<std::int64_t>(d));
    return out;
  }
  /// Input k's values as integers (an index-like input: axes, starts, shape...).
  std::vector<std::int64_t> input_ints(std::size_t k) const {
    std::vector<std::int64_t> out;
    if (!present(k)) return out;
    const ValueView& a = in(k);
    for (std::size_t i = 0; i < a.def->element_count(); ++i) out.push_back(get_int(a.def->dtype, a.data.data(), i));
    return out;
  }
  bool inputs_have_data() const {
    for (std::size_t k = 0; k < n_inputs(); ++k) {
      const ValueView& x = in(k);
      if (!x.def || !x.known || x.data.size() != x.def->byte_size()) return false;
    }
    return true;
  }
};

/// Normalizes a possibly negative axis against rank r; nullopt when out of range.
inline std::optional<std::size_t> axis_of(std::int64_t a, std::size_t r) {
  if (a < 0) a += static_cast<std::int64_t>(r);
  if (a < 0 || a >= static_cast<std::int64_t>(r)) return std::nullopt;
  return static_cast<std::size_t>(a);
}

// ---- elementwise ----------------------------------------------------------------------------

/// A unary function of x and the op's numeric attributes (in table order).
using UnaryFn = double (*)(double x, const std::vector<double>& attrs);

template <UnaryFn F>
bool unary(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() < 1 || !a.inputs_have_data()) return false;
  std::vector<double> at;
  for (std::size_t k = 0; k < na; ++k) at.push_back(a.attr_scalar(k));
  const ValueView& x = a.in(0);
  const OutputDef& o = *v.declared;
  if (x.def->element_count() != o.element_count()) return false;
  for (std::size_t i = 0; i < o.element_count(); ++i)
    put(o.dtype, out.data(), i, F(get(x.def->dtype, x.data.data(), i), at));
  return true;
}

using BinaryFn = double (*)(double a, double b, bool integer);
/// The same function on integers, computed exactly (64-bit, wrapping).
using IntBinaryFn = std::int64_t (*)(std::int64_t a, std::int64_t b);

/// Folds the inputs left to right with F, broadcasting each to the output shape (Add, Max,
/// Sum, ...). `mean` divides by the input count at the end. When every input is an integer or
/// bool and the op gives G, the fold runs on exact 64-bit integers instead of doubles.
template <BinaryFn F, bool mean = false, IntBinaryFn G = nullptr>
bool nary(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (a.n_inputs() < 1 || !a.inputs_have_data()) return false;
  const OutputDef& o = *v.declared;
  const Dims od = dims_of(o);
  const bool integer = !is_float(o.dtype);
  bool exact = G != nullptr;
  for (std::size_t k = 0; k < a.n_inputs(); ++k) exact = exact && !is_float(a.in(k).def->dtype);
  std::vector<double> acc(exact ? 0 : o.element_count());
  std::vector<std::int64_t> iacc(exact ? o.element_count() : 0);
  for (std::size_t k = 0; k < a.n_inputs(); ++k) {
    const ValueView& x = a.in(k);
    auto offs = broadcast_offsets(dims_of(*x.def), od);
    if (!offs) return false;
    if constexpr (G != nullptr) {
      if (exact) {
        for (std::size_t i = 0; i < iacc.size(); ++i) {
          const std::int64_t e = get_int(x.def->dtype, x.data.data(), (*offs)[i]);
          iacc[i] = k == 0 ? e : G(iacc[i], e);
        }
        continue;
      }
    }
    for (std::size_t i = 0; i < acc.size(); ++i) {
      const double e = get(x.def->dtype, x.data.data(), (*offs)[i]);
      acc[i] = k == 0 ? e : F(acc[i], e, integer);
    }
  }
  if (exact) {
    for (std::size_t i = 0; i < iacc.size(); ++i)
      store_int(o.dtype, out.data(), i, mean ? iacc[i] / static_cast<std::int64_t>(a.n_inputs()) : iacc[i]);
    return true;
  }
  for (std::size_t i = 0; i < acc.size(); ++i) {
    double r = acc[i];
    if constexpr (mean) r /= static_cast<double>(a.n_inputs());
    put(o.dtype, out.data(), i, r);
  }
  return true;
}

/// Clip(min, max; x, min, max): the bounds are the inputs when present, else the attributes
/// (opsets before 11), which default to unbounded.
inline bool clip(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const OutputDef& o = *v.declared;
  double lo = a.attr_scalar(0), hi = a.attr_scalar(1);
  if (a.present(1)) lo = get(a.in(1).def->dtype, a.in(1).data.data(), 0);
  if (a.present(2)) hi = get(a.in(2).def->dtype, a.in(2).data.data(), 0);
  if (x.def->element_count() != o.element_count()) return false;
  for (std::size_t i = 0; i < o.element_count(); ++i) {
    double e = get(x.def->dtype, x.data.data(), i);
    e = e < lo ? lo : e;
    e = e > hi ? hi : e;
    put(o.dtype, out.data(), i, e);
  }
  return true;
}

// ---- data movement --------------------------------------------------------------------------

/// The output has the input's elements in the same order (Reshape, Flatten, Squeeze, ...).
inline bool same_elements(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const OutputDef& o = *v.declared;
  if (x.def->element_count() != o.element_count()) return false;
  if (x.def->dtype == o.dtype) {
    if (!out.empty()) std::memcpy(out.data(), x.data.data(), out.size());
    return true;
  }
  for (std::size_t i = 0; i < o.element_count(); ++i) put(o.dtype, out.data(), i, get(x.def->dtype, x.data.data(), i));
  return true;
}

/// Copies element offs[i] of x to element i of out (same dtype).
inline void gather_bytes(const ValueView& x, const std::vector<std::size_t>& offs, std::span<std::byte> out) {
  const std::size_t es = element_size(x.def->dtype);
  for (std::size_t i = 0; i < offs.size(); ++i) std::memcpy(out.data() + i * es, x.data.data() + offs[i] * es, es);
}

/// Expand(x, shape): x broadcast to the declared shape.
inline bool expand(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data() || a.in(0).def->dtype != v.declared->dtype) return false;
  auto offs = broadcast_offsets(dims_of(*a.in(0).def), dims_of(*v.declared));
  if (!offs) return false;
  gather_bytes(a.in(0), *offs, out);
  return true;
}

/// For each output element of a rank-r result, calls f(idx) and stores what it returns as
/// the input offset.
template <class F>
std::vector<std::size_t> offsets_by_index(const Dims& od, F&& f) {
  const std::size_t n = count(od);
  std::vector<std::size_t> offs(n);
  Dims idx(od.size(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    offs[i] = f(idx);
    for (std::size_t k = od.size(); k-- > 0;) {
      if (++idx[k] < od[k]) break;
      idx[k] = 0;
    }
  }
  return offs;
}

/// Transpose(perm; x): an empty perm reverses the dimensions.
inline bool transpose(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def), xs = strides_of(xd);
  auto perm = a.attr_ints(0);
  const std::size_t r = xd.size();
  if (perm.empty())
    for (std::size_t k = 0; k < r; ++k) perm.push_back(static_cast<std::int64_t>(r - 1 - k));
  if (perm.size() != r || x.def->dtype != v.declared->dtype) return false;
  std::vector<bool> seen(r, false);  // a permutation of 0..r-1, else nothing is computed
  for (const std::int64_t p : perm) {
    if (p < 0 || static_cast<std::size_t>(p) >= r || seen[static_cast<std::size_t>(p)]) return false;
    seen[static_cast<std::size_t>(p)] = true;
  }
  Dims od(r);
  for (std::size_t k = 0; k < r; ++k) od[k] = xd[static_cast<std::size_t>(perm[k])];
  if (od != dims_of(*v.declared)) return false;
  gather_bytes(x,
               offsets_by_index(od,
                                [&](const Dims& idx) {
                                  std::size_t off = 0;
                                  for (std::size_t k = 0; k < r; ++k)
                                    off += idx[k] * xs[static_cast<std::size_t>(perm[k])];
                                  return off;
                                }),
               out);
  return true;
}

/// Concat(axis; inputs...).
inline bool concat(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const OutputDef& o = *v.declared;
  auto ax = axis_of(a.attr_int(0), o.rank);
  if (!ax) return false;
  const std::size_t es = element_size(o.dtype);
  std::size_t outer = 1, inner = es;
  for (std::size_t k = 0; k < *ax; ++k) outer *= o.dims[k];
  for (std::size_t k = *ax + 1; k < o.rank; ++k) inner *= o.dims[k];
  std::size_t total = 0;
  for (std::size_t k = 0; k < a.n_inputs(); ++k) {
    if (a.in(k).def->dtype != o.dtype || a.in(k).def->rank != o.rank) return false;
    total += a.in(k).def->dims[*ax];
  }
  if (total != o.dims[*ax]) return false;
  std::byte* dst = out.data();
  for (std::size_t i = 0; i < outer; ++i)
    for (std::size_t k = 0; k < a.n_inputs(); ++k) {
      const std::size_t row = a.in(k).def->dims[*ax] * inner;
      if (row) std::memcpy(dst, a.in(k).data.data() + i * row, row);
      dst += row;
    }
  return true;
}

/// The box a Slice takes, per dimension of data: its first index, step and extent.
struct SliceBox {
  std::vector<std::int64_t> first, step;
  Dims extent;
};

/// Slice(starts, ends, axes; data, starts, ends, axes, steps)'s box by ONNX's clamping rules;
/// the attributes (opsets before 10) when the starts input is absent. nullopt when the
/// parameters do not fit data.
inline std::optional<SliceBox> slice_box(const Args& a) {
  const Dims xd = dims_of(*a.in(0).def);
  const std::size_t r = xd.size();
  auto starts = a.input_ints(1), ends = a.input_ints(2), axes = a.input_ints(3), steps = a.input_ints(4);
  if (!a.present(1)) {
    starts = a.attr_ints(0);
    ends = a.attr_ints(1);
    axes = a.attr_ints(2);
  }
  if (axes.empty())
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return std::nullopt;
  SliceBox b{std::vector<std::int64_t>(r, 0), std::vector<std::int64_t>(r, 1), xd};
  for (std::size_t i = 0; i < starts.size(); ++i) {
    auto ax = axis_of(axes[i], r);
    if (!ax || steps[i] == 0) return std::nullopt;
    const std::int64_t n = static_cast<std::int64_t>(xd[*ax]);
    std::int64_t s = starts[i], e = ends[i], st = steps[i];
    if (s < 0) s += n;
    if (e < 0) e += n;
    if (st > 0) {
      s = std::clamp<std::int64_t>(s, 0, n);
      e = std::clamp<std::int64_t>(e, 0, n);
    } else {
      s = std::clamp<std::int64_t>(s, 0, n - 1);
      e = std::clamp<std::int64_t>(e, -1, n - 1);
    }
    const std::int64_t len = st > 0 ? (e > s ? (e - s + st - 1) / st : 0) : (s > e ? (s - e - st - 1) / -st : 0);
    b.first[*ax] = s;
    b.step[*ax] = st;
    b.extent[*ax] = static_cast<std::size_t>(len);
  }
  return b;
}

/// Slice: the elements of slice_box's box.
inline bool slice(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xs = strides_of(dims_of(*x.def));
  const auto b = slice_box(a);
  if (!b || count(b->extent) != v.declared->element_count() || x.def->dtype != v.declared->dtype) return false;
  gather_bytes(x,
               offsets_by_index(b->extent,
                                [&](const Dims& idx) {
                                  std::size_t off = 0;
                                  for (std::size_t k = 0; k < idx.size(); ++k)
                                    off += static_cast<std::size_t>(b->first[k] +
                                                                    static_cast<std::int64_t>(idx[k]) * b->step[k]) *
                                           xs[k];
                                  return off;
                                }),
               out);
  return true;
}

/// Gather(axis; data, indices).
inline bool gather(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def), xs = strides_of(xd);
  auto ax = axis_of(a.attr_int(0), xd.size());
  if (!ax) return false;
  const auto ind = a.input_ints(1);
  const Dims id = dims_of(*a.in(1).def);
  const std::size_t ni = id.size();
  Dims od(xd.begin(), xd.begin() + static_cast<std::ptrdiff_t>(*ax));
  od.insert(od.end(), id.begin(), id.end());
  od.insert(od.end(), xd.begin() + static_cast<std::ptrdiff_t>(*ax) + 1, xd.end());
  if (count(od) != v.declared->element_count() || x.def->dtype != v.declared->dtype) return false;
  const Dims is = strides_of(id);
  bool ok = true;
  auto offs = offsets_by_index(od, [&](const Dims& idx) {
    std::size_t off = 0, j = 0;
    for (std::size_t k = 0; k < *ax; ++k) off += idx[k] * xs[k];
    for (std::size_t k = 0; k < ni; ++k) j += idx[*ax + k] * is[k];
    std::int64_t g = ind[j];
    if (g < 0) g += static_cast<std::int64_t>(xd[*ax]);
    if (g < 0 || g >= static_cast<std::int64_t>(xd[*ax])) {
      ok = false;
      return std::size_t{0};
    }
    off += static_cast<std::size_t>(g) * xs[*ax];
    for (std::size_t k = *ax + 1; k < xd.size(); ++k) off += idx[ni + k - 1] * xs[k];
    return off;
  });
  if (!ok) return false;
  gather_bytes(x, offs, out);
  return true;
}

/// Tile(input, repeats).
inline bool tile(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def), xs = strides_of(xd), od = dims_of(*v.declared);
  if (od.size() != xd.size() || x.def->dtype != v.declared->dtype) return false;
  for (std::size_t k = 0; k < xd.size(); ++k)
    if (xd[k] == 0 || od[k] % xd[k] != 0) return false;
  gather_bytes(x,
               offsets_by_index(od,
                                [&](const Dims& idx) {
                                  std::size_t off = 0;
                                  for (std::size_t k = 0; k < xd.size(); ++k) off += (idx[k] % xd[k]) * xs[k];
                                  return off;
                                }),
               out);
  return true;
}

/// Shape(start, end; data): Int32 dims (end's default is past any rank).
inline bool shape(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  const Dims xd = dims_of(*a.in(0).def);
  const std::int64_t r = static_cast<std::int64_t>(xd.size());
  std::int64_t s = a.attr_int(0), e = a.attr_int(1);
  if (s < 0) s += r;
  if (e < 0) e += r;
  s = std::clamp<std::int64_t>(s, 0, r);
  e = std::clamp<std::int64_t>(e, 0, r);
  const std::size_t n = e > s ? static_cast<std::size_t>(e - s) : 0;
  if (n != v.declared->element_count()) return false;
  for (std::size_t i = 0; i < n; ++i)
    put(v.declared->dtype, out.data(), i, static_cast<double>(xd[static_cast<std::size_t>(s) + i]));
  return true;
}

// ---- reductions -----------------------------------------------------------------------------

enum class Reduce { sum, mean, max, min, prod, l1, l2, sum_square, log_sum, log_sum_exp };

/// Reduce*(axes, keepdims, noop_with_empty_axes; data, axes?): axes from the attribute or, when
/// the op takes them as input (ReduceSum), from input 1.
template <Reduce R>
bool reduce(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  const std::size_t r = xd.size();
  auto axes = a.attr_ints(0);
  if (a.present(1)) axes = a.input_ints(1);
  const bool noop = a.attr_int(2) != 0;
  std::vector<bool> red(r, axes.empty() && !noop);
  for (auto ax : axes) {
    auto k = axis_of(ax, r);
    if (!k) return false;
    red[*k] = true;
  }
  Dims rd(r);  // the reduced shape, kept dims
  for (std::size_t k = 0; k < r; ++k) rd[k] = red[k] ? 1 : xd[k];
  const std::size_t no = count(rd);
  if (no != v.declared->element_count()) return false;
  const Dims rs = strides_of(rd);
  std::vector<double> acc(no, R == Reduce::max    ? -std::numeric_limits<double>::infinity()
                              : R == Reduce::min  ? std::numeric_limits<double>::infinity()
                              : R == Reduce::prod ? 1.0
                                                  : 0.0);
  // log_sum_exp: shift by the maximum for stability.
  std::vector<double> mx(R == Reduce::log_sum_exp ? no : 0, -std::numeric_limits<double>::infinity());
  const std::size_t n = count(xd);
  auto for_each = [&](auto&& f) {
    Dims idx(r, 0);
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t o = 0;
      for (std::size_t k = 0; k < r; ++k)
        if (!red[k]) o += idx[k] * rs[k];
      f(i, o);
      for (std::size_t k = r; k-- > 0;) {
        if (++idx[k] < xd[k]) break;
        idx[k] = 0;
      }
    }
  };
  if constexpr (R == Reduce::log_sum_exp)
    for_each([&](std::size_t i, std::size_t o) { mx[o] = std::max(mx[o], get(x.def->dtype, x.data.data(), i)); });
  for_each([&](std::size_t i, std::size_t o) {
    const double e = get(x.def->dtype, x.data.data(), i);
    switch (R) {
      case Reduce::sum:
      case Reduce::mean:
      case Reduce::log_sum: acc[o] += e; break;
      case Reduce::max: acc[o] = std::max(acc[o], e); break;
      case Reduce::min: acc[o] = std::min(acc[o], e); break;
      case Reduce::prod: acc[o] *= e; break;
      case Reduce::l1: acc[o] += std::fabs(e); break;
      case Reduce::l2:
      case Reduce::sum_square: acc[o] += e * e; break;
      case Reduce::log_sum_exp: acc[o] += std::exp(e - mx[o]); break;
    }
  });
  const double per = no ? static_cast<double>(n) / static_cast<double>(no) : 1.0;
  for (std::size_t o = 0; o < no; ++o) {
    double e = acc[o];
    if (R == Reduce::mean) e /= per;
    if (R == Reduce::l2) e = std::sqrt(e);
    if (R == Reduce::log_sum) e = std::log(e);
    if (R == Reduce::log_sum_exp) e = std::log(e) + mx[o];
    put(v.declared->dtype, out.data(), o, e);
  }
  return true;
}

/// Softmax / LogSoftmax / Hardmax along one axis (opset 13 semantics).
enum class Softmax { soft, log, hard };

template <Softmax S>
bool softmax(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& x = a.in(0);
  const Dims xd = dims_of(*x.def);
  auto ax = axis_of(a.attr_int(0), xd.size());
  if (!ax || x.def->element_count() != v.declared->element_count()) return false;
  std::size_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < *ax; ++k) outer *= xd[k];
  for (std::size_t k = *ax + 1; k < xd.size(); ++k) inner *= xd[k];
  const std::size_t len = xd[*ax];
  std::vector<double> row(len);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t in = 0; in < inner; ++in) {
      const std::size_t base = o * len * inner + in;
      double m = -std::numeric_limits<double>::infinity();
      std::size_t arg = 0;
      for (std::size_t j = 0; j < len; ++j) {
        row[j] = get(x.def->dtype, x.data.data(), base + j * inner);
        if (row[j] > m) {
          m = row[j];
          arg = j;
        }
      }
      double s = 0;
      for (std::size_t j = 0; j < len; ++j) s += std::exp(row[j] - m);
      for (std::size_t j = 0; j < len; ++j) {
        double e = S == Softmax::soft  ? std::exp(row[j] - m) / s
                   : S == Softmax::log ? row[j] - m - std::log(s)
                                       : (j == arg ? 1.0 : 0.0);
        put(v.declared->dtype, out.data(), base + j * inner, e);
      }
    }
  return true;
}

// ---- linear algebra -------------------------------------------------------------------------

/// numpy matmul of values av (dims ad) and bv (dims bd): 1-d operands promoted, batch dims
/// broadcast; the products, summed in double, into res (row-major). False when they do not fit.
/// `shape`, when given, receives the result's dims (without the promoted ones).
inline bool matmul_values(Dims ad, const std::vector<double>& av, Dims bd, const std::vector<double>& bv,
                          std::vector<double>& res, Dims* shape = nullptr) {
  if (ad.empty() || bd.empty()) return false;
  const bool a_vector = ad.size() == 1, b_vector = bd.size() == 1;
  if (a_vector) ad.insert(ad.begin(), 1);
  if (b_vector) bd.push_back(1);
  const std::size_t M = ad[ad.size() - 2], K = ad.back(), N = bd.back();
  if (bd[bd.size() - 2] != K) return false;
  Dims abatch(ad.begin(), ad.end() - 2), bbatch(bd.begin(), bd.end() - 2);
  const std::size_t rb = std::max(abatch.size(), bbatch.size());
  Dims batch(rb);
  for (std::size_t k = 0; k < rb; ++k) {
    const std::size_t x = k + abatch.size() >= rb ? abatch[k + abatch.size() - rb] : 1;
    const std::size_t y = k + bbatch.size() >= rb ? bbatch[k + bbatch.size() - rb] : 1;
    if (x != y && x != 1 && y != 1) return false;
    batch[k] = x == 1 ? y : x;
  }
  auto ao = broadcast_offsets(abatch, batch), bo = broadcast_offsets(bbatch, batch);
  if (!ao || !bo) return false;
  if (shape) {
    *shape = batch;
    if (!a_vector) shape->push_back(M);
    if (!b_vector) shape->push_back(N);
  }
  const std::size_t nb = count(batch);
  res.assign(nb * M * N, 0.0);
  for (std::size_t b = 0; b < nb; ++b) {
    const double* ap = av.data() + (*ao)[b] * M * K;
    const double* bp = bv.data() + (*bo)[b] * K * N;
    double* row = res.data() + b * M * N;
    for (std::size_t i = 0; i < M; ++i, row += N)
      for (std::size_t k = 0; k < K; ++k) {
        const double x = ap[i * K + k];
        for (std::size_t j = 0; j < N; ++j) row[j] += x * bp[k * N + j];
      }
  }
  return true;
}

/// MatMul(a, b): numpy matmul (1-d operands promoted, batch dims broadcast).
inline bool matmul(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView &A = a.in(0), &B = a.in(1);
  std::vector<double> av(A.def->element_count()), bv(B.def->element_count()), res;
  for (std::size_t i = 0; i < av.size(); ++i) av[i] = get(A.def->dtype, A.data.data(), i);
  for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = get(B.def->dtype, B.data.data(), i);
  Dims shape;
  if (!matmul_values(dims_of(*A.def), av, dims_of(*B.def), bv, res, &shape) || shape != dims_of(*v.declared))
    return false;
  for (std::size_t i = 0; i < res.size(); ++i) put(v.declared->dtype, out.data(), i, res[i]);
  return true;
}

/// Gemm(alpha, beta, transA, transB; A, B, C?).
inline bool gemm(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const double alpha = a.attr_scalar(0), beta = a.attr_scalar(1);
  const bool ta = a.attr_int(2) != 0, tb = a.attr_int(3) != 0;
  const ValueView &A = a.in(0), &B = a.in(1);
  if (A.def->rank != 2 || B.def->rank != 2) return false;
  const std::size_t M = ta ? A.def->dims[1] : A.def->dims[0], K = ta ? A.def->dims[0] : A.def->dims[1];
  const std::size_t N = tb ? B.def->dims[0] : B.def->dims[1];
  if ((tb ? B.def->dims[1] : B.def->dims[0]) != K || M * N != v.declared->element_count()) return false;
  std::optional<std::vector<std::size_t>> co;
  if (a.present(2)) {
    co = broadcast_offsets(dims_of(*a.in(2).def), Dims{M, N});
    if (!co) return false;
  }
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double s = 0;
      for (std::size_t k = 0; k < K; ++k)
        s += get(A.def->dtype, A.data.data(), ta ? k * M + i : i * K + k) *
             get(B.def->dtype, B.data.data(), tb ? j * K + k : k * N + j);
      s *= alpha;
      if (co) s += beta * get(a.in(2).def->dtype, a.in(2).data.data(), (*co)[i * N + j]);
      put(v.declared->dtype, out.data(), i * N + j, s);
    }
  return true;
}

// ---- convolution and pooling ----------------------------------------------------------------

/// A flat row-major offset within dims d as an index.
inline Dims unravel(std::size_t off, const Dims& d) {
  Dims idx(d.size(), 0);
  for (std::size_t k = d.size(); k-- > 0;) {
    idx[k] = d[k] ? off % d[k] : 0;
    off = d[k] ? off / d[k] : 0;
  }
  return idx;
}

/// The spatial geometry shared by Conv, ConvTranspose and the pools: kernel, strides,
/// dilations and the padding before each spatial dimension.
struct Window {
  Dims kernel, stride, dilation;
  std::vector<std::int64_t> pad_begin, pad_end;
};

/// auto_pad choices, in the order of the attribute's choice list.
enum AutoPad : int { notset = 0, same_upper = 1, same_lower = 2, valid = 3 };

/// Fills a Window from attributes (empty lists take ONNX's defaults); `in` and `out` are the
/// spatial extents (used for SAME_* padding).
inline bool make_window(Window& w, std::size_t nsp, const std::vector<std::int64_t>& kernel,
                        const std::vector<std::int64_t>& strides, const std::vector<std::int64_t>& dilations,
                        const std::vector<std::int64_t>& pads, int auto_pad, const Dims& in, const Dims& out) {
  if (kernel.size() != nsp) return false;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.stride.assign(nsp, 1);
  w.dilation.assign(nsp, 1);
  if (!strides.empty()) {
    if (strides.size() != nsp) return false;
    w.stride.assign(strides.begin(), strides.end());
  }
  if (!dilations.empty()) {
    if (dilations.size() != nsp) return false;
    w.dilation.assign(dilations.begin(), dilations.end());
  }
  // (a kernel, stride or dilation below 1 has no meaning; as a size it would be a loop of 2^64 taps)
  for (const auto* list : {&kernel, &strides, &dilations})
    for (const std::int64_t e : *list)
      if (e < 1) return false;
  w.pad_begin.assign(nsp, 0);
  w.pad_end.assign(nsp, 0);
  if (auto_pad == same_upper || auto_pad == same_lower) {
    for (std::size_t k = 0; k < nsp; ++k) {
      const std::int64_t total = std::max<std::int64_t>(
          0, static_cast<std::int64_t>((out[k] - 1) * w.stride[k] + (w.kernel[k] - 1) * w.dilation[k] + 1) -
                 static_cast<std::int64_t>(in[k]));
      w.pad_begin[k] = auto_pad == same_upper ? total / 2 : total - total / 2;
      w.pad_end[k] = total - w.pad_begin[k];
    }
  } else if (auto_pad == notset && !pads.empty()) {
    if (pads.size() != 2 * nsp) return false;
    for (std::size_t k = 0; k < nsp; ++k) {
      w.pad_begin[k] = pads[k];
      w.pad_end[k] = pads[nsp + k];
    }
  }
  return true;
}

/// A convolution's geometry: counts, and for every (output position, kernel position) the input
/// position (SIZE_MAX in padding).
struct ConvShape {
  std::size_t N = 0, C = 0, M = 0, group = 1, in_size = 0, out_size = 0, k_size = 0;
  std::vector<std::size_t> tap;
};

/// Reads the geometry of X [N, C, ...] convolved with W [M, C/group, k...] into o from Conv's
/// attributes (auto_pad, dilations, group, kernel_shape, pads, strides: the first six); false
/// when they do not fit together (a kernel_shape that disagrees with W is refused: og_onnx_fuzz).
inline bool conv_shape(const Args& a, const OutputDef& x, const OutputDef& wt, const OutputDef& o, ConvShape& s) {
  const Dims xd = dims_of(x), wd = dims_of(wt), od = dims_of(o);
  if (xd.size() < 3 || wd.size() != xd.size() || od.size() != xd.size()) return false;
  const std::size_t nsp = xd.size() - 2;
  s.N = xd[0];
  s.C = xd[1];
  s.M = wd[0];
  s.group = static_cast<std::size_t>(std::max<std::int64_t>(1, a.attr_int(2)));
  if (s.C % s.group || s.M % s.group || wd[1] != s.C / s.group || od[1] != s.M || od[0] != s.N) return false;
  auto kernel = a.attr_ints(3);
  if (kernel.empty()) kernel.assign(wd.begin() + 2, wd.end());
  Window w;
  const Dims in_sp(xd.begin() + 2, xd.end()), out_sp(od.begin() + 2, od.end());
  if (!make_window(w, nsp, kernel, a.attr_ints(5), a.attr_ints(1), a.attr_ints(4), static_cast<int>(a.attr_int(0)),
                   in_sp, out_sp))
    return false;
  if (count(w.kernel) != count(Dims(wd.begin() + 2, wd.end()))) return false;
  s.in_size = count(in_sp);
  s.out_size = count(out_sp);
  s.k_size = count(w.kernel);
  s.tap.assign(s.out_size * s.k_size, 0);
  const Dims is = strides_of(in_sp);
  Dims op(nsp, 0);
  for (std::size_t o = 0; o < s.out_size; ++o) {
    Dims kp(nsp, 0);
    for (std::size_t kk = 0; kk < s.k_size; ++kk) {
      std::size_t off = 0;
      bool inside = true;
      for (std::size_t d = 0; d < nsp && inside; ++d) {
        const std::int64_t p = static_cast<std::int64_t>(op[d] * w.stride[d] + kp[d] * w.dilation[d]) - w.pad_begin[d];
        if (p < 0 || p >= static_cast<std::int64_t>(in_sp[d]))
          inside = false;
        else
          off += static_cast<std::size_t>(p) * is[d];
      }
      s.tap[o * s.k_size + kk] = inside ? off : static_cast<std::size_t>(-1);
      for (std::size_t d = nsp; d-- > 0;) {
        if (++kp[d] < w.kernel[d]) break;
        kp[d] = 0;
      }
    }
    for (std::size_t d = nsp; d-- > 0;) {
      if (++op[d] < out_sp[d]) break;
      op[d] = 0;
    }
  }
  return true;
}

/// The convolution sums without bias, [N, M, out] row-major, accumulated in T (float for Conv,
/// as ONNX Runtime does; double, exact, for the integer convolutions).
template <class T>
std::vector<T> conv_sums(const ConvShape& s, const std::vector<T>& xv, const std::vector<T>& wv) {
  const std::size_t cg = s.C / s.group, mg = s.M / s.group;
  std::vector<T> acc(s.N * s.M * s.out_size, T(0));
  for (std::size_t n = 0; n < s.N; ++n)
    for (std::size_t m = 0; m < s.M; ++m) {
      const std::size_t g = m / mg;
      T* ap = acc.data() + (n * s.M + m) * s.out_size;
      for (std::size_t c = 0; c < cg; ++c) {
        const T* xp = xv.data() + (n * s.C + g * cg + c) * s.in_size;
        const T* wp = wv.data() + (m * cg + c) * s.k_size;
        for (std::size_t o = 0; o < s.out_size; ++o) {
          const std::size_t* t = s.tap.data() + o * s.k_size;
          T sum = T(0);
          for (std::size_t kk = 0; kk < s.k_size; ++kk)
            if (t[kk] != static_cast<std::size_t>(-1)) sum += xp[t[kk]] * wp[kk];
          ap[o] += sum;
        }
      }
    }
  return acc;
}

/// Conv(auto_pad, dilations, group, kernel_shape, pads, strides; X, W, B?): N-d, grouped.
inline bool conv(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView &X = a.in(0), &Wt = a.in(1);
  ConvShape s;
  if (!conv_shape(a, *X.def, *Wt.def, *v.declared, s)) return false;
  // The bias must hold a value per output channel (og_onnx_fuzz).
  if (a.present(2) && a.in(2).def->element_count() < s.M) return false;
  std::vector<float> xv(X.def->element_count()), wv(Wt.def->element_count());
  for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(get(X.def->dtype, X.data.data(), i));
  for (std::size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>(get(Wt.def->dtype, Wt.data.data(), i));
  const std::vector<float> acc = conv_sums(s, xv, wv);
  for (std::size_t n = 0; n < s.N; ++n)
    for (std::size_t m = 0; m < s.M; ++m) {
      const double bias = a.present(2) ? get(a.in(2).def->dtype, a.in(2).data.data(), m) : 0.0;
      for (std::size_t o = 0; o < s.out_size; ++o) {
        const std::size_t i = (n * s.M + m) * s.out_size + o;
        put(v.declared->dtype, out.data(), i, static_cast<double>(acc[i]) + bias);
      }
    }
  return true;
}

/// ConvTranspose(auto_pad, dilations, group, kernel_shape, output_padding, output_shape, pads,
/// strides; X, W, B?).
inline bool conv_transpose(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView &X = a.in(0), &Wt = a.in(1);
  const Dims xd = dims_of(*X.def), wd = dims_of(*Wt.def), od = dims_of(*v.declared);
  if (xd.size() < 3 || wd.size() != xd.size() || od.size() != xd.size()) return false;
  const std::size_t nsp = xd.size() - 2, N = xd[0], C = xd[1];
  const std::size_t group = static_cast<std::size_t>(std::max<std::int64_t>(1, a.attr_int(2)));
  const std::size_t mg = wd[1], M = mg * group;
  if (C % group || wd[0] != C || od[1] != M || od[0] != N) return false;
  auto kernel = a.attr_ints(3);
  if (kernel.empty()) kernel.assign(wd.begin() + 2, wd.end());
  const Dims in_sp(xd.begin() + 2, xd.end()), out_sp(od.begin() + 2, od.end());
  Window w;
  if (!make_window(w, nsp, kernel, a.attr_ints(7), a.attr_ints(1), a.attr_ints(6), 0, in_sp, out_sp)) return false;
  // As for Conv: the weights must hold the kernel's taps and the bias a value per output channel.
  if (count(w.kernel) != count(Dims(wd.begin() + 2, wd.end()))) return false;
  if (a.present(2) && a.in(2).def->element_count() < M) return false;
  auto out_pad = a.attr_ints(4);
  const auto out_shape = a.attr_ints(5);
  const int auto_pad = static_cast<int>(a.attr_int(0));
  if (!out_shape.empty() || auto_pad == same_upper || auto_pad == same_lower) {
    // Padding from the wanted output size: total = stride*(in-1) + out_pad + (k-1)*d + 1 - out.
    for (std::size_t d = 0; d < nsp; ++d) {
      const std::int64_t op = out_pad.empty() ? 0 : out_pad[d];
      const std::int64_t total =
          static_cast<std::int64_t>(w.stride[d] * (in_sp[d] - 1) + (w.kernel[d] - 1) * w.dilation[d] + 1) + op -
          static_cast<std::int64_t>(out_sp[d]);
      if (auto_pad == same_lower)
        w.pad_begin[d] = total - total / 2;
      else
        w.pad_begin[d] = total / 2;
      if (auto_pad == notset && out_shape.empty()) w.pad_begin[d] = total / 2;
    }
  }
  const std::size_t cg = C / group, in_size = count(in_sp), out_size = count(out_sp), k_size = count(w.kernel);
  std::vector<double> acc(N * M * out_size, 0.0);
  const Dims os = strides_of(out_sp);
  Dims ip(nsp, 0);
  for (std::size_t i = 0; i < in_size; ++i) {
    Dims kp(nsp, 0);
    for (std::size_t kk = 0; kk < k_size; ++kk) {
      std::size_t off = 0;
      bool inside = true;
      for (std::size_t d = 0; d < nsp && inside; ++d) {
        const std::int64_t p = static_cast<std::int64_t>(ip[d] * w.stride[d] + kp[d] * w.dilation[d]) - w.pad_begin[d];
        if (p < 0 || p >= static_cast<std::int64_t>(out_sp[d]))
          inside = false;
        else
          off += static_cast<std::size_t>(p) * os[d];
      }
      if (inside)
        for (std::size_t n = 0; n < N; ++n)
          for (std::size_t c = 0; c < C; ++c) {
            const double x = get(X.def->dtype, X.data.data(), (n * C + c) * in_size + i);
            const std::size_t g = c / cg;
            for (std::size_t mm = 0; mm < mg; ++mm)
              acc[(n * M + g * mg + mm) * out_size + off] +=
                  x * get(Wt.def->dtype, Wt.data.data(), (c * mg + mm) * k_size + kk);
          }
      for (std::size_t d = nsp; d-- > 0;) {
        if (++kp[d] < w.kernel[d]) break;
        kp[d] = 0;
      }
    }
    for (std::size_t d = nsp; d-- > 0;) {
      if (++ip[d] < in_sp[d]) break;
      ip[d] = 0;
    }
  }
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t m = 0; m < M; ++m) {
      const double bias = a.present(2) ? get(a.in(2).def->dtype, a.in(2).data.data(), m) : 0.0;
      for (std::size_t o = 0; o < out_size; ++o)
        put(v.declared->dtype, out.data(), (n * M + m) * out_size + o, acc[(n * M + m) * out_size + o] + bias);
    }
  return true;
}

/// What a pool computes over its window: the mean, the maximum, or the p-norm (sum |x|^p)^(1/p).
enum class Pool { average, max, lp };

/// AveragePool / MaxPool / LpPool over N-d windows. Attributes (in table order):
/// average: auto_pad, ceil_mode, count_include_pad, kernel_shape, pads, strides;
/// max:     auto_pad, ceil_mode, dilations, kernel_shape, pads, storage_order, strides, output
/// (output 1: the flat position of each maximum in X, row-major, or column-major within its
/// plane with storage_order 1);
/// lp:      auto_pad, kernel_shape, p, pads, strides (padding adds nothing).
template <Pool P>
bool pool(const OpView& v, std::span<std::byte> out, std::size_t na) {
  constexpr bool is_max = P == Pool::max;
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& X = a.in(0);
  const Dims xd = dims_of(*X.def), od = dims_of(*v.declared);
  if (xd.size() < 3 || od.size() != xd.size()) return false;
  const std::size_t nsp = xd.size() - 2, NC = xd[0] * xd[1];
  const Dims in_sp(xd.begin() + 2, xd.end()), out_sp(od.begin() + 2, od.end());
  Window w;
  const int auto_pad = static_cast<int>(a.attr_int(0));
  constexpr std::size_t kernel_at = P == Pool::lp ? 1 : 3, pads_at = P == Pool::lp ? 3 : 4,
                        strides_at = P == Pool::lp    ? 4
                                     : P == Pool::max ? 6
                                                      : 5;
  const bool ok =
      make_window(w, nsp, a.attr_ints(kernel_at), a.attr_ints(strides_at),
                  is_max ? a.attr_ints(2) : std::vector<std::int64_t>{}, a.attr_ints(pads_at), auto_pad, in_sp, out_sp);
  if (!ok || od[0] * od[1] != NC) return false;
  const bool include_pad = P == Pool::average && a.attr_int(2) != 0;
  const bool indices = is_max && na > 7 && a.attr_int(7) == 1;
  const double p_norm = P == Pool::lp ? a.attr_scalar(2) : 0.0;
  const std::size_t in_size = count(in_sp), out_size = count(out_sp), k_size = count(w.kernel);
  const Dims is = strides_of(in_sp);
  Dims op(nsp, 0);
  for (std::size_t o = 0; o < out_size; ++o) {
    std::vector<std::size_t> taps;
    std::size_t padded = 0;  // window positions inside the padded input
    Dims kp(nsp, 0);
    for (std::size_t kk = 0; kk < k_size; ++kk) {
      std::size_t off = 0;
      bool inside = true, in_padded = true;
      for (std::size_t d = 0; d < nsp; ++d) {
        const std::int64_t p = static_cast<std::int64_t>(op[d] * w.stride[d] + kp[d] * w.dilation[d]) - w.pad_begin[d];
        if (p < -w.pad_begin[d] || p >= static_cast<std::int64_t>(in_sp[d]) + w.pad_end[d]) in_padded = false;
        if (p < 0 || p >= static_cast<std::int64_t>(in_sp[d]))
          inside = false;
        else
          off += static_cast<std::size_t>(p) * is[d];
      }
      if (inside) taps.push_back(off);
      if (in_padded) ++padded;
      for (std::size_t d = nsp; d-- > 0;) {
        if (++kp[d] < w.kernel[d]) break;
        kp[d] = 0;
      }
    }
    for (std::size_t c = 0; c < NC; ++c) {
      double r = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
      std::size_t arg = taps.empty() ? 0 : taps[0];
      for (std::size_t t : taps) {
        const double e = get(X.def->dtype, X.data.data(), c * in_size + t);
        if constexpr (is_max) {
          if (e > r) {
            r = e;
            arg = t;
          }
        } else if constexpr (P == Pool::lp) {
          r += std::pow(std::fabs(e), p_norm);
        } else {
          r += e;
        }
      }
      if constexpr (P == Pool::average) r /= static_cast<double>(include_pad ? padded : taps.size());
      if constexpr (P == Pool::lp) r = std::pow(r, 1.0 / p_norm);
      if (is_max && indices) {
        std::size_t pos = arg;
        if (a.attr_int(5) != 0) {  // column-major within the plane: the spatial index reversed
          const Dims sp = unravel(arg, in_sp);
          pos = 0;
          for (std::size_t d = nsp; d-- > 0;) pos = pos * in_sp[d] + sp[d];
        }
        store_int(v.declared->dtype, out.data(), c * out_size + o, static_cast<std::int64_t>(c * in_size + pos));
      } else {
        put(v.declared->dtype, out.data(), c * out_size + o, r);
      }
    }
    for (std::size_t d = nsp; d-- > 0;) {
      if (++op[d] < out_sp[d]) break;
      op[d] = 0;
    }
  }
  return true;
}

/// GlobalAveragePool / GlobalMaxPool / GlobalLpPool(p): one value per (n, c).
template <Pool P>
bool global_pool(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const ValueView& X = a.in(0);
  const Dims xd = dims_of(*X.def);
  if (xd.size() < 2) return false;
  const std::size_t NC = xd[0] * xd[1], sp = count(xd) / std::max<std::size_t>(1, NC);
  if (NC != v.declared->element_count()) return false;
  const double p_norm = P == Pool::lp ? a.attr_scalar(0) : 0.0;
  for (std::size_t c = 0; c < NC; ++c) {
    double r = P == Pool::max ? -std::numeric_limits<double>::infinity() : 0.0;
    for (std::size_t i = 0; i < sp; ++i) {
      const double e = get(X.def->dtype, X.data.data(), c * sp + i);
      r = P == Pool::max ? std::max(r, e) : P == Pool::lp ? r + std::pow(std::fabs(e), p_norm) : r + e;
    }
    put(v.declared->dtype, out.data(), c,
        P == Pool::max  ? r
        : P == Pool::lp ? std::pow(r, 1.0 / p_norm)
                        : r / static_cast<double>(sp));
  }
  return true;
}

/// BatchNormalization(epsilon, momentum, training_mode; X, scale, B, mean, var), inference.
inline bool batch_norm(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data() || a.attr_int(2) != 0 || a.n_inputs() < 5) return false;
  const ValueView& X = a.in(0);
  const Dims xd = dims_of(*X.def);
  if (xd.size() < 2 || X.def->element_count() != v.declared->element_count()) return false;
  const double eps = a.attr_scalar(0);
  const std::size_t C = xd[1], inner = count(xd) / std::max<std::size_t>(1, xd[0] * C);
  for (std::size_t k = 1; k < 5; ++k)
    if (a.in(k).def->element_count() != C) return false;
  auto at = [&](std::size_t k, std::size_t c) { return get(a.in(k).def->dtype, a.in(k).data.data(), c); };
  for (std::size_t i = 0; i < X.def->element_count(); ++i) {
    const std::size_t c = (i / inner) % C;
    const double x = get(X.def->dtype, X.data.data(), i);
    put(v.declared->dtype, out.data(), i, (x - at(3, c)) / std::sqrt(at(4, c) + eps) * at(1, c) + at(2, c));
  }
  return true;
}

// ---- resize ---------------------------------------------------------------------------------

/// Resize's choices, in the order of the attributes' choice lists.
enum class CoordMode : int {
  half_pixel,
  pytorch_half_pixel,
  align_corners,
  asymmetric,
  tf_half_pixel_for_nn,
  tf_crop_and_resize
};
enum class ResizeMode : int { nearest, linear, cubic };
enum class NearestMode : int { round_prefer_floor, round_prefer_ceil, floor, ceil };

/// Resize(coordinate_transformation_mode, cubic_coeff_a, exclude_outside, extrapolation_value,
/// mode, nearest_mode; X, roi, scales, sizes), opset 11-17: separable per axis; each output
/// coordinate reads a few input positions (edge-clamped) with weights.
inline bool resize(const OpView& v, std::span<std::byte> out, std::size_t na) {
  Args a{v, na};
  if (!a.inputs_have_data()) return false;
  const auto coord = static_cast<CoordMode>(a.attr_int(0));
  const double A = a.attr_scalar(1);
  const bool exclude = a.attr_int(2) != 0;
  const double extrapolation = a.attr_scalar(3);
  const auto mode = static_cast<ResizeMode>(a.attr_int(4));
  const auto nearest = static_cast<NearestMode>(a.attr_int(5));
  const ValueView& X = a.in(0);
  const Dims xd = dims_of(*X.def), od = dims_of(*v.declared), xs = strides_of(xd);
  const std::size_t r = xd.size();
  if (od.size() != r) return false;
  // An empty input has nothing to sample for a non-empty output.
  if (X.def->element_count() == 0 && v.declared->element_count() != 0) return false;
  std::vector<double> roi, scales;
  if (a.present(1))
    for (std::size_t i = 0; i < a.in(1).def->element_count(); ++i)
      roi.push_back(get(a.in(1).def->dtype, a.in(1).data.data(), i));
  if (a.present(2))
    for (std::size_t i = 0; i < a.in(2).def->element_count(); ++i)
      scales.push_back(get(a.in(2).def->dtype, a.in(2).data.data(), i));
  if (!scales.empty() && scales.size() != r) return false;
  // With scales (no crop box), each output length is floor(input length * scale) in float.
  if (coord != CoordMode::tf_crop_and_resize)
    for (std::size_t k = 0; k < scales.size(); ++k)
      if (static_cast<double>(std::floor(static_cast<float>(xd[k]) * static_cast<float>(scales[k]))) !=
          static_cast<double>(od[k]))
        return false;
  struct Tap {
    std::size_t offset;
    double weight;
  };
  // Per axis and output coordinate: the taps (input offset along the axis, weight); an empty
  // list means "outside the crop box" (tf_crop_and_resize extrapolation).
  std::vector<std::vector<std::vector<Tap>>> taps(r);
  for (std::size_t k = 0; k < r; ++k) {
    const double in = static_cast<double>(xd[k]), outl = static_cast<double>(od[k]);
    const double scale = scales.empty() ? outl / in : scales[k];
    taps[k].resize(od[k]);
    for (std::size_t o = 0; o < od[k]; ++o) {
      const double oc = static_cast<double>(o);
      double x = 0;
      switch (coord) {
        case CoordMode::half_pixel: x = (oc + 0.5) / scale - 0.5; break;
        case CoordMode::pytorch_half_pixel: x = od[k] > 1 ? (oc + 0.5) / scale - 0.5 : 0.0; break;
        case CoordMode::align_corners: {
          // With scales, ONNX's reference takes the unrounded output length in * scale.
          const double len = scales.empty() ? outl : in * scale;
          x = od[k] == 1 ? 0.0 : oc * (in - 1) / (len - 1);
          break;
        }
        case CoordMode::asymmetric: x = oc / scale; break;
        case CoordMode::tf_half_pixel_for_nn: x = (oc + 0.5) / scale; break;
        case CoordMode::tf_crop_and_resize: {
          if (roi.size() != 2 * r) return false;
          const double s0 = roi[k], e0 = roi[r + k];
          x = od[k] > 1 ? s0 * (in - 1) + oc * (e0 - s0) * (in - 1) / (outl - 1) : 0.5 * (s0 + e0) * (in - 1);
          if (x < 0 || x > in - 1) continue;  // no taps: extrapolated
          break;
        }
      }
      // A scale of 0 or a huge one gives an infinite or NaN coordinate: every tap past an edge
      // reads the edge, so x is kept within 4 of the input before it becomes an integer.
      x = std::isnan(x) ? 0.0 : std::clamp(x, -4.0, in + 4.0);
      auto clamp_index = [&](std::int64_t i) {
        return static_cast<std::size_t>(std::clamp<std::int64_t>(i, 0, static_cast<std::int64_t>(xd[k]) - 1));
      };
      auto& t = taps[k][o];
      if (mode == ResizeMode::nearest) {
        double n = 0;
        const double fl = std::floor(x);
        switch (nearest) {
          case NearestMode::round_prefer_floor: n = x == fl + 0.5 ? fl : std::round(x); break;
          case NearestMode::round_prefer_ceil: n = x == fl + 0.5 ? fl + 1 : std::round(x); break;
          case NearestMode::floor: n = fl; break;
          case NearestMode::ceil: n = std::ceil(x); break;
        }
        t.push_back({clamp_index(static_cast<std::int64_t>(n)) * xs[k], 1.0});
        continue;
      }
      const double fl = std::floor(x), ratio = x - fl;
      const auto x0 = static_cast<std::int64_t>(fl);
      std::vector<std::pair<std::int64_t, double>> w;
      if (mode == ResizeMode::linear) {
        w = {{x0, 1.0 - ratio}, {x0 + 1, ratio}};
      } else {
        auto c = [&](double d) {  // Keys' cubic kernel with coefficient A, |d| in [0, 2)
          d = std::fabs(d);
          if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
          return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
        };
        w = {{x0 - 1, c(ratio + 1)}, {x0, c(ratio)}, {x0 + 1, c(1 - ratio)}, {x0 + 2, c(2 - ratio)}};
      }
      if (exclude) {
        double sum = 0;
        for (auto& [i, wt] : w) {
          if (i < 0 || i >= static_cast<std::int64_t>(xd[k])) wt = 0;
          sum += wt;
        }
        if (sum != 0)
          for (auto& p : w) p.second /= sum;
      }
      for (const auto& [i, wt] : w)
        if (wt != 0) t.push_back({clamp_index(i) * xs[k], wt});
      if (t.empty()) t.push_back({clamp_index(x0) * xs[k], 0.0});
    }
  }
  Dims idx(r, 0);
  const std::size_t n = count(od);
  std::vector<std::size_t> pos(r, 0);
  for (std::size_t i = 0; i < n; ++i) {
    bool outside = false;
    for (std::size_t k = 0; k < r; ++k)
      if (taps[k][idx[k]].empty()) outside = true;
    double sum = 0;
    if (outside) {
      sum = extrapolation;
    } else {
      // Every combination of one tap per axis.
      std::fill(pos.begin(), pos.end(), 0);
      for (;;) {
        std::size_t off = 0;
        double wt = 1;
        for (std::size_t k = 0; k < r; ++k) {
          const Tap& t = taps[k][idx[k]][pos[k]];
          off += t.offset;
          wt *= t.weight;
        }
        sum += wt * get(X.def->dtype, X.data.data(), off);
        std::size_t k = r;
        while (k-- > 0) {
          if (++pos[k] < taps[k][idx[k]].size()) break;
          pos[k] = 0;
        }
        if (k == static_cast<std::size_t>(-1)) break;
      }
    }
    put(v.declared->dtype, out.data(), i, sum);
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < od[k]) break;
      idx[k] = 0;
    }
  }
  return true;
}

}  // namespace optgrammar::ops::onnx_eval
