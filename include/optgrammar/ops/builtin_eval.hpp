// Evaluation of the builtin ops on constant data: the glue between graph values (OutputDef plus
// bytes) and the freestanding fold/ kernels, plus plain loops for the ops fold/ has no kernel
// for (Concat, Slice_shape, Conv2d). Used by the op definitions' eval functions (builtin.hpp),
// hence by the constant folder (Backend::fast) and the reference interpreter (Backend::reference).
#pragma once

#include "optgrammar/fold/kernels.hpp"
#include "optgrammar/ops/definition.hpp"
#include "optgrammar/ops/onnx_eval.hpp"

#include <array>
#include <cstring>
#include <optional>
#include <vector>

namespace optgrammar::ops::eval {

/// The fold/ shape of an output definition; nullopt past rank 4 (the kernels' limit).
inline std::optional<fold::Shape> fold_shape(const OutputDef& d) {
  if (d.rank > 4) return std::nullopt;
  fold::Shape s;
  s.rank = static_cast<int>(d.rank);
  for (std::uint32_t i = 0; i < d.rank; ++i) s.dims[i] = static_cast<std::int64_t>(d.dims[i]);
  return s;
}

/// The index/ shape of an output definition.
inline index::Shape index_shape(const OutputDef& d) {
  index::Shape s;
  for (std::uint32_t i = 0; i < d.rank; ++i) s.push_back(static_cast<std::int64_t>(d.dims[i]));
  return s;
}

/// Calls f(T{}) with T the storage type of t (float, int32_t, uint8_t, ...); false for Float16
/// and the plain types after Int32 (Float64, BFloat16, Int8, ..., Bool), which no kernel takes:
/// folding leaves such ops as they are.
template <class F>
bool with_storage(DType t, F&& f) {
  switch (t) {
    case DType::Float32: return f(float{});
    case DType::Int32:
    case DType::QInt32: return f(std::int32_t{});
    case DType::QUInt8: return f(std::uint8_t{});
    case DType::QInt8: return f(std::int8_t{});
    case DType::QUInt16: return f(std::uint16_t{});
    case DType::QInt16: return f(std::int16_t{});
    default: return false;
  }
}

/// Calls f(B{}) with B the backend type Backend names.
template <class F>
bool with_backend(Backend be, F&& f) {
  if (be == Backend::reference) return f(fold::reference::backend{});
  return f(fold::kernels::backend{});
}

template <class T>
const T* ptr(const ValueView& v) {
  return reinterpret_cast<const T*>(v.data.data());
}
template <class T>
T* ptr(std::span<std::byte> out) {
  return reinterpret_cast<T*>(out.data());
}

/// The value has its bytes and they fill its definition.
inline bool has_data(const ValueView& v) { return v.known && v.def && v.data.size() == v.def->byte_size(); }

inline fold::QuantParams quant(const OutputDef& d) { return {d.stepsize, d.zero_offset}; }

/// Element 0 of a one-element-or-more value of storage type T.
template <class T>
std::optional<T> first(const ValueView& v) {
  if (!has_data(v) || v.data.size() < sizeof(T)) return std::nullopt;
  T x;
  std::memcpy(&x, v.data.data(), sizeof(T));
  return x;
}

/// Int32 values of a `$Const` of Int32 dtype, or the dims of a `$Shape`.
inline std::optional<std::vector<std::int64_t>> int_values(const ValueView& v) {
  if (!v.def) return std::nullopt;
  std::vector<std::int64_t> out;
  if (v.is_shape) {
    for (std::uint32_t i = 0; i < v.def->rank; ++i) out.push_back(static_cast<std::int64_t>(v.def->dims[i]));
    return out;
  }
  if (!has_data(v) || v.def->dtype != DType::Int32) return std::nullopt;
  for (std::size_t i = 0; i < v.def->element_count(); ++i) {
    std::int32_t x;
    std::memcpy(&x, v.data.data() + 4 * i, 4);
    out.push_back(x);
  }
  return out;
}

// ---- elementwise through fold/ --------------------------------------------------------------

template <fold::BinOp op>
bool binary(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView &a = v.operands[0], &b = v.operands[1];
  const OutputDef& o = *v.declared;
  if (!has_data(a) || !has_data(b) || a.def->dtype != o.dtype || b.def->dtype != o.dtype) return false;
  if (o.dtype != DType::Float32 && o.dtype != DType::Int32) return false;
  auto sa = fold_shape(*a.def), sb = fold_shape(*b.def), so = fold_shape(o);
  if (!sa || !sb || !so) {  // past rank 4: the operands broadcast into whole arrays, then the kernel
    auto oa = onnx_eval::broadcast_offsets(onnx_eval::dims_of(*a.def), onnx_eval::dims_of(o));
    auto ob = onnx_eval::broadcast_offsets(onnx_eval::dims_of(*b.def), onnx_eval::dims_of(o));
    if (!oa || !ob) return false;
    return with_storage(o.dtype, [&](auto t) {
      using T = decltype(t);
      std::vector<T> xa(oa->size()), xb(ob->size());
      for (std::size_t i = 0; i < xa.size(); ++i) xa[i] = ptr<T>(a)[(*oa)[i]], xb[i] = ptr<T>(b)[(*ob)[i]];
      return with_backend(be, [&](auto bk) {
        decltype(bk)::template binary<op>(xa.data(), xb.data(), ptr<T>(out), xa.size());
        return true;
      });
    });
  }
  return with_storage(o.dtype, [&](auto t) {
    using T = decltype(t);
    return with_backend(be, [&](auto bk) {
      using B = decltype(bk);
      return fold::binary_broadcast<B, op>(ptr<T>(a), *sa, ptr<T>(b), *sb, ptr<T>(out), *so);
    });
  });
}

template <fold::UnOp op>
bool unary(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || x.def->dtype != o.dtype || !x.def->same_shape(o)) return false;
  if (o.dtype != DType::Float32 && o.dtype != DType::Int32) return false;
  return with_storage(o.dtype, [&](auto t) {
    using T = decltype(t);
    return with_backend(be, [&](auto bk) {
      decltype(bk)::template unary<op>(ptr<T>(x), ptr<T>(out), o.element_count());
      return true;
    });
  });
}

