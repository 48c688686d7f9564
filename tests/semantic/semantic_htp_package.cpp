// Random semantic check of the op package written as for the original framework's SDK
// (examples/htp_package: the objects of its plugin, og_example_htp_package, linked into this test).
//
// Its ops have no definitions in the op library; this test gives them the meaning its kernels
// and rules state (example.Relu: max(x, 0); example.Softmax: softmax along the last dimension,
// in the dtype it has, f32 or f16; example.Conv(act, w): act scaled per channel (last dimension) by w,
// example.ConvRelu the same then Relu; example.Pad(act, pad): zero padding by
// [[top, bottom], [left, right]], example.PadQnn(act, before): act placed at before = {0, top,
// left, 0} in the declared shape; example.MaxPool(x, [h, w]) and example.MaxPoolWindow(x,
// [1, h, w, 1]): the maximum over non-overlapping windows; QNN_Cast: the value in another dtype)
// and checks the rules against it. Half the graphs set example_tile_rows (convolutions are
// tiled) and half relaxed_precision_flag (Softmax runs in fp16 between casts).
//
// Tolerance: Softmax in fp16 keeps about 3 decimal digits, so float outputs must agree within
// 4e-3 relative plus 1e-3 absolute (Softmax's outputs lie in [0, 1]).
#include "motifs.hpp"
#include "package_test.hpp"

#include <optgrammar/ops/builtin.hpp>
#include <optgrammar/ops/builtin_eval.hpp>

using namespace semantic;

namespace {
using ops::OpDefinition;
using ops::OpView;
namespace oe = ops::onnx_eval;

double at(const ops::ValueView& x, std::size_t i) { return oe::get(x.def->dtype, x.data.data(), i); }

bool floats(const OpView& v, std::size_t operands) {
  if (v.operands.size() != operands) return false;
  for (const auto& x : v.operands)
    if (!x.known) return false;
  const DType t = v.declared->dtype;
  return t == DType::Float32 || t == DType::Float16;
}

bool relu(const OpView& v, std::span<std::byte> out, ops::Backend) {
  if (!floats(v, 1) || v.operands[0].def->element_count() != v.declared->element_count()) return false;
  for (std::size_t i = 0; i < v.declared->element_count(); ++i)
    oe::put(v.declared->dtype, out.data(), i, std::max(at(v.operands[0], i), 0.0));
  return true;
}

bool softmax(const OpView& v, std::span<std::byte> out, ops::Backend) {
  const auto& x = v.operands[0];
  if (!floats(v, 1) || !(x.def->dims == v.declared->dims) || x.def->rank == 0) return false;
  const std::size_t depth = x.def->dims[x.def->rank - 1], n = x.def->element_count();
  for (std::size_t row = 0; depth && row < n; row += depth) {
    double top = at(x, row), sum = 0;
    for (std::size_t d = 1; d < depth; ++d) top = std::max(top, at(x, row + d));
    for (std::size_t d = 0; d < depth; ++d) sum += std::exp(at(x, row + d) - top);
    for (std::size_t d = 0; d < depth; ++d) oe::put(v.declared->dtype, out.data(), row + d, std::exp(at(x, row + d) - top) / sum);
  }
  return true;
}

template <bool WithRelu>
bool conv(const OpView& v, std::span<std::byte> out, ops::Backend) {
  if (!floats(v, 2)) return false;
  const auto &x = v.operands[0], &w = v.operands[1];
  if (x.def->rank == 0 || !(x.def->dims == v.declared->dims)) return false;
  const std::size_t depth = x.def->dims[x.def->rank - 1];
  if (w.def->element_count() != depth) return false;
  for (std::size_t i = 0; i < x.def->element_count(); ++i) {
    const double y = at(x, i) * at(w, i % depth);
    oe::put(v.declared->dtype, out.data(), i, WithRelu ? std::max(y, 0.0) : y);
  }
  return true;
}

/// x placed at (top, left) of the declared shape, zeros around it.
bool place(const OpView& v, std::span<std::byte> out, std::int64_t top, std::int64_t left) {
  const auto& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (x.def->rank != 4 || o.rank != 4 || top < 0 || left < 0 || x.def->dims[0] != o.dims[0] || x.def->dims[3] != o.dims[3] ||
      x.def->dims[1] + static_cast<std::size_t>(top) > o.dims[1] || x.def->dims[2] + static_cast<std::size_t>(left) > o.dims[2])
    return false;
  std::fill(out.begin(), out.end(), std::byte{0});
  const std::size_t H = x.def->dims[1], W = x.def->dims[2], C = x.def->dims[3];
  for (std::size_t n = 0; n < o.dims[0]; ++n)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t w = 0; w < W; ++w)
        for (std::size_t c = 0; c < C; ++c)
          oe::put(o.dtype, out.data(),
                  ((n * o.dims[1] + h + static_cast<std::size_t>(top)) * o.dims[2] + w + static_cast<std::size_t>(left)) * C + c,
                  at(x, ((n * H + h) * W + w) * C + c));
  return true;
}

