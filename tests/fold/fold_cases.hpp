// Backend-vs-reference checks of the folding kernels, shared by the host Catch2 tests
// (portable backend) and the Hexagon programs run under qemu (hvx backend). Freestanding like
// the kernels: static buffers, no allocation, no library calls.
//
// Every check runs a kernel of Backend and the reference kernel on the same inputs and
// compares the outputs bit for bit (floats: equal bits, or NaN on both sides). Inputs mix
// uniform random values with edge values (type limits, 0, +-1, zero points, halves that make
// rounding ties, NaN/inf), over lengths around vector and block sizes (odd lengths, tails) and
// at unaligned start offsets.
#pragma once

#include "optgrammar/fold/kernels.hpp"

namespace fold_test {

namespace fold = optgrammar::fold;
using fold::BinOp;
using fold::UnOp;

/// splitmix64: small, good enough, identical everywhere.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }
  /// Uniform in [lo, hi] (hi - lo < 2^32).
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(unsigned one_in) { return u32() % one_in == 0; }
};

/// Where results go: `check` is called once per compared buffer.
struct Sink {
  virtual void check(const char* kernel, const char* type, bool ok, int64_t index, int64_t got, int64_t want) = 0;

 protected:
  ~Sink() = default;  // never deleted through the base (no operator delete on Hexagon)
};

template <class T>
constexpr const char* type_name() {
  if constexpr (fold::is_same_v<T, float>)
    return "f32";
  else if constexpr (fold::is_same_v<T, int32_t>)
    return "i32";
  else if constexpr (fold::is_same_v<T, uint8_t>)
    return "u8";
  else if constexpr (fold::is_same_v<T, int8_t>)
    return "i8";
  else if constexpr (fold::is_same_v<T, uint16_t>)
    return "u16";
  else
    return "i16";
}

inline constexpr size_t max_len = 1100;
inline constexpr size_t max_offset = 3;
// Lengths around 1/2/4-vector chunks (32/64/128 lanes) and the portable block (64).
inline constexpr size_t lengths[] = {0,  1,   2,   3,   7,   31,  32,  33,  63,  64,
                                     65, 127, 128, 129, 255, 256, 257, 511, 513, 1031};

/// Scratch: two inputs, the backend's output and the reference's output, each with room for
/// an unaligned start. Static so the Hexagon programs need no allocator.
struct Buffers {
  alignas(128) unsigned char in0[(max_len + max_offset) * 4 + 128];
  alignas(128) unsigned char in1[(max_len + max_offset) * 4 + 128];
  alignas(128) unsigned char got[(max_len + max_offset) * 4 + 128];
  alignas(128) unsigned char want[(max_len + max_offset) * 4 + 128];
};
inline Buffers g_buffers;  // namespace scope: no guard variable, no __cxa_guard_* needed
inline Buffers& buffers() { return g_buffers; }

inline float bits_to_float(uint32_t u) { return __builtin_bit_cast(float, u); }
inline uint32_t float_bits(float f) { return __builtin_bit_cast(uint32_t, f); }

/// A random value of T, often an edge value. `zp` is an extra interesting value (a zero point).
template <class T>
T random_value(Rng& r, int64_t zp = 0) {
  if constexpr (fold::is_float_v<T>) {
    switch (r.range(0, 15)) {
      case 0: return bits_to_float(0x7FC00000u);                                             // NaN
      case 1: return r.chance(2) ? bits_to_float(0x7F800000u) : bits_to_float(0xFF800000u);  // +-inf
      case 2: return r.chance(2) ? 0.0f : -0.0f;
      case 3: return static_cast<float>(r.range(-300, 300)) + 0.5f;  // a tie under step 1
      case 4: return static_cast<float>(r.range(-70000, 70000)) * 0.25f;
      case 5: return bits_to_float(r.u32());  // any bits
      case 6: return static_cast<float>(r.range(-2147483647 - 1, 2147483647)) * (r.chance(2) ? 1.0f : 2.0f);
      default: return static_cast<float>(static_cast<int32_t>(r.u32())) * 1.0e-7f;  // about +-215
    }
  } else {
    constexpr int64_t lo = fold::int_range<T>::lo, hi = fold::int_range<T>::hi;
    switch (r.range(0, 11)) {
      case 0: return static_cast<T>(lo);
      case 1: return static_cast<T>(hi);
      case 2: {
        const int64_t v = r.range(-1, 1);
        return static_cast<T>(v < lo ? 0 : v);
      }
      case 3: return static_cast<T>(zp < lo ? lo : zp > hi ? hi : zp);
      case 4: return static_cast<T>(lo + r.range(0, 2));
      case 5: return static_cast<T>(hi - r.range(0, 2));
      default: return static_cast<T>(r.range(lo, hi));
    }
  }
}

