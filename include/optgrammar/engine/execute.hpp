// Running an analyzed rule: the specialized matcher, constraint evaluation, replacement building.
//
// Everything here is instantiated per rule from the rule's node types; node values (slots,
// op-name indices, constants) are read from the rule's `static constexpr` analysis, so after
// inlining the matcher is straight-line code comparing integers.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/core/properties.hpp"
#include "optgrammar/dsl/check.hpp"
#include "optgrammar/engine/autosplit.hpp"
#include "optgrammar/engine/context.hpp"
#include "optgrammar/engine/rewriter.hpp"
#include "optgrammar/engine/trace.hpp"

#include <boost/hana/at.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/mp11/algorithm.hpp>

#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace optgrammar::engine {

using dsl::Kind;
using dsl::VType;
namespace hana = boost::hana;

/// What the matcher needs: the rule's interned op names and its binding slots.
struct MatchState {
  const OpNameId* ids;  ///< the rule's op names, interned
  OpRef* slot;          ///< bindings by slot (the rule's own array: exactly its tags)
};

/// What the constraint reads of a bound op: its output definition and, for a constant, its
/// data. Filled once per attempt for the slots the constraint reads (known at compile time);
/// valid only until the replacement starts making ops, which may move the graph's tables.
struct SlotFacts {
  const OutputDef* out;   ///< set for the slots whose output definition the constraint reads
  const std::byte* data;  ///< constant data, or nullptr (for the slots it reads constants of)
  std::size_t count;      ///< constant element count
};