bool pad(const OpView& v, std::span<std::byte> out, ops::Backend) {
  if (!floats(v, 2)) return false;
  const auto p = ops::eval::int_values(v.operands[1]);
  if (!p || p->size() != 4) return false;
  return place(v, out, (*p)[0], (*p)[2]);
}

bool pad_qnn(const OpView& v, std::span<std::byte> out, ops::Backend) {
  if (!floats(v, 2)) return false;
  const auto p = ops::eval::int_values(v.operands[1]);
  if (!p || p->size() != 4 || (*p)[0] != 0 || (*p)[3] != 0) return false;
  return place(v, out, (*p)[1], (*p)[2]);
}

/// The maximum over windows of wh x ww, window (h, w) starting at (h * wh, w * ww).
template <bool FourD>
bool max_pool(const OpView& v, std::span<std::byte> out, ops::Backend) {
  if (!floats(v, 2)) return false;
  const auto p = ops::eval::int_values(v.operands[1]);
  if (!p || p->size() != (FourD ? 4u : 2u)) return false;
  if (FourD && ((*p)[0] != 1 || (*p)[3] != 1)) return false;
  const std::int64_t wh = (*p)[FourD ? 1 : 0], ww = (*p)[FourD ? 2 : 1];
  const auto& x = v.operands[0];
  const OutputDef& o = *v.declared;
  if (x.def->rank != 4 || o.rank != 4 || wh < 1 || ww < 1 || o.dims[0] != x.def->dims[0] || o.dims[3] != x.def->dims[3] ||
      o.dims[1] * static_cast<std::size_t>(wh) > x.def->dims[1] || o.dims[2] * static_cast<std::size_t>(ww) > x.def->dims[2])
    return false;
  const std::size_t H = x.def->dims[1], W = x.def->dims[2], C = x.def->dims[3];
  for (std::size_t n = 0; n < o.dims[0]; ++n)
    for (std::size_t h = 0; h < o.dims[1]; ++h)
      for (std::size_t w = 0; w < o.dims[2]; ++w)
        for (std::size_t c = 0; c < C; ++c) {
          double m = -HUGE_VAL;
          for (std::size_t i = 0; i < static_cast<std::size_t>(wh); ++i)
            for (std::size_t j = 0; j < static_cast<std::size_t>(ww); ++j)
              m = std::max(m, at(x, ((n * H + h * static_cast<std::size_t>(wh) + i) * W + w * static_cast<std::size_t>(ww) + j) * C + c));
          oe::put(o.dtype, out.data(), ((n * o.dims[1] + h) * o.dims[2] + w) * C + c, m);
        }
  return true;
}

bool cast(const OpView& v, std::span<std::byte> out, ops::Backend) {
  if (!floats(v, 1) || v.operands[0].def->element_count() != v.declared->element_count()) return false;
  for (std::size_t i = 0; i < v.declared->element_count(); ++i) oe::put(v.declared->dtype, out.data(), i, at(v.operands[0], i));
  return true;
}

OpDefinition definition(std::string_view name, std::size_t operands, ops::EvalFn eval) {
  OpDefinition d;
  d.name = name;
  d.summary = "the meaning semantic_htp_package.cpp gives it";
  d.operands.push_back({"x", ops::Arity::single, ops::TypeRule::in_set, ops::dtypes::any, "data", 0, false});
  if (operands == 2) d.operands.push_back({"p", ops::Arity::single, ops::TypeRule::in_set, ops::dtypes::any, "parameter", 0, false});
  d.result = {"out", ops::TypeRule::in_set, ops::dtypes::any, "declared"};
  d.traits = ops::Trait::pure;
  d.eval = eval;
  return d;
}

void add_package_semantics() {
  static bool added = false;
  if (added) return;
  added = true;
  auto& t = ops::definitions();
  // (the package defines example.Relu itself, its reference implementation: docs/packages.md)
  if (!ops::find_definition("example.Relu")) t.add(definition("example.Relu", 1, relu));
  t.add(definition("example.Softmax", 1, softmax));
  t.add(definition("example.Conv", 2, conv<false>));
  t.add(definition("example.ConvRelu", 2, conv<true>));
  t.add(definition("example.Pad", 2, pad));
  t.add(definition("example.PadQnn", 2, pad_qnn));
  t.add(definition("example.MaxPool", 2, max_pool<false>));
  t.add(definition("example.MaxPoolWindow", 2, max_pool<true>));
  t.add(definition("QNN_Cast", 1, cast));
}

enum Kind { relu_relu, conv_relu, softmax_op, pad_op, pool_op, n_kinds };

std::int32_t i32(std::uint64_t v) { return static_cast<std::int32_t>(v); }

