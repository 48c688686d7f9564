// The range-aware simplifier and interval evaluation.
//
// An expression is brought to a linear form  c_1*a_1 + ... + c_n*a_n + k  whose atoms a_i are
// variables or `floordiv`/`ceildiv`/`mod` of an (already simplified) linear form. The bounds of
// the variables then decide the rest (docs/indexing-maps.md lists the rules with examples):
//
//  * multiples of the divisor leave a division:   (16*d0 + d1) floordiv 16 -> d0 + d1 floordiv 16
//                                                 (16*d0 + d1) mod 16      -> d1 mod 16
//  * a division whose operand stays inside one block of the divisor is a constant, a mod of such
//    an operand is the operand shifted:           d1 floordiv 16 -> 0, d1 mod 16 -> d1 (d1 in [0, 15])
//  * split by range: when x = g*a + b with b in [0, g) and g dividing c,
//        x floordiv c -> a floordiv (c/g),   x mod c -> g*(a mod (c/g)) + b
//  * nested divisions: (y + x floordiv a) floordiv b -> (a*y + x) floordiv (a*b);
//    (x mod a) mod b -> x mod b when b divides a;
//  * c*(x floordiv c) + (x mod c) -> x (and any common multiple k of both terms), where both
//    sides are compared after simplification;
//  * a variable whose interval is one point is that constant.
//
// Every rewrite is exact on the domain; nothing is approximated.
#pragma once

#include "optgrammar/index/indexing_map.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

namespace optgrammar::index {

/// c_1*a_1 + ... + c_n*a_n + constant, with distinct atoms and non-zero coefficients.
struct LinearForm {
  std::vector<std::pair<AffineExpr, std::int64_t>> terms;
  std::int64_t constant = 0;

  void add(AffineExpr const& atom, std::int64_t k) {
    if (k == 0) return;
    for (auto it = terms.begin(); it != terms.end(); ++it) {
      if (it->first == atom) {
        it->second += k;
        if (it->second == 0) terms.erase(it);
        return;
      }
    }
    terms.emplace_back(atom, k);
  }
  void add(LinearForm const& o, std::int64_t scale = 1) {
    for (auto const& [a, k] : o.terms) add(a, k * scale);
    constant += o.constant * scale;
  }
  LinearForm scaled(std::int64_t s) const {
    LinearForm r;
    if (s == 0) return r;
    for (auto const& [a, k] : terms) r.terms.emplace_back(a, k * s);
    r.constant = constant * s;
    return r;
  }
  /// The canonical expression: atoms in `compare` order, constant last.
  AffineExpr to_expr() const {
    auto sorted = terms;
    std::sort(sorted.begin(), sorted.end(), [](auto const& x, auto const& y) { return compare(x.first, y.first) < 0; });
    AffineExpr e = index::constant(0);
    bool first = true;
    for (auto const& [a, k] : sorted) {
      e = first ? a * k : e + a * k;
      first = false;
    }
    return e + index::constant(constant);
  }
};

/// The linear form of `e` without any range reasoning: sums and constant factors are flattened,
/// everything else is an atom.
inline LinearForm linear_form(AffineExpr const& e) {
  LinearForm r;
  switch (e.kind()) {
    case ExprKind::constant: r.constant = e.value(); break;
    case ExprKind::add:
      r = linear_form(e.lhs());
      r.add(linear_form(e.rhs()));
      break;
    case ExprKind::mul: r = linear_form(e.lhs()).scaled(e.value()); break;
    default: r.add(e, 1); break;
  }
  return r;
}

/// Bounds of the variables an expression is evaluated over.
struct RangeEnv {
  std::span<const Interval> dims;
  std::span<const Interval> syms;
};

namespace detail {
inline Interval range_of_linear(LinearForm const& l, RangeEnv env);

inline Interval range_of_atom(AffineExpr const& a, RangeEnv env) {
  switch (a.kind()) {
    case ExprKind::constant: return {a.value(), a.value()};
    case ExprKind::dim: {
      auto i = static_cast<std::size_t>(a.value());
      if (i >= env.dims.size()) throw std::out_of_range("no bounds for d" + std::to_string(i));
      return env.dims[i];
    }
    case ExprKind::symbol: {
      auto j = static_cast<std::size_t>(a.value());
      if (j >= env.syms.size()) throw std::out_of_range("no bounds for s" + std::to_string(j));
      return env.syms[j];
    }
    case ExprKind::floordiv: return range_of_linear(linear_form(a.lhs()), env).floordiv(a.value());
    case ExprKind::ceildiv: return range_of_linear(linear_form(a.lhs()), env).ceildiv(a.value());
    case ExprKind::mod: {
      Interval x = range_of_linear(linear_form(a.lhs()), env);
      if (x.empty()) return x;
      Interval m = x.mod(a.value());
      if (x.lo >= 0) m.hi = std::min(m.hi, x.hi);
      return m;
    }
    default: return range_of_linear(linear_form(a), env);
  }
}

inline Interval range_of_linear(LinearForm const& l, RangeEnv env) {
  Interval r{l.constant, l.constant};
  for (auto const& [a, k] : l.terms) {
    Interval ai = range_of_atom(a, env);
    if (ai.empty()) return ai;
    r = r + ai * k;
  }
  return r;
}
}  // namespace detail

/// Interval of `e` when every d_i and s_j ranges over its bounds (sound, not always tight).
inline Interval range_of(AffineExpr const& e, RangeEnv env) { return detail::range_of_linear(linear_form(e), env); }

/// The simplifier proper, for one set of variable bounds.
class Simplifier {
 public:
  explicit Simplifier(RangeEnv env) : env_(env) {}

