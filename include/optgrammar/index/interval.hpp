// Closed integer intervals and the exact integer division helpers used by indexing maps.
//
// Every bound in index/ is inclusive: `[0, 9]` is the ten indices 0..9, the way a tensor's
// dimension of size 10 is written in a domain. An interval with lo > hi is empty.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar::index {

/// Floor of a / b for b > 0: floor_div(-7, 2) == -4 (C++ `/` would give -3).
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Ceiling of a / b for b > 0: ceil_div(7, 2) == 4, ceil_div(-7, 2) == -3.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

/// a mod b in [0, b) for b > 0: floor_mod(-1, 2) == 1.
constexpr std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return a - floor_div(a, b) * b; }

namespace detail {
/// Concatenation by appending (GCC 12 warns falsely, -Wrestrict, on `"lit" + std::string&&`
/// once inlined at -O3, so messages are built this way).
inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (auto p : parts) s.append(p.data(), p.size());
  return s;
}
}  // namespace detail

/// A closed interval [lo, hi]; `Interval{0, 9}` holds 0..9. Empty when lo > hi.
struct Interval {
  std::int64_t lo = 0;
  std::int64_t hi = -1;

  constexpr bool empty() const { return lo > hi; }
  constexpr bool is_point() const { return lo == hi; }
  /// Number of integers inside (0 when empty).
  constexpr std::int64_t size() const { return empty() ? 0 : hi - lo + 1; }
  constexpr bool contains(std::int64_t v) const { return lo <= v && v <= hi; }
  /// True when every point of `o` is inside this interval (an empty `o` is inside anything).
  constexpr bool contains(Interval o) const { return o.empty() || (lo <= o.lo && o.hi <= hi); }
  constexpr Interval intersect(Interval o) const { return {std::max(lo, o.lo), std::min(hi, o.hi)}; }
  /// Smallest interval holding both.
  constexpr Interval hull(Interval o) const {
    if (empty()) return o;
    if (o.empty()) return *this;
    return {std::min(lo, o.lo), std::max(hi, o.hi)};
  }
  friend constexpr bool operator==(Interval, Interval) = default;

  friend constexpr Interval operator+(Interval a, Interval b) { return {a.lo + b.lo, a.hi + b.hi}; }
  friend constexpr Interval operator+(Interval a, std::int64_t k) { return {a.lo + k, a.hi + k}; }
  /// Scaling by a constant (a negative constant swaps the ends).
  friend constexpr Interval operator*(Interval a, std::int64_t k) {
    return k >= 0 ? Interval{a.lo * k, a.hi * k} : Interval{a.hi * k, a.lo * k};
  }
  constexpr Interval floordiv(std::int64_t c) const { return {floor_div(lo, c), floor_div(hi, c)}; }
  constexpr Interval ceildiv(std::int64_t c) const { return {ceil_div(lo, c), ceil_div(hi, c)}; }
  /// Range of x mod c for x in this interval (exact when the interval stays in one block of c).
  constexpr Interval mod(std::int64_t c) const {
    if (floor_div(lo, c) == floor_div(hi, c)) return {floor_mod(lo, c), floor_mod(hi, c)};
    return {0, c - 1};
  }

  /// "[0, 9]"
  std::string to_string() const { return detail::cat({"[", std::to_string(lo), ", ", std::to_string(hi), "]"}); }
};

/// A hyper-rectangle of indices: one interval per dimension (a tile, or the slice of an input).
using Box = std::vector<Interval>;
/// A tensor shape: one extent per dimension.
using Shape = std::vector<std::int64_t>;

/// "[0, 9] x [0, 19]"
inline std::string to_string(Box const& b) {
  std::string s;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i) s += " x ";
    s += b[i].to_string();
  }
  return s.empty() ? "[]" : s;
}

/// The box of a whole tensor: [0, n-1] per dimension.
inline Box full_box(Shape const& shape) {
  Box b;
  for (auto n : shape) b.push_back({0, n - 1});
  return b;
}

}  // namespace optgrammar::index
