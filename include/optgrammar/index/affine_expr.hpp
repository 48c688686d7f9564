// Affine expressions over dimension variables d_i and range variables s_j.
//
// The grammar is the one of indexing maps: integer constants, d_i, s_j, `+`, multiplication by a
// constant, and `floordiv`, `ceildiv`, `mod` by a positive constant. An expression is an
// immutable tree shared by value (copies are cheap). Builders fold the obvious cases on the spot
// (`x * 1`, `x + 0`, constants with constants, `(x * 2) * 3`), nothing that needs ranges: the
// range-aware work is in simplify.hpp.
//
//   auto e = floordiv(dim(0) * 16 + dim(1), 16);   // prints "(d0 * 16 + d1) floordiv 16"
#pragma once

#include "optgrammar/index/interval.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace optgrammar::index {

enum class ExprKind : std::uint8_t { constant, dim, symbol, add, mul, floordiv, ceildiv, mod };

class AffineExpr;
namespace detail {
struct ExprNode;
}

/// One affine expression. Default-constructed, it is the constant 0.
class AffineExpr {
 public:
  AffineExpr();
  ExprKind kind() const;
  /// The constant of a constant, the index of d_i / s_j, the constant factor of a `*`, the
  /// divisor of `floordiv`/`ceildiv`/`mod`. Unused (0) for `+`.
  std::int64_t value() const;
  /// Left operand of `+`, `*`, `floordiv`, `ceildiv`, `mod`.
  AffineExpr const& lhs() const;
  /// Right operand of `+`.
  AffineExpr const& rhs() const;

  bool is_constant() const { return kind() == ExprKind::constant; }
  bool is_constant(std::int64_t v) const { return is_constant() && value() == v; }
  bool is_var() const { return kind() == ExprKind::dim || kind() == ExprKind::symbol; }

  friend bool operator==(AffineExpr const& a, AffineExpr const& b);

  static AffineExpr make(ExprKind k, std::int64_t v, AffineExpr const* l, AffineExpr const* r);

 private:
  struct NullTag {};
  explicit AffineExpr(NullTag) {}  // operand slot a node does not use
  friend struct detail::ExprNode;

  explicit AffineExpr(std::shared_ptr<const detail::ExprNode> n) : node_(std::move(n)) {}
  std::shared_ptr<const detail::ExprNode> node_;
};

namespace detail {
struct ExprNode {
  ExprKind kind;
  std::int64_t value;
  AffineExpr lhs;
  AffineExpr rhs;
  ExprNode(ExprKind k, std::int64_t v, AffineExpr const* l, AffineExpr const* r)
      : kind(k),
        value(v),
        lhs(l ? *l : AffineExpr(AffineExpr::NullTag{})),
        rhs(r ? *r : AffineExpr(AffineExpr::NullTag{})) {}
};
inline std::shared_ptr<const ExprNode> const& zero_node() {
  static const std::shared_ptr<const ExprNode> z =
      std::make_shared<const ExprNode>(ExprKind::constant, 0, nullptr, nullptr);
  return z;
}
}  // namespace detail

inline AffineExpr::AffineExpr() : node_(detail::zero_node()) {}
inline ExprKind AffineExpr::kind() const { return node_->kind; }
inline std::int64_t AffineExpr::value() const { return node_->value; }
inline AffineExpr const& AffineExpr::lhs() const { return node_->lhs; }
inline AffineExpr const& AffineExpr::rhs() const { return node_->rhs; }

inline AffineExpr AffineExpr::make(ExprKind k, std::int64_t v, AffineExpr const* l, AffineExpr const* r) {
  return AffineExpr(std::make_shared<const detail::ExprNode>(k, v, l, r));
}

/// Structural equality (same tree). Two different trees may still denote the same function;
/// compare simplified forms, or evaluate, to decide that.
inline bool operator==(AffineExpr const& a, AffineExpr const& b) {
  if (a.node_ == b.node_) return true;
  if (a.kind() != b.kind() || a.value() != b.value()) return false;
  switch (a.kind()) {
    case ExprKind::constant:
    case ExprKind::dim:
    case ExprKind::symbol: return true;
    case ExprKind::add: return a.lhs() == b.lhs() && a.rhs() == b.rhs();
    default: return a.lhs() == b.lhs();
  }
}

/// The constant `v`.
inline AffineExpr constant(std::int64_t v) { return AffineExpr::make(ExprKind::constant, v, nullptr, nullptr); }
/// The dimension variable d_i.
inline AffineExpr dim(int i) { return AffineExpr::make(ExprKind::dim, i, nullptr, nullptr); }
/// The range variable s_j.
inline AffineExpr sym(int j) { return AffineExpr::make(ExprKind::symbol, j, nullptr, nullptr); }

