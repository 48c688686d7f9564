// Workload W1 (shared/bench-spec/W1-redundant-chain.md): a chain of B redundant conv blocks.
#pragma once

#include <optgrammar/core/graph.hpp>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace w1 {

inline constexpr std::size_t ops_per_block = 14;

/// Builds the W1 graph with `blocks` blocks: 1 input + 14·B ops + 1 output.
inline optgrammar::Graph build(std::size_t blocks) {
  using namespace optgrammar;
  Graph g;
  g.reserve(ops_per_block * blocks + 2, 14 * blocks + 1);
  const OutputDef act = OutputDef::make(DType::Float32, {1, 32, 32, 16});
  const OutputDef act_t = OutputDef::make(DType::Float32, {1, 16, 32, 32});
  const OutputDef wdef = OutputDef::make(DType::Float32, {1, 1, 16, 16});
  const OutputDef bdef = OutputDef::make(DType::Float32, {1, 1, 1, 16});
  const OutputDef sdef = OutputDef::make(DType::Float32, {1, 1, 1, 1});
  const OutputDef pdef = OutputDef::make(DType::Int32, {1, 1, 1, 4});
  const OpNameId conv = intern_op_name("Conv2d"), bias = intern_op_name("BiasAdd"), relu = intern_op_name("Relu"),
                 add = intern_op_name("Add"), mul = intern_op_name("Mul"), tr = intern_op_name("Transpose");
  float w[256], b[16];
  for (int k = 0; k < 16; ++k) b[k] = static_cast<float>(k) * 0.5f;
  const float zero = 0.0f, one = 1.0f;
  const std::int32_t p[4] = {0, 3, 1, 2}, q[4] = {0, 2, 3, 1};
  OpRef h = g.add_input(act);
  for (std::size_t i = 0; i < blocks; ++i) {
    for (std::size_t k = 0; k < 256; ++k) w[k] = static_cast<float>((i + k) % 7) * 0.125f;
    OpRef wi = g.add_const(wdef, std::span<const float>(w, 256));
    OpRef bi = g.add_const(bdef, std::span<const float>(b, 16));
    OpRef zi = g.add_const(sdef, std::span<const float>(&zero, 1));
    OpRef oi = g.add_const(sdef, std::span<const float>(&one, 1));
    OpRef pi = g.add_const(pdef, std::span<const std::int32_t>(p, 4));
    OpRef qi = g.add_const(pdef, std::span<const std::int32_t>(q, 4));
    OpRef t1 = g.add_op(conv, {h, wi}, act);
    OpRef t2 = g.add_op(bias, {t1, bi}, act);
    OpRef t3 = g.add_op(relu, {t2}, act);
    OpRef t4 = g.add_op(relu, {t3}, act);
    OpRef t5 = g.add_op(add, {t4, zi}, act);
    OpRef t6 = g.add_op(mul, {t5, oi}, act);
    OpRef t7 = g.add_op(tr, {t6, pi}, act_t);
    h = g.add_op(tr, {t7, qi}, act);
  }
  g.add_output(h);
  return g;
}

/// Checks the spec's expected result; returns an empty string when it holds, else what is wrong.
inline std::string check(const optgrammar::Graph& g, std::size_t blocks) {
  using namespace optgrammar;
  if (g.live_count() != 3 * blocks + 2)
    return "expected " + std::to_string(3 * blocks + 2) + " ops, found " + std::to_string(g.live_count());
  const OpNameId cbr = intern_op_name("ConvBiasRelu");
  OpRef out{};
  for (std::uint32_t i = 0; i < g.size(); ++i)
    if (g.alive(OpRef{i}) && g.is_root(OpRef{i})) out = OpRef{i};
  if (!out.valid()) return "no graph output";
  // Walk the chain back from the output: B ConvBiasRelu, each with its weight and bias constant.
  OpRef h = g.input(out, 0);
  for (std::size_t n = blocks; n-- > 0;) {
    if (g.name_id(h) != cbr || g.n_inputs(h) != 3) return "block " + std::to_string(n) + " is not a ConvBiasRelu";
    OpRef wi = g.input(h, 1), bi = g.input(h, 2);
    if (!g.is_const(wi) || !g.is_const(bi)) return "block " + std::to_string(n) + " lost its constants";
    float w1, b1;
    std::memcpy(&w1, g.payload(wi).data() + 4, 4);
    std::memcpy(&b1, g.payload(bi).data() + 4, 4);
    if (w1 != static_cast<float>((n + 1) % 7) * 0.125f || b1 != 0.5f) return "block " + std::to_string(n) + " has wrong constants";
    h = g.input(h, 0);
  }
  if (g.name_id(h) != op_names::input) return "the chain does not start at the input";
  return {};
}

}  // namespace w1