template <class T>
void fill(T* p, size_t n, Rng& r, int64_t zp = 0) {
  for (size_t i = 0; i < n; ++i) p[i] = random_value<T>(r, zp);
}

/// Values within `spread` of the zero point zp (in T's range): the products of a quantized
/// kernel stay small, so its results do not saturate and its rounding ties show.
template <class T>
void fill_near(T* p, size_t n, Rng& r, int64_t zp, int64_t spread) {
  for (size_t i = 0; i < n; ++i) {
    const int64_t v = zp + r.range(-spread, spread);
    p[i] = static_cast<T>(v < fold::int_range<T>::lo   ? fold::int_range<T>::lo
                          : v > fold::int_range<T>::hi ? fold::int_range<T>::hi
                                                       : v);
  }
}

/// Operands of a binary quantized kernel: random and edge values, or (one time in two) values
/// near the zero points.
template <class Q>
void fill_operands(Q* x, Q* y, size_t n, Rng& r, int64_t x_zp, int64_t y_zp) {
  if (r.chance(2)) {
    fill(x, n, r, x_zp);
    fill(y, n, r, y_zp);
  } else {
    fill_near(x, n, r, x_zp, 12);
    fill_near(y, n, r, y_zp, 12);
  }
}

template <class T>
bool same_bits(T a, T b) {
  if constexpr (fold::is_float_v<T>)
    return (a != a && b != b) || float_bits(a) == float_bits(b);
  else
    return a == b;
}
template <class T>
int64_t as_i64(T v) {
  if constexpr (fold::is_float_v<T>)
    return static_cast<int64_t>(float_bits(v));
  else
    return static_cast<int64_t>(v);
}

/// Compares n outputs; reports the first difference.
template <class T>
void compare(Sink& sink, const char* kernel, const T* got, const T* want, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!same_bits(got[i], want[i])) {
      sink.check(kernel, type_name<T>(), false, static_cast<int64_t>(i), as_i64(got[i]), as_i64(want[i]));
      return;
    }
  sink.check(kernel, type_name<T>(), true, -1, 0, 0);
}

/// Runs body(n, offset, rng) over every length, with a varying unaligned offset.
template <class Body>
void for_lengths(uint64_t seed, Body&& body) {
  Rng r{seed};
  size_t k = 0;
  for (size_t n : lengths) body(n, (k++) % (max_offset + 1), r);
}

template <class T>
T* at(unsigned char* base, size_t off) {
  return reinterpret_cast<T*>(base) + off;
}

// ---- the checks ----------------------------------------------------------------------------

template <class B, BinOp op, class T>
void check_binary(Sink& sink, const char* name) {
  for_lengths(1000 + unsigned(op) * 7 + sizeof(T), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    T *x = at<T>(b.in0, off), *y = at<T>(b.in1, (off * 3) % (max_offset + 1)), *g = at<T>(b.got, off),
      *w = at<T>(b.want, off);
    fill(x, n, r);
    fill(y, n, r);
    B::template binary<op>(x, y, g, n);
    fold::reference::binary<op>(x, y, w, n);
    compare(sink, name, g, w, n);
  });
}

