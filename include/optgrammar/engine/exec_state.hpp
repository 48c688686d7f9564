// The state of one rule attempt, shared by every phase of running a rule (engine/apply.hpp),
// and the entry points of the phases that call each other: a constraint's value (`eval`,
// engine/constraint_eval.hpp) and a replacement's ops (`build`, engine/build.hpp; `build_split`,
// engine/build_split.hpp). External functions take both kinds of operands (engine/external_call.hpp).
//
// Everything in the phases is instantiated from the rule's node types; node values (slots,
// op-name indices, constants) are read from the rule's analysis: from memory when rules of one
// shape share their code, folded into the code for a rule specialized on its own
// (engine/apply.hpp), where after inlining the matcher is straight-line code comparing integers.
#pragma once

#include "optgrammar/core/context.hpp"
#include "optgrammar/core/graph.hpp"
#include "optgrammar/dsl/check.hpp"
#include "optgrammar/engine/trace.hpp"

#include <boost/hana/at.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace optgrammar::engine {

using dsl::Kind;
using dsl::VType;
namespace hana = boost::hana;

/// Whether a phase function (eval_* in engine/constraint_eval.hpp, build_* in engine/build.hpp) gives a
/// node a value: each is one `if constexpr` chain over the kinds of its family, so for any other
/// kind its result is void. eval and build dispatch on this, so a construct's kind is written
/// only in its own phase function.
template <class Result>
inline constexpr bool phase_handles = !std::is_void_v<Result>;

/// What the matcher needs: the rule's interned op names and its binding slots.
struct MatchState {
  const OpNameId* ids;  ///< the rule's op names, interned
  OpRef* slot;          ///< bindings by slot (the rule's own array: exactly its tags)
};

struct SlotFacts;  // engine/slot_cache.hpp

/// State of one rule attempt past its match: bindings by slot, split contexts, and whether
/// evaluation failed.
struct ExecState : MatchState {
  ExecState(Graph& graph, MatchState m, OpRef r, Split_Context* sp) : MatchState(m), g(graph), root(r), split(sp) {}
  Graph& g;
  OpRef root;
  Split_Context* split;                      ///< split contexts by index (the rule's own array)
  std::size_t first_new = 0;                 ///< ops at or past this index were made by this attempt
  bool failed = false;                       ///< a constraint could not be evaluated (division by zero, ...)
  const SlotFacts* facts = nullptr;          ///< per-slot facts while the constraint runs
  std::uint32_t out_def = no_index;          ///< default output of Op constructions (no_index: the root's)
  TraceSink trace;                           ///< MESSAGE writes here
  std::vector<OpRef>* built_once = nullptr;  ///< slices' Op-construction operands made so far (build_once)
};

/// Thrown inside a replacement to abandon it; the graph is rolled back (see ReplacementFailed).
class ReplacementFailedBase : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The C++ type of a value of each type of the rule language.
template <VType T>
struct ctype;
template <>
struct ctype<VType::Bool> {
  using type = bool;
};
template <>
struct ctype<VType::Int> {
  using type = int;
};
template <>
struct ctype<VType::Size> {
  using type = std::size_t;
};
template <>
struct ctype<VType::Float> {
  using type = float;
};
template <>
struct ctype<VType::DType> {
  using type = DType;
};
template <>
struct ctype<VType::OpRef> {
  using type = OpRef;
};
template <VType T>
using ctype_t = typename ctype<T>::type;

/// The value of a constraint node (engine/constraint_eval.hpp); `value_of<I>`: the value of operand I.
template <class N>
inline auto eval(const N& n, ExecState& s);

template <std::size_t I, class N>
inline auto value_of(const N& n, ExecState& s) {
  return eval(hana::at_c<I>(n.kids), s);
}
template <std::size_t I, class N>
using child_t = boost::mp11::mp_at_c<typename N::children, I>;

/// The op a replacement node yields, made in the graph (engine/build.hpp, engine/build_split.hpp).
template <class N>
inline OpRef build(const N& n, ExecState& s);
template <class N>
inline OpRef build_split(const N& n, ExecState& s);
/// build() of a *_SLICE name's first operand where the slice's expansion uses it, when it is an
/// Op construction (engine/build.hpp).
template <class N>
inline OpRef build_once(const N& n, ExecState& s);

}  // namespace optgrammar::engine
