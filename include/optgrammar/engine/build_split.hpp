// Replacement building, continued: tiling (AUTOSPLIT, TYPICAL_CONV_SLICE), iteration (OP_ITER)
// and the external functions of a replacement (docs/replacement.md).
#pragma once

#include "optgrammar/core/context.hpp"
#include "optgrammar/core/graph.hpp"
#include "optgrammar/engine/autosplit.hpp"
#include "optgrammar/engine/build.hpp"
#include "optgrammar/engine/exec_state.hpp"
#include "optgrammar/engine/external_call.hpp"

#include <boost/hana/at.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace optgrammar::engine {

/// Out of line: apply_rule is flattened, the throwing paths need not be.
[[noreturn, gnu::noinline]] inline void replacement_failed(const std::string& why) { throw ReplacementFailed(why); }

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
inline OpRef build_split(const N& n, ExecState& s) {
  constexpr Kind k = N::kind;
  Graph& g = s.g;
  if constexpr (k == Kind::Autosplit) {
    const auto dim = static_cast<long long>(value_of<0>(n, s));
    const auto chunk = static_cast<long long>(value_of<2>(n, s));
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
    SplitRecord rec;
    const bool verify = autosplit_verify_enabled();
    const SplitCheck check = verify ? split_check_hook().load(std::memory_order_relaxed) : nullptr;
    if (verify && !check)
      replacement_failed(
          "AUTOSPLIT verification is on but this program has no split check: include "
          "<optgrammar/runtime.hpp> in one of its files, or turn verification off (set_autosplit_verify)");
    for (std::size_t start = 0; start < extent; start += static_cast<std::size_t>(chunk)) {
      const std::size_t size = std::min<std::size_t>(static_cast<std::size_t>(chunk), extent - start);
      s.split[n.leaf.slot] = Split_Context{start, size, static_cast<int>(dim)};
      OutputDef pd = base;
      pd.dims[static_cast<std::size_t>(dim)] = size;
      s.out_def = g.intern_output(pd);
      const std::size_t before = g.size();
      OpRef p = build(hana::at_c<3>(n.kids), s);
      parts.push_back(p);
      if (check) rec.parts.push_back({start, size, p, before, g.size()});
    }
    s.out_def = saved_def;
    s.split[n.leaf.slot] = saved;
    if (check) {
      std::string problem = check(g, rec, base, static_cast<int>(dim));
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
    const auto lo = static_cast<long long>(value_of<2>(n, s));
    const auto hi = static_cast<long long>(value_of<3>(n, s));
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
    OpRef r = fn(rpx, rpx.root_def());  // a copy: the ops it makes may move the graph's records
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
    if constexpr (child_t<1, N>::vtype == VType::OpRef)
      stride = static_cast<long long>(g.output(build(hana::at_c<1>(n.kids), s)).dim(dim));
    else
      stride = static_cast<long long>(value_of<1>(n, s));
    const auto window = static_cast<long long>(value_of<2>(n, s));
    long long pad = 0;
    if constexpr (N::arity == 4) pad = static_cast<long long>(value_of<3>(n, s));
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

}  // namespace optgrammar::engine