template <class B, UnOp op, class T>
void check_unary(Sink& sink, const char* name) {
  for_lengths(2000 + unsigned(op) * 7 + sizeof(T), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    T *x = at<T>(b.in0, off), *g = at<T>(b.got, (off + 1) % (max_offset + 1)), *w = at<T>(b.want, off);
    fill(x, n, r);
    B::template unary<op>(x, g, n);
    fold::reference::unary<op>(x, w, n);
    compare(sink, name, g, w, n);
  });
}

template <class B, class T>
void check_clamp(Sink& sink) {
  for_lengths(3000 + sizeof(T), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    T *x = at<T>(b.in0, off), *g = at<T>(b.got, off), *w = at<T>(b.want, off);
    fill(x, n, r);
    T lo = random_value<T>(r), hi = random_value<T>(r);
    if (!(lo <= hi)) {
      const T t = lo;
      lo = hi;
      hi = t;
    }
    if constexpr (fold::is_float_v<T>) {
      if (lo != lo || hi != hi) {
        lo = 0.0f;
        hi = 6.0f;
      }  // Relu6-style bounds instead of NaN
    }
    B::clamp(x, g, n, lo, hi);
    fold::reference::clamp(x, w, n, lo, hi);
    compare(sink, "clamp", g, w, n);
  });
}

template <class B, class To, class From>
void check_cast(Sink& sink) {
  for_lengths(4000 + sizeof(To) * 10 + sizeof(From), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    From* x = at<From>(b.in0, off);
    To *g = at<To>(b.got, off), *w = at<To>(b.want, off);
    fill(x, n, r);
    B::template cast<To>(x, g, n);
    fold::reference::cast<To>(x, w, n);
    compare(sink, "cast", g, w, n);
  });
}

template <class Q>
int32_t random_zp(Rng& r) {
  return static_cast<int32_t>(r.chance(4) ? (fold::int_range<Q>::lo < 0 ? 0 : (fold::int_range<Q>::hi + 1) / 2)
                                          : r.range(fold::int_range<Q>::lo, fold::int_range<Q>::hi));
}

template <class B, class Q>
void check_quantize(Sink& sink) {
  for_lengths(5000 + sizeof(Q), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    float* x = at<float>(b.in0, off);
    Q *g = at<Q>(b.got, off), *w = at<Q>(b.want, off);
    fill(x, n, r);
    // Powers of two keep x.5 inputs exact ties; other steps are arbitrary.
    const float inv = r.chance(2) ? static_cast<float>(int64_t{1} << r.range(0, 6)) * 0.125f
                                  : static_cast<float>(r.range(1, 1000000)) * 1.0e-4f;
    const fold::QuantizeParams p{inv, random_zp<Q>(r)};
    B::quantize(x, g, n, p);
    fold::reference::quantize(x, w, n, p);
    compare(sink, "quantize", g, w, n);
  });
}

template <class B, class Q>
void check_dequantize(Sink& sink) {
  for_lengths(6000 + sizeof(Q), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    const int32_t zp = fold::is_quant_storage_v<Q> ? random_zp<Q>(r) : 0;
    Q* x = at<Q>(b.in0, off);
    float *g = at<float>(b.got, off), *w = at<float>(b.want, off);
    fill(x, n, r, zp);
    const fold::QuantParams p{static_cast<float>(r.range(1, 1000000)) * 1.0e-5f, zp};
    B::dequantize(x, g, n, p);
    fold::reference::dequantize(x, w, n, p);
    compare(sink, "dequantize", g, w, n);
  });
}