/// ReluMinMax / Clamp (x, lo, hi): lo and hi are element 0 of their operands.
inline bool clamp(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || x.def->dtype != o.dtype || !x.def->same_shape(o)) return false;
  if (v.operands[1].def->dtype != o.dtype || v.operands[2].def->dtype != o.dtype) return false;
  if (o.dtype == DType::Float16) return false;
  return with_storage(o.dtype, [&](auto t) {
    using T = decltype(t);
    auto lo = first<T>(v.operands[1]), hi = first<T>(v.operands[2]);
    if (!lo || !hi) return false;
    return with_backend(be, [&](auto bk) {
      decltype(bk)::clamp(ptr<T>(x), ptr<T>(out), o.element_count(), *lo, *hi);
      return true;
    });
  });
}

/// Cast converts storage values (quantization parameters are not applied).
inline bool cast(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || !x.def->same_shape(o)) return false;
  return with_storage(x.def->dtype, [&](auto f) {
    using From = decltype(f);
    return with_storage(o.dtype, [&](auto t) {
      using To = decltype(t);
      return with_backend(be, [&](auto bk) {
        decltype(bk)::template cast<To>(ptr<From>(x), ptr<To>(out), o.element_count());
        return true;
      });
    });
  });
}

inline bool quantize(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || x.def->dtype != DType::Float32 || !x.def->same_shape(o) ||
      !dtypes::quant_storage.contains(o.dtype))
    return false;
  const fold::QuantizeParams p = fold::quantize_params(quant(o));
  return with_storage(o.dtype, [&](auto t) {
    using Q = decltype(t);
    if constexpr (fold::is_float_v<Q>)
      return false;
    else
      return with_backend(be, [&](auto bk) {
        decltype(bk)::quantize(ptr<float>(x), ptr<Q>(out), o.element_count(), p);
        return true;
      });
  });
}

inline bool dequantize(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || o.dtype != DType::Float32 || !x.def->same_shape(o) || !dtypes::quantized.contains(x.def->dtype))
    return false;
  const fold::QuantParams p = quant(*x.def);
  return with_storage(x.def->dtype, [&](auto t) {
    using Q = decltype(t);
    if constexpr (fold::is_float_v<Q>)
      return false;
    else
      return with_backend(be, [&](auto bk) {
        decltype(bk)::dequantize(ptr<Q>(x), ptr<float>(out), o.element_count(), p);
        return true;
      });
  });
}

