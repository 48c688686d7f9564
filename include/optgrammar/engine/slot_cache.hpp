// The slot cache: what the constraint reads of the ops the match bound, looked up once per attempt.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/exec_state.hpp"

#include <boost/hana/at.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/mp11/algorithm.hpp>

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
};

/// Which slots the constraint reads the output definition (`out`) or constant data (`data`) of
/// through a tag, as bit masks by slot: these are looked up once, before evaluation.
struct FactsUse {
  std::uint32_t out = 0, data = 0;
};
constexpr bool reads_outdef(Kind k) {
  return k == Kind::RankOf || k == Kind::DimOf || k == Kind::StepsizeOf || k == Kind::DTypeOf ||
         k == Kind::ElementsizeOf || k == Kind::ZeroOffsetOf;
}
constexpr bool reads_constval(Kind k) {
  return k == Kind::ConstvalInt || k == Kind::ConstvalIntValid || k == Kind::ConstvalFloat ||
         k == Kind::ConstvalFloatValid;
}
template <class N>
constexpr void facts_use(const N& n, FactsUse& u) {
  if constexpr (dsl::is_node<N>::value) {
    if constexpr (N::arity > 0) {
      using K0 = boost::mp11::mp_front<typename N::children>;
      if constexpr (dsl::is_node<K0>::value && K0::kind == Kind::Tag) {
        const auto bit = std::uint32_t{1} << hana::at_c<0>(n.kids).leaf.slot;
        if constexpr (reads_outdef(N::kind)) u.out |= bit;
        if constexpr (reads_constval(N::kind)) u.out |= bit, u.data |= bit;
      }
      hana::for_each(n.kids, [&u](const auto& kid) { facts_use(kid, u); });
    }
  }
}
template <class N>
constexpr FactsUse facts_use_of(const N& n) {
  FactsUse u;
  facts_use(n, u);
  return u;
}

/// Looks up the facts of the slots in `use` (every tag the constraint names is bound by the
/// match, so its op is alive).
template <FactsUse Use, std::size_t... I>
inline void fill_facts(const Graph& g, const OpRef* slot, SlotFacts* f, std::index_sequence<I...>) {
  auto one = [&]<std::size_t i>() {
    if constexpr (((Use.out >> i) & 1u) != 0) {
      const OpRef r = slot[i];
      f[i].out = &g.outdef_at(g.output_index(r));
      if constexpr (((Use.data >> i) & 1u) != 0) {
        f[i].data = nullptr;
        f[i].count = 0;
        if (g.is_const(r)) {
          f[i].data = g.payload(r).data();
          f[i].count = f[i].out->element_count();
        }
      }
    }
  };
  (one.template operator()<I>(), ...);
}

}  // namespace optgrammar::engine
