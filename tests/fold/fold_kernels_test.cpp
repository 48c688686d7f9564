// Host tests of the folding kernels: the portable backend against the scalar reference
// (bit for bit, random and edge inputs; fold_cases.hpp), the documented examples of the
// numeric rules, and the fixed-point parameter helpers.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include "fold_cases.hpp"

namespace fold = optgrammar::fold;

namespace {

struct CatchSink final : fold_test::Sink {
  int checks = 0, failures = 0;
  void check(const char* kernel, const char* type, bool ok, int64_t index, int64_t got, int64_t want) override {
    ++checks;
    if (ok) return;
    ++failures;
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s<%s>: first difference at %lld: got %lld, want %lld", kernel, type,
                  static_cast<long long>(index), static_cast<long long>(got), static_cast<long long>(want));
    FAIL_CHECK(msg);
  }
};

template <class F>
void run(F&& group) {
  CatchSink sink;
  group(sink);
  CHECK(sink.checks > 100);  // something was actually compared
  REQUIRE(sink.failures == 0);
}

using P = fold::portable::backend;

}  // namespace

// The rules as documented (docs/fold.md); the reference is what they are checked on.
static_assert(fold::round_shift(5, 1) == 3 && fold::round_shift(-5, 1) == -3);
static_assert(fold::round_shift(-6, 2) == -2 && fold::round_shift(6, 2) == 2 && fold::round_shift(-5, 2) == -1);
static_assert(fold::round_shift(7, 0) == 7);
static_assert(fold::scalar::round_half_even_small(2.5f) == 2.0f &&
              fold::scalar::round_half_even_small(-2.5f) == -2.0f && fold::scalar::round_half_even_small(3.5f) == 4.0f);
static_assert(fold::scalar::cast<uint8_t>(300) == 255 && fold::scalar::cast<int8_t>(-1000) == -128);
static_assert(fold::scalar::cast<int32_t>(-2.9f) == -2 && fold::scalar::cast<uint8_t>(-0.5f) == 0);
static_assert(fold::scalar::binary<fold::BinOp::add>(uint8_t{250}, uint8_t{10}) == 4);
static_assert(fold::scalar::unary<fold::UnOp::abs>(int8_t{-128}) == -128);
static_assert(fold::to_fixed_point(0.75, 32767, 31).multiplier == 24576 &&
              fold::to_fixed_point(0.75, 32767, 31).shift == 15);

TEST_CASE("portable elementwise kernels match the reference", "[fold]") {
  run([](fold_test::Sink& s) { fold_test::check_all_elementwise<P>(s); });
}

TEST_CASE("portable casts match the reference", "[fold]") {
  run([](fold_test::Sink& s) { fold_test::check_all_casts<P>(s); });
}

TEST_CASE("portable quantized kernels match the reference", "[fold]") {
  run([](fold_test::Sink& s) { fold_test::check_all_quantized<P>(s); });
}

// Each instruction-set level of the portable quantized kernels on its own (the test above runs
// the one the CPU gets by default): the plain loops every host has, SSE2 and AVX2 on x86-64.
TEST_CASE("portable quantized kernels match the reference at every instruction-set level", "[fold]") {
  using fold::portable::isa;
  const isa best = fold::portable::host_isa();
  CHECK(fold::portable::resolve(isa::host) == best);
  CHECK(fold::portable::resolve(isa::none) == isa::none);
  run([](fold_test::Sink& s) { fold_test::check_all_quantized<fold::portable::backend_at<isa::none>>(s); });
#if defined(__x86_64__)
  CHECK(best >= isa::sse2);
  run([](fold_test::Sink& s) { fold_test::check_all_quantized<fold::portable::backend_at<isa::sse2>>(s); });
  if (best == isa::avx2)
    run([](fold_test::Sink& s) { fold_test::check_all_quantized<fold::portable::backend_at<isa::avx2>>(s); });
  else
    WARN("this CPU has no AVX2: the AVX2 kernels are not checked here");
#endif
}

TEST_CASE("broadcasting, transpose and reshape match index-by-index references", "[fold]") {
  run([](fold_test::Sink& s) { fold_test::check_all_layout<P>(s); });
}

