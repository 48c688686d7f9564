// Replacement building: the ops of a rule's replacement, made in the graph (Op constructions,
// shapes, constants, the output modifiers). AUTOSPLIT, OP_ITER and the external functions of a
// replacement are in engine/build_split.hpp.
#pragma once

#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/constraint_eval.hpp"
#include "optgrammar/engine/exec_state.hpp"

#include <boost/hana/at.hpp>
#include <boost/hana/for_each.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace optgrammar::engine {

/// Thrown inside a replacement to abandon it; the graph is rolled back.
class ReplacementFailed : public ReplacementFailedBase {
 public:
  using ReplacementFailedBase::ReplacementFailedBase;
};

/// Whether a record's expansion is a slice (its nodes carry the record, dsl/words.hpp).
constexpr bool slice_record(int written) {
  if (written <= 0) return false;
  const dsl::Family f = dsl::constructs[static_cast<std::size_t>(written - 1)].family;
  return f == dsl::Family::AUTOSPLIT_SLICE || f == dsl::Family::TYPICAL_SLICE || f == dsl::Family::CHANGEDIM_SLICE;
}

/// Operand I of an Op construction. The Slice_shape op of a slice's expansion builds its input
/// once (build_once) when that is an Op construction.
template <std::size_t I, class N>
inline OpRef build_op_operand(const N& n, ExecState& s) {
  if constexpr (child_t<I, N>::vtype == VType::OpBuild)
    if (slice_record(n.leaf.record)) [[unlikely]]
      return build_once(hana::at_c<I>(n.kids), s);
  return build(hana::at_c<I>(n.kids), s);
}

template <class N, std::size_t... I>
inline OpRef build_op(const N& n, ExecState& s, OpNameId name, std::index_sequence<I...>) {
  OpRef in[sizeof...(I) + 1] = {build_op_operand<I>(n, s)..., OpRef{}};
  OpRef r = s.g.add_op_with_id(name, std::span<const OpRef>(in, sizeof...(I)),
                               s.out_def != no_index ? s.out_def : s.g.output_index(s.root), s.g.op_id(s.root));
  if (s.g.op(s.root).has_split_history) s.g.copy_split_history(r, s.root);
  return r;
}