  /// The simplified linear form of `e`.
  LinearForm linear(AffineExpr const& e) const {
    switch (e.kind()) {
      case ExprKind::constant: {
        LinearForm r;
        r.constant = e.value();
        return r;
      }
      case ExprKind::dim:
      case ExprKind::symbol: {
        LinearForm r;
        Interval b = detail::range_of_atom(e, env_);
        if (b.is_point())
          r.constant = b.lo;
        else
          r.add(e, 1);
        return r;
      }
      case ExprKind::add: {
        LinearForm r = linear(e.lhs());
        r.add(linear(e.rhs()));
        recombine(r);
        return r;
      }
      case ExprKind::mul: return linear(e.lhs()).scaled(e.value());
      case ExprKind::floordiv: return div(linear(e.lhs()), e.value());
      case ExprKind::ceildiv: return cdiv(linear(e.lhs()), e.value());
      case ExprKind::mod: return rem(linear(e.lhs()), e.value());
    }
    return {};
  }

  AffineExpr simplify(AffineExpr const& e) const { return linear(e).to_expr(); }
  Interval range(LinearForm const& l) const { return detail::range_of_linear(l, env_); }

 private:
  RangeEnv env_;

  // l = g*a + b with b's range in [0, g), g a proper divisor of c.
  struct Split {
    std::int64_t g;
    LinearForm a;
    LinearForm b;
  };

  std::optional<Split> split(LinearForm const& l, std::int64_t c) const {
    std::vector<std::int64_t> gs;
    std::int64_t all = 0;
    for (auto const& [atom, k] : l.terms) {
      gs.push_back(std::gcd(k, c));
      all = std::gcd(all, k);
    }
    gs.push_back(std::gcd(all, c));
    std::sort(gs.begin(), gs.end(), std::greater<>());
    gs.erase(std::unique(gs.begin(), gs.end()), gs.end());
    for (std::int64_t g : gs) {
      if (g <= 1 || g >= c) continue;
      Split s{g, {}, {}};
      for (auto const& [atom, k] : l.terms) {
        if (k % g == 0)
          s.a.add(atom, k / g);
        else
          s.b.add(atom, k);
      }
      if (s.a.terms.empty()) continue;
      s.b.constant = l.constant;
      Interval rb = range(s.b);
      if (rb.empty()) continue;
      std::int64_t m = floor_div(rb.lo, g);
      if (floor_div(rb.hi, g) != m) continue;
      s.a.constant += m;
      s.b.constant -= m * g;
      return s;
    }
    return std::nullopt;
  }

  // Moves the multiples of c (terms and constant) of l into `whole` (divided by c); what is left
  // has no coefficient divisible by c and a constant in [0, c).
  static LinearForm extract_multiples(LinearForm const& l, std::int64_t c, LinearForm& whole) {
    LinearForm rest;
    for (auto const& [atom, k] : l.terms) {
      if (k % c == 0)
        whole.add(atom, k / c);
      else
        rest.add(atom, k);
    }
    std::int64_t q = floor_div(l.constant, c);
    whole.constant += q;
    rest.constant = l.constant - q * c;
    return rest;
  }

