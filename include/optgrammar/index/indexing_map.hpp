// IndexingMap: affine results over d_i and s_j, plus the domain where the map applies.
//
//   (d0, d1)[s0] -> (s0, d0, d1)
//   domain:
//   d0 in [0, 3]
//   d1 in [0, 7]
//   s0 in [0, 1]
//   d0 mod 2 in [0, 0]
//
// The domain is a box (one interval per dimension variable and per range variable) cut by
// constraints `expr in [lo, hi]`. For an output→input map of an op, the d_i are the output's
// indices and each point of the domain names one input element the output element (d_i) reads;
// range variables s_j enumerate the several elements one output element reads (a reduction).
#pragma once

#include "optgrammar/index/affine_expr.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace optgrammar::index {

/// `expr in [range.lo, range.hi]`, part of a domain.
struct Constraint {
  AffineExpr expr;
  Interval range;
  friend bool operator==(Constraint const&, Constraint const&) = default;
};

struct IndexingMap {
  /// Bounds of d_0, d_1, ... (the count is the number of dimension variables).
  std::vector<Interval> dims;
  /// Bounds of s_0, s_1, ... (the count is the number of range variables).
  std::vector<Interval> ranges;
  /// One expression per result (per dimension of the target tensor).
  std::vector<AffineExpr> results;
  /// Extra conditions on the domain.
  std::vector<Constraint> constraints;
  /// Set by the simplifier when it proved that no point satisfies the domain.
  bool known_empty = false;

  std::size_t num_dims() const { return dims.size(); }
  std::size_t num_ranges() const { return ranges.size(); }
  std::size_t num_results() const { return results.size(); }

  /// Whether (dim values, range values) is inside the domain (bounds and constraints).
  bool in_domain(std::span<const std::int64_t> d, std::span<const std::int64_t> s = {}) const {
    if (d.size() != dims.size() || s.size() != ranges.size()) return false;
    for (std::size_t i = 0; i < d.size(); ++i)
      if (!dims[i].contains(d[i])) return false;
    for (std::size_t j = 0; j < s.size(); ++j)
      if (!ranges[j].contains(s[j])) return false;
    for (auto const& c : constraints)
      if (!c.range.contains(evaluate(c.expr, d, s))) return false;
    return true;
  }

  /// The results at a point (no domain check).
  std::vector<std::int64_t> apply(std::span<const std::int64_t> d, std::span<const std::int64_t> s = {}) const {
    std::vector<std::int64_t> r;
    r.reserve(results.size());
    for (auto const& e : results) r.push_back(evaluate(e, d, s));
    return r;
  }

  /// The identity map on a shape: `(d0, d1) -> (d0, d1)`, d_i in [0, shape[i]-1].
  static IndexingMap identity(Shape const& shape) {
    IndexingMap m;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      m.dims.push_back({0, shape[i] - 1});
      m.results.push_back(dim(static_cast<int>(i)));
    }
    return m;
  }

  /// The seed's multi-line notation (see the top of this header); "domain:" is followed by the
  /// bounds of every variable and then the constraints, one per line.
  std::string to_string() const {
    std::string s = "(";
    for (std::size_t i = 0; i < dims.size(); ++i) s += detail::cat({i ? ", d" : "d", std::to_string(i)});
    s += ")";
    if (!ranges.empty()) {
      s += "[";
      for (std::size_t j = 0; j < ranges.size(); ++j) s += detail::cat({j ? ", s" : "s", std::to_string(j)});
      s += "]";
    }
    s += " -> (";
    for (std::size_t i = 0; i < results.size(); ++i) s += detail::cat({i ? ", " : "", index::to_string(results[i])});
    s += ")\ndomain:\n";
    for (std::size_t i = 0; i < dims.size(); ++i)
      s += detail::cat({"d", std::to_string(i), " in ", dims[i].to_string(), "\n"});
    for (std::size_t j = 0; j < ranges.size(); ++j)
      s += detail::cat({"s", std::to_string(j), " in ", ranges[j].to_string(), "\n"});
    for (auto const& c : constraints) s += detail::cat({index::to_string(c.expr), " in ", c.range.to_string(), "\n"});
    if (known_empty) s += "known empty\n";
    return s;
  }

  /// Calls f(d, s) for every point of the domain (bounds and constraints), d and s as spans.
  /// Meant for tests and small shapes: it walks the whole box.
  template <class F>
  void for_each_point(F&& f) const {
    std::vector<std::int64_t> d(dims.size()), s(ranges.size());
    for (auto const& iv : dims)
      if (iv.empty()) return;
    for (auto const& iv : ranges)
      if (iv.empty()) return;
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = dims[i].lo;
    for (std::size_t j = 0; j < s.size(); ++j) s[j] = ranges[j].lo;
    std::size_t n = d.size() + s.size();
    while (true) {
      bool ok = true;
      for (auto const& c : constraints)
        if (!c.range.contains(evaluate(c.expr, d, s))) {
          ok = false;
          break;
        }
      if (ok) f(std::span<const std::int64_t>(d), std::span<const std::int64_t>(s));
      // odometer, last range variable fastest
      std::size_t k = n;
      while (k > 0) {
        --k;
        if (k >= d.size()) {
          auto j = k - d.size();
          if (s[j] < ranges[j].hi) {
            ++s[j];
            break;
          }
          s[j] = ranges[j].lo;
        } else {
          if (d[k] < dims[k].hi) {
            ++d[k];
            break;
          }
          d[k] = dims[k].lo;
        }
        if (k == 0) return;
      }
      if (n == 0) return;
    }
  }
};

}  // namespace optgrammar::index