/// build() of a replacement that plain_build (engine/apply.hpp) admits: Op constructions over
/// tags the match bound. Nothing is erased while it runs, so every tag names a live op, and the
/// ops take the root's output definition and id, which are good: they are appended without
/// build()'s checks.
template <class N>
inline OpRef build_plain(const N& n, ExecState& s);
template <class N, std::size_t... I>
inline OpRef build_plain_op(const N& n, ExecState& s, std::index_sequence<I...>) {
  OpRef in[sizeof...(I) + 1] = {build_plain(hana::at_c<I>(n.kids), s)..., OpRef{}};
  Graph& g = s.g;
  const OpDef root = g.op_at(s.root.index);  // a copy: adding the op may move the records
  const OpRef r = g.add_op_unchecked(s.ids[n.leaf.index], std::span<const OpRef>(in, sizeof...(I)),
                                     s.out_def != no_index ? s.out_def : root.output, root.id);
  if (root.has_split_history) g.copy_split_history(r, s.root);
  return r;
}
template <class N>
inline OpRef build_plain(const N& n, ExecState& s) {
  if constexpr (N::kind == Kind::Tag) {
    return s.slot[n.leaf.slot];
  } else {
    static_assert(N::kind == Kind::Op, "optgrammar: build_plain takes Op constructions over tags only");
    return build_plain_op(n, s, std::make_index_sequence<N::arity>{});
  }
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

/// The op a modifier edits: the Op or constant construction its last operand built.
inline OpRef modifiable(const ExecState& s, OpRef r, std::string_view what) {
  if (!is_new(s, r))
    throw ReplacementFailed(std::string(what) + ": its last operand yielded an existing op, not a new one");
  return r;
}

/// Op and WrapOp/WrapOpAlways constructions: a new op over the built operands.
template <class N>
inline auto build_construction(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  Graph& g = s.g;
  if constexpr (k == Kind::Op) {
    return build_op(n, s, s.ids[n.leaf.index], std::make_index_sequence<N::arity>{});
  } else if constexpr (k == Kind::WrapOp || k == Kind::WrapOpAlways) {
    OpRef x = build(hana::at_c<0>(n.kids), s);
    OpNameId name = s.ids[n.leaf.index];
    if (k == Kind::WrapOp && g.name_id(x) == name) return x;
    return g.add_op_with_id(name, std::span<const OpRef>(&x, 1), g.output_index(x), g.op_id(s.root));
  }
}

/// gen_Shape, gen_ShapeOf: a shape construction (a `$Shape` op of that shape).
template <class N>
inline auto build_shape(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  Graph& g = s.g;
  if constexpr (k == Kind::GenShape) {
    std::size_t dims[N::arity + 1]{};
    std::size_t i = 0;
    hana::for_each(n.kids, [&](const auto& kd) { dims[i++] = static_cast<std::size_t>(eval(kd, s)); });
    return make_shape(s, static_cast<std::uint32_t>(N::arity), dims);
  } else if constexpr (k == Kind::GenShapeOf) {
    OpRef x = build(hana::at_c<0>(n.kids), s);
    const OutputDef& d = g.output(x);
    OutputDef copy = d;
    return make_shape(s, copy.rank, copy.dims.data());
  }
}

/// gen_ConstScalar_*, gen_ConstArr_*: a new constant.
template <class N>
inline auto build_const(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  if constexpr (k == Kind::GenConstScalarF32 || k == Kind::GenConstScalarI32) {
    if constexpr (k == Kind::GenConstScalarF32) {
      float v = static_cast<float>(value_of<0>(n, s));
      return make_const(s, DType::Float32, &v, 1);
    } else {
      auto v = static_cast<std::int32_t>(value_of<0>(n, s));
      return make_const(s, DType::Int32, &v, 1);
    }
  } else if constexpr (k == Kind::GenConstArrF32 || k == Kind::GenConstArrI32) {
    auto count = static_cast<long long>(value_of<1>(n, s));
    if (count <= 0 || count > (1 << 24)) throw ReplacementFailed("gen_ConstArr: element count out of range");
    if constexpr (k == Kind::GenConstArrF32) {
      std::vector<float> v(static_cast<std::size_t>(count), static_cast<float>(value_of<0>(n, s)));
      return make_const(s, DType::Float32, v.data(), v.size());
    } else {
      std::vector<std::int32_t> v(static_cast<std::size_t>(count), static_cast<std::int32_t>(value_of<0>(n, s)));
      return make_const(s, DType::Int32, v.data(), v.size());
    }
  } else if constexpr (k == Kind::GenConstArrValsI32) {
    std::int32_t v[N::arity + 1]{};
    std::size_t i = 0;
    hana::for_each(n.kids, [&](const auto& kd) { v[i++] = static_cast<std::int32_t>(eval(kd, s)); });
    return make_const(s, DType::Int32, v, N::arity);
  }
}

/// WITH_SIZE, WITH_TYPE, WITH_SAME_OUTPUT, WITH_SAME_ID, WITH_SPLIT_HISTORY, WITH_OUTPUT_TYPE,
/// ResizeDim, WITH_MULTI_OUT: the op their last operand builds (an Op construction, or for all
/// but WITH_MULTI_OUT a constant construction), with its output changed.
template <class N>
inline auto build_modifier(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  Graph& g = s.g;
  if constexpr (k == Kind::WithSize || k == Kind::WithType || k == Kind::WithSameOutput || k == Kind::WithSameId ||
                k == Kind::WithSplitHistory || k == Kind::WithOutputType || k == Kind::ResizeDim ||
                k == Kind::WithMultiOut) {
    constexpr std::size_t last = N::arity - 1;
    OpRef r = modifiable(s, build(hana::at_c<last>(n.kids), s), dsl::kind_name(k));
    OutputDef d = g.output(r);
    if constexpr (k == Kind::WithSize) {
      OpRef from = build(hana::at_c<0>(n.kids), s);
      const OutputDef& f = g.output(from);
      d.rank = f.rank;
      d.dims = f.dims;
    } else if constexpr (k == Kind::WithType || k == Kind::WithSameOutput) {
      // (WITH_TYPE of an Op construction is a slice's expansion: analysis refuses it written)
      OpRef from;
      if constexpr (child_t<0, N>::vtype == VType::OpBuild)
        from = build_once(hana::at_c<0>(n.kids), s);
      else
        from = build(hana::at_c<0>(n.kids), s);
      const OutputDef& f = g.output(from);
      if constexpr (k == Kind::WithSameOutput)
        d = f;
      else {
        d.dtype = f.dtype;
        d.zero_offset = f.zero_offset;
        d.stepsize = f.stepsize;
      }
    } else if constexpr (k == Kind::WithOutputType) {
      d.dtype = value_of<0>(n, s);
      if (is_quantized(d.dtype)) {
        d.zero_offset = static_cast<std::int32_t>(value_of<1>(n, s));
        d.stepsize = static_cast<float>(value_of<2>(n, s));
      } else {
        d.zero_offset = 0;
        d.stepsize = 1.0f;
      }
    } else if constexpr (k == Kind::ResizeDim) {
      auto dim = static_cast<long long>(value_of<0>(n, s));
      if (dim < 0 || dim >= static_cast<long long>(d.rank))
        throw ReplacementFailed("ResizeDim: dimension out of range");
      auto value = static_cast<std::size_t>(value_of<1>(n, s));
      for (std::uint32_t i = 0; i < d.rank && i < max_rank; ++i)  // no indexing by `dim`: it may be any constant
        if (i == dim) d.dims[i] = value;
    } else if constexpr (k == Kind::WithSameId) {
      g.set_op_id(r, g.op_id(build(hana::at_c<0>(n.kids), s)));
    } else if constexpr (k == Kind::WithSplitHistory) {
      OpRef from = build(hana::at_c<0>(n.kids), s);
      std::vector<int> h = g.split_history(from);
      if constexpr (N::arity == 3) h.push_back(static_cast<int>(value_of<1>(n, s)));
      g.set_split_history(r, std::move(h));
    } else if constexpr (k == Kind::WithMultiOut) {
      if (static_cast<long long>(value_of<0>(n, s)) < 1)
        throw ReplacementFailed("WITH_MULTI_OUT: needs at least one output");
    }
    if (g.is_const(r)) {
      // A constant construction (a modifier's last operand may be one): its data stays as made,
      // so the output it gets must hold that data as it is.
      if (const OutputDef& was = g.output(r); d.dtype != was.dtype || d.element_count() != was.element_count())
        throw ReplacementFailed(std::string(dsl::kind_name(k)) +
                                ": the constant it applies to would get an output its data does not fit");
    }
    g.set_output(r, d);
    return r;
  }
}

/// Whether a and b, ops this replacement made from first_new on (or one existing op), are the
/// same computation: name, output, id, split history, constant data and inputs (compared alike).
inline bool same_made(const Graph& g, OpRef a, OpRef b, std::size_t first_new) {
  if (a == b) return true;
  if (a.index < first_new || b.index < first_new) return false;
  if (!g.same_but_inputs(a, b) || g.op_id(a) != g.op_id(b)) return false;
  for (std::uint32_t i = 0; i < g.n_inputs(a); ++i)
    if (!same_made(g, g.input(a, i), g.input(b, i), first_new)) return false;
  return true;
}

/// A slice's first operand (AUTOSPLIT_SLICE, TYPICAL_SLICE, CHANGEDIM_SLICE) where its expansion
/// uses it, when it is an Op construction (the grammar wants an existing opref; packages slice a
/// cast of an operand): built once per replacement. Each use builds it; when an earlier use (of
/// any part of an AUTOSPLIT) made the same ops, those are taken, and this use's copy is left
/// unread (it goes with the replacement's unread made ops). Only uses that read the operand come
/// here, so an op taken is never modified after. The search looks at the last few operands made
/// (one per written operand, or one per part when the operand depends on the split).
template <class N>
inline OpRef build_once(const N& n, ExecState& s) {
  const OpRef r = build(n, s);
  if (!s.built_once) return r;
  std::vector<OpRef>& seen = *s.built_once;
  constexpr std::size_t window = 16;
  for (std::size_t i = seen.size(), end = seen.size() > window ? seen.size() - window : 0; i > end; --i)
    if (same_made(s.g, seen[i - 1], r, s.first_new)) return seen[i - 1];
  seen.push_back(r);
  return r;
}

/// The ops of a replacement value: an existing opref is evaluated; a construction is built by the
/// phase function of its family (each returns void for the kinds of other families). Anything
/// else (splits, external functions) is engine/build_split.hpp's.
template <class N>
inline OpRef build(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  Graph& g = s.g;
  if constexpr (N::vtype == VType::OpRef) {
    OpRef r = eval(n, s);
    if (s.failed || !g.alive(r)) throw ReplacementFailed("an operand reference of the replacement does not exist");
    return r;
  } else if constexpr (k == Kind::Select) {
    bool c = value_of<0>(n, s);
    return c ? build(hana::at_c<1>(n.kids), s) : build(hana::at_c<2>(n.kids), s);
  } else if constexpr (phase_handles<decltype(build_construction(n, s))>) {
    return build_construction(n, s);
  } else if constexpr (phase_handles<decltype(build_shape(n, s))>) {
    return build_shape(n, s);
  } else if constexpr (phase_handles<decltype(build_const(n, s))>) {
    return build_const(n, s);
  } else if constexpr (phase_handles<decltype(build_modifier(n, s))>) {
    return build_modifier(n, s);
  } else {
    return build_split(n, s);
  }
}

}  // namespace optgrammar::engine
