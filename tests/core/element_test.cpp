// Elements of every dtype read and written (core/element.hpp): the rounding of the 16-bit floats,
// integer wrapping and saturation, Bool, and exact 64-bit integers.
#include <optgrammar/core/element.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using namespace optgrammar;

namespace {
/// v stored as one element of t, read back as a double.
double round_trip(DType t, double v) {
  std::vector<std::byte> b(element_size(t));
  store_value(t, b.data(), 0, v);
  return element_value(t, b.data(), 0);
}
std::uint16_t bits16(DType t, double v) {
  std::uint16_t h;
  std::vector<std::byte> b(2);
  store_value(t, b.data(), 0, v);
  std::memcpy(&h, b.data(), 2);
  return h;
}
}  // namespace

TEST_CASE("bfloat16 keeps a float's upper half, rounded to nearest even") {
  // 1 + 2^-8 lies halfway between 1 and the next bfloat16 1 + 2^-7: to even, 1.
  CHECK(round_trip(DType::BFloat16, 1.00390625) == 1.0);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: to even, 1 + 2^-6.
  CHECK(round_trip(DType::BFloat16, 1.01171875) == 1.015625);
  // Just above a half rounds up; truncation would give 0.478515625.
  CHECK(round_trip(DType::BFloat16, 0.47998046875) == 0.48046875);
  CHECK(bits16(DType::BFloat16, 1.0) == 0x3F80);
  CHECK(std::isnan(round_trip(DType::BFloat16, std::nan(""))));
  CHECK(std::isinf(round_trip(DType::BFloat16, HUGE_VAL)));
}

TEST_CASE("float16 rounds to nearest even and saturates to infinity past 65504") {
  CHECK(bits16(DType::Float16, 1.0) == 0x3C00);
  CHECK(round_trip(DType::Float16, 1.0 + 1.0 / 2048) == 1.0);  // halfway: to even
  CHECK(round_trip(DType::Float16, 65504.0) == 65504.0);
  CHECK(std::isinf(round_trip(DType::Float16, 65520.0)));
  CHECK(round_trip(DType::Float16, 1.0 / (1 << 24)) == std::ldexp(1.0, -24));  // the smallest subnormal
}

TEST_CASE("integers are truncated toward zero and wrapped to their width; Bool is not-zero") {
  CHECK(round_trip(DType::Int8, 127.9) == 127);
  CHECK(round_trip(DType::Int8, -1.5) == -1);
  CHECK(round_trip(DType::Int8, 128) == -128);  // wrapped
  CHECK(round_trip(DType::UInt8, -1) == 255);
  CHECK(round_trip(DType::UInt16, 65536 + 7) == 7);
  CHECK(round_trip(DType::Int32, std::nan("")) == 0);
  CHECK(round_trip(DType::Bool, 0.25) == 1);
  CHECK(round_trip(DType::Bool, 0) == 0);
  CHECK(round_trip(DType::Bool, std::nan("")) == 1);
}

TEST_CASE("64-bit integers are exact through element_int and store_int, and saturate from doubles") {
  std::vector<std::byte> b(8);
  store_int(DType::Int64, b.data(), 0, INT64_MAX);
  CHECK(element_int(DType::Int64, b.data(), 0) == INT64_MAX);
  store_int(DType::Int64, b.data(), 0, INT64_MAX - 1);  // not a double: exact all the same
  CHECK(element_int(DType::Int64, b.data(), 0) == INT64_MAX - 1);
  store_value(DType::Int64, b.data(), 0, 1e300);
  CHECK(element_int(DType::Int64, b.data(), 0) == INT64_MAX);
  store_value(DType::Int64, b.data(), 0, -1e300);
  CHECK(element_int(DType::Int64, b.data(), 0) == INT64_MIN);
  store_value(DType::UInt64, b.data(), 0, 18446744073709549568.0);  // above INT64_MAX, held by UInt64
  std::uint64_t u;
  std::memcpy(&u, b.data(), 8);
  CHECK(u == 18446744073709549568ull);
  store_value(DType::Float64, b.data(), 0, 0.1);
  CHECK(element_value(DType::Float64, b.data(), 0) == 0.1);
}

TEST_CASE("every dtype's facts come from one table, in enumerator order") {
  for (int i = 0; i < dtype_count; ++i) {
    const auto t = static_cast<DType>(i);
    CHECK(parse_dtype(dtype_name(t)) == t);
    CHECK(parse_dtype(dtype_short_name(t)) == t);
    CHECK(element_size(t) >= 1);
  }
  CHECK(storage_range(DType::Int16).lo == -32768);
  CHECK(storage_range(DType::UInt32).hi == 4294967295LL);
  CHECK(storage_range(DType::Bool).hi == 1);
  CHECK(is_floating(DType::BFloat16));
  CHECK_FALSE(is_quantized(DType::UInt8));
  CHECK(is_quantized(DType::QUInt8));
}
