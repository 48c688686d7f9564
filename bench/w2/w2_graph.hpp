// Workload W2 (bench/w2/README.md): a chain of B blocks of sixteen-way unary ops, and a package
// of R rules of which two fire.
#pragma once

#include <optgrammar/core/graph.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace w2 {

inline constexpr std::size_t ops_per_block = 8;
/// The offsets of a block's four unary ops: t1 = U[i], t2 = U[i+3], t3 = U[i+7], t4 = U[i+12].
inline constexpr std::array<std::size_t, 4> u_offsets = {0, 3, 7, 12};

struct Names {
  std::array<optgrammar::OpNameId, 16> u{};
  optgrammar::OpNameId scale, bottom, top, fused;
  Names()
      : scale(optgrammar::intern_op_name("Scale")),
        bottom(optgrammar::intern_op_name("Bottom")),
        top(optgrammar::intern_op_name("Top")),
        fused(optgrammar::intern_op_name("Fused")) {
    static constexpr const char* spelled[16] = {"U0", "U1", "U2",  "U3",  "U4",  "U5",  "U6",  "U7",
                                                "U8", "U9", "U10", "U11", "U12", "U13", "U14", "U15"};
    for (std::size_t k = 0; k < 16; ++k) u[k] = optgrammar::intern_op_name(spelled[k]);
  }
};
inline const Names& names() {
  static const Names n;
  return n;
}

/// S of the spec: the blocks whose Scale stays (i mod 8 != 1).
inline std::size_t scales_kept(std::size_t blocks) { return blocks - (blocks + 6) / 8; }

/// Builds the W2 graph with `blocks` blocks: 1 input + 8·B ops + 1 output.
inline optgrammar::Graph build(std::size_t blocks) {
  using namespace optgrammar;
  const Names& n = names();
  Graph g;
  g.reserve(ops_per_block * blocks + 2, 7 * blocks + 1);
  const std::uint32_t act = g.intern_output(OutputDef::make(DType::Float32, {1, 16, 16, 32}));
  const std::uint32_t cdef = g.intern_output(OutputDef::make(DType::Float32, {1, 1, 1, 1}));
  auto op = [&g, act](OpNameId name, std::initializer_list<OpRef> in) {
    return g.add_op_with_id(name, std::span<const OpRef>(in.begin(), in.size()), act, g.new_op_id());
  };
  float values[8];
  for (int v = 0; v < 8; ++v) values[v] = static_cast<float>(v);
  OpRef h = g.add_input(g.outdef_at(act));
  for (std::size_t i = 0; i < blocks; ++i) {
    for (std::size_t off : u_offsets) h = op(n.u[(i + off) % 16], {h});
    OpRef c = g.add_const(cdef, std::as_bytes(std::span<const float>(&values[i % 8], 1)));
    h = op(n.top, {op(n.bottom, {op(n.scale, {h, c})})});
  }
  g.add_output(h);
  return g;
}

/// Checks the spec's expected result after `rewrites` rewrites; returns an empty string when it
/// holds, else what is wrong.
inline std::string check(const optgrammar::Graph& g, std::size_t blocks, std::uint64_t rewrites) {
  using namespace optgrammar;
  const Names& n = names();
  const std::size_t s = scales_kept(blocks);
  if (g.live_count() != 2 + 5 * blocks + 2 * s)
    return "expected " + std::to_string(2 + 5 * blocks + 2 * s) + " ops, found " + std::to_string(g.live_count());
  if (rewrites != 2 * blocks - s)
    return "expected " + std::to_string(2 * blocks - s) + " rewrites, counted " + std::to_string(rewrites);
  OpRef out{};
  for (std::uint32_t i = 0; i < g.size(); ++i)
    if (g.alive(OpRef{i}) && g.name_id(OpRef{i}) == op_names::output) out = OpRef{i};
  if (!out.valid()) return "no graph output";
  // Walk the chain back from the output: per block a Fused over (a Scale over) U[i+12] ... U[i].
  OpRef h = g.input(out, 0);
  for (std::size_t i = blocks; i-- > 0;) {
    const std::string at = "block " + std::to_string(i);
    if (g.name_id(h) != n.fused || g.n_inputs(h) != 1) return at + " has no Fused";
    h = g.input(h, 0);
    if (i % 8 != 1) {
      if (g.name_id(h) != n.scale || g.n_inputs(h) != 2) return at + " lost its Scale";
      OpRef c = g.input(h, 1);
      float v = -1;
      if (!g.is_const(c) || g.payload(c).size() != 4) return at + " lost its constant";
      std::memcpy(&v, g.payload(c).data(), 4);
      if (v != static_cast<float>(i % 8)) return at + " has a wrong constant";
      h = g.input(h, 0);
    }
    for (std::size_t k = u_offsets.size(); k-- > 0;) {
      if (g.name_id(h) != n.u[(i + u_offsets[k]) % 16] || g.n_inputs(h) != 1) return at + " has a wrong unary op";
      h = g.input(h, 0);
    }
  }
  if (g.name_id(h) != op_names::input) return "the chain does not start at the input";
  return {};
}

}  // namespace w2
