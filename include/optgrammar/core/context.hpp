// The objects external functions of rules see: Constraint, Replacement, Split_Context, QuickShape.
#pragma once

#include "optgrammar/core/graph.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace optgrammar {

/// The iteration an AUTOSPLIT or OP_ITER part is evaluated in: slice [start, start+size) of `dim`.
struct Split_Context {
  std::size_t start = 0;
  std::size_t size = 0;
  int dim = 0;
};

/// A compact shape: rank and up to 8 dims. External shape functions may return one; the
/// framework turns it into a shape op. Made as package code makes it: `QuickShape(b, h, w, d)`
/// (rank 4, any integer types) or from an array of dims (`QuickShape(dims)`, the rank is the
/// array's length, at most 8).
struct QuickShape {
  std::uint32_t rank = 0;
  std::array<std::size_t, max_rank> dims{};

  constexpr QuickShape() = default;
  template <class B, class H, class W, class D>
    requires(std::is_integral_v<B>&& std::is_integral_v<H>&& std::is_integral_v<W>&& std::is_integral_v<D>)
  constexpr QuickShape(B b, H h, W w, D d)
      : rank(4),
        dims{static_cast<std::size_t>(b), static_cast<std::size_t>(h), static_cast<std::size_t>(w),
             static_cast<std::size_t>(d)} {}
  template <class T, std::size_t N>
    requires(std::is_integral_v<T>&& N <= max_rank)
  constexpr explicit QuickShape(const T (&d)[N]) : rank(static_cast<std::uint32_t>(N)) {
    for (std::size_t i = 0; i < N; ++i) dims[i] = static_cast<std::size_t>(d[i]);
  }
  template <class T, std::size_t N>
    requires(std::is_integral_v<T>&& N <= max_rank)
  constexpr explicit QuickShape(const std::array<T, N>& d) : rank(static_cast<std::uint32_t>(N)) {
    for (std::size_t i = 0; i < N; ++i) dims[i] = static_cast<std::size_t>(d[i]);
  }
};

/// What EXTERNAL_CONSTRAINT functions receive: read access to the graph being matched.
class Constraint {
 public:
  explicit Constraint(const Graph& g, OpRef root) : g_(g), root_(root) {}
  const Graph& graph() const noexcept { return g_; }
  OpRef root() const noexcept { return root_; }
  const OutputDef& output(OpRef r) const { return g_.output(r); }

 private:
  const Graph& g_;
  OpRef root_;
};

/// What external replacement and shape functions receive: the graph, the op being replaced,
/// and ways to make new ops. New ops made through it are undone if the rule fails.
class Replacement {
 public:
  Replacement(Graph& g, OpRef root) : g_(g), root_(root) {}
  Graph& graph() noexcept { return g_; }
  const Graph& graph() const noexcept { return g_; }
  OpRef root() const noexcept { return root_; }
  /// A copy of the replaced op's record (making ops may move the graph's records).
  OpDef root_def() const { return g_.op(root_); }

  /// A new op with the replaced op's output definition and op id.
  OpRef op(std::string_view name, std::span<const OpRef> inputs) {
    return g_.add_op_with_id(intern_op_name(name), inputs, g_.output_index(root_), g_.op_id(root_));
  }
  OpRef op(std::string_view name, std::initializer_list<OpRef> inputs) {
    return op(name, std::span<const OpRef>(inputs.begin(), inputs.size()));
  }
  OpRef op(std::string_view name, std::span<const OpRef> inputs, const OutputDef& out) {
    return g_.add_op_with_id(intern_op_name(name), inputs, g_.intern_output(out), g_.op_id(root_));
  }
  /// A shape op (`$Shape`) of the given rank and dims.
  OpRef shape(const QuickShape& s) {
    OutputDef d;
    d.dtype = DType::Int32;
    d.rank = s.rank;
    for (std::uint32_t i = 0; i < s.rank && i < max_rank; ++i) d.dims[i] = s.dims[i];
    return g_.add_op_with_id(op_names::shape, {}, g_.intern_output(d), g_.op_id(root_));
  }
  template <class T>
  OpRef constant(const OutputDef& d, std::span<const T> values) {
    return g_.add_const(d, values);
  }

 private:
  Graph& g_;
  OpRef root_;
};

}  // namespace optgrammar