inline bool requantize(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || !x.def->same_shape(o) || !dtypes::quantized.contains(x.def->dtype) ||
      !dtypes::quantized.contains(o.dtype))
    return false;
  const fold::RequantParams p = fold::make_requant_params(quant(*x.def), quant(o));
  return with_storage(x.def->dtype, [&](auto i) {
    using In = decltype(i);
    return with_storage(o.dtype, [&](auto t) {
      using Out = decltype(t);
      if constexpr (fold::is_float_v<In> || fold::is_float_v<Out>)
        return false;
      else
        return with_backend(be, [&](auto bk) {
          decltype(bk)::template requantize<Out>(ptr<In>(x), ptr<Out>(out), o.element_count(), p);
          return true;
        });
    });
  });
}

/// QuantizedAdd (mul == false) and QuantizedMul: parameters from the three quantizations.
template <bool mul>
bool quantized_binary(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView &a = v.operands[0], &b = v.operands[1];
  const OutputDef& o = *v.declared;
  if (!has_data(a) || !has_data(b) || a.def->dtype != o.dtype || b.def->dtype != o.dtype ||
      !dtypes::quant_storage.contains(o.dtype))
    return false;
  auto sa = fold_shape(*a.def), sb = fold_shape(*b.def), so = fold_shape(o);
  if (!sa || !sb || !so) return false;
  return with_storage(o.dtype, [&](auto t) {
    using Q = decltype(t);
    if constexpr (fold::is_quant_storage_v<Q>) {
      return with_backend(be, [&](auto bk) {
        using B = decltype(bk);
        if constexpr (mul)
          return fold::qmul_broadcast<B>(ptr<Q>(a), *sa, ptr<Q>(b), *sb, ptr<Q>(out), *so,
                                         fold::make_qmul_params<Q>(quant(*a.def), quant(*b.def), quant(o)));
        else
          return fold::qadd_broadcast<B>(ptr<Q>(a), *sa, ptr<Q>(b), *sb, ptr<Q>(out), *so,
                                         fold::make_qadd_params<Q>(quant(*a.def), quant(*b.def), quant(o)));
      });
    } else {
      return false;
    }
  });
}

// ---- layout -------------------------------------------------------------------------------

/// Calls f(U{}) with an unsigned type of the element size (1, 2 or 4 bytes).
template <class F>
bool with_element_size(std::size_t size, F&& f) {
  switch (size) {
    case 1: return f(std::uint8_t{});
    case 2: return f(std::uint16_t{});
    case 4: return f(std::uint32_t{});
    default: return false;
  }
}

inline bool transpose(const OpView& v, std::span<std::byte> out, Backend) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (x.def->rank > 4 && x.def->rank <= max_rank) {  // past the fold kernels: ONNX's loop
    const std::array<ValueView, 2> perm_first{v.operands[1], x};
    return onnx_eval::transpose(OpView{std::span<const ValueView>(perm_first), v.declared}, out, 1);
  }
  auto perm = int_values(v.operands[1]);
  auto sx = fold_shape(*x.def);
  if (!has_data(x) || !perm || !sx || perm->size() != x.def->rank || x.def->dtype != o.dtype) return false;
  int p[4] = {0, 1, 2, 3};
  for (std::size_t i = 0; i < perm->size(); ++i) p[i] = static_cast<int>((*perm)[i]);
  fold::Shape so;
  if (!fold::transpose_shape(*sx, p, so) || !fold::same_shape(so, *fold_shape(o))) return false;
  return with_element_size(element_size(o.dtype), [&](auto u) {
    using U = decltype(u);
    return fold::transpose(ptr<U>(x), *sx, p, ptr<U>(out));
  });
}

/// Reshape: the row-major bytes are unchanged.
inline bool copy_same_bytes(const OpView& v, std::span<std::byte> out, Backend) {
  const ValueView& x = v.operands[0];
  if (!has_data(x) || x.data.size() != out.size() || x.def->dtype != v.declared->dtype) return false;
  if (!out.empty()) std::memcpy(out.data(), x.data.data(), out.size());
  return true;
}

/// The concatenation axis of Concat: the dimension d for which the operands, joined along d,
/// give the declared shape (the lowest such d). nullopt when none does.
/// Whether the operands, joined along dimension d, give the declared shape.
inline bool concat_joins_along(std::span<const ValueView> in, const OutputDef& o, std::uint32_t d) {
  if (in.empty() || d >= o.rank) return false;
  std::size_t sum = 0;
  for (const auto& x : in) {
    if (x.def->rank != o.rank) return false;
    for (std::uint32_t k = 0; k < o.rank; ++k)
      if (k != d && x.def->dims[k] != o.dims[k]) return false;
    sum += x.def->dims[d];
  }
  return sum == o.dims[d];
}