  LinearForm div(LinearForm const& l, std::int64_t c) const {
    if (c == 1) return l;
    LinearForm out;
    LinearForm r = extract_multiples(l, c, out);
    Interval rr = range(r);
    if (r.terms.empty() || (!rr.empty() && floor_div(rr.lo, c) == floor_div(rr.hi, c))) {
      out.constant += r.terms.empty() ? floor_div(r.constant, c) : floor_div(rr.lo, c);
      recombine(out);
      return out;
    }
    if (auto s = split(r, c)) {
      out.add(div(s->a, c / s->g));
      recombine(out);
      return out;
    }
    auto inner = std::find_if(r.terms.begin(), r.terms.end(),
                              [](auto const& t) { return t.second == 1 && t.first.kind() == ExprKind::floordiv; });
    if (inner != r.terms.end()) {
      // (a + x floordiv b) floordiv c == (a*b + x) floordiv (b*c) for integer a
      AffineExpr in = inner->first;
      LinearForm a = r;
      a.add(in, -1);
      LinearForm x = a.scaled(in.value());
      x.add(linear_form(in.lhs()));
      out.add(div(x, in.value() * c));
      recombine(out);
      return out;
    }
    out.add(floordiv(r.to_expr(), c), 1);
    recombine(out);
    return out;
  }

  LinearForm cdiv(LinearForm const& l, std::int64_t c) const {
    if (c == 1) return l;
    LinearForm out;
    LinearForm r = extract_multiples(l, c, out);
    Interval rr = range(r);
    if (r.terms.empty() || (!rr.empty() && ceil_div(rr.lo, c) == ceil_div(rr.hi, c))) {
      out.constant += r.terms.empty() ? ceil_div(r.constant, c) : ceil_div(rr.lo, c);
      recombine(out);
      return out;
    }
    out.add(ceildiv(r.to_expr(), c), 1);
    recombine(out);
    return out;
  }

  LinearForm rem(LinearForm const& l, std::int64_t c) const {
    LinearForm out;
    if (c == 1) return out;
    LinearForm ignored;
    LinearForm r = extract_multiples(l, c, ignored);
    if (r.terms.empty()) {
      out.constant = r.constant;
      return out;
    }
    Interval rr = range(r);
    if (!rr.empty() && floor_div(rr.lo, c) == floor_div(rr.hi, c)) {
      r.constant -= floor_div(rr.lo, c) * c;
      return r;
    }
    if (auto s = split(r, c)) {
      out = rem(s->a, c / s->g).scaled(s->g);
      out.add(s->b);
      recombine(out);
      return out;
    }
    if (r.terms.size() == 1 && r.terms[0].second == 1 && r.terms[0].first.kind() == ExprKind::mod &&
        r.terms[0].first.value() % c == 0) {
      // (x mod a + k) mod c == (x + k) mod c when c divides a
      LinearForm x = linear_form(r.terms[0].first.lhs());
      x.constant += r.constant;
      return rem(x, c);
    }
    out.add(mod(r.to_expr(), c), 1);
    return out;
  }

  static std::size_t nodes(AffineExpr const& e) {
    switch (e.kind()) {
      case ExprKind::constant:
      case ExprKind::dim:
      case ExprKind::symbol: return 1;
      case ExprKind::add: return 1 + nodes(e.lhs()) + nodes(e.rhs());
      default: return 1 + nodes(e.lhs());
    }
  }
  static std::size_t cost(LinearForm const& l) {
    std::size_t c = 0;
    for (auto const& t : l.terms) c += 1 + nodes(t.first);
    return c;
  }

