// Workload W1: a chain of B redundant conv blocks.
#pragma once

#include <optgrammar/core/graph.hpp>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace w1 {

inline constexpr std::size_t ops_per_block = 14;

/// Builds the W1 graph with `blocks` blocks: 1 input + 14·B ops + 1 output. Its op and input
/// records come from `records` (Graph(RecordResource*); nullptr: operator new).
inline optgrammar::Graph build(std::size_t blocks, optgrammar::RecordResource* records = nullptr) {
  using namespace optgrammar;
  Graph g(records);
  g.reserve(ops_per_block * blocks + 2, 14 * blocks + 1);
  // Output definitions are interned once; ops are then made with their index.
  const std::uint32_t act = g.intern_output(OutputDef::make(DType::Float32, {1, 32, 32, 16}));
  const std::uint32_t act_t = g.intern_output(OutputDef::make(DType::Float32, {1, 16, 32, 32}));
  const std::uint32_t wdef = g.intern_output(OutputDef::make(DType::Float32, {1, 1, 16, 16}));
  const std::uint32_t bdef = g.intern_output(OutputDef::make(DType::Float32, {1, 1, 1, 16}));
  const std::uint32_t sdef = g.intern_output(OutputDef::make(DType::Float32, {1, 1, 1, 1}));
  const std::uint32_t pdef = g.intern_output(OutputDef::make(DType::Int32, {1, 1, 1, 4}));
  const OpNameId conv = intern_op_name("Conv2d"), bias = intern_op_name("BiasAdd"), relu = intern_op_name("Relu"),
                 add = intern_op_name("Add"), mul = intern_op_name("Mul"), tr = intern_op_name("Transpose");
  // Element k of w_i is ((i + k) % 7) * 0.125: it depends on i only through i % 7.
  float w[7][256], b[16];
  for (std::size_t r = 0; r < 7; ++r)
    for (std::size_t k = 0; k < 256; ++k) w[r][k] = static_cast<float>((r + k) % 7) * 0.125f;
  for (int k = 0; k < 16; ++k) b[k] = static_cast<float>(k) * 0.5f;
  const float zero = 0.0f, one = 1.0f;
  const std::int32_t p[4] = {0, 3, 1, 2}, q[4] = {0, 2, 3, 1};
  auto op = [&g](OpNameId name, std::initializer_list<OpRef> in, std::uint32_t out) {
    return g.add_op_with_id(name, std::span<const OpRef>(in.begin(), in.size()), out, g.new_op_id());
  };
  OpRef h = g.add_input(g.outdef_at(act));
  for (std::size_t i = 0; i < blocks; ++i) {
    OpRef wi = g.add_const(wdef, std::as_bytes(std::span<const float>(w[i % 7], 256)));
    OpRef bi = g.add_const(bdef, std::as_bytes(std::span<const float>(b, 16)));
    OpRef zi = g.add_const(sdef, std::as_bytes(std::span<const float>(&zero, 1)));
    OpRef oi = g.add_const(sdef, std::as_bytes(std::span<const float>(&one, 1)));
    OpRef pi = g.add_const(pdef, std::as_bytes(std::span<const std::int32_t>(p, 4)));
    OpRef qi = g.add_const(pdef, std::as_bytes(std::span<const std::int32_t>(q, 4)));
    OpRef t1 = op(conv, {h, wi}, act);
    OpRef t2 = op(bias, {t1, bi}, act);
    OpRef t3 = op(relu, {t2}, act);
    OpRef t4 = op(relu, {t3}, act);
    OpRef t5 = op(add, {t4, zi}, act);
    OpRef t6 = op(mul, {t5, oi}, act);
    OpRef t7 = op(tr, {t6, pi}, act_t);
    h = op(tr, {t7, qi}, act);
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
    if (w1 != static_cast<float>((n + 1) % 7) * 0.125f || b1 != 0.5f)
      return "block " + std::to_string(n) + " has wrong constants";
    h = g.input(h, 0);
  }
  if (g.name_id(h) != op_names::input) return "the chain does not start at the input";
  return {};
}

}  // namespace w1