template <class B, class Out, class In>
void check_requantize(Sink& sink) {
  for_lengths(7000 + sizeof(Out) * 10 + sizeof(In), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    fold::RequantParams p{};
    p.in_zero_point =
        fold::is_same_v<In, int32_t> ? (r.chance(2) ? 0 : static_cast<int32_t>(r.u32())) : random_zp<In>(r);
    switch (r.range(0, 3)) {
      case 0:
        p.multiplier = static_cast<int32_t>(r.range(int64_t{1} << 30, (int64_t{1} << 31) - 1));
        p.shift = static_cast<int>(r.range(30, 62));
        break;
      case 1:
        p.multiplier = static_cast<int32_t>(r.u32());
        p.shift = static_cast<int>(r.range(0, 62));
        break;
      case 2:
        p.multiplier = static_cast<int32_t>(r.range(1, 64));
        p.shift = static_cast<int>(r.range(1, 8));
        break;  // many ties
      default:
        p.multiplier = static_cast<int32_t>(r.range(-70000, 70000));
        p.shift = static_cast<int>(r.range(0, 40));
        break;
    }
    p.out_zero_point = random_zp<Out>(r);
    In* x = at<In>(b.in0, off);
    Out *g = at<Out>(b.got, off), *w = at<Out>(b.want, off);
    fill(x, n, r, p.in_zero_point);
    B::template requantize<Out>(x, g, n, p);
    fold::reference::requantize<Out>(x, w, n, p);
    compare(sink, "requantize", g, w, n);
  });
}

template <class B, class Q>
void check_qadd(Sink& sink) {
  for_lengths(8000 + sizeof(Q), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    fold::QAddParams p{random_zp<Q>(r), random_zp<Q>(r), random_zp<Q>(r), 0, 0, 0};
    if (r.chance(3)) {  // wide parameters (the int64 paths)
      p.a_multiplier = static_cast<int32_t>(r.u32());
      p.b_multiplier = static_cast<int32_t>(r.u32());
      p.shift = static_cast<int32_t>(r.range(0, 62));
    } else {  // what make_qadd_params gives for 8-bit storage, plus small ones (many ties)
      const int64_t lim = r.chance(3) ? 8 : 32767;
      p.a_multiplier = static_cast<int32_t>(r.range(-lim - 1, lim));
      p.b_multiplier = static_cast<int32_t>(r.range(-lim - 1, lim));
      p.shift = static_cast<int32_t>(r.range(0, lim == 8 ? 4 : 31));
    }
    Q *x = at<Q>(b.in0, off), *y = at<Q>(b.in1, off), *g = at<Q>(b.got, off), *w = at<Q>(b.want, off);
    fill_operands(x, y, n, r, p.a_zero_point, p.b_zero_point);
    B::qadd(x, y, g, n, p);
    fold::reference::qadd(x, y, w, n, p);
    compare(sink, "qadd", g, w, n);
  });
}

template <class B, class Q>
void check_qmul(Sink& sink) {
  for_lengths(9000 + sizeof(Q), [&](size_t n, size_t off, Rng& r) {
    Buffers& b = buffers();
    fold::QMulParams p{random_zp<Q>(r), random_zp<Q>(r), random_zp<Q>(r), 0, 0};
    if (r.chance(3)) {
      const int64_t lim = sizeof(Q) == 1 ? 2147483647 : (int64_t{1} << 29);
      p.multiplier = static_cast<int32_t>(r.range(-lim, lim));
      p.shift = static_cast<int32_t>(r.range(0, 62));
    } else {
      const int64_t lim = r.chance(3) ? 8 : 16384;
      p.multiplier = static_cast<int32_t>(r.range(-lim, lim));
      p.shift = static_cast<int32_t>(r.range(0, lim == 8 ? 4 : 31));
    }
    Q *x = at<Q>(b.in0, off), *y = at<Q>(b.in1, off), *g = at<Q>(b.got, off), *w = at<Q>(b.want, off);
    fill_operands(x, y, n, r, p.a_zero_point, p.b_zero_point);
    B::qmul(x, y, g, n, p);
    fold::reference::qmul(x, y, w, n, p);
    compare(sink, "qmul", g, w, n);
  });
}

