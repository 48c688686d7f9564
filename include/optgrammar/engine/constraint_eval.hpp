// Constraint evaluation: the value of a rule's constraint (and of the scalar operands of its
// replacement) for one attempt.
#pragma once

#include "optgrammar/core/declarations.hpp"
#include "optgrammar/core/float_math.hpp"
#include "optgrammar/core/graph.hpp"
#include "optgrammar/dsl/grammar.hpp"
#include "optgrammar/engine/const_read.hpp"
#include "optgrammar/engine/exec_state.hpp"
#include "optgrammar/engine/external_call.hpp"
#include "optgrammar/engine/slot_cache.hpp"

#include <boost/hana/at.hpp>
#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace optgrammar::engine {

template <class T>
inline auto message_value(const T& v) {
  if constexpr (std::is_same_v<T, DType>)
    return dtype_name(v);
  else if constexpr (std::is_same_v<T, OpRef>)
    return static_cast<long long>(v.index);
  else
    return v;
}

template <class N, std::size_t... I>
inline void eval_message(const N& n, ExecState& s, std::index_sequence<I...>) {
  if (!s.trace) return;
  const auto& t = hana::at_c<0>(n.kids);
  s.trace << "MESSAGE: " << std::string_view(t.text, t.len);
  ((s.trace << ' ' << message_value(value_of<I + 1>(n, s))), ...);
  s.trace << '\n';
}

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
      case Kind::Rem: return fmath::fmod(a, b);
      case Kind::Mod: {
        T r = fmath::fmod(a, b);
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
    return (static_cast<bool>(value_of<I>(n, s)) && ...);
  } else if constexpr (k == Kind::Or) {
    return (static_cast<bool>(value_of<I>(n, s)) || ...);
  } else if constexpr (k == Kind::Xor) {
    return ((static_cast<bool>(value_of<I>(n, s)) ? 1 : 0) + ...) % 2 == 1;
  } else {
    using T = ctype_t<N::vtype>;
    T vals[] = {static_cast<T>(value_of<I>(n, s))...};
    T acc = vals[0];
    for (std::size_t i = 1; i < sizeof...(I); ++i) {
      if constexpr (k == Kind::Min)
        acc = vals[i] < acc ? vals[i] : acc;
      else if constexpr (k == Kind::Max)
        acc = vals[i] > acc ? vals[i] : acc;
      else
        acc = arith<T>(k, acc, vals[i], s);
    }
    return acc;
  }
}

/// CONSTVAL_INT/_FLOAT's read of element i of the constant its first operand names. A bound tag
/// whose data already has the result's type is read through the slot cache; anything else goes
/// through `slow` (constval_int / constval_float), which converts and range-checks.
template <std::uint8_t Fast, class T, class N, class Slow>
inline bool read_constval(const N& n, ExecState& s, T& v, Slow slow) {
  if constexpr (child_t<0, N>::kind == Kind::Tag) {
    if (s.facts) {  // constraint phase: the facts are filled
      const int slot = hana::at_c<0>(n.kids).leaf.slot;
      const SlotFacts& f = s.facts[slot];
      auto i = static_cast<long long>(value_of<1>(n, s));
      if (f.fast & Fast) {
        if (static_cast<unsigned long long>(i) >= f.count) return false;  // (i < 0 too)
        static_assert(sizeof(T) == 4);
        std::memcpy(&v, f.data + static_cast<std::size_t>(i) * 4, 4);
        return true;
      }
      T w{};  // (the slow path's own variable: `v`, whose address does not escape, stays in a register)
      const bool ok = slow(s.g, s.slot[slot], i, w);
      v = w;
      return ok;
    }
  }
  return slow(s.g, value_of<0>(n, s), static_cast<long long>(value_of<1>(n, s)), v);
}

