// fold_bench: the portable folding kernels over 64 MB buffers against memcpy of 64 MB.
//
// bytes_per_second counts memory traffic: every byte read plus every byte written. memcpy of
// 64 MB moves 128 MB; Add of two 64 MB operands into a 64 MB result moves 192 MB; Quantize of
// 64 MB of f32 into 16 MB of qu8 moves 80 MB. The target (issue 49) is every kernel here at
// >= 0.7x memcpy's rate in the same run. The machine is often shared: run with
// --benchmark_repetitions=N --benchmark_enable_random_interleaving=true so that the kernels
// alternate with memcpy, and compare medians.
#include "common/host_context.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>

#include "optgrammar/fold/kernels.hpp"

namespace fold = optgrammar::fold;

namespace {

constexpr size_t kBytes = size_t{64} << 20;

struct Buffer {
  std::unique_ptr<unsigned char[]> p{new unsigned char[kBytes]};
  explicit Buffer(unsigned seed) {
    unsigned x = seed;  // touch every page; varied contents
    for (size_t i = 0; i < kBytes; ++i) {
      x = x * 1664525u + 1013904223u;
      p[i] = static_cast<unsigned char>(x >> 24);
    }
  }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(p.get());
  }
};

/// Runs `kernel` per iteration and counts `traffic` bytes per run.
template <class F>
void measure(benchmark::State& state, size_t traffic, F&& kernel, void* out) {
  for (auto _ : state) {
    kernel();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(traffic));
}

void BM_memcpy_64MB(benchmark::State& state) {
  Buffer src(1), dst(2);
  measure(
      state, 2 * kBytes, [&] { std::memcpy(dst.p.get(), src.p.get(), kBytes); }, dst.p.get());
}

void BM_add_f32_64MB(benchmark::State& state) {
  Buffer a(3), b(4), out(5);
  const size_t n = kBytes / sizeof(float);
  // Finite values: random bytes would include NaN/denormal patterns, not the case measured.
  for (size_t i = 0; i < n; ++i) {
    a.as<float>()[i] = static_cast<float>(i % 1000) * 0.25f;
    b.as<float>()[i] = static_cast<float>(i % 777) * -0.5f;
  }
  measure(
      state, 3 * kBytes,
      [&] { fold::portable::binary<fold::BinOp::add>(a.as<float>(), b.as<float>(), out.as<float>(), n); }, out.p.get());
}

// The quantizations of the quantized benchmarks: ordinary steps and zero points, so the
// parameters are what make_*_params gives a real graph.
constexpr fold::QuantParams qa{0.05f, 128}, qb{0.02f, 100}, qo{0.08f, 120};
template <class Q>
constexpr fold::QuantParams signed_or_not(fold::QuantParams p) {
  return fold::int_range<Q>::lo < 0 ? fold::QuantParams{p.step, p.zero_point - 128} : p;
}

template <class Q>
void BM_qadd_64MB(benchmark::State& state) {
  Buffer a(6), b(7), out(8);
  const fold::QAddParams p =
      fold::make_qadd_params<Q>(signed_or_not<Q>(qa), signed_or_not<Q>(qb), signed_or_not<Q>(qo));
  measure(
      state, 3 * kBytes, [&] { fold::portable::qadd(a.as<Q>(), b.as<Q>(), out.as<Q>(), kBytes / sizeof(Q), p); },
      out.p.get());
}

template <class Q>
void BM_qmul_64MB(benchmark::State& state) {
  Buffer a(9), b(10), out(11);
  const fold::QMulParams p =
      fold::make_qmul_params<Q>(signed_or_not<Q>(qa), signed_or_not<Q>(qb), signed_or_not<Q>(qo));
  measure(
      state, 3 * kBytes, [&] { fold::portable::qmul(a.as<Q>(), b.as<Q>(), out.as<Q>(), kBytes / sizeof(Q), p); },
      out.p.get());
}

/// Quantize 64 MB of f32 (values around the quantized range) into 16 MB of qu8.
void BM_quantize_qu8_64MB(benchmark::State& state) {
  Buffer x(12), out(13);
  const size_t n = kBytes / sizeof(float);
  for (size_t i = 0; i < n; ++i) x.as<float>()[i] = static_cast<float>(i % 1013) * 0.0137f - 6.0f;
  const fold::QuantizeParams p = fold::quantize_params(qo);
  measure(
      state, kBytes + n, [&] { fold::portable::quantize(x.as<float>(), out.as<uint8_t>(), n, p); }, out.p.get());
}

/// Dequantize 16 MB of qu8 into 64 MB of f32.
void BM_dequantize_qu8_64MB(benchmark::State& state) {
  Buffer q(14), out(15);
  const size_t n = kBytes / sizeof(float);
  measure(
      state, kBytes + n, [&] { fold::portable::dequantize(q.as<uint8_t>(), out.as<float>(), n, qa); }, out.p.get());
}

/// Requantize 64 MB of i32 (an accumulator) into 16 MB of qu8.
void BM_requantize_i32_qu8_64MB(benchmark::State& state) {
  Buffer x(16), out(17);
  const size_t n = kBytes / sizeof(int32_t);
  for (size_t i = 0; i < n; ++i) x.as<int32_t>()[i] = static_cast<int32_t>(i % 40009) - 20000;
  const fold::RequantParams p = fold::make_requant_params({0.001f, 0}, qo);
  measure(
      state, kBytes + n, [&] { fold::portable::requantize<uint8_t>(x.as<int32_t>(), out.as<uint8_t>(), n, p); },
      out.p.get());
}

}  // namespace

BENCHMARK(BM_memcpy_64MB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_add_f32_64MB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_qadd_64MB<uint8_t>)->Name("BM_add_qu8_64MB")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_qadd_64MB<int8_t>)->Name("BM_add_qi8_64MB")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_qadd_64MB<uint16_t>)->Name("BM_add_qu16_64MB")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_qmul_64MB<uint8_t>)->Name("BM_mul_qu8_64MB")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_qmul_64MB<int8_t>)->Name("BM_mul_qi8_64MB")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_quantize_qu8_64MB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_dequantize_qu8_64MB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_requantize_i32_qu8_64MB)->Unit(benchmark::kMillisecond)->UseRealTime();

OG_BENCHMARK_MAIN();