TEST_CASE("the dispatching kernels are the portable backend on the host", "[fold]") {
  STATIC_REQUIRE(OPTGRAMMAR_FOLD_HAS_HVX == 0);
  const float a[3] = {1.0f, -2.0f, 3.5f}, b[3] = {0.5f, 2.0f, -1.0f};
  float got[3], want[3];
  fold::kernels::binary<fold::BinOp::add>(a, b, got, 3);
  fold::reference::binary<fold::BinOp::add>(a, b, want, 3);
  for (int i = 0; i < 3; ++i) CHECK(got[i] == want[i]);
}

TEST_CASE("in-place elementwise folding gives the out-of-place result", "[fold]") {
  fold_test::Rng r{42};
  std::vector<int16_t> a(777), b(777), want(777);
  for (auto& v : a) v = fold_test::random_value<int16_t>(r);
  for (auto& v : b) v = fold_test::random_value<int16_t>(r);
  fold::reference::binary<fold::BinOp::mul>(a.data(), b.data(), want.data(), a.size());
  fold::portable::binary<fold::BinOp::mul>(a.data(), b.data(), a.data(), a.size());
  CHECK(a == want);
}

TEST_CASE("fixed-point parameters approximate the real scales", "[fold]") {
  fold_test::Rng r{7};
  for (int i = 0; i < 500; ++i) {
    const fold::QuantParams qa{static_cast<float>(r.range(1, 100000)) * 1e-4f, 0};
    const fold::QuantParams qb{static_cast<float>(r.range(1, 100000)) * 1e-4f, 0};
    const fold::QuantParams qo{static_cast<float>(r.range(1, 100000)) * 1e-4f, 0};
    const auto add8 = fold::make_qadd_params<uint8_t>(qa, qb, qo);
    CHECK(std::abs(add8.a_multiplier) <= 32767);
    CHECK(std::abs(add8.b_multiplier) <= 32767);
    CHECK(fold::portable::qadd_is_narrow<uint8_t>(add8));
    const double ra = double(qa.step) / double(qo.step);
    const double got_a = std::ldexp(double(add8.a_multiplier), -add8.shift);
    if (ra < 32767.0) CHECK(std::abs(got_a - ra) <= std::ldexp(1.0, -add8.shift) * 0.5 + 1e-12);

    const auto mul8 = fold::make_qmul_params<int8_t>(qa, qb, qo);
    CHECK(fold::portable::qmul_is_narrow<int8_t>(mul8));
    const auto mul16 = fold::make_qmul_params<int16_t>(qa, qb, qo);
    CHECK(std::abs(int64_t{mul16.multiplier}) <= (int64_t{1} << 29));
    const double rm = double(qa.step) * double(qb.step) / double(qo.step);
    if (rm < double(1 << 29))
      CHECK(std::abs(std::ldexp(double(mul16.multiplier), -mul16.shift) - rm) <=
            rm * 1e-8 + std::ldexp(1.0, -mul16.shift));

    const auto rq = fold::make_requant_params(qa, qo);
    CHECK(std::abs(std::ldexp(double(rq.multiplier), -rq.shift) - ra) <= ra * 1e-9);
  }
}

TEST_CASE("quantized add of quantized values is within one step of the float sum", "[fold]") {
  const fold::QuantParams qa{0.05f, 128}, qb{0.02f, 100}, qo{0.08f, 120};
  fold_test::Rng r{99};
  std::vector<float> x(1000), y(1000), back(1000);
  std::vector<uint8_t> a(1000), b(1000), o(1000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(r.range(-2000, 2000)) * 1e-3f;
    y[i] = static_cast<float>(r.range(-1500, 1500)) * 1e-3f;
  }
  fold::kernels::quantize(x.data(), a.data(), x.size(), fold::quantize_params(qa));
  fold::kernels::quantize(y.data(), b.data(), y.size(), fold::quantize_params(qb));
  fold::kernels::qadd(a.data(), b.data(), o.data(), o.size(), fold::make_qadd_params<uint8_t>(qa, qb, qo));
  fold::kernels::dequantize(o.data(), back.data(), o.size(), qo);
  for (size_t i = 0; i < x.size(); ++i) {
    const float exact = fold::scalar::dequantize(a[i], qa) + fold::scalar::dequantize(b[i], qb);
    CHECK(std::abs(back[i] - exact) <= qo.step * 0.5f + 1e-5f);
  }
}