/// A comparison of the same integer property of two tags' outputs (RANK_OF, DIM_OF with equal
/// constant indices, DTYPE_OF, ...): equal when both outputs have the same definition.
template <class N>
constexpr bool same_property_pair() {
  using A = child_t<0, N>;
  using B = child_t<1, N>;
  if constexpr (!dsl::is_node<A>::value || !dsl::is_node<B>::value) {
    return false;
  } else if constexpr (A::kind != B::kind || !reads_outdef(A::kind) || A::kind == Kind::StepsizeOf) {
    return false;  // (a float step size may be NaN, which is not equal to itself)
  } else if constexpr (child_t<0, A>::kind != Kind::Tag || child_t<0, B>::kind != Kind::Tag) {
    return false;
  } else if constexpr (A::kind == Kind::DimOf) {
    constexpr auto konst = [](Kind x) { return x == Kind::Int || x == Kind::Size; };
    return konst(child_t<1, A>::kind) && konst(child_t<1, B>::kind);
  } else {
    return true;
  }
}

/// The leaves: a tag's binding and the constants as written.
template <class N>
inline auto eval_literal(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
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
  }
}

/// OPTION_INT, OPTION_UINT, OPTION_BOOL, OPTION_FLOAT: the graph's options.
template <class N>
inline auto eval_option(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  const Graph& g = s.g;
  if constexpr (k == Kind::OptionInt) {
    return read_option<int>(g, n.leaf.str.view());
  } else if constexpr (k == Kind::OptionUint) {
    return read_option<std::size_t>(g, n.leaf.str.view());
  } else if constexpr (k == Kind::OptionBool) {
    return read_option<bool>(g, n.leaf.str.view());
  } else if constexpr (k == Kind::OptionFloat) {
    return read_option<float>(g, n.leaf.str.view());
  }
}

/// INT, UINT, FLOAT, DTYPE: conversions, failing where C would be undefined.
template <class N>
inline auto eval_cast(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::CastInt) {
    auto v = value_of<0>(n, s);
    if constexpr (std::is_same_v<decltype(v), float>) {
      if (!(v > -2147483649.0f && v < 2147483648.0f)) {
        s.failed = true;
        return 0;
      }
    }
    return static_cast<int>(v);
  } else if constexpr (k == Kind::CastUint) {
    auto v = value_of<0>(n, s);
    if constexpr (std::is_same_v<decltype(v), float>) {
      if (!(v > -1.0f && v < 1.8446744e19f)) {
        s.failed = true;
        return std::size_t{0};
      }
    }
    return static_cast<std::size_t>(v);
  } else if constexpr (k == Kind::CastFloat) {
    return static_cast<float>(value_of<0>(n, s));
  } else if constexpr (k == Kind::CastDType) {
    auto v = static_cast<long long>(value_of<0>(n, s));
    if (v < 0 || v >= dtype_count) {
      s.failed = true;
      return DType::Float32;
    }
    return static_cast<DType>(v);
  }
}

