// The slot cache: what the constraint reads of the ops the match bound, looked up once per attempt.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/exec_state.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>

namespace optgrammar::engine {

/// What the constraint reads of a bound op: its output definition and, for a constant, its
/// data. Filled once per attempt for the slots the constraint reads (known at compile time);
/// valid only until the replacement starts making ops, which may move the graph's tables.
struct SlotFacts {
  const OutputDef* out;   ///< set for the slots whose output definition the constraint reads
  const std::byte* data;  ///< constant data, or nullptr (for the slots it reads constants of)
  std::size_t count;      ///< constant element count
  std::uint8_t fast;      ///< which typed reads take the data as it is (fast_read_i32, _f32)
};

/// SlotFacts::fast: the constant's elements are 4-byte ints (Int32, or QInt32 read raw) or floats
/// (Float32), so CONSTVAL_INT or CONSTVAL_FLOAT reads them without a conversion. Found once per
/// attempt, not on every read.
inline constexpr std::uint8_t fast_read_i32 = 1, fast_read_f32 = 2;
constexpr std::uint8_t fast_reads(DType t) noexcept {
  return t == DType::Int32 || t == DType::QInt32 ? fast_read_i32 : t == DType::Float32 ? fast_read_f32 : 0;
}

/// Which slots the constraint reads the output definition (`out`) or constant data (`data`) of
/// through a tag, as bit masks by slot (analysis finds them: dsl::Analysis::reads_outdef and
/// reads_constval): these are looked up once, before evaluation.
struct FactsUse {
  std::uint32_t out = 0, data = 0;
};

/// Looks up the facts of the slots in `use` (every tag the constraint names is bound by the
/// match, so its op is alive).
template <FactsUse Use, std::size_t... I>
inline void fill_facts(const Graph& g, const OpRef* slot, SlotFacts* f, std::index_sequence<I...>) {
  auto one = [&]<std::size_t i>() {
    if constexpr (((Use.out >> i) & 1u) != 0) {
      const OpDef& d = g.op_at(slot[i].index);
      f[i].out = &g.outdef_at(d.output);
      if constexpr (((Use.data >> i) & 1u) != 0) {
        f[i].data = nullptr;
        f[i].count = 0;
        f[i].fast = 0;
        if (d.payload != no_index) {
          f[i].data = g.payload_data_at(d.payload);
          f[i].count = g.element_count_at(d.output);
          f[i].fast = fast_reads(f[i].out->dtype);
        }
      }
    }
  };
  (one.template operator()<I>(), ...);
}

}  // namespace optgrammar::engine