/// Broadcasting through Backend vs an element-by-element reference computed from indices.
template <class B, class T>
void check_broadcast(Sink& sink) {
  Rng r{10000 + sizeof(T)};
  for (int round = 0; round < 60; ++round) {
    fold::Shape sa, sb;
    sa.rank = static_cast<int>(r.range(0, 4));
    sb.rank = static_cast<int>(r.range(0, 4));
    fold::Shape full;
    full.rank = 4;
    for (int i = 0; i < 4; ++i) full.dims[i] = r.range(1, 6);
    full.dims[3] = r.chance(2) ? r.range(1, 150) : full.dims[3];  // long rows: vector paths and splats
    int64_t total = 1;
    for (int i = 0; i < 4; ++i) total *= full.dims[i];
    if (total > int64_t(max_len)) full.dims[0] = full.dims[1] = 1;
    for (int i = 0; i < sa.rank; ++i) sa.dims[i] = r.chance(3) ? 1 : full.dims[4 - sa.rank + i];
    for (int i = 0; i < sb.rank; ++i) sb.dims[i] = r.chance(3) ? 1 : full.dims[4 - sb.rank + i];
    fold::Shape so;
    if (!fold::broadcast_shape(sa, sb, so)) {
      sink.check("broadcast_shape", type_name<T>(), false, round, 0, 1);
      continue;
    }
    Buffers& b = buffers();
    T *x = at<T>(b.in0, 0), *y = at<T>(b.in1, 1), *g = at<T>(b.got, 0), *w = at<T>(b.want, 0);
    const int64_t na = fold::element_count(sa), nb = fold::element_count(sb), no = fold::element_count(so);
    fill(x, size_t(na), r);
    fill(y, size_t(nb), r);
    const bool ok = fold::binary_broadcast<B, BinOp::add>(x, sa, y, sb, g, so);
    // Reference: walk the output index space with a 4-d counter.
    int64_t d[4], as[4], bs[4];
    fold::detail::padded_dims(so, d);
    fold::detail::padded_strides(sa, as);
    fold::detail::padded_strides(sb, bs);
    int64_t o = 0;
    for (int64_t i0 = 0; i0 < d[0]; ++i0)
      for (int64_t i1 = 0; i1 < d[1]; ++i1)
        for (int64_t i2 = 0; i2 < d[2]; ++i2)
          for (int64_t i3 = 0; i3 < d[3]; ++i3)
            w[o++] = fold::scalar::binary<BinOp::add>(x[i0 * as[0] + i1 * as[1] + i2 * as[2] + i3 * as[3]],
                                                      y[i0 * bs[0] + i1 * bs[1] + i2 * bs[2] + i3 * bs[3]]);
    sink.check("broadcast_ok", type_name<T>(), ok && o == no, round, ok, 1);
    compare(sink, "broadcast_add", g, w, size_t(no));
    // A non-broadcastable pair is refused.
    fold::Shape bad_a, bad_b, bad_o;
    bad_a.rank = bad_b.rank = 1;
    bad_a.dims[0] = 2;
    bad_b.dims[0] = 3;
    sink.check("broadcast_refuses", type_name<T>(), !fold::broadcast_shape(bad_a, bad_b, bad_o), round, 0, 0);
  }
}