/// NOT, NEG, ABS, IS_POW2, ROUNDUP, LCM, SELECT, AND, OR, XOR and the arithmetic operators.
template <class N>
inline auto eval_operator(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::Not) {
    return !value_of<0>(n, s);
  } else if constexpr (k == Kind::Neg) {
    using T = ctype_t<N::vtype>;
    T v = static_cast<T>(value_of<0>(n, s));
    if constexpr (std::is_same_v<T, int>)
      return static_cast<int>(0u - static_cast<unsigned>(v));
    else
      return static_cast<T>(-v);
  } else if constexpr (k == Kind::Abs) {
    using T = ctype_t<N::vtype>;
    T v = static_cast<T>(value_of<0>(n, s));
    if constexpr (std::is_same_v<T, int>) {
      if (v == INT_MIN) {
        s.failed = true;
        return 0;
      }
      return v < 0 ? -v : v;
    } else if constexpr (std::is_same_v<T, float>) {
      return fmath::fabs(v);
    } else {
      return v;
    }
  } else if constexpr (k == Kind::IsPow2) {
    auto v = value_of<0>(n, s);
    return v > 0 && (v & (v - 1)) == 0;
  } else if constexpr (k == Kind::Roundup) {
    using T = ctype_t<N::vtype>;
    T a = static_cast<T>(value_of<0>(n, s)), b = static_cast<T>(value_of<1>(n, s));
    if (b <= 0) {
      s.failed = true;
      return T{};
    }
    return static_cast<T>(arith<T>(Kind::Div, arith<T>(Kind::Sub, arith<T>(Kind::Add, a, b, s), T{1}, s), b, s) * b);
  } else if constexpr (k == Kind::Lcm) {
    // The least common multiple of |a| and |b|, 0 when either is 0; one the type cannot hold
    // fails the attempt.
    using T = ctype_t<N::vtype>;
    using U = std::make_unsigned_t<T>;
    auto magnitude = [](T v) {
      if constexpr (std::is_signed_v<T>)
        return v < 0 ? U(0) - static_cast<U>(v) : static_cast<U>(v);
      else
        return v;
    };
    const U a = magnitude(static_cast<T>(value_of<0>(n, s))), b = magnitude(static_cast<T>(value_of<1>(n, s)));
    if (a == 0 || b == 0) return T{};
    const U q = a / std::gcd(a, b);
    if (q > static_cast<U>(std::numeric_limits<T>::max()) / b) {
      s.failed = true;
      return T{};
    }
    return static_cast<T>(q * b);
  } else if constexpr (k == Kind::Select) {
    using T = ctype_t<N::vtype>;
    return value_of<0>(n, s) ? static_cast<T>(value_of<1>(n, s)) : static_cast<T>(value_of<2>(n, s));
  } else if constexpr (k == Kind::And || k == Kind::Or || k == Kind::Xor || k == Kind::Add || k == Kind::Mul ||
                       k == Kind::Min || k == Kind::Max) {
    return eval_reduce(n, s, std::make_index_sequence<N::arity>{});
  } else if constexpr (k == Kind::Sub || k == Kind::Div || k == Kind::Rem || k == Kind::Mod) {
    using T = ctype_t<N::vtype>;
    return arith<T>(k, static_cast<T>(value_of<0>(n, s)), static_cast<T>(value_of<1>(n, s)), s);
  }
}

/// EQ, NE, LT, GT, LE, GE.
template <class N>
inline auto eval_compare(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::Eq || k == Kind::Ne || k == Kind::Lt || k == Kind::Gt || k == Kind::Le || k == Kind::Ge) {
    if constexpr (same_property_pair<N>()) {
      // Output definitions are interned: one definition gives one value (SAME_SHAPE's DIM_OFs).
      if (s.facts) {
        const auto& ka = hana::at_c<0>(n.kids);
        const auto& kb = hana::at_c<1>(n.kids);
        bool same_arg = true;
        if constexpr (child_t<0, N>::kind == Kind::DimOf)
          same_arg = hana::at_c<1>(ka.kids).leaf.i == hana::at_c<1>(kb.kids).leaf.i;
        if (same_arg && s.facts[hana::at_c<0>(ka.kids).leaf.slot].out == s.facts[hana::at_c<0>(kb.kids).leaf.slot].out)
          return k == Kind::Eq || k == Kind::Le || k == Kind::Ge;
      }
    }
    auto a = value_of<0>(n, s);
    auto b = value_of<1>(n, s);
    if constexpr (std::is_same_v<decltype(a), DType>) {
      return k == Kind::Eq ? a == b : a != b;
    } else {
      using T = ctype_t<dsl::promote(child_t<0, N>::vtype, child_t<1, N>::vtype)>;
      T x = static_cast<T>(a), y = static_cast<T>(b);
      if constexpr (k == Kind::Eq)
        return x == y;
      else if constexpr (k == Kind::Ne)
        return x != y;
      else if constexpr (k == Kind::Lt)
        return x < y;
      else if constexpr (k == Kind::Gt)
        return x > y;
      else if constexpr (k == Kind::Le)
        return x <= y;
      else
        return x >= y;
    }
  }
}

/// INPUT_OF, OUTPUT_OF: oprefs reached from an opref.
template <class N>
inline auto eval_opref(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  const Graph& g = s.g;
  if constexpr (k == Kind::InputOf) {
    OpRef x = value_of<0>(n, s);
    auto i = static_cast<long long>(value_of<1>(n, s));
    if (!g.alive(x) || i < 0 || i >= static_cast<long long>(g.n_inputs(x))) {
      s.failed = true;
      return OpRef{};
    }
    return g.input(x, static_cast<std::uint32_t>(i));
  } else if constexpr (k == Kind::OutputOf) {
    OpRef r = output_of(g, value_of<0>(n, s), static_cast<long long>(value_of<1>(n, s)));
    if (!r.valid()) s.failed = true;
    return r;
  }
}