inline std::optional<std::uint32_t> concat_axis(std::span<const ValueView> in, const OutputDef& o) {
  for (std::uint32_t d = 0; d < o.rank; ++d)
    if (concat_joins_along(in, o, d)) return d;
  return std::nullopt;
}

/// How a Concat's operands read: the parts (all operands, or all but a leading axis) and the axis.
struct ConcatForm {
  std::size_t first_part = 0;  ///< 1 when operand 0 is the axis
  std::uint32_t axis = 0;
};

/// The axis form `Concat(axis, parts...)` (AUTOSPLIT's join; `axis` a one-element Int32
/// constant) when operand 0 is such a constant and the parts joined along it give the declared
/// shape (one part, or parts of extent 0, join along several axes: the given one counts); else
/// the parts are all operands and the axis is found from the shapes (concat_axis).
inline std::optional<ConcatForm> concat_form(std::span<const ValueView> in, const OutputDef& o) {
  if (in.size() >= 2 && in[0].def && in[0].def->dtype == DType::Int32 && in[0].def->element_count() == 1 &&
      !in[0].is_shape)
    if (auto a = first<std::int32_t>(in[0]); a && *a >= 0 && static_cast<std::uint32_t>(*a) < o.rank)
      if (concat_joins_along(in.subspan(1), o, static_cast<std::uint32_t>(*a)))
        return ConcatForm{1, static_cast<std::uint32_t>(*a)};
  if (auto axis = concat_axis(in, o)) return ConcatForm{0, *axis};
  return std::nullopt;
}

inline bool concat(const OpView& v, std::span<std::byte> out, Backend) {
  const OutputDef& o = *v.declared;
  auto form = concat_form(v.operands, o);
  if (!form) return false;
  const auto parts = v.operands.subspan(form->first_part);
  const std::optional<std::uint32_t> axis = form->axis;
  const std::size_t es = element_size(o.dtype);
  std::size_t outer = 1, inner = es;
  for (std::uint32_t k = 0; k < *axis; ++k) outer *= o.dims[k];
  for (std::uint32_t k = *axis + 1; k < o.rank; ++k) inner *= o.dims[k];
  for (const auto& x : parts)
    if (!has_data(x) || x.def->dtype != o.dtype) return false;
  std::byte* dst = out.data();
  for (std::size_t i = 0; i < outer; ++i)
    for (const auto& x : parts) {
      const std::size_t row = x.def->dims[*axis] * inner;
      if (row) std::memcpy(dst, x.data.data() + i * row, row);
      dst += row;
    }
  return true;
}

/// Slice_shape(in, start, size): the box [start, start + size) of `in`; the output's shape is
/// the declared one (WITH_SIZE(size, ...)), start comes from the `$Shape` (or Int32 `$Const`).
inline bool slice(const OpView& v, std::span<std::byte> out, Backend) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  auto start = int_values(v.operands[1]);
  if (!has_data(x) || !start || start->size() != x.def->rank || o.rank != x.def->rank || o.dtype != x.def->dtype)
    return false;
  const std::uint32_t r = o.rank;
  for (std::uint32_t k = 0; k < r; ++k)
    if ((*start)[k] < 0 || static_cast<std::size_t>((*start)[k]) + o.dims[k] > x.def->dims[k]) return false;
  const std::size_t es = element_size(o.dtype), n = o.element_count();
  if (n == 0) return true;
  if (r == 0) {
    std::memcpy(out.data(), x.data.data(), es);
    return true;
  }
  std::vector<std::size_t> stride(r, 1), idx(r, 0);
  for (std::uint32_t k = r - 1; k > 0; --k) stride[k - 1] = stride[k] * x.def->dims[k];
  const std::size_t row = o.dims[r - 1] * es;
  std::byte* dst = out.data();
  for (std::size_t done = 0; done < n; done += o.dims[r - 1]) {
    std::size_t off = 0;
    for (std::uint32_t k = 0; k < r; ++k) off += (idx[k] + static_cast<std::size_t>((*start)[k])) * stride[k];
    std::memcpy(dst, x.data.data() + off * es, row);
    dst += row;
    for (std::uint32_t k = r - 1; k-- > 0;) {  // odometer over all but the last axis
      if (++idx[k] < o.dims[k]) break;
      idx[k] = 0;
    }
  }
  return true;
}

// ---- convolution (ops/ reference loops; fold/ has no convolution kernel) --------------------

