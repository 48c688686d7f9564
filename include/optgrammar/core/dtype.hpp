// Element types of tensors and their properties.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace optgrammar {

/// Element type of a tensor. Quantized types carry a zero offset and a step size in the
/// tensor's output definition: real = (q - zero_offset) * stepsize.
enum class DType : std::uint8_t {
  Float32,
  Float16,
  QUInt8,
  QInt8,
  QUInt16,
  QInt16,
  QInt32,
  Int32,
};

inline constexpr int dtype_count = 8;

/// Bytes per element: element_size(DType::QUInt16) == 2.
constexpr std::size_t element_size(DType t) noexcept {
  switch (t) {
    case DType::QUInt8:
    case DType::QInt8: return 1;
    case DType::Float16:
    case DType::QUInt16:
    case DType::QInt16: return 2;
    case DType::Float32:
    case DType::QInt32:
    case DType::Int32: return 4;
  }
  return 0;
}

/// True for the types whose values are read through zero offset and step size.
constexpr bool is_quantized(DType t) noexcept {
  return t == DType::QUInt8 || t == DType::QInt8 || t == DType::QUInt16 || t == DType::QInt16 ||
         t == DType::QInt32;
}

/// The values an integer element of type t can hold, {lo, hi}; {0, 0} for the float types.
struct IntRange {
  long long lo = 0, hi = 0;
  constexpr bool contains(long long v) const noexcept { return lo <= v && v <= hi; }
};
constexpr IntRange storage_range(DType t) noexcept {
  switch (t) {
    case DType::QUInt8: return {0, 255};
    case DType::QInt8: return {-128, 127};
    case DType::QUInt16: return {0, 65535};
    case DType::QInt16: return {-32768, 32767};
    case DType::QInt32:
    case DType::Int32: return {-2147483647LL - 1, 2147483647LL};
    case DType::Float32:
    case DType::Float16: break;
  }
  return {};
}

/// The enumerator's name, as written after `DType::` in rules.
constexpr std::string_view dtype_name(DType t) noexcept {
  switch (t) {
    case DType::Float32: return "Float32";
    case DType::Float16: return "Float16";
    case DType::QUInt8: return "QUInt8";
    case DType::QInt8: return "QInt8";
    case DType::QUInt16: return "QUInt16";
    case DType::QInt16: return "QInt16";
    case DType::QInt32: return "QInt32";
    case DType::Int32: return "Int32";
  }
  return "?";
}

/// Short spelling used by the graph text format: f32 f16 qu8 qi8 qu16 qi16 qi32 i32.
constexpr std::string_view dtype_short_name(DType t) noexcept {
  switch (t) {
    case DType::Float32: return "f32";
    case DType::Float16: return "f16";
    case DType::QUInt8: return "qu8";
    case DType::QInt8: return "qi8";
    case DType::QUInt16: return "qu16";
    case DType::QInt16: return "qi16";
    case DType::QInt32: return "qi32";
    case DType::Int32: return "i32";
  }
  return "?";
}

/// Accepts either spelling (`QUInt8` or `qu8`).
constexpr std::optional<DType> parse_dtype(std::string_view s) noexcept {
  for (int i = 0; i < dtype_count; ++i) {
    auto t = static_cast<DType>(i);
    if (s == dtype_name(t) || s == dtype_short_name(t)) return t;
  }
  return std::nullopt;
}

}  // namespace optgrammar