/// RANK_OF, DIM_OF, DATA_SIZE and the other properties of an op's output; IS_OP, PRODUCER_FOR;
/// SAME_ENCODING, SAME_OP.
template <class N>
inline auto eval_property(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  const Graph& g = s.g;
  if constexpr (k == Kind::RankOf || k == Kind::DimOf || k == Kind::StepsizeOf || k == Kind::DTypeOf ||
                k == Kind::ElementsizeOf || k == Kind::InputsOf || k == Kind::OutputsOf || k == Kind::ZeroOffsetOf ||
                k == Kind::DataSize) {
    using T = ctype_t<N::vtype>;
    const OutputDef* dp = nullptr;
    OpRef x{};
    if constexpr (child_t<0, N>::kind == Kind::Tag && k != Kind::InputsOf && k != Kind::OutputsOf) {
      if (s.facts) dp = s.facts[hana::at_c<0>(n.kids).leaf.slot].out;
    }
    if (!dp) {
      x = value_of<0>(n, s);
      if (!g.alive(x)) {
        s.failed = true;
        return T{};
      }
      dp = &g.outdef_at(g.output_index(x));
    }
    const OutputDef& d = *dp;
    if constexpr (k == Kind::RankOf)
      return static_cast<std::size_t>(d.rank);
    else if constexpr (k == Kind::DimOf) {
      auto i = static_cast<long long>(value_of<1>(n, s));
      return i < 0 ? std::size_t{0} : d.dim(static_cast<std::size_t>(i));
    } else if constexpr (k == Kind::StepsizeOf)
      return d.stepsize;
    else if constexpr (k == Kind::DTypeOf)
      return d.dtype;
    else if constexpr (k == Kind::ElementsizeOf)
      return element_size(d.dtype);
    else if constexpr (k == Kind::InputsOf)
      return static_cast<std::size_t>(g.n_inputs(x));
    else if constexpr (k == Kind::ZeroOffsetOf)
      return static_cast<int>(d.zero_offset);
    else if constexpr (k == Kind::DataSize)
      return d.element_count() * element_size(d.dtype);
    else {
      std::size_t outs = 0;
      g.for_each_use(x, [&](OpRef u, std::uint32_t slot) {
        if (slot == 0 && g.name_id(u) == op_names::out) ++outs;
      });
      return outs ? outs : std::size_t{1};
    }
  } else if constexpr (k == Kind::IsAutothreaded) {
    const OpRef x = value_of<0>(n, s);
    if (!g.alive(x)) {
      s.failed = true;
      return false;
    }
    const std::vector<int>& h = g.split_history(x);
    return std::find(h.begin(), h.end(), OPTGRAMMAR_AUTOTHREAD_MARK) != h.end();
  } else if constexpr (k == Kind::IsOp || k == Kind::ProducerFor) {
    // IS_OP: the op's name; PRODUCER_FOR: whether an op of that name reads the op's output.
    const OpRef x = value_of<0>(n, s);
    if (!g.alive(x)) {
      s.failed = true;
      return false;
    }
    const OpNameId name = s.ids[n.leaf.index];
    if constexpr (k == Kind::IsOp) {
      return g.name_id(x) == name;
    } else {
      bool found = false;
      g.for_each_use(x, [&](OpRef u, std::uint32_t) { found = found || g.name_id(u) == name; });
      return found;
    }
  } else if constexpr (k == Kind::SameEncoding || k == Kind::SameOp) {
    OpRef a = value_of<0>(n, s), b = value_of<1>(n, s);
    if (!g.alive(a) || !g.alive(b)) {
      s.failed = true;
      return false;
    }
    if constexpr (k == Kind::SameOp)
      return a == b;
    else
      return g.output(a).same_encoding(g.output(b));
  }
}