/// State of one rule attempt past its match: bindings by slot, split contexts, and whether
/// evaluation failed.
struct ExecState : MatchState {
  ExecState(Graph& graph, MatchState m, OpRef r, Split_Context* sp) : MatchState(m), g(graph), root(r), split(sp) {}
  Graph& g;
  OpRef root;
  Split_Context* split;         ///< split contexts by index (the rule's own array)
  std::size_t first_new = 0;    ///< ops at or past this index were made by this attempt
  bool failed = false;          ///< a constraint could not be evaluated (division by zero, ...)
  const SlotFacts* facts = nullptr;  ///< per-slot facts while the constraint runs
  std::uint32_t out_def = no_index;  ///< default output of Op constructions (no_index: the root's)
  TraceSink trace;                   ///< MESSAGE writes here
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

// ---- matcher ------------------------------------------------------------------------------------
template <bool Root = false, class N>
inline bool match_op(const N& n, const Graph& g, OpRef o, MatchState& s);

template <class N>
inline bool match_operand(const N& n, const Graph& g, OpRef in, MatchState& s) {
  if constexpr (N::kind == Kind::Tag) {
    if (n.leaf.wildcard) return true;
    if (n.leaf.first) {
      s.slot[n.leaf.slot] = in;
      return true;
    }
    return s.slot[n.leaf.slot] == in;
  } else if constexpr (N::kind == Kind::Let) {
    if (!n.leaf.first && s.slot[n.leaf.slot] != in) return false;
    s.slot[n.leaf.slot] = in;
    return match_op(hana::at_c<0>(n.kids), g, in, s);
  } else {
    return match_op(n, g, in, s);
  }
}

template <class N, std::size_t... I>
inline bool match_inputs([[maybe_unused]] const N& n, [[maybe_unused]] const Graph& g, [[maybe_unused]] OpRef o,
                         [[maybe_unused]] MatchState& s, std::index_sequence<I...>) {
  return (match_operand(hana::at_c<I>(n.kids), g, g.input(o, static_cast<std::uint32_t>(I)), s) && ...);
}

/// Root: the op the driver dispatched on, whose name is the rule's root name (RuleInfo::apply's
/// contract), so only its inputs are compared.
template <bool Root, class N>
inline bool match_op(const N& n, const Graph& g, OpRef o, MatchState& s) {
  if constexpr (!Root)
    if (g.name_id(o) != s.ids[n.leaf.index]) return false;
  const std::uint32_t k = g.n_inputs(o);
  if constexpr (N::kind == Kind::Op) {
    if (k != N::arity) return false;
  } else {
    if (k < N::arity) return false;
  }
  return match_inputs(n, g, o, s, std::make_index_sequence<N::arity>{});
}

/// Thrown inside a replacement to abandon it; the graph is rolled back (see ReplacementFailed).
class ReplacementFailedBase : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T>
inline auto message_value(const T& v) {
  if constexpr (std::is_same_v<T, DType>) return dtype_name(v);
  else if constexpr (std::is_same_v<T, OpRef>) return static_cast<long long>(v.index);
  else return v;
}

// ---- constraint evaluation ------------------------------------------------------------------------
template <VType T> struct ctype;
template <> struct ctype<VType::Bool> { using type = bool; };
template <> struct ctype<VType::Int> { using type = int; };
template <> struct ctype<VType::Size> { using type = std::size_t; };
template <> struct ctype<VType::Float> { using type = float; };
template <> struct ctype<VType::DType> { using type = DType; };
template <> struct ctype<VType::OpRef> { using type = OpRef; };
template <VType T> using ctype_t = typename ctype<T>::type;

inline float half_to_float(std::uint16_t h) {
  std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(static_cast<float>(man | 0x400u), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

/// Element `i` of a constant as a double, or nothing when `r` is not a constant or i is out of
/// range. Quantized elements are read raw when `raw`, else dequantized.
[[gnu::noinline]] inline bool const_element(const Graph& g, OpRef r, long long i, bool raw, double& out) {
  if (!g.valid(r) || !g.alive(r) || !g.is_const(r)) return false;
  const OutputDef& d = g.outdef_at(g.output_index(r));
  if (i < 0 || static_cast<std::size_t>(i) >= d.element_count()) return false;
  const std::byte* p = g.payload(r).data() + static_cast<std::size_t>(i) * element_size(d.dtype);
  auto load = [p](auto t) {
    decltype(t) v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  double v = 0;
  switch (d.dtype) {
    case DType::Float32: v = load(float{}); break;
    case DType::Float16: v = half_to_float(load(std::uint16_t{})); break;
    case DType::Int32: v = load(std::int32_t{}); break;
    case DType::QUInt8: v = load(std::uint8_t{}); break;
    case DType::QInt8: v = load(std::int8_t{}); break;
    case DType::QUInt16: v = load(std::uint16_t{}); break;
    case DType::QInt16: v = load(std::int16_t{}); break;
    case DType::QInt32: v = load(std::int32_t{}); break;
  }
  if (!raw && is_quantized(d.dtype)) v = (v - d.zero_offset) * static_cast<double>(d.stepsize);
  out = v;
  return true;
}

inline bool constval_int(const Graph& g, OpRef r, long long i, int& out) {
  // Fast path: 32-bit integer constants need no conversion or range check.
  if (g.valid(r) && g.alive(r) && g.is_const(r)) {
    const OutputDef& d = g.outdef_at(g.output_index(r));
    if ((d.dtype == DType::Int32 || d.dtype == DType::QInt32) && i >= 0 &&
        static_cast<std::size_t>(i) < d.element_count()) {
      std::int32_t v;
      std::memcpy(&v, g.payload(r).data() + static_cast<std::size_t>(i) * 4, 4);
      out = v;
      return true;
    }
  }
  double v;
  if (!const_element(g, r, i, true, v)) return false;
  if (!(v >= INT_MIN && v <= INT_MAX) || v != std::floor(v)) return false;
  out = static_cast<int>(v);
  return true;
}

inline bool constval_float(const Graph& g, OpRef r, long long i, float& out) {
  // Fast path: f32 constants are read as they are.
  if (g.valid(r) && g.alive(r) && g.is_const(r)) {
    const OutputDef& d = g.outdef_at(g.output_index(r));
    if (d.dtype == DType::Float32 && i >= 0 && static_cast<std::size_t>(i) < d.element_count()) {
      std::memcpy(&out, g.payload(r).data() + static_cast<std::size_t>(i) * 4, 4);
      return true;
    }
  }
  double v;
  if (!const_element(g, r, i, false, v)) return false;
  out = static_cast<float>(v);
  return true;
}

/// Reads a graph option with the spec's conversions; a missing option reads as 0 / false.
template <class T>
[[gnu::noinline]] T read_option(const Graph& g, std::string_view name) {
  const OptionValue* v = g.option(name);
  if (!v) return T{};
  return std::visit(
      [](const auto& x) -> T {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::string>) return static_cast<T>(x.empty() ? 0 : 1);
        else if constexpr (std::is_same_v<T, bool>) return x != X{};
        else return static_cast<T>(x);
      },
      *v);
}

template <class N>
inline auto eval(const N& n, ExecState& s);

template <std::size_t I, class N>
inline auto kid(const N& n, ExecState& s) {
  return eval(hana::at_c<I>(n.kids), s);
}
template <std::size_t I, class N>
using kid_t = boost::mp11::mp_at_c<typename N::children, I>;

/// OUTPUT_OF(x, k): output k of a multi-output op (its `$Out` reader numbered k), or x itself
/// for k == 0 of a single-output op.
inline OpRef output_of(const Graph& g, OpRef x, long long k) {
  if (!g.alive(x)) return OpRef{};
  OpRef found{};
  bool multi = false;
  g.for_each_use(x, [&](OpRef u, std::uint32_t slot) {
    if (slot != 0 || g.name_id(u) != op_names::out || g.n_inputs(u) < 2) return;
    multi = true;
    const OutputDef& sh = g.output(g.input(u, 1));
    if (sh.rank >= 4 && static_cast<long long>(sh.dims[3]) == k) found = u;
  });
  if (!multi && k == 0) return x;
  return found;
}

template <class T>
inline T arith(Kind k, T a, T b, ExecState& s) {
  if constexpr (std::is_same_v<T, int>) {
    auto ua = static_cast<unsigned>(a), ub = static_cast<unsigned>(b);
    switch (k) {
      case Kind::Add: return static_cast<int>(ua + ub);
      case Kind::Sub: return static_cast<int>(ua - ub);
      case Kind::Mul: return static_cast<int>(ua * ub);
      default: break;
    }
    if (b == 0 || (a == INT_MIN && b == -1)) {
      s.failed = true;
      return 0;
    }
  } else if constexpr (std::is_same_v<T, std::size_t>) {
    switch (k) {
      case Kind::Add: return a + b;
      case Kind::Sub: return a - b;
      case Kind::Mul: return a * b;
      default: break;
    }
    if (b == 0) {
      s.failed = true;
      return 0;
    }
  } else {
    switch (k) {
      case Kind::Add: return a + b;
      case Kind::Sub: return a - b;
      case Kind::Mul: return a * b;
      case Kind::Div: return a / b;
      case Kind::Rem: return std::fmod(a, b);
      case Kind::Mod: {
        T r = std::fmod(a, b);
        return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
      }
      default: return 0;
    }
  }
  if constexpr (std::is_integral_v<T>) {
    switch (k) {
      case Kind::Div: return a / b;
      case Kind::Rem: return a % b;  // sign of a, as C
      case Kind::Mod: {
        T r = a % b;
        if constexpr (std::is_signed_v<T>)
          if (r != 0 && ((r < 0) != (b < 0))) r += b;  // sign of b
        return r;
      }
      default: return 0;
    }
  }
}

template <class N, std::size_t... I>
inline auto eval_reduce(const N& n, ExecState& s, std::index_sequence<I...>) {
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::And) {
    return (static_cast<bool>(kid<I>(n, s)) && ...);
  } else if constexpr (k == Kind::Or) {
    return (static_cast<bool>(kid<I>(n, s)) || ...);
  } else if constexpr (k == Kind::Xor) {
    return ((static_cast<bool>(kid<I>(n, s)) ? 1 : 0) + ...) % 2 == 1;
  } else {
    using T = ctype_t<N::vtype>;
    T vals[] = {static_cast<T>(kid<I>(n, s))...};
    T acc = vals[0];
    for (std::size_t i = 1; i < sizeof...(I); ++i) {
      if constexpr (k == Kind::Min) acc = vals[i] < acc ? vals[i] : acc;
      else if constexpr (k == Kind::Max) acc = vals[i] > acc ? vals[i] : acc;
      else acc = arith<T>(k, acc, vals[i], s);
    }
    return acc;
  }
}

/// CONSTVAL_INT/_FLOAT's read of element i of the constant its first operand names. A bound tag
/// whose data already has the result's type is read through the slot cache; anything else goes
/// through `slow` (constval_int / constval_float), which converts and range-checks.
template <class T, class N, class FastType, class Slow>
inline bool read_constval(const N& n, ExecState& s, T& v, FastType fast_type, Slow slow) {
  if constexpr (kid_t<0, N>::kind == Kind::Tag) {
    if (s.facts) {  // constraint phase: the facts are filled
      const int slot = hana::at_c<0>(n.kids).leaf.slot;
      const SlotFacts& f = s.facts[slot];
      auto i = static_cast<long long>(kid<1>(n, s));
      if (f.data && fast_type(f.out->dtype)) {
        if (i < 0 || static_cast<std::size_t>(i) >= f.count) return false;
        static_assert(sizeof(T) == 4);
        std::memcpy(&v, f.data + static_cast<std::size_t>(i) * 4, 4);
        return true;
      }
      return slow(s.g, s.slot[slot], i, v);
    }
  }
  return slow(s.g, kid<0>(n, s), static_cast<long long>(kid<1>(n, s)), v);
}

/// A comparison of the same integer property of two tags' outputs (RANK_OF, DIM_OF with equal
/// constant indices, DTYPE_OF, ...): equal when both outputs have the same definition.
template <class N>
constexpr bool same_property_pair() {
  using A = kid_t<0, N>;
  using B = kid_t<1, N>;
  if constexpr (!dsl::is_node<A>::value || !dsl::is_node<B>::value) {
    return false;
  } else if constexpr (A::kind != B::kind || !reads_outdef(A::kind) || A::kind == Kind::StepsizeOf) {
    return false;  // (a float step size may be NaN, which is not equal to itself)
  } else if constexpr (kid_t<0, A>::kind != Kind::Tag || kid_t<0, B>::kind != Kind::Tag) {
    return false;
  } else if constexpr (A::kind == Kind::DimOf) {
    constexpr auto konst = [](Kind x) { return x == Kind::Int || x == Kind::Size; };
    return konst(kid_t<1, A>::kind) && konst(kid_t<1, B>::kind);
  } else {
    return true;
  }
}

template <class N>
inline auto eval(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  const Graph& g = s.g;
  if constexpr (k == Kind::Tag) {
    return s.slot[n.leaf.slot];
  } else if constexpr (k == Kind::Bool) {
    return n.leaf.i != 0;
  } else if constexpr (k == Kind::Int) {
    return static_cast<int>(n.leaf.i);
  } else if constexpr (k == Kind::Size) {
    return static_cast<std::size_t>(n.leaf.i);
  } else if constexpr (k == Kind::Float) {
    return static_cast<float>(n.leaf.f);
  } else if constexpr (k == Kind::DTypeConst) {
    return static_cast<DType>(n.leaf.i);
  } else if constexpr (k == Kind::OptionInt) {
    return read_option<int>(g, n.leaf.str.view());
  } else if constexpr (k == Kind::OptionUint) {
    return read_option<std::size_t>(g, n.leaf.str.view());
  } else if constexpr (k == Kind::OptionBool) {
    return read_option<bool>(g, n.leaf.str.view());
  } else if constexpr (k == Kind::OptionFloat) {
    return read_option<float>(g, n.leaf.str.view());
  } else if constexpr (k == Kind::CastInt) {
    auto v = kid<0>(n, s);
    if constexpr (std::is_same_v<decltype(v), float>) {
      if (!(v > -2147483649.0f && v < 2147483648.0f)) {
        s.failed = true;
        return 0;
      }
    }
    return static_cast<int>(v);
  } else if constexpr (k == Kind::CastUint) {
    auto v = kid<0>(n, s);
    if constexpr (std::is_same_v<decltype(v), float>) {
      if (!(v > -1.0f && v < 1.8446744e19f)) {
        s.failed = true;
        return std::size_t{0};
      }
    }
    return static_cast<std::size_t>(v);
  } else if constexpr (k == Kind::CastFloat) {
    return static_cast<float>(kid<0>(n, s));
  } else if constexpr (k == Kind::CastDType) {
    auto v = static_cast<long long>(kid<0>(n, s));
    if (v < 0 || v >= dtype_count) {
      s.failed = true;
      return DType::Float32;
    }
    return static_cast<DType>(v);
  } else if constexpr (k == Kind::Not) {
    return !kid<0>(n, s);
  } else if constexpr (k == Kind::Neg) {
    using T = ctype_t<N::vtype>;
    T v = static_cast<T>(kid<0>(n, s));
    if constexpr (std::is_same_v<T, int>) return static_cast<int>(0u - static_cast<unsigned>(v));
    else return static_cast<T>(-v);
  } else if constexpr (k == Kind::Abs) {
    using T = ctype_t<N::vtype>;
    T v = static_cast<T>(kid<0>(n, s));
    if constexpr (std::is_same_v<T, int>) {
      if (v == INT_MIN) {
        s.failed = true;
        return 0;
      }
      return v < 0 ? -v : v;
    } else if constexpr (std::is_same_v<T, float>) {
      return std::fabs(v);
    } else {
      return v;
    }
  } else if constexpr (k == Kind::IsPow2) {
    auto v = kid<0>(n, s);
    return v > 0 && (v & (v - 1)) == 0;
  } else if constexpr (k == Kind::Roundup) {
    using T = ctype_t<N::vtype>;
    T a = static_cast<T>(kid<0>(n, s)), b = static_cast<T>(kid<1>(n, s));
    if (b <= 0) {
      s.failed = true;
      return T{};
    }
    return static_cast<T>(arith<T>(Kind::Div, arith<T>(Kind::Sub, arith<T>(Kind::Add, a, b, s), T{1}, s), b, s) * b);
  } else if constexpr (k == Kind::Select) {
    using T = ctype_t<N::vtype>;
    return kid<0>(n, s) ? static_cast<T>(kid<1>(n, s)) : static_cast<T>(kid<2>(n, s));
  } else if constexpr (k == Kind::And || k == Kind::Or || k == Kind::Xor || k == Kind::Add || k == Kind::Mul ||
                       k == Kind::Min || k == Kind::Max) {
    return eval_reduce(n, s, std::make_index_sequence<N::arity>{});
  } else if constexpr (k == Kind::Sub || k == Kind::Div || k == Kind::Rem || k == Kind::Mod) {
    using T = ctype_t<N::vtype>;
    return arith<T>(k, static_cast<T>(kid<0>(n, s)), static_cast<T>(kid<1>(n, s)), s);
  } else if constexpr (k == Kind::Eq || k == Kind::Ne || k == Kind::Lt || k == Kind::Gt || k == Kind::Le ||
                       k == Kind::Ge) {
    if constexpr (same_property_pair<N>()) {
      // Output definitions are interned: one definition gives one value (SAME_SHAPE's DIM_OFs).
      if (s.facts) {
        const auto& ka = hana::at_c<0>(n.kids);
        const auto& kb = hana::at_c<1>(n.kids);
        bool same_arg = true;
        if constexpr (kid_t<0, N>::kind == Kind::DimOf) same_arg = hana::at_c<1>(ka.kids).leaf.i == hana::at_c<1>(kb.kids).leaf.i;
        if (same_arg && s.facts[hana::at_c<0>(ka.kids).leaf.slot].out == s.facts[hana::at_c<0>(kb.kids).leaf.slot].out)
          return k == Kind::Eq || k == Kind::Le || k == Kind::Ge;
      }
    }
    auto a = kid<0>(n, s);
    auto b = kid<1>(n, s);
    if constexpr (std::is_same_v<decltype(a), DType>) {
      return k == Kind::Eq ? a == b : a != b;
    } else {
      using T = ctype_t<dsl::promote(kid_t<0, N>::vtype, kid_t<1, N>::vtype)>;
      T x = static_cast<T>(a), y = static_cast<T>(b);
      if constexpr (k == Kind::Eq) return x == y;
      else if constexpr (k == Kind::Ne) return x != y;
      else if constexpr (k == Kind::Lt) return x < y;
      else if constexpr (k == Kind::Gt) return x > y;
      else if constexpr (k == Kind::Le) return x <= y;
      else return x >= y;
    }
  } else if constexpr (k == Kind::InputOf) {
    OpRef x = kid<0>(n, s);
    auto i = static_cast<long long>(kid<1>(n, s));
    if (!g.alive(x) || i < 0 || i >= static_cast<long long>(g.n_inputs(x))) {
      s.failed = true;
      return OpRef{};
    }
    return g.input(x, static_cast<std::uint32_t>(i));
  } else if constexpr (k == Kind::OutputOf) {
    OpRef r = output_of(g, kid<0>(n, s), static_cast<long long>(kid<1>(n, s)));
    if (!r.valid()) s.failed = true;
    return r;
  } else if constexpr (k == Kind::RankOf || k == Kind::DimOf || k == Kind::StepsizeOf || k == Kind::DTypeOf ||
                       k == Kind::ElementsizeOf || k == Kind::InputsOf || k == Kind::OutputsOf ||
                       k == Kind::ZeroOffsetOf) {
    using T = ctype_t<N::vtype>;
    const OutputDef* dp = nullptr;
    OpRef x{};
    if constexpr (kid_t<0, N>::kind == Kind::Tag && k != Kind::InputsOf && k != Kind::OutputsOf) {
      if (s.facts) dp = s.facts[hana::at_c<0>(n.kids).leaf.slot].out;
    }
    if (!dp) {
      x = kid<0>(n, s);
      if (!g.alive(x)) {
        s.failed = true;
        return T{};
      }
      dp = &g.outdef_at(g.output_index(x));
    }
    const OutputDef& d = *dp;
    if constexpr (k == Kind::RankOf) return static_cast<std::size_t>(d.rank);
    else if constexpr (k == Kind::DimOf) {
      auto i = static_cast<long long>(kid<1>(n, s));
      return i < 0 ? std::size_t{0} : d.dim(static_cast<std::size_t>(i));
    } else if constexpr (k == Kind::StepsizeOf) return d.stepsize;
    else if constexpr (k == Kind::DTypeOf) return d.dtype;
    else if constexpr (k == Kind::ElementsizeOf) return element_size(d.dtype);
    else if constexpr (k == Kind::InputsOf) return static_cast<std::size_t>(g.n_inputs(x));
    else if constexpr (k == Kind::ZeroOffsetOf) return static_cast<int>(d.zero_offset);
    else {
      std::size_t outs = 0;
      g.for_each_use(x, [&](OpRef u, std::uint32_t slot) {
        if (slot == 0 && g.name_id(u) == op_names::out) ++outs;
      });
      return outs ? outs : std::size_t{1};
    }
  } else if constexpr (k == Kind::SameEncoding || k == Kind::SameOp) {
    OpRef a = kid<0>(n, s), b = kid<1>(n, s);
    if (!g.alive(a) || !g.alive(b)) {
      s.failed = true;
      return false;
    }
    if constexpr (k == Kind::SameOp) return a == b;
    else return g.output(a).same_encoding(g.output(b));
  } else if constexpr (k == Kind::ConstvalInt || k == Kind::ConstvalIntValid) {
    int v = 0;
    bool ok = read_constval(n, s, v, [](DType t) { return t == DType::Int32 || t == DType::QInt32; }, constval_int);
    if constexpr (k == Kind::ConstvalInt) return ok ? v : INT_MIN;
    else return ok;
  } else if constexpr (k == Kind::ConstvalFloat || k == Kind::ConstvalFloatValid) {
    float v = 0;
    bool ok = read_constval(n, s, v, [](DType t) { return t == DType::Float32; }, constval_float);
    if constexpr (k == Kind::ConstvalFloat) return ok ? v : std::numeric_limits<float>::quiet_NaN();
    else return ok;
  } else if constexpr (k == Kind::SplitDim) {
    return s.split[n.leaf.slot].dim;
  } else if constexpr (k == Kind::SplitStart || k == Kind::IterVar) {
    return static_cast<int>(s.split[n.leaf.slot].start);
  } else if constexpr (k == Kind::SplitSize) {
    return static_cast<int>(s.split[n.leaf.slot].size);
  } else if constexpr (k == Kind::IterInputOf) {
    OpRef x = kid<0>(n, s);
    auto i = static_cast<long long>(s.split[n.leaf.slot].start);
    if (!g.alive(x) || i < 0 || i >= static_cast<long long>(g.n_inputs(x))) {
      s.failed = true;
      return OpRef{};
    }
    return g.input(x, static_cast<std::uint32_t>(i));
  } else if constexpr (k == Kind::ExternalConstraint) {
    using T = ctype_t<N::vtype>;
    Constraint c(g, s.root);
    return static_cast<T>(call_external<1>(n, s, c));
  } else if constexpr (k == Kind::Message) {
    eval_message(n, s, std::make_index_sequence<N::arity - 1>{});
    return true;
  } else if constexpr (k == Kind::LayoutChunksize) {
    auto v = static_cast<long long>(kid<0>(n, s));
    auto c = TensorClasses::instance().chunk(n.leaf.str.view());
    if (!c || *c == 0 || v < 0) {
      s.failed = true;
      return std::size_t{0};
    }
    return (static_cast<std::size_t>(v) + *c - 1) / *c * *c;
  } else {
    static_assert(N::kind == Kind::Tag, "optgrammar: construct has no value in a constraint");
    return false;
  }
}

// ---- external functions ------------------------------------------------------------------------
template <class N>
inline OpRef build(const N& n, ExecState& s);
template <class N>
inline OpRef build_more(const N& n, ExecState& s);

/// How a parameter of an external function is passed: OpRef by value, OpDef by reference,
/// scalars converted to the parameter's type.
template <class P>
using ext_arg_t = std::conditional_t<dsl::param_kind<P>() == dsl::ParamKind::OpDef, const OpDef&, std::remove_cvref_t<P>>;

template <class P, class A>
inline ext_arg_t<P> ext_arg(const A& a, ExecState& s) {
  constexpr auto pk = dsl::param_kind<P>();
  if constexpr (pk == dsl::ParamKind::OpRef || pk == dsl::ParamKind::OpDef) {
    OpRef r;
    if constexpr (A::vtype == VType::OpRef) r = eval(a, s);  // no graph edit: also fine in constraints
    else r = build(a, s);
    if constexpr (pk == dsl::ParamKind::OpDef) {
      if (!s.g.alive(r)) throw ReplacementFailedBase("an operand of an external function does not exist");
      return s.g.op(r);
    } else {
      return r;
    }
  } else {
    return static_cast<std::remove_cvref_t<P>>(eval(a, s));
  }
}

/// Calls the external function of node `n` with the framework's leading arguments `pre...` and
/// the rule's arguments (operands 1.. of `n`), evaluated left to right.
template <std::size_t Lead, class N, class... Pre, std::size_t... I>
inline auto call_external_(const N& n, ExecState& s, std::index_sequence<I...>, Pre&... pre) {
  using F = typename boost::mp11::mp_front<typename N::children>::fn_type;
  using P = typename dsl::fn_traits<F>::params;
  using R = typename dsl::fn_traits<F>::result;
  std::tuple<ext_arg_t<boost::mp11::mp_at_c<P, Lead + I>>...> args{
      ext_arg<boost::mp11::mp_at_c<P, Lead + I>>(hana::at_c<I + 1>(n.kids), s)...};
  if (s.failed) return R{};
  const F fn = hana::at_c<0>(n.kids).fn;
  return std::apply([&](auto&&... x) -> R { return fn(pre..., std::forward<decltype(x)>(x)...); }, args);
}
template <std::size_t Lead, class N, class... Pre>
inline auto call_external(const N& n, ExecState& s, Pre&... pre) {
  return call_external_<Lead>(n, s, std::make_index_sequence<N::arity - 1>{}, pre...);
}

template <class N, std::size_t... I>
inline void eval_message(const N& n, ExecState& s, std::index_sequence<I...>) {
  if (!s.trace) return;
  const auto& t = hana::at_c<0>(n.kids);
  s.trace << "MESSAGE: " << std::string_view(t.text, t.len);
  ((s.trace << ' ' << message_value(kid<I + 1>(n, s))), ...);
  s.trace << '\n';
}

// ---- replacement ----------------------------------------------------------------------------------
/// Thrown inside a replacement to abandon it; the graph is rolled back.
class ReplacementFailed : public ReplacementFailedBase {
 public:
  using ReplacementFailedBase::ReplacementFailedBase;
};

template <class N, std::size_t... I>
inline OpRef build_op(const N& n, ExecState& s, OpNameId name, std::index_sequence<I...>) {
  OpRef in[sizeof...(I) + 1] = {build(hana::at_c<I>(n.kids), s)..., OpRef{}};
  OpRef r = s.g.add_op_with_id(name, std::span<const OpRef>(in, sizeof...(I)),
                               s.out_def != no_index ? s.out_def : s.g.output_index(s.root), s.g.op_id(s.root));
  if (s.g.op(s.root).has_split_history) s.g.copy_split_history(r, s.root);
  return r;
}

inline bool is_new(const ExecState& s, OpRef r) { return r.index >= s.first_new; }

inline OpRef make_shape(ExecState& s, std::uint32_t rank, const std::size_t* dims) {
  OutputDef d;
  d.dtype = DType::Int32;
  d.rank = rank > max_rank ? static_cast<std::uint32_t>(max_rank) : rank;
  for (std::uint32_t i = 0; i < d.rank; ++i) d.dims[i] = dims[i];
  return s.g.add_op_with_id(op_names::shape, {}, s.g.intern_output(d), s.g.op_id(s.root));
}

template <class T>
inline OpRef make_const(ExecState& s, DType t, const T* vals, std::size_t n) {
  OutputDef d = OutputDef::make(t, {1, 1, 1, n});
  return s.g.add_const(d, std::span<const T>(vals, n));
}

/// The op a modifier edits: the Op construction its last operand built.
inline OpRef modifiable(const ExecState& s, OpRef r, std::string_view what) {
  if (!is_new(s, r))
    throw ReplacementFailed(std::string(what) + ": its last operand yielded an existing op, not a new one");
  return r;
}

template <class N>
inline OpRef build(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  Graph& g = s.g;
  if constexpr (N::vtype == VType::OpRef) {
    OpRef r = eval(n, s);
    if (s.failed || !g.alive(r)) throw ReplacementFailed("an operand reference of the replacement does not exist");
    return r;
  } else if constexpr (k == Kind::Op) {
    return build_op(n, s, s.ids[n.leaf.index], std::make_index_sequence<N::arity>{});
  } else if constexpr (k == Kind::Select) {
    bool c = kid<0>(n, s);
    return c ? build(hana::at_c<1>(n.kids), s) : build(hana::at_c<2>(n.kids), s);
  } else if constexpr (k == Kind::WrapOp || k == Kind::WrapOpAlways) {
    OpRef x = build(hana::at_c<0>(n.kids), s);
    OpNameId name = s.ids[n.leaf.index];
    if (k == Kind::WrapOp && g.name_id(x) == name) return x;
    return g.add_op_with_id(name, std::span<const OpRef>(&x, 1), g.output_index(x), g.op_id(s.root));
  } else if constexpr (k == Kind::GenShape) {
    std::size_t dims[N::arity + 1]{};
    std::size_t i = 0;
    hana::for_each(n.kids, [&](const auto& kd) { dims[i++] = static_cast<std::size_t>(eval(kd, s)); });
    return make_shape(s, static_cast<std::uint32_t>(N::arity), dims);
  } else if constexpr (k == Kind::GenShapeOf) {
    OpRef x = build(hana::at_c<0>(n.kids), s);
    const OutputDef& d = g.output(x);
    OutputDef copy = d;
    return make_shape(s, copy.rank, copy.dims.data());
  } else if constexpr (k == Kind::GenConstScalarF32 || k == Kind::GenConstScalarI32) {
    if constexpr (k == Kind::GenConstScalarF32) {
      float v = static_cast<float>(kid<0>(n, s));
      return make_const(s, DType::Float32, &v, 1);
    } else {
      auto v = static_cast<std::int32_t>(kid<0>(n, s));
      return make_const(s, DType::Int32, &v, 1);
    }
  } else if constexpr (k == Kind::GenConstArrF32 || k == Kind::GenConstArrI32) {
    auto count = static_cast<long long>(kid<1>(n, s));
    if (count <= 0 || count > (1 << 24)) throw ReplacementFailed("gen_ConstArr: element count out of range");
    if constexpr (k == Kind::GenConstArrF32) {
      std::vector<float> v(static_cast<std::size_t>(count), static_cast<float>(kid<0>(n, s)));
      return make_const(s, DType::Float32, v.data(), v.size());
    } else {
      std::vector<std::int32_t> v(static_cast<std::size_t>(count), static_cast<std::int32_t>(kid<0>(n, s)));
      return make_const(s, DType::Int32, v.data(), v.size());
    }
  } else if constexpr (k == Kind::GenConstArrValsI32) {
    std::int32_t v[N::arity + 1]{};
    std::size_t i = 0;
    hana::for_each(n.kids, [&](const auto& kd) { v[i++] = static_cast<std::int32_t>(eval(kd, s)); });
    return make_const(s, DType::Int32, v, N::arity);
  } else if constexpr (k == Kind::WithSize || k == Kind::WithType || k == Kind::WithSameOutput ||
                       k == Kind::WithSameId || k == Kind::WithSplitHistory || k == Kind::WithOutputType ||
                       k == Kind::ResizeDim || k == Kind::WithMultiOut) {
    constexpr std::size_t last = N::arity - 1;
    OpRef r = modifiable(s, build(hana::at_c<last>(n.kids), s), dsl::kind_name(k));
    OutputDef d = g.output(r);
    if constexpr (k == Kind::WithSize) {
      OpRef from = build(hana::at_c<0>(n.kids), s);
      const OutputDef& f = g.output(from);
      d.rank = f.rank;
      d.dims = f.dims;
    } else if constexpr (k == Kind::WithType || k == Kind::WithSameOutput) {
      OpRef from = build(hana::at_c<0>(n.kids), s);
      const OutputDef& f = g.output(from);
      if constexpr (k == Kind::WithSameOutput) d = f;
      else {
        d.dtype = f.dtype;
        d.zero_offset = f.zero_offset;
        d.stepsize = f.stepsize;
      }
    } else if constexpr (k == Kind::WithOutputType) {
      d.dtype = kid<0>(n, s);
      if (is_quantized(d.dtype)) {
        d.zero_offset = static_cast<std::int32_t>(kid<1>(n, s));
        d.stepsize = static_cast<float>(kid<2>(n, s));
      } else {
        d.zero_offset = 0;
        d.stepsize = 1.0f;
      }
    } else if constexpr (k == Kind::ResizeDim) {
      auto dim = static_cast<long long>(kid<0>(n, s));
      if (dim < 0 || dim >= static_cast<long long>(d.rank)) throw ReplacementFailed("ResizeDim: dimension out of range");
      auto value = static_cast<std::size_t>(kid<1>(n, s));
      for (std::uint32_t i = 0; i < d.rank && i < max_rank; ++i)  // no indexing by `dim`: it may be any constant
        if (i == dim) d.dims[i] = value;
    } else if constexpr (k == Kind::WithSameId) {
      g.set_op_id(r, g.op_id(build(hana::at_c<0>(n.kids), s)));
    } else if constexpr (k == Kind::WithSplitHistory) {
      OpRef from = build(hana::at_c<0>(n.kids), s);
      std::vector<int> h = g.split_history(from);
      if constexpr (N::arity == 3) h.push_back(static_cast<int>(kid<1>(n, s)));
      g.set_split_history(r, std::move(h));
    } else if constexpr (k == Kind::WithMultiOut) {
      if (static_cast<long long>(kid<0>(n, s)) < 1) throw ReplacementFailed("WITH_MULTI_OUT: needs at least one output");
    }
    g.set_output(r, d);
    return r;
  } else {
    return build_more(n, s);
  }
}

// ---- tiling, iteration, external functions (docs/replacement.md) ----------------------------------
/// Out of line: apply_rule is flattened, the throwing paths need not be.
[[noreturn, gnu::noinline]] inline void replacement_failed(const std::string& why) { throw ReplacementFailed(why); }

/// Ops this attempt made that nothing reads after the rewrite (a shape read only by WITH_SIZE, the
/// temporary base of OP_ITER): removed, with what becomes dead through them.
[[gnu::noinline]] inline std::size_t drop_unused_new(Graph& g, std::size_t first_new) {
  std::size_t n = 0;
  for (std::size_t i = first_new; i < g.size(); ++i) {
    OpRef r{static_cast<std::uint32_t>(i)};
    if (g.alive(r) && g.n_uses(r) == 0 && !g.is_root(r)) n += g.erase_if_dead(r);
  }
  return n;
}

/// The default output definition of Op constructions at this point of the replacement.
inline std::uint32_t current_out_def(const ExecState& s) {
  return s.out_def != no_index ? s.out_def : s.g.output_index(s.root);
}

template <class R>
[[gnu::noinline]] inline OpRef external_result(ExecState& s, const R& r, std::string_view fn) {
  if constexpr (std::is_same_v<R, QuickShape>) {
    if (r.rank > max_rank)
      replacement_failed(std::string(fn).append(" returned a shape of rank ").append(std::to_string(r.rank)));
    return make_shape(s, r.rank, r.dims.data());
  } else {
    if (!s.g.alive(r)) replacement_failed(std::string(fn).append(" returned an op that is not in the graph"));
    return r;
  }
}

/// A slice of `in`: [start, start+size) per dimension, as Op("Slice_shape", in, start, size) with
/// the size's shape and in's type (AUTOSPLIT_SLICE's expansion, made directly).
[[gnu::noinline]] inline OpRef make_slice(ExecState& s, OpRef in, const QuickShape& start, const QuickShape& size) {
  static const OpNameId slice_id = intern_op_name("Slice_shape");
  Graph& g = s.g;
  OpRef st = make_shape(s, start.rank, start.dims.data());
  OpRef sz = make_shape(s, size.rank, size.dims.data());
  OutputDef d = g.output(in);
  d.rank = size.rank;
  for (std::size_t i = 0; i < max_rank; ++i) d.dims[i] = i < size.rank ? size.dims[i] : 0;
  OpRef ins[3] = {in, st, sz};
  return g.add_op_with_id(slice_id, std::span<const OpRef>(ins, 3), g.intern_output(d), g.op_id(s.root));
}

template <class N>
inline OpRef build_more(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  Graph& g = s.g;
  if constexpr (k == Kind::Autosplit) {
    const auto dim = static_cast<long long>(kid<0>(n, s));
    const auto chunk = static_cast<long long>(kid<2>(n, s));
    const std::uint32_t saved_def = s.out_def;
    const OutputDef base = g.outdef_at(current_out_def(s));
    if (dim < 0 || dim >= static_cast<long long>(base.rank))
      replacement_failed("AUTOSPLIT: split dimension " + std::to_string(dim) + " is outside the output's rank");
    if (chunk <= 0) replacement_failed("AUTOSPLIT: chunk size " + std::to_string(chunk) + " is not positive");
    const std::size_t extent = base.dims[static_cast<std::size_t>(dim)];
    if (extent == 0) replacement_failed("AUTOSPLIT: the split dimension is empty");
    if ((extent + static_cast<std::size_t>(chunk) - 1) / static_cast<std::size_t>(chunk) > 65534)
      replacement_failed("AUTOSPLIT: more than 65534 parts");
    const Split_Context saved = s.split[n.leaf.slot];
    std::vector<OpRef> parts{OpRef{}};  // [0]: the axis constant of the concatenation
    typename autosplit_record<N>::type rec;  // needs <optgrammar/autosplit.hpp>: see dsl/define.hpp
    const bool verify = autosplit_verify_enabled();
    for (std::size_t start = 0; start < extent; start += static_cast<std::size_t>(chunk)) {
      const std::size_t size = std::min<std::size_t>(static_cast<std::size_t>(chunk), extent - start);
      s.split[n.leaf.slot] = Split_Context{start, size, static_cast<int>(dim)};
      OutputDef pd = base;
      pd.dims[static_cast<std::size_t>(dim)] = size;
      s.out_def = g.intern_output(pd);
      const std::size_t before = g.size();
      OpRef p = build(hana::at_c<3>(n.kids), s);
      parts.push_back(p);
      if (verify) rec.add_part(g, start, size, p, before);
    }
    s.out_def = saved_def;
    s.split[n.leaf.slot] = saved;
    if (verify) {
      std::string problem = rec.check(g, base, static_cast<int>(dim));
      if (!problem.empty()) replacement_failed("AUTOSPLIT verification: " + problem);
    }
    if (parts.size() == 2) return parts[1];
    std::int32_t axis = static_cast<std::int32_t>(dim);
    parts[0] = make_const(s, DType::Int32, &axis, 1);
    OpRef r = g.add_op_with_id(autosplit_concat_op(), std::span<const OpRef>(parts.data(), parts.size()),
                               g.intern_output(base), g.op_id(s.root));
    if (g.op(s.root).has_split_history) g.copy_split_history(r, s.root);
    return r;
  } else if constexpr (k == Kind::OpIter) {
    OpRef base = build(hana::at_c<0>(n.kids), s);
    const auto lo = static_cast<long long>(kid<2>(n, s));
    const auto hi = static_cast<long long>(kid<3>(n, s));
    if (lo < 0 || hi - lo > 65535 - static_cast<long long>(g.n_inputs(base)))
      replacement_failed("OP_ITER: iteration range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                              ") is negative or too long");
    std::vector<OpRef> ins;
    for (std::uint32_t i = 0; i < g.n_inputs(base); ++i) ins.push_back(g.input(base, i));
    const Split_Context saved = s.split[n.leaf.slot];
    for (long long i = lo; i < hi; ++i) {
      s.split[n.leaf.slot] = Split_Context{static_cast<std::size_t>(i), 1, -1};
      ins.push_back(build(hana::at_c<4>(n.kids), s));
    }
    s.split[n.leaf.slot] = saved;
    OpRef r = g.add_op_with_id(g.name_id(base), std::span<const OpRef>(ins.data(), ins.size()), g.output_index(base),
                               g.op_id(base));
    g.copy_split_history(r, base);
    if (is_new(s, base) && g.n_uses(base) == 0) g.erase(base);  // the temporary base
    return r;
  } else if constexpr (k == Kind::ShapefnApply) {
    Replacement rpx(g, s.root);
    auto r = call_external<1>(n, s, rpx);
    return external_result(s, r, hana::at_c<0>(n.kids).leaf.str.view());
  } else if constexpr (k == Kind::AutosplitShapefnApply) {
    Replacement rpx(g, s.root);
    const Split_Context sc = s.split[n.leaf.slot];
    auto r = call_external<2>(n, s, rpx, sc);
    return external_result(s, r, hana::at_c<0>(n.kids).leaf.str.view());
  } else if constexpr (k == Kind::ExternalReplace) {
    Replacement rpx(g, s.root);
    const auto fn = hana::at_c<0>(n.kids).fn;
    OpRef r = fn(rpx, g.op(s.root));
    if (r == s.root) return r;
    return external_result(s, r, hana::at_c<0>(n.kids).leaf.str.view());
  } else if constexpr (k == Kind::TypicalConvSlice) {
    static_assert(N::arity == 3 || N::arity == 4, "TYPICAL_CONV_SLICE(in, tag, stride, window[, pad_before])");
    OpRef in = build(hana::at_c<0>(n.kids), s);
    const Split_Context sc = s.split[n.leaf.slot];
    const OutputDef d = g.output(in);
    if (sc.dim < 0 || static_cast<std::uint32_t>(sc.dim) >= d.rank)
      replacement_failed("TYPICAL_CONV_SLICE: the split dimension is outside the input's rank");
    const auto dim = static_cast<std::size_t>(sc.dim);
    long long stride;
    if constexpr (kid_t<1, N>::vtype == VType::OpRef) stride = static_cast<long long>(g.output(build(hana::at_c<1>(n.kids), s)).dim(dim));
    else stride = static_cast<long long>(kid<1>(n, s));
    const auto window = static_cast<long long>(kid<2>(n, s));
    long long pad = 0;
    if constexpr (N::arity == 4) pad = static_cast<long long>(kid<3>(n, s));
    if (stride <= 0 || window <= 0) replacement_failed("TYPICAL_CONV_SLICE: stride and window must be positive");
    const auto st = static_cast<long long>(sc.start), sz = static_cast<long long>(sc.size);
    const auto extent = static_cast<long long>(d.dims[dim]);
    long long lo = st * stride - pad, hi = (st + sz - 1) * stride - pad + window - 1;
    lo = std::max(lo, 0LL);
    hi = std::min(hi, extent - 1);
    if (hi < lo) replacement_failed("TYPICAL_CONV_SLICE: the part reads nothing of its input");
    QuickShape qs, qz;
    qs.rank = qz.rank = d.rank;
    for (std::uint32_t i = 0; i < d.rank; ++i) qz.dims[i] = d.dims[i];
    qs.dims[dim] = static_cast<std::size_t>(lo);
    qz.dims[dim] = static_cast<std::size_t>(hi - lo + 1);
    return make_slice(s, in, qs, qz);
  } else {
    static_assert(N::kind == Kind::Op, "optgrammar: this construct has no replacement value");
    return OpRef{};
  }
}

/// A replacement made only of Op constructions over tags bound by the match: it cannot fail,
/// so it needs no checkpoint, and every op it makes but the top one is read by its parent.
template <class N>
constexpr bool plain_build();
template <class N>
using is_plain_build = std::bool_constant<plain_build<N>()>;
template <class N>
constexpr bool plain_build() {
  if constexpr (!dsl::is_node<N>::value) {
    return false;
  } else if constexpr (N::kind == Kind::Tag) {
    return true;
  } else if constexpr (N::kind == Kind::Op) {
    return boost::mp11::mp_all_of<typename N::children, is_plain_build>::value;
  } else {
    return false;
  }
}

/// Match and constraint of one rule, flattened into one straight-line function (only this
/// part: flattening the replacement too costs far more compile time than it saves run time).
template <class R>
[[gnu::flatten]] bool match_and_check(Graph& g, MatchState m, OpRef root, RuleStats& st, TraceSink trace) {
  static constexpr auto& rule = R::value;
  if (!match_op<true>(rule.match, g, root, m)) return false;
  ++st.matched;
  if constexpr (std::remove_cvref_t<decltype(rule.constraint)>::kind == Kind::Bool) {
    return rule.constraint.leaf.i != 0;
  } else {
    static constexpr FactsUse use = facts_use_of(rule.constraint);
    SlotFacts facts[rule.info.n_tags];
    fill_facts<use>(g, m.slot, facts, std::make_index_sequence<rule.info.n_tags>{});
    Split_Context none[1];  // split variables have no value in a constraint (analysis rejects them)
    ExecState s(g, m, root, none);
    s.facts = facts;
    s.trace = trace;
    const bool ok = eval(rule.constraint, s);
    return ok && !s.failed;
  }
}

/// Trace line of one rewrite.
[[gnu::noinline]] inline void trace_rewrite(Rewriter& rw, const RuleInfo& self, const Graph& g, OpRef root, OpRef result) {
  rw.trace << (rw.pass_name ? *rw.pass_name : std::string()) << " " << self.name << " %" << root.index << "("
           << g.name(root) << ") -> %" << result.index << "(" << g.name(result) << ")\n";
}

/// One trace line for a replacement that failed and was rolled back, with the reason.
[[gnu::noinline]] inline void trace_failure(Rewriter& rw, const RuleInfo& self, const Graph& g, OpRef root,
                                            std::string_view reason) {
  rw.trace << (rw.pass_name ? *rw.pass_name : std::string()) << " " << self.name << " %" << root.index << "("
           << g.name(root) << ") failed: " << reason << "\n";
}

/// The apply function of an analyzed DSL rule (R::value is the constexpr AnalyzedRule).
template <class R>
bool apply_rule(Rewriter& rw, const RuleInfo& self, OpRef root) {
  static constexpr auto& rule = R::value;
  using Rep = std::remove_cvref_t<decltype(rule.replacement)>;
  Graph& g = rw.graph();
  RuleStats& st = rw.stats(self);
  ++st.tried;
  // Sized to this rule: only its own slots are written on every attempt.
  OpRef slots[rule.info.n_tags];
  slots[0] = root;
  const MatchState m{self.names.data(), slots};
  if (!match_and_check<R>(g, m, root, st, rw.trace)) return false;
  const std::size_t first_new = g.size();
  OpRef result;
  if constexpr (Rep::vtype == VType::OpRef) {
    // An existing operand (bypass): nothing is built, so there is nothing to undo.
    Split_Context none[1];
    ExecState s(g, m, root, none);
    s.trace = rw.trace;
    result = eval(rule.replacement, s);
    if (s.failed || !g.alive(result)) {
      ++st.failed;
      if (rw.trace) [[unlikely]]
        trace_failure(rw, self, g, root, s.failed ? "the replacement could not be evaluated" : "the replacement names no live op");
      return false;
    }
    if (result == root) return false;
  } else if constexpr (plain_build<Rep>()) {
    Split_Context none[1];
    ExecState s(g, m, root, none);
    s.first_new = first_new;
    result = build(rule.replacement, s);
  } else {
    Split_Context splits[rule.info.n_splits > 0 ? rule.info.n_splits : 1];
    ExecState s(g, m, root, splits);
    s.trace = rw.trace;
    auto cp = g.checkpoint();
    s.first_new = cp.ops;
    try {
      result = build(rule.replacement, s);
    } catch (const ReplacementFailedBase& e) {
      g.rollback(cp);  // the rule does not apply here; the graph is as it was
      ++st.failed;
      if (rw.trace) [[unlikely]]
        trace_failure(rw, self, g, root, e.what());
      return false;
    } catch (...) {
      g.rollback(cp);
      ++st.failed;
      throw;
    }
    if (result == root) {
      g.rollback(cp);
      return false;
    }
    g.commit(cp);  // the replacement stands; replace() below makes it visible
  }
  ++st.fired;
  if (rw.trace) [[unlikely]]
    trace_rewrite(rw, self, g, root, result);
  // New ops may match rules of this pass in turn.
  for (std::size_t i = first_new; i < g.size(); ++i) rw.push(OpRef{static_cast<std::uint32_t>(i)});
  rw.replace(root, result);
  if constexpr (plain_build<Rep>()) {
    // Only the top op can be left unread (when the root had no readers).
    if (g.n_uses(result) == 0 && !g.is_root(result)) rw.count_dead(g.erase_if_dead(result));
  } else if constexpr (Rep::vtype != VType::OpRef) {
    rw.count_dead(drop_unused_new(g, first_new));
  }
  return true;
}

}  // namespace optgrammar::engine
