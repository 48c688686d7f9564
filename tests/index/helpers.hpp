// Brute-force helpers shared by the index/ tests.
#pragma once

#include "optgrammar/index/index.hpp"

#include <map>
#include <random>
#include <set>
#include <vector>

namespace index_test {
using namespace optgrammar::index;
using Point = std::vector<std::int64_t>;

/// For every dimension point of the domain: the set of result tuples over all range values
/// (points the constraints exclude do not count).
inline std::map<Point, std::set<Point>> relation(IndexingMap const& m) {
  std::map<Point, std::set<Point>> r;
  m.for_each_point([&](std::span<const std::int64_t> d, std::span<const std::int64_t> s) {
    r[Point(d.begin(), d.end())].insert(m.apply(d, s));
  });
  return r;
}

/// Two maps denote the same relation on the same dimension variables (checked point by point).
inline bool same_relation(IndexingMap const& a, IndexingMap const& b) {
  return a.num_dims() == b.num_dims() && relation(a) == relation(b);
}

/// Calls f(point) for every point of a box.
template <class F>
void for_each_in_box(Box const& box, F&& f) {
  for (auto const& iv : box)
    if (iv.empty()) return;
  Point p;
  for (auto const& iv : box) p.push_back(iv.lo);
  while (true) {
    f(p);
    std::size_t k = p.size();
    while (true) {
      if (k == 0) return;
      --k;
      if (p[k] < box[k].hi) {
        ++p[k];
        break;
      }
      p[k] = box[k].lo;
    }
  }
}

/// The exact bounding box of what `m` reads for the output elements of `tile` (nullopt: nothing).
inline std::optional<Box> brute_input_box(IndexingMap const& m, Box const& tile) {
  std::optional<Box> box;
  m.for_each_point([&](std::span<const std::int64_t> d, std::span<const std::int64_t> s) {
    for (std::size_t i = 0; i < d.size(); ++i)
      if (!tile[i].contains(d[i])) return;
    Point r = m.apply(d, s);
    if (!box) box = Box(r.size(), Interval{0, -1});
    for (std::size_t i = 0; i < r.size(); ++i) (*box)[i] = (*box)[i].hull({r[i], r[i]});
  });
  return box;
}

/// A random expression over `nd` dims and `ns` symbols.
inline AffineExpr random_expr(std::mt19937& rng, int nd, int ns, int depth) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  if (depth == 0 || pick(0, 3) == 0) {
    int k = pick(0, nd + ns);
    if (k < nd) return dim(k);
    if (k < nd + ns) return sym(k - nd);
    return constant(pick(-20, 20));
  }
  switch (pick(0, 5)) {
    case 0:
    case 1: return random_expr(rng, nd, ns, depth - 1) + random_expr(rng, nd, ns, depth - 1);
    case 2: return random_expr(rng, nd, ns, depth - 1) * pick(-4, 16);
    case 3: return floordiv(random_expr(rng, nd, ns, depth - 1), pick(1, 16));
    case 4: return ceildiv(random_expr(rng, nd, ns, depth - 1), pick(1, 8));
    default: return mod(random_expr(rng, nd, ns, depth - 1), pick(1, 16));
  }
}
}  // namespace index_test
