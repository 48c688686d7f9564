// Element types of tensors and their properties.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace optgrammar {

/// Element type of a tensor. Quantized types carry a zero offset and a step size in the
/// tensor's output definition: real = (q - zero_offset) * stepsize. The plain types after Int32
/// hold their values as they are (what imported models compute on: ONNX's double, bfloat16,
/// integers of every width and bool); the tags are appended, so the older ones keep their
/// numbers.
enum class DType : std::uint8_t {
  Float32,
  Float16,
  QUInt8,
  QInt8,
  QUInt16,
  QInt16,
  QInt32,
  Int32,
  Float64,
  BFloat16,
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int64,
  UInt32,
  UInt64,
  Bool,
};

inline constexpr int dtype_count = 18;

/// How a dtype's elements are read.
enum class DTypeKind : std::uint8_t { floating, quantized, integer, boolean };

/// The facts of one dtype: one row per enumerator, in enumerator order.
struct DTypeInfo {
  std::string_view name;        ///< as written after `DType::` in rules
  std::string_view short_name;  ///< the graph text format's spelling
  std::uint8_t size;            ///< bytes per element
  DTypeKind kind;
  bool is_signed;  ///< integer and quantized types: whether negative values are held
};

inline constexpr DTypeInfo dtype_infos[dtype_count] = {
    {"Float32", "f32", 4, DTypeKind::floating, true},    {"Float16", "f16", 2, DTypeKind::floating, true},
    {"QUInt8", "qu8", 1, DTypeKind::quantized, false},   {"QInt8", "qi8", 1, DTypeKind::quantized, true},
    {"QUInt16", "qu16", 2, DTypeKind::quantized, false}, {"QInt16", "qi16", 2, DTypeKind::quantized, true},
    {"QInt32", "qi32", 4, DTypeKind::quantized, true},   {"Int32", "i32", 4, DTypeKind::integer, true},
    {"Float64", "f64", 8, DTypeKind::floating, true},    {"BFloat16", "bf16", 2, DTypeKind::floating, true},
    {"Int8", "i8", 1, DTypeKind::integer, true},         {"UInt8", "u8", 1, DTypeKind::integer, false},
    {"Int16", "i16", 2, DTypeKind::integer, true},       {"UInt16", "u16", 2, DTypeKind::integer, false},
    {"Int64", "i64", 8, DTypeKind::integer, true},       {"UInt32", "u32", 4, DTypeKind::integer, false},
    {"UInt64", "u64", 8, DTypeKind::integer, false},     {"Bool", "bool", 1, DTypeKind::boolean, false},
};

constexpr const DTypeInfo& dtype_info(DType t) noexcept {
  return dtype_infos[static_cast<std::size_t>(t) % dtype_count];
}

/// Bytes per element: element_size(DType::QUInt16) == 2.
constexpr std::size_t element_size(DType t) noexcept { return dtype_info(t).size; }

/// True for the types whose values are read through zero offset and step size.
constexpr bool is_quantized(DType t) noexcept { return dtype_info(t).kind == DTypeKind::quantized; }

/// True for the floating-point types (Float32, Float16, Float64, BFloat16).
constexpr bool is_floating(DType t) noexcept { return dtype_info(t).kind == DTypeKind::floating; }

/// The values an integer element of type t can hold, {lo, hi} (UInt64's hi is capped at the
/// largest long long; Bool holds 0 and 1); {0, 0} for the float types.
struct IntRange {
  long long lo = 0, hi = 0;
  constexpr bool contains(long long v) const noexcept { return lo <= v && v <= hi; }
};
constexpr IntRange storage_range(DType t) noexcept {
  const DTypeInfo& i = dtype_info(t);
  if (i.kind == DTypeKind::floating) return {};
  if (i.kind == DTypeKind::boolean) return {0, 1};
  if (i.size == 8)
    return i.is_signed ? IntRange{-9223372036854775807LL - 1, 9223372036854775807LL}
                       : IntRange{0, 9223372036854775807LL};
  const int bits = 8 * i.size;
  return i.is_signed ? IntRange{-(1LL << (bits - 1)), (1LL << (bits - 1)) - 1} : IntRange{0, (1LL << bits) - 1};
}

/// The enumerator's name, as written after `DType::` in rules.
constexpr std::string_view dtype_name(DType t) noexcept {
  return static_cast<int>(t) < dtype_count ? dtype_info(t).name : std::string_view("?");
}

/// Short spelling used by the graph text format: f32 f16 qu8 qi8 qu16 qi16 qi32 i32 f64 bf16 i8
/// u8 i16 u16 i64 u32 u64 bool.
constexpr std::string_view dtype_short_name(DType t) noexcept {
  return static_cast<int>(t) < dtype_count ? dtype_info(t).short_name : std::string_view("?");
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
