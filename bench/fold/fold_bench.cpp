// fold_bench: the portable folding kernels over 64 MB buffers against memcpy of 64 MB.
//
// bytes_per_second counts memory traffic: every byte read plus every byte written. memcpy of
// 64 MB moves 128 MB; Add of two 64 MB operands into a 64 MB result moves 192 MB. The target
// (issue 5) is add_f32 and add_qu8 at >= 0.7x memcpy's rate in the same run.
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
  template <class T> T* as() { return reinterpret_cast<T*>(p.get()); }
};

void BM_memcpy_64MB(benchmark::State& state) {
  Buffer src(1), dst(2);
  for (auto _ : state) {
    std::memcpy(dst.p.get(), src.p.get(), kBytes);
    benchmark::DoNotOptimize(dst.p.get());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * int64_t{2} * int64_t(kBytes));
}

void BM_add_f32_64MB(benchmark::State& state) {
  Buffer a(3), b(4), out(5);
  const size_t n = kBytes / sizeof(float);
  // Finite values: random bytes would include NaN/denormal patterns, not the case measured.
  for (size_t i = 0; i < n; ++i) {
    a.as<float>()[i] = static_cast<float>(i % 1000) * 0.25f;
    b.as<float>()[i] = static_cast<float>(i % 777) * -0.5f;
  }
  for (auto _ : state) {
    fold::portable::binary<fold::BinOp::add>(a.as<float>(), b.as<float>(), out.as<float>(), n);
    benchmark::DoNotOptimize(out.p.get());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * int64_t{3} * int64_t(kBytes));
}

void BM_add_qu8_64MB(benchmark::State& state) {
  Buffer a(6), b(7), out(8);
  const fold::QuantParams qa{0.05f, 128}, qb{0.02f, 100}, qo{0.08f, 120};
  const fold::QAddParams p = fold::make_qadd_params<uint8_t>(qa, qb, qo);
  for (auto _ : state) {
    fold::portable::qadd(a.as<uint8_t>(), b.as<uint8_t>(), out.as<uint8_t>(), kBytes, p);
    benchmark::DoNotOptimize(out.p.get());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * int64_t{3} * int64_t(kBytes));
}

}  // namespace

BENCHMARK(BM_memcpy_64MB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_add_f32_64MB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_add_qu8_64MB)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
