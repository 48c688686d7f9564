// Deep and wide graphs for the scale tests and bench/scale: a chain of n ops, and one op with
// up to 65535 inputs. Every path (read, verify, rewrite, fold, CSE, interpret, DOT, write) must
// take them without recursion whose depth grows with the graph.
#pragma once

#include <optgrammar/core/graph.hpp>

#include <cstddef>
#include <cstdint>

namespace optgrammar::scale {

inline OutputDef f32_vec(std::size_t n) { return OutputDef::make(DType::Float32, {1, n}); }

/// Input -> Relu -> ... (n Relus) -> Output. W1's rule R1 collapses it to one Relu.
inline Graph relu_chain(std::size_t n) {
  Graph g;
  OpRef x = g.add_input(f32_vec(4));
  for (std::size_t i = 0; i < n; ++i) x = g.add_op("Relu", {x}, f32_vec(4));
  g.add_output(x);
  return g;
}

/// $Const -> Neg -> ... (n Negs) -> Output: constant folding takes it to one constant.
inline Graph neg_chain_of_const(std::size_t n) {
  Graph g;
  OpRef x = g.add_const(f32_vec(4), {1.0f, -2.0f, 0.5f, 3.0f});
  for (std::size_t i = 0; i < n; ++i) x = g.add_op("Neg", {x}, f32_vec(4));
  g.add_output(x);
  return g;
}

/// Two equal chains of n Negs from one Input, added at the end: CSE merges them into one.
inline Graph twin_neg_chains(std::size_t n) {
  Graph g;
  OpRef x = g.add_input(f32_vec(4));
  OpRef a = x, b = x;
  for (std::size_t i = 0; i < n; ++i) a = g.add_op("Neg", {a}, f32_vec(4));
  for (std::size_t i = 0; i < n; ++i) b = g.add_op("Neg", {b}, f32_vec(4));
  g.add_output(g.add_op("Add", {a, b}, f32_vec(4)));
  return g;
}

/// One Concat of n parts, each Relu(Relu(x)) of the one Input (n <= 65535): R1 rewrites every
/// part, CSE merges the parts into one.
inline Graph wide_concat(std::size_t n, bool constant_parts = false) {
  Graph g;
  const OutputDef one = f32_vec(1);
  std::vector<OpRef> parts;
  parts.reserve(n);
  OpRef x = constant_parts ? OpRef{} : g.add_input(one);
  for (std::size_t i = 0; i < n; ++i) {
    if (constant_parts)
      parts.push_back(g.add_const(one, {static_cast<float>(i)}));
    else
      parts.push_back(g.add_op("Relu", {g.add_op("Relu", {x}, one)}, one));
  }
  g.add_output(g.add_op(intern_op_name("Concat"), parts, f32_vec(n)));
  return g;
}

}  // namespace optgrammar::scale