/// `a + b`: folds constants and `+ 0`.
inline AffineExpr operator+(AffineExpr const& a, AffineExpr const& b) {
  if (a.is_constant() && b.is_constant()) return constant(a.value() + b.value());
  if (a.is_constant(0)) return b;
  if (b.is_constant(0)) return a;
  return AffineExpr::make(ExprKind::add, 0, &a, &b);
}
inline AffineExpr operator+(AffineExpr const& a, std::int64_t k) { return a + constant(k); }
inline AffineExpr operator+(std::int64_t k, AffineExpr const& a) { return constant(k) + a; }

/// `a * k`: folds `* 1`, `* 0`, constants and nested constant factors.
inline AffineExpr operator*(AffineExpr const& a, std::int64_t k) {
  if (k == 1) return a;
  if (k == 0) return constant(0);
  if (a.is_constant()) return constant(a.value() * k);
  if (a.kind() == ExprKind::mul) return a.lhs() * (a.value() * k);
  return AffineExpr::make(ExprKind::mul, k, &a, nullptr);
}
inline AffineExpr operator*(std::int64_t k, AffineExpr const& a) { return a * k; }
inline AffineExpr operator-(AffineExpr const& a) { return a * -1; }
inline AffineExpr operator-(AffineExpr const& a, AffineExpr const& b) { return a + (-b); }
inline AffineExpr operator-(AffineExpr const& a, std::int64_t k) { return a + constant(-k); }
inline AffineExpr operator-(std::int64_t k, AffineExpr const& a) { return constant(k) + (-a); }

namespace detail {
inline void check_divisor(std::int64_t c, char const* op) {
  if (c <= 0)
    throw std::invalid_argument(std::string("affine ") + op + " needs a positive constant divisor, got " +
                                std::to_string(c));
}
}  // namespace detail

/// `a floordiv c` (rounds toward minus infinity), c > 0.
inline AffineExpr floordiv(AffineExpr const& a, std::int64_t c) {
  detail::check_divisor(c, "floordiv");
  if (c == 1) return a;
  if (a.is_constant()) return constant(floor_div(a.value(), c));
  return AffineExpr::make(ExprKind::floordiv, c, &a, nullptr);
}
/// `a ceildiv c` (rounds toward plus infinity), c > 0.
inline AffineExpr ceildiv(AffineExpr const& a, std::int64_t c) {
  detail::check_divisor(c, "ceildiv");
  if (c == 1) return a;
  if (a.is_constant()) return constant(ceil_div(a.value(), c));
  return AffineExpr::make(ExprKind::ceildiv, c, &a, nullptr);
}
/// `a mod c`, always in [0, c), c > 0.
inline AffineExpr mod(AffineExpr const& a, std::int64_t c) {
  detail::check_divisor(c, "mod");
  if (c == 1) return constant(0);
  if (a.is_constant()) return constant(floor_mod(a.value(), c));
  return AffineExpr::make(ExprKind::mod, c, &a, nullptr);
}

/// Total order used for canonical forms: d_i (by i), then s_j, then floordiv, ceildiv, mod
/// atoms, then sums and products; ties broken on operands. Returns <0, 0, >0.
inline int compare(AffineExpr const& a, AffineExpr const& b) {
  auto rank = [](ExprKind k) {
    switch (k) {
      case ExprKind::dim: return 0;
      case ExprKind::symbol: return 1;
      case ExprKind::floordiv: return 2;
      case ExprKind::ceildiv: return 3;
      case ExprKind::mod: return 4;
      case ExprKind::add: return 5;
      case ExprKind::mul: return 6;
      case ExprKind::constant: return 7;
    }
    return 8;
  };
  if (a.kind() != b.kind()) return rank(a.kind()) < rank(b.kind()) ? -1 : 1;
  switch (a.kind()) {
    case ExprKind::constant:
    case ExprKind::dim:
    case ExprKind::symbol: return a.value() < b.value() ? -1 : a.value() > b.value() ? 1 : 0;
    case ExprKind::add:
      if (int c = compare(a.lhs(), b.lhs())) return c;
      return compare(a.rhs(), b.rhs());
    default:
      if (int c = compare(a.lhs(), b.lhs())) return c;
      return a.value() < b.value() ? -1 : a.value() > b.value() ? 1 : 0;
  }
}

/// Value of `e` at a point. Throws std::out_of_range when a variable has no value.
inline std::int64_t evaluate(AffineExpr const& e, std::span<const std::int64_t> dims,
                             std::span<const std::int64_t> syms = {}) {
  switch (e.kind()) {
    case ExprKind::constant: return e.value();
    case ExprKind::dim:
      if (static_cast<std::size_t>(e.value()) >= dims.size())
        throw std::out_of_range("no value for d" + std::to_string(e.value()));
      return dims[static_cast<std::size_t>(e.value())];
    case ExprKind::symbol:
      if (static_cast<std::size_t>(e.value()) >= syms.size())
        throw std::out_of_range("no value for s" + std::to_string(e.value()));
      return syms[static_cast<std::size_t>(e.value())];
    case ExprKind::add: return evaluate(e.lhs(), dims, syms) + evaluate(e.rhs(), dims, syms);
    case ExprKind::mul: return evaluate(e.lhs(), dims, syms) * e.value();
    case ExprKind::floordiv: return floor_div(evaluate(e.lhs(), dims, syms), e.value());
    case ExprKind::ceildiv: return ceil_div(evaluate(e.lhs(), dims, syms), e.value());
    case ExprKind::mod: return floor_mod(evaluate(e.lhs(), dims, syms), e.value());
  }
  return 0;
}