/// CONSTVAL_INT, CONSTVAL_FLOAT and their _VALID forms: the elements of constants.
template <class N>
inline auto eval_constval(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::ConstvalInt || k == Kind::ConstvalIntValid) {
    int v = 0;
    bool ok = read_constval<fast_read_i32>(n, s, v, constval_int);
    if constexpr (k == Kind::ConstvalInt)
      return ok ? v : INT_MIN;
    else
      return ok;
  } else if constexpr (k == Kind::ConstvalFloat || k == Kind::ConstvalFloatValid) {
    float v = 0;
    bool ok = read_constval<fast_read_f32>(n, s, v, constval_float);
    if constexpr (k == Kind::ConstvalFloat)
      return ok ? v : std::numeric_limits<float>::quiet_NaN();
    else
      return ok;
  }
}

/// SPLIT_DIM, SPLIT_START, SPLIT_SIZE, ITER_VAR, ITER_INPUT_OF: the current part of a split.
template <class N>
inline auto eval_split(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  const Graph& g = s.g;
  if constexpr (k == Kind::SplitDim) {
    return s.split[n.leaf.slot].dim;
  } else if constexpr (k == Kind::SplitStart || k == Kind::IterVar) {
    return static_cast<int>(s.split[n.leaf.slot].start);
  } else if constexpr (k == Kind::SplitSize) {
    return static_cast<int>(s.split[n.leaf.slot].size);
  } else if constexpr (k == Kind::IterInputOf) {
    OpRef x = value_of<0>(n, s);
    auto i = static_cast<long long>(s.split[n.leaf.slot].start);
    if (!g.alive(x) || i < 0 || i >= static_cast<long long>(g.n_inputs(x))) {
      s.failed = true;
      return OpRef{};
    }
    return g.input(x, static_cast<std::uint32_t>(i));
  }
}

/// EXTERNAL_CONSTRAINT, MESSAGE, LAYOUT_CHUNKSIZE.
template <class N>
inline auto eval_external(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  const Graph& g = s.g;
  if constexpr (k == Kind::ExternalConstraint) {
    using T = ctype_t<N::vtype>;
    Constraint c(g, s.root);
    return static_cast<T>(call_external<1>(n, s, c));
  } else if constexpr (k == Kind::Message) {
    eval_message(n, s, std::make_index_sequence<N::arity - 1>{});
    return true;
  } else if constexpr (k == Kind::LayoutChunksize) {
    auto v = static_cast<long long>(value_of<0>(n, s));
    auto c = TensorClasses::instance().chunk(n.leaf.str.view());
    if (!c || *c == 0 || v < 0) {
      s.failed = true;
      return std::size_t{0};
    }
    return (static_cast<std::size_t>(v) + *c - 1) / *c * *c;
  }
}

/// The value of a constraint expression (or of a scalar operand of a replacement): that of the
/// phase function of its construct's family.
template <class N>
inline auto eval(const N& n, ExecState& s) {
  if constexpr (phase_handles<decltype(eval_literal(n, s))>)
    return eval_literal(n, s);
  else if constexpr (phase_handles<decltype(eval_option(n, s))>)
    return eval_option(n, s);
  else if constexpr (phase_handles<decltype(eval_cast(n, s))>)
    return eval_cast(n, s);
  else if constexpr (phase_handles<decltype(eval_operator(n, s))>)
    return eval_operator(n, s);
  else if constexpr (phase_handles<decltype(eval_compare(n, s))>)
    return eval_compare(n, s);
  else if constexpr (phase_handles<decltype(eval_opref(n, s))>)
    return eval_opref(n, s);
  else if constexpr (phase_handles<decltype(eval_property(n, s))>)
    return eval_property(n, s);
  else if constexpr (phase_handles<decltype(eval_constval(n, s))>)
    return eval_constval(n, s);
  else if constexpr (phase_handles<decltype(eval_split(n, s))>)
    return eval_split(n, s);
  else if constexpr (phase_handles<decltype(eval_external(n, s))>)
    return eval_external(n, s);
  else {
    static_assert(N::kind == Kind::Tag, "optgrammar: construct has no value in a constraint");
    return false;
  }
}

}  // namespace optgrammar::engine