/// Transpose vs an input-order walk that scatters to the permuted position; Reshape is a copy.
template <class T>
void check_transpose(Sink& sink) {
  Rng r{11000 + sizeof(T)};
  for (int round = 0; round < 40; ++round) {
    fold::Shape s;
    s.rank = static_cast<int>(r.range(0, 4));
    for (int i = 0; i < s.rank; ++i) s.dims[i] = r.range(1, 7);
    int perm[4] = {0, 1, 2, 3};
    for (int i = s.rank - 1; i > 0; --i) {  // Fisher-Yates
      const int j = static_cast<int>(r.range(0, i));
      const int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    Buffers& b = buffers();
    T *x = at<T>(b.in0, 0), *g = at<T>(b.got, 0), *w = at<T>(b.want, 0);
    const int64_t n = fold::element_count(s);
    fill(x, size_t(n), r);
    fold::Shape so;
    const bool ok = fold::transpose_shape(s, perm, so) && fold::transpose(x, s, perm, g);
    int64_t out_strides[4] = {0, 0, 0, 0};
    {
      int64_t step = 1;
      for (int i = so.rank - 1; i >= 0; --i) {
        out_strides[i] = step;
        step *= so.dims[i];
      }
    }
    int64_t idx[4] = {0, 0, 0, 0};
    for (int64_t k = 0; k < n; ++k) {
      int64_t o = 0;
      for (int j = 0; j < s.rank; ++j) o += idx[perm[j]] * out_strides[j];
      w[o] = x[k];
      for (int i = s.rank - 1; i >= 0; --i) {
        if (++idx[i] < s.dims[i]) break;
        idx[i] = 0;
      }
    }
    sink.check("transpose_ok", type_name<T>(), ok, round, ok, 1);
    compare(sink, "transpose", g, w, size_t(n));
    int bad_perm[4] = {0, 0, 1, 2};
    fold::Shape s2;
    s2.rank = 2;
    sink.check("transpose_refuses", type_name<T>(), !fold::transpose(x, s2, bad_perm, g), round, 0, 0);
    fold::Shape flat;
    flat.rank = 1;
    flat.dims[0] = n;
    const bool rok = fold::reshape(x, s, g, flat);
    sink.check("reshape_ok", type_name<T>(), rok, round, rok, 1);
    compare(sink, "reshape", g, x, size_t(n));
    flat.dims[0] = n + 1;
    sink.check("reshape_refuses", type_name<T>(), !fold::reshape(x, s, g, flat), round, 0, 0);
  }
}

// ---- groups (one per test case / program section) -----------------------------------------

template <class B, class T>
void check_elementwise(Sink& s) {
  check_binary<B, BinOp::add, T>(s, "add");
  check_binary<B, BinOp::sub, T>(s, "sub");
  check_binary<B, BinOp::mul, T>(s, "mul");
  check_binary<B, BinOp::max, T>(s, "max");
  check_binary<B, BinOp::min, T>(s, "min");
  check_unary<B, UnOp::neg, T>(s, "neg");
  check_unary<B, UnOp::abs, T>(s, "abs");
  check_unary<B, UnOp::relu, T>(s, "relu");
  check_clamp<B, T>(s);
}

template <class B>
void check_all_elementwise(Sink& s) {
  check_elementwise<B, float>(s);
  check_elementwise<B, int32_t>(s);
  check_elementwise<B, uint8_t>(s);
  check_elementwise<B, int8_t>(s);
  check_elementwise<B, uint16_t>(s);
  check_elementwise<B, int16_t>(s);
}

template <class B, class From>
void check_casts_from(Sink& s) {
  check_cast<B, float, From>(s);
  check_cast<B, int32_t, From>(s);
  check_cast<B, uint8_t, From>(s);
  check_cast<B, int8_t, From>(s);
  check_cast<B, uint16_t, From>(s);
  check_cast<B, int16_t, From>(s);
}

template <class B>
void check_all_casts(Sink& s) {
  check_casts_from<B, float>(s);
  check_casts_from<B, int32_t>(s);
  check_casts_from<B, uint8_t>(s);
  check_casts_from<B, int8_t>(s);
  check_casts_from<B, uint16_t>(s);
  check_casts_from<B, int16_t>(s);
}

template <class B, class Q>
void check_quant_type(Sink& s) {
  check_quantize<B, Q>(s);
  check_dequantize<B, Q>(s);
  check_qadd<B, Q>(s);
  check_qmul<B, Q>(s);
  check_requantize<B, Q, int32_t>(s);
  check_requantize<B, Q, uint8_t>(s);
  check_requantize<B, Q, int8_t>(s);
  check_requantize<B, Q, uint16_t>(s);
  check_requantize<B, Q, int16_t>(s);
}

template <class B>
void check_all_quantized(Sink& s) {
  check_quant_type<B, uint8_t>(s);
  check_quant_type<B, int8_t>(s);
  check_quant_type<B, uint16_t>(s);
  check_quant_type<B, int16_t>(s);
  check_dequantize<B, int32_t>(s);
}

template <class B>
void check_all_layout(Sink& s) {
  check_broadcast<B, float>(s);
  check_broadcast<B, uint8_t>(s);
  check_broadcast<B, int32_t>(s);
  check_broadcast<B, int16_t>(s);
  check_transpose<float>(s);
  check_transpose<uint8_t>(s);
  check_transpose<int16_t>(s);
}

}  // namespace fold_test