/// `e` with every d_i replaced by dim_repl[i] and every s_j by sym_repl[j]. Variables beyond the
/// replacement lists are kept as they are.
inline AffineExpr substitute(AffineExpr const& e, std::span<const AffineExpr> dim_repl,
                             std::span<const AffineExpr> sym_repl) {
  switch (e.kind()) {
    case ExprKind::constant: return e;
    case ExprKind::dim: {
      auto i = static_cast<std::size_t>(e.value());
      return i < dim_repl.size() ? dim_repl[i] : e;
    }
    case ExprKind::symbol: {
      auto j = static_cast<std::size_t>(e.value());
      return j < sym_repl.size() ? sym_repl[j] : e;
    }
    case ExprKind::add: return substitute(e.lhs(), dim_repl, sym_repl) + substitute(e.rhs(), dim_repl, sym_repl);
    case ExprKind::mul: return substitute(e.lhs(), dim_repl, sym_repl) * e.value();
    case ExprKind::floordiv: return floordiv(substitute(e.lhs(), dim_repl, sym_repl), e.value());
    case ExprKind::ceildiv: return ceildiv(substitute(e.lhs(), dim_repl, sym_repl), e.value());
    case ExprKind::mod: return mod(substitute(e.lhs(), dim_repl, sym_repl), e.value());
  }
  return e;
}

/// Calls f(kind, index) for every variable occurrence in `e`.
template <class F>
void for_each_var(AffineExpr const& e, F&& f) {
  switch (e.kind()) {
    case ExprKind::constant: return;
    case ExprKind::dim:
    case ExprKind::symbol: f(e.kind(), e.value()); return;
    case ExprKind::add:
      for_each_var(e.lhs(), f);
      for_each_var(e.rhs(), f);
      return;
    default: for_each_var(e.lhs(), f); return;
  }
}

// ---- printing ---------------------------------------------------------------------------------
//
// The notation of the seed (MLIR's affine syntax): `d0 * 16 + d1 floordiv 2 - 3`, `-d1 + 16`,
// `(d1 mod 2) * 4`, `(d0 - 1) floordiv 2`. A negated compound term is printed `-(…)` so that the
// reader never has to know whether unary minus binds tighter than `floordiv` (parser.hpp reads
// `-x floordiv 2` as `-(x floordiv 2)`, as the seed's `-(…) floordiv 11 + 9` needs).

namespace detail {
inline void print_expr(std::string& out, AffineExpr const& e, int level);

// level 0: a summand; 1: operand of * / floordiv / mod (parenthesize anything but a variable or
// a non-negative constant); 2: right of a binary minus (parenthesize sums).
inline void print_operand(std::string& out, AffineExpr const& e) {
  bool simple = e.is_var() || (e.is_constant() && e.value() >= 0);
  if (!simple) out += '(';
  print_expr(out, e, 0);
  if (!simple) out += ')';
}

inline void print_expr(std::string& out, AffineExpr const& e, int level) {
  switch (e.kind()) {
    case ExprKind::constant: out += std::to_string(e.value()); return;
    case ExprKind::dim:
      out += 'd';
      out += std::to_string(e.value());
      return;
    case ExprKind::symbol:
      out += 's';
      out += std::to_string(e.value());
      return;
    case ExprKind::add: {
      if (level == 2) out += '(';
      print_expr(out, e.lhs(), 0);
      AffineExpr const& r = e.rhs();
      if (r.is_constant() && r.value() < 0) {
        out += " - ";
        out += std::to_string(-r.value());
      } else if (r.kind() == ExprKind::mul && r.value() < 0) {
        out += " - ";
        print_expr(out, r.lhs() * -r.value(), 2);
      } else {
        out += " + ";
        print_expr(out, r, 2);
      }
      if (level == 2) out += ')';
      return;
    }
    case ExprKind::mul:
      if (e.value() == -1) {
        out += '-';
        print_operand(out, e.lhs());
        return;
      }
      print_operand(out, e.lhs());
      out += " * ";
      out += std::to_string(e.value());
      return;
    case ExprKind::floordiv:
    case ExprKind::ceildiv:
    case ExprKind::mod:
      print_operand(out, e.lhs());
      out += e.kind() == ExprKind::floordiv ? " floordiv " : e.kind() == ExprKind::ceildiv ? " ceildiv " : " mod ";
      out += std::to_string(e.value());
      return;
  }
}
}  // namespace detail

/// The seed's notation: `d0 + d1 floordiv 16`.
inline std::string to_string(AffineExpr const& e) {
  std::string s;
  detail::print_expr(s, e, 0);
  return s;
}

}  // namespace optgrammar::index