void build(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  const auto d = shape_of(DType::Float32, m, 4);
  const bool flat = m.variant == 5;  // rank 2: the package's 4-d rules do not apply
  const auto d2 = OutputDef::make(DType::Float32, {d.dims[0] * d.dims[1] * d.dims[2], d.dims[3]});
  switch (m.kind) {
    case relu_relu: {
      const auto dd = flat ? d2 : d;
      OpRef v = g.add_op("example.Relu", {b.value(dd, m.share, rng())}, dd);
      if (m.fan_out) b.output(v);
      b.output(g.add_op("example.Relu", {v}, dd));
      break;
    }
    case conv_relu: {  // Relu(Conv(x, w)), Relu(Relu(Conv)), Relu(ConvRelu) or ConvRelu alone
      if (rng() % 2) g.set_option("example_tile_rows", std::uint64_t{1 + rng() % 4});
      const auto dd = flat ? d2 : d;
      const std::size_t depth = dd.dims[dd.rank - 1];
      const auto wd = OutputDef::make(DType::Float32, {depth});
      OpRef w = rng() % 4 ? g.add_const(wd, std::span<const float>(random_floats(rng, depth))) : g.add_input(wd);
      OpRef x = b.value(dd, m.share, rng());
      const int form = static_cast<int>(rng() % 4);
      OpRef v = g.add_op(form == 3 ? "example.ConvRelu" : "example.Conv", {x, w}, dd);
      if (m.fan_out) b.output(v);
      if (form != 3 || rng() % 2) v = g.add_op("example.Relu", {v}, dd);
      if (form == 1) v = g.add_op("example.Relu", {v}, dd);
      b.output(v);
      break;
    }
    case softmax_op:
      if (rng() % 2) g.set_option("relaxed_precision_flag", true);
      b.output(g.add_op("example.Softmax", {b.value(flat ? d2 : d, m.share, rng())}, flat ? d2 : d));
      break;
    case pad_op: {
      const std::int32_t p[4] = {i32(rng() % 3), i32(rng() % 3), i32(rng() % 3), i32(rng() % 3)};
      OpRef pc = g.add_const(OutputDef::make(DType::Int32, {2, 2}), std::span<const std::int32_t>(p));
      auto od = d;
      od.dims[1] += static_cast<std::size_t>(p[0] + p[1]);
      od.dims[2] += static_cast<std::size_t>(p[2] + p[3]);
      OpRef v = g.add_op("example.Pad", {b.value(d, m.share, rng()), pc}, od);
      b.output(m.fan_out ? g.add_op("example.Relu", {v}, od) : v);
      break;
    }
    case pool_op: {
      const std::int32_t wh = i32(1 + rng() % std::min<std::size_t>(3, d.dims[1])),
                         ww = i32(1 + rng() % std::min<std::size_t>(3, d.dims[2]));
      OpRef win = g.add_const(OutputDef::make(DType::Int32, {2}), {wh, ww});
      auto od = d;
      od.dims[1] /= static_cast<std::size_t>(wh);
      od.dims[2] /= static_cast<std::size_t>(ww);
      b.output(g.add_op("example.MaxPool", {b.value(d, m.share, rng()), win}, od));
      break;
    }
    default: break;
  }
}

Motif draw(std::mt19937_64& rng, int kind) {
  Motif m = random_motif(rng, kind, 7);
  m.dims[0] = 1 + rng() % 2;
  return m;
}

Package htp_package() {
  add_package_semantics();
  return {.name = "htp_package", .rules = rules_from("htp_package"), .kinds = n_kinds, .draw = draw, .build = build,
          .tolerance = 4e-3, .abs_tolerance = 1e-3};
}
}  // namespace

TEST_CASE("the framework-style example package's rules preserve results on random graphs") {
  const Package p = htp_package();
  REQUIRE(p.rules.size() == 7);
  check_package(p, 10);
}

// Found by the check: with example_tile_rows set, a 2-d example.ConvRelu taller (in its last
// dimension) than the option was split into the 4-d slices the package's shape functions make,
// which did not fit it. Tiling now requires a 4-d op; the 4-d one is still tiled.
TEST_CASE("framework-style package: only 4-d convolutions are tiled") {
  Package p = htp_package();
  for (std::size_t rank : {2, 4}) {
    INFO("rank " << rank);
    const auto [problem, tally] = check_graph(p, [rank](Builder& b) {
      Graph& g = b.graph();
      g.set_option("example_tile_rows", std::uint64_t{3});
      const auto d = rank == 2 ? OutputDef::make(DType::Float32, {1, 6}) : OutputDef::make(DType::Float32, {1, 6, 2, 6});
      OpRef w = g.add_const(OutputDef::make(DType::Float32, {6}), {1.0f, -1.0f, 2.0f, 0.5f, -3.0f, 0.25f});
      b.output(g.add_op("example.ConvRelu", {g.add_input(d), w}, d));
    });
    CHECK(!problem);
    if (problem) WARN(*problem);
    CHECK(fired(tally, R"(TILING,Op("example.ConvRelu")") == (rank == 4 ? 1u : 0u));
  }
}