/// Conv2d(x NHWC, w [KH, KW, Cin, Cout]) with stride 1 and "same" zero padding (pad before =
/// (K-1)/2): out[n,h,w,co] = sum over kh, kw, ci (in that order, from +0.0f) of
/// x[n, h+kh-ph, w+kw-pw, ci] * w[kh,kw,ci,co]. f32 only.
inline bool conv2d_f32(const ValueView& x, const ValueView& w, const OutputDef& o, float* out) {
  if (!has_data(x) || !has_data(w) || x.def->dtype != DType::Float32 || w.def->dtype != DType::Float32) return false;
  const OutputDef &xd = *x.def, &wd = *w.def;
  if (xd.rank != 4 || wd.rank != 4 || o.rank != 4 || wd.dims[2] != xd.dims[3] || o.dims[3] != wd.dims[3] ||
      o.dims[0] != xd.dims[0] || o.dims[1] != xd.dims[1] || o.dims[2] != xd.dims[2])
    return false;
  const std::size_t N = xd.dims[0], H = xd.dims[1], W = xd.dims[2], CI = xd.dims[3];
  const std::size_t KH = wd.dims[0], KW = wd.dims[1], CO = wd.dims[3];
  const std::ptrdiff_t ph = static_cast<std::ptrdiff_t>((KH - 1) / 2), pw = static_cast<std::ptrdiff_t>((KW - 1) / 2);
  const float* xp = ptr<float>(x);
  const float* wp = ptr<float>(w);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t ww = 0; ww < W; ++ww)
        for (std::size_t co = 0; co < CO; ++co) {
          float acc = 0.0f;
          for (std::size_t kh = 0; kh < KH; ++kh) {
            const std::ptrdiff_t ih = static_cast<std::ptrdiff_t>(h + kh) - ph;
            if (ih < 0 || ih >= static_cast<std::ptrdiff_t>(H)) continue;
            for (std::size_t kw = 0; kw < KW; ++kw) {
              const std::ptrdiff_t iw = static_cast<std::ptrdiff_t>(ww + kw) - pw;
              if (iw < 0 || iw >= static_cast<std::ptrdiff_t>(W)) continue;
              const float* xr = xp + ((n * H + static_cast<std::size_t>(ih)) * W + static_cast<std::size_t>(iw)) * CI;
              const float* wr = wp + (kh * KW + kw) * CI * CO + co;
              for (std::size_t ci = 0; ci < CI; ++ci) acc += xr[ci] * wr[ci * CO];
            }
          }
          out[((n * H + h) * W + ww) * CO + co] = acc;
        }
  return true;
}

inline bool conv2d(const OpView& v, std::span<std::byte> out, Backend) {
  return conv2d_f32(v.operands[0], v.operands[1], *v.declared, ptr<float>(out));
}

/// out = x + b broadcast (in place over out), then relu when asked: the same kernel calls as
/// BiasAdd followed by Relu, so a fused ConvBiasRelu gives the unfused chain's bits.
inline bool bias_then(const OutputDef& o, std::span<std::byte> out, const ValueView& b, bool relu, Backend be) {
  if (!has_data(b) || b.def->dtype != o.dtype || o.dtype != DType::Float32) return false;
  auto so = fold_shape(o), sb = fold_shape(*b.def);
  if (!so || !sb) return false;
  return with_backend(be, [&](auto bk) {
    using B = decltype(bk);
    float* p = ptr<float>(out);
    if (!fold::binary_broadcast<B, fold::BinOp::add>(p, *so, ptr<float>(b), *sb, p, *so)) return false;
    if (relu) B::template unary<fold::UnOp::relu>(p, p, o.element_count());
    return true;
  });
}

inline bool bias_add(const OpView& v, std::span<std::byte> out, Backend be) {
  const ValueView& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (!has_data(x) || x.def->dtype != DType::Float32 || !x.def->same_shape(o) || o.dtype != DType::Float32)
    return false;
  std::memcpy(out.data(), x.data.data(), out.size());
  return bias_then(o, out, v.operands[1], false, be);
}

inline bool conv_bias_relu(const OpView& v, std::span<std::byte> out, Backend be) {
  if (!conv2d_f32(v.operands[0], v.operands[1], *v.declared, ptr<float>(out))) return false;
  return bias_then(*v.declared, out, v.operands[2], true, be);
}

/// Output: the value it reads.
inline bool identity(const OpView& v, std::span<std::byte> out, Backend be) { return copy_same_bytes(v, out, be); }

}  // namespace optgrammar::ops::eval