  // k*c*(z floordiv c) + k*M -> k*z where M is the simplified form of z mod c, and
  // k*(y mod c) + k*c*F -> k*y where F is the simplified form of y floordiv c. Comparing
  // simplified forms pairs (x floordiv 3) mod 2 with x floordiv 6, and (x mod 12) floordiv 2
  // with x mod 2. Applied while it makes the form smaller.
  void recombine(LinearForm& l) const {
    auto present = [&](LinearForm const& part, std::int64_t scale) {
      return !part.terms.empty() && std::all_of(part.terms.begin(), part.terms.end(), [&](auto const& t) {
        return std::any_of(l.terms.begin(), l.terms.end(), [&](auto const& u) {
          return u.first == t.first && (u.second > 0) == (t.second * scale > 0);
        });
      });
    };
    bool again = true;
    while (again) {
      again = false;
      for (std::size_t i = 0; i < l.terms.size() && !again; ++i) {
        AffineExpr a = l.terms[i].first;
        std::int64_t ka = l.terms[i].second;
        if (a.kind() != ExprKind::mod && a.kind() != ExprKind::floordiv) continue;
        std::int64_t c = a.value();
        LinearForm y = linear_form(a.lhs());
        LinearForm n = l;
        if (a.kind() == ExprKind::mod) {
          LinearForm f = div(y, c);
          if (!present(f, ka)) continue;
          n.add(a, -ka);
          n.add(f, -ka * c);
          n.add(y, ka);
        } else {
          if (ka % c != 0) continue;
          std::int64_t k = ka / c;
          LinearForm m = rem(y, c);
          if (!present(m, k)) continue;
          n.add(a, -ka);
          n.add(m, -k);
          n.add(y, k);
        }
        if (cost(n) < cost(l)) {
          l = std::move(n);
          again = true;
        }
      }
    }
  }
};

/// `e` simplified over the given bounds.
inline AffineExpr simplify(AffineExpr const& e, RangeEnv env) { return Simplifier(env).simplify(e); }

/// Interval of `e` over the domain of `m` (bounds of its d_i and s_j), after simplification.
inline Interval range_of(AffineExpr const& e, IndexingMap const& m) {
  Simplifier s({m.dims, m.ranges});
  return s.range(s.linear(e));
}

/// Interval of every result of `m` over its domain.
inline Box result_ranges(IndexingMap const& m) {
  Box b;
  for (auto const& r : m.results) b.push_back(range_of(r, m));
  return b;
}

namespace detail {
// A constraint on one variable only (like `(d0 - 1) mod 2 in [0, 0]`) moves that variable's
// bounds inward to the nearest values that satisfy it (at most 64 steps per end), so that
// interval evaluation over the domain is tight.
inline void tighten_single_var(IndexingMap& m, Constraint const& c, bool& changed) {
  int count = 0;
  ExprKind kind = ExprKind::dim;
  std::int64_t index = -1;
  bool single = true;
  for_each_var(c.expr, [&](ExprKind k, std::int64_t i) {
    if (count++ > 0 && (k != kind || i != index)) single = false;
    kind = k;
    index = i;
  });
  if (count == 0 || !single) return;
  Interval& b =
      kind == ExprKind::dim ? m.dims[static_cast<std::size_t>(index)] : m.ranges[static_cast<std::size_t>(index)];
  std::vector<std::int64_t> d(m.dims.size(), 0), s(m.ranges.size(), 0);
  std::vector<std::int64_t>& v = kind == ExprKind::dim ? d : s;
  auto holds = [&](std::int64_t x) {
    v[static_cast<std::size_t>(index)] = x;
    return c.range.contains(evaluate(c.expr, d, s));
  };
  Interval nb = b;
  for (int k = 0; k < 64 && !nb.empty() && !holds(nb.lo); ++k) ++nb.lo;
  for (int k = 0; k < 64 && !nb.empty() && !holds(nb.hi); ++k) --nb.hi;
  if (nb != b) {
    b = nb;
    changed = true;
    if (nb.empty()) m.known_empty = true;
  }
}

// Simplifies one constraint against the current bounds. Returns the constraint to keep (if any);
// may tighten bounds in `m` (setting `changed`) or set m.known_empty.
inline std::optional<Constraint> simplify_constraint(IndexingMap& m, Constraint const& c, bool& changed) {
  Simplifier s({m.dims, m.ranges});
  LinearForm l = s.linear(c.expr);
  Interval iv = c.range;
  for (int guard = 0; guard < 64; ++guard) {
    iv = iv + (-l.constant);
    l.constant = 0;
    if (iv.empty()) {
      m.known_empty = true;
      return std::nullopt;
    }
    if (l.terms.empty()) {
      if (!iv.contains(0)) m.known_empty = true;
      return std::nullopt;
    }
    std::int64_t g = 0;
    for (auto const& t : l.terms) g = std::gcd(g, t.second);
    if (g > 1) {
      l = [&] {
        LinearForm d;
        for (auto const& [a, k] : l.terms) d.add(a, k / g);
        return d;
      }();
      iv = {ceil_div(iv.lo, g), floor_div(iv.hi, g)};
      if (iv.empty()) {
        m.known_empty = true;
        return std::nullopt;
      }
    }
    if (l.terms.size() == 1 && (l.terms[0].second == 1 || l.terms[0].second == -1)) {
      if (l.terms[0].second == -1) {
        l = l.scaled(-1);
        iv = {-iv.hi, -iv.lo};
      }
      AffineExpr const a = l.terms[0].first;
      if (a.is_var()) {
        Interval& b = a.kind() == ExprKind::dim ? m.dims[static_cast<std::size_t>(a.value())]
                                                : m.ranges[static_cast<std::size_t>(a.value())];
        Interval nb = b.intersect(iv);
        if (nb != b) {
          b = nb;
          changed = true;
        }
        if (nb.empty()) m.known_empty = true;
        return std::nullopt;
      }
      if (a.kind() == ExprKind::floordiv) {  // lo <= x floordiv c <= hi  <=>  lo*c <= x <= hi*c + c-1
        l = linear_form(a.lhs());
        iv = {iv.lo * a.value(), iv.hi * a.value() + a.value() - 1};
        continue;
      }
      if (a.kind() == ExprKind::ceildiv) {  // lo <= x ceildiv c <= hi  <=>  (lo-1)*c+1 <= x <= hi*c
        l = linear_form(a.lhs());
        iv = {(iv.lo - 1) * a.value() + 1, iv.hi * a.value()};
        continue;
      }
    }
    Interval rr = s.range(l);
    if (iv.contains(rr)) return std::nullopt;
    if (rr.intersect(iv).empty()) {
      m.known_empty = true;
      return std::nullopt;
    }
    Constraint kept{l.to_expr(), iv};
    tighten_single_var(m, kept, changed);
    return kept;
  }
  return Constraint{l.to_expr(), iv};
}

inline void remove_unused_ranges(IndexingMap& m) {
  std::vector<bool> used(m.ranges.size(), false);
  auto mark = [&](ExprKind k, std::int64_t i) {
    if (k == ExprKind::symbol) used[static_cast<std::size_t>(i)] = true;
  };
  for (auto const& r : m.results) for_each_var(r, mark);
  for (auto const& c : m.constraints) for_each_var(c.expr, mark);
  std::vector<AffineExpr> repl;
  std::vector<Interval> kept;
  for (std::size_t j = 0; j < m.ranges.size(); ++j) {
    if (used[j] || m.ranges[j].empty()) {
      repl.push_back(sym(static_cast<int>(kept.size())));
      kept.push_back(m.ranges[j]);
    } else {
      repl.push_back(constant(0));  // never occurs
    }
  }
  if (kept.size() == m.ranges.size()) return;
  for (auto& r : m.results) r = substitute(r, {}, repl);
  for (auto& c : m.constraints) c.expr = substitute(c.expr, {}, repl);
  m.ranges = std::move(kept);
}
}  // namespace detail

/// The map with simplified results and domain: results and constraint expressions rewritten by
/// the rules above; a constraint on a single variable (after moving constants, dividing by the
/// common factor and undoing floordiv/ceildiv) becomes its bound; constraints that always hold
/// are dropped; one that never holds marks the map known empty; range variables that no longer
/// occur are removed.
inline IndexingMap simplify(IndexingMap m) {
  for (int round = 0; round < 16; ++round) {
    bool changed = false;
    for (auto const& b : m.dims)
      if (b.empty()) m.known_empty = true;
    for (auto const& b : m.ranges)
      if (b.empty()) m.known_empty = true;
    std::vector<Constraint> kept;
    for (auto const& c : m.constraints) {
      auto k = detail::simplify_constraint(m, c, changed);
      if (!k) continue;
      auto same = std::find_if(kept.begin(), kept.end(), [&](Constraint const& o) { return o.expr == k->expr; });
      if (same != kept.end())
        same->range = same->range.intersect(k->range);
      else
        kept.push_back(*k);
    }
    if (kept != m.constraints) changed = true;
    m.constraints = std::move(kept);
    Simplifier s({m.dims, m.ranges});
    for (auto& r : m.results) {
      AffineExpr n = s.simplify(r);
      if (!(n == r)) {
        r = n;
        changed = true;
      }
    }
    if (!changed) break;
  }
  detail::remove_unused_ranges(m);
  return m;
}

}  // namespace optgrammar::index
