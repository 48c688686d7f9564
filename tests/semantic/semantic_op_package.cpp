// Random semantic check of the example op package (examples/op_package/op_package.cpp).
//
// The package defines pkg.Conv2d and pkg.Flatten itself; its other ops (pkg.Relu, pkg.PadDepth,
// pkg.Relu.padded, pkg.Concat, pkg.Requantize) have no definitions, and the op library's Relu
// takes no quantized types: this test gives them the meaning the rules assume. Relu of a quantized
// tensor is max(q, zero offset) in the input's encoding; pkg.Relu is Relu; pkg.PadDepth pads the
// depth, pkg.Relu.padded is Relu of the first channels. pkg.Requantize requantizes to its
// output's encoding; Concat(axis, parts...) and pkg.Concat requantize each part to the output's
// encoding, then join (the library's Concat). The graph options tile_height (1 to 4) and a depth
// above 256 make the AUTOSPLIT rules fire.
#include "../og-parse/source_rules.hpp"
#include "motifs.hpp"
#include "package_test.hpp"

#include <optgrammar/ops/builtin.hpp>

using namespace semantic;

namespace {
using ops::OpDefinition;
using ops::OpView;

OpDefinition renamed(std::string_view from, std::string_view to) {
  OpDefinition d = *ops::find_definition(from);
  d.name = to;
  return d;
}

/// Copies the first min(C_in, C_out) channels of each row (last dimension) from `in` to `out`,
/// filling the rest of each output row with `fill`.
void copy_channels(const ops::ValueView& in, const OutputDef& o, std::span<std::byte> out, std::byte fill) {
  const std::size_t es = element_size(o.dtype), ci = in.def->dims[in.def->rank - 1], co = o.dims[o.rank - 1];
  const std::size_t rows = co ? o.element_count() / co : 0, n = std::min(ci, co);
  std::fill(out.begin(), out.end(), fill);
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(out.data() + r * co * es, in.data.data() + r * ci * es, n * es);
}

/// The library's Relu evaluation (kept before the test replaces the definition).
ops::EvalFn library_relu = nullptr;

/// Relu for 8-bit quantized tensors of one encoding: max(q, zero offset); the library's Relu else.
bool relu(const OpView& v, std::span<std::byte> out, ops::Backend be) {
  const OutputDef& o = *v.declared;
  const auto& x = v.operands[0];
  if (o.dtype != DType::QUInt8 && o.dtype != DType::QInt8) return library_relu(v, out, be);
  if (!x.known || x.def->dtype != o.dtype || x.def->zero_offset != o.zero_offset || x.def->stepsize != o.stepsize)
    return false;
  for (std::size_t i = 0; i < o.element_count(); ++i) {
    const int q = o.dtype == DType::QUInt8 ? std::to_integer<int>(x.data[i])
                                           : static_cast<std::int8_t>(std::to_integer<int>(x.data[i]));
    out[i] = static_cast<std::byte>(std::max(q, o.zero_offset));
  }
  return true;
}

bool pad_depth(const OpView& v, std::span<std::byte> out, ops::Backend) {
  const auto& x = v.operands[0];
  if (!x.known || x.def->rank != v.declared->rank || x.def->dtype != v.declared->dtype) return false;
  copy_channels(x, *v.declared, out, std::byte{0});
  return true;
}

/// Relu of the first channels of a padded input: crop, then Relu's own evaluation.
bool relu_padded(const OpView& v, std::span<std::byte> out, ops::Backend be) {
  const auto& x = v.operands[0];
  if (!x.known || x.def->rank != v.declared->rank || x.def->dtype != v.declared->dtype) return false;
  OutputDef cropped = *x.def;
  cropped.dims[cropped.rank - 1] = v.declared->dims[v.declared->rank - 1];
  std::vector<std::byte> buf(cropped.byte_size());
  copy_channels(x, cropped, buf, std::byte{0});
  const ops::ValueView in{&cropped, buf, true, false};
  return ops::find_definition("Relu")->eval(OpView{std::span<const ops::ValueView>(&in, 1), v.declared}, out, be);
}

/// q (of encoding `from`) in encoding `to`: round((q - z) * s / s') + z', clamped to the dtype.
double requantize(double q, const OutputDef& from, const OutputDef& to) {
  const double r =
      std::nearbyint((q - from.zero_offset) * static_cast<double>(from.stepsize) / static_cast<double>(to.stepsize)) +
      to.zero_offset;
  return to.dtype == DType::QUInt8 ? std::clamp(r, 0.0, 255.0) : std::clamp(r, -128.0, 127.0);
}

bool is_q8(DType t) { return t == DType::QUInt8 || t == DType::QInt8; }

double value_at(const ops::ValueView& x, std::size_t i) { return ops::onnx_eval::get(x.def->dtype, x.data.data(), i); }

bool requantize_op(const OpView& v, std::span<std::byte> out, ops::Backend) {
  const OutputDef& o = *v.declared;
  if (v.operands.size() != 1 || !v.operands[0].known) return false;
  const auto& x = v.operands[0];
  if (!is_q8(o.dtype) || !is_q8(x.def->dtype) || x.def->element_count() != o.element_count()) return false;
  for (std::size_t i = 0; i < o.element_count(); ++i)
    ops::onnx_eval::put(o.dtype, out.data(), i, requantize(value_at(x, i), *x.def, o));
  return true;
}

/// The library's Concat evaluation (kept before the test replaces the definition).
ops::EvalFn library_concat = nullptr;

/// Concat whose quantized parts may have other encodings than the output: each part requantized
/// to the output's encoding, then the library's Concat.
bool concat(const OpView& v, std::span<std::byte> out, ops::Backend be) {
  const OutputDef& o = *v.declared;
  if (!is_q8(o.dtype)) return library_concat(v, out, be);
  std::vector<OutputDef> defs(v.operands.size());
  std::vector<std::vector<std::byte>> data(v.operands.size());
  std::vector<ops::ValueView> parts(v.operands.begin(), v.operands.end());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto& x = v.operands[k];
    if (!x.known || !is_q8(x.def->dtype) || x.def->dtype != o.dtype) continue;  // the axis
    defs[k] = *x.def;
    defs[k].zero_offset = o.zero_offset;
    defs[k].stepsize = o.stepsize;
    data[k].resize(x.def->byte_size());
    for (std::size_t i = 0; i < x.def->element_count(); ++i)
      ops::onnx_eval::put(o.dtype, data[k].data(), i, requantize(value_at(x, i), *x.def, o));
    parts[k] = ops::ValueView{&defs[k], data[k], true, false};
  }
  return library_concat(OpView{parts, v.declared}, out, be);
}

void add_package_semantics() {
  auto& t = ops::definitions();
  if (library_relu) return;  // added already
  OpDefinition r = *ops::find_definition("Relu");
  library_relu = r.eval;
  r.operands[0].types = r.operands[0].types | ops::dtypes::quantized;
  r.result.types = r.result.types | ops::dtypes::quantized;
  r.eval = relu;
  t.add(r);
  t.add(renamed("Relu", "pkg.Relu"));
  OpDefinition cat = *ops::find_definition("Concat");
  library_concat = cat.eval;
  cat.infer = nullptr;  // the library's requires one encoding
  cat.eval = concat;
  t.add(cat);
  cat.name = "pkg.Concat";
  t.add(cat);
  OpDefinition rq = renamed("Relu", "pkg.Requantize");
  rq.operands[0].types = rq.operands[0].types | ops::dtypes::quantized;
  rq.result = {"out", ops::TypeRule::in_set, ops::dtypes::quantized, "x in the declared encoding"};
  rq.infer = nullptr;
  rq.traits = ops::Trait::pure;
  rq.indexing = nullptr;
  rq.eval = requantize_op;
  t.add(rq);
  OpDefinition pad = renamed("Relu", "pkg.PadDepth");
  pad.infer = nullptr;  // the output's depth is the shape function's
  pad.indexing = nullptr;
  pad.traits = ops::Trait::pure;
  pad.eval = pad_depth;
  t.add(pad);
  OpDefinition padded = pad;
  padded.name = "pkg.Relu.padded";
  padded.eval = relu_padded;
  t.add(padded);
}

enum Kind { relu_relu, q_relu, add_zero, mul_one, flatten, f_conv, q_concat, q_relu_wide, n_kinds };

OutputDef q8(DType t, const Motif& m, std::uint32_t rank, std::mt19937_64& rng) {
  return shape_of(t, m, rank, static_cast<std::int32_t>(rng() % 256) - (t == DType::QInt8 ? 128 : 0),
                  0.0625f * static_cast<float>(1 + rng() % 8));
}

void build(Builder& b, const Motif& m) {
  Graph& g = b.graph();
  std::mt19937_64 rng(m.seed);
  switch (m.kind) {
    case relu_relu:
    case q_relu: {  // Relu(Relu(x)) and Relu(x); quantized ones become pkg.Relu, padded to 32 channels
      constexpr DType types[] = {DType::QUInt8, DType::QInt8, DType::Float32};
      const DType t = types[m.variant % 3];
      const auto d = t == DType::Float32 ? shape_of(t, m, 4) : q8(t, m, 4, rng);
      OpRef v = b.value(d, m.share, rng());
      v = g.add_op("Relu", {v}, d);
      if (m.kind == relu_relu) {
        if (m.fan_out) b.output(v);
        v = g.add_op("Relu", {v}, d);
      }
      b.output(v);
      break;
    }
    case add_zero:
    case mul_one: {  // x + c, x * c with c a scalar constant: 0 / 1 (variants 0, 1) or not
      const DType t = m.variant / 3 % 2 ? DType::Int32 : DType::Float32;
      const auto d = shape_of(t, m, 4);
      const double neutral = m.kind == add_zero ? 0.0 : 1.0;
      const double value = m.variant % 3 < 2 ? neutral : static_cast<double>(rng() % 5) - 2.0;
      // IS_SCALAR means dims 0 to 3 are 1: a [1] constant is a near miss
      OutputDef cd = rng() % 4 ? OutputDef::make(t, {1, 1, 1, 1}) : OutputDef::make(t, {1});
      OpRef x = b.value(d, m.share, rng());
      OpRef r = g.add_op(m.kind == add_zero ? "Add" : "Mul", {x, filled_const(g, cd, value)}, d);
      b.output(m.fan_out ? g.add_op("Neg", {r}, d) : r);
      // x * 1 -> x is flagged relaxed_precision_flag: half the graphs with a Mul allow it
      if (m.kind == mul_one && rng() % 2) g.set_option("relaxed_precision_flag", true);
      break;
    }
    case flatten: {  // Reshape(x) to [N, rest] (a Flatten; rank 2 stays as it is) or, as a near miss, to [1, all]
      const auto d = shape_of(DType::Float32, m, 2 + static_cast<std::uint32_t>(m.variant % 3));
      const auto od = m.variant == 5 ? OutputDef::make(DType::Float32, {1, 1, d.element_count()})
                                     : OutputDef::make(DType::Float32, {d.dims[0], d.element_count() / d.dims[0]});
      b.output(g.add_op("Reshape", {b.value(d, m.share, rng())}, od));
      break;
    }
    case f_conv: {  // Conv2d(in, filt); filters up to 6 high (small_filter: <= 5), half of them 1 high (tiled by rows)
      if (rng() % 2) g.set_option("tile_height", std::uint64_t{1 + rng() % 4});
      const std::size_t kh = rng() % 2 ? 1 : 1 + rng() % 6, kw = 1 + rng() % 3, M = 1 + rng() % 3;
      const auto xd = shape_of(DType::Float32, m, 4);
      const auto fd = OutputDef::make(DType::Float32, {kh, kw, xd.dims[3], M});
      const auto od = OutputDef::make(DType::Float32, {xd.dims[0], xd.dims[1], xd.dims[2], M});
      OpRef v = g.add_op("Conv2d", {b.value(xd, m.share, rng()), g.add_input(fd)}, od);
      b.output(m.fan_out ? g.add_op("Relu", {v}, od) : v);
      break;
    }
    case q_concat: {  // Concat(axis, parts...) quantized, the parts' encodings the output's or not
      const std::size_t n = 2 + rng() % 2;
      const std::int32_t axis = static_cast<std::int32_t>(1 + rng() % 3);
      const DType t = m.variant == 5 ? DType::QInt8 : DType::QUInt8;  // QInt8: not the rule's
      auto od = q8(t, m, 4, rng);
      od.dims[static_cast<std::size_t>(axis)] = 0;
      std::vector<OpRef> ops{g.add_const(OutputDef::make(DType::Int32, {1, 1, 1, 1}), {axis})};
      for (std::size_t k = 0; k < n; ++k) {
        auto pd = m.variant % 2 ? q8(t, m, 4, rng) : shape_of(t, m, 4, od.zero_offset, od.stepsize);
        pd.dims[static_cast<std::size_t>(axis)] = 1 + rng() % 3;
        od.dims[static_cast<std::size_t>(axis)] += pd.dims[static_cast<std::size_t>(axis)];
        ops.push_back(b.value(pd, m.share, rng()));
      }
      b.output(g.add_op(intern_op_name("Concat"), std::span<const OpRef>(ops), od));
      break;
    }
    case q_relu_wide: {  // a quantized Relu deeper than CHANNEL_SPLIT_SIZE (256): split by channels
      const DType t = m.variant % 2 ? DType::QInt8 : DType::QUInt8;
      auto d = q8(t, Motif{.dims = {1, 1 + m.dims[1] % 2, 1 + m.dims[2] % 2, 32 * (8 + m.dims[3] % 5)}}, 4, rng);
      b.output(g.add_op("Relu", {b.value(d, m.share, rng())}, d));
      break;
    }
    default: break;
  }
}

Motif draw(std::mt19937_64& rng, int kind) {
  Motif m = random_motif(rng, kind, 6);
  if (kind == relu_relu || kind == q_relu) m.dims[3] = 1 + rng() % 70;  // depth: padded to 32 or not
  if (kind == f_conv) m.dims[1] = 1 + rng() % 9;                        // rows: several tiles
  return m;
}

Package op_package() {
  add_package_semantics();
  return {.name = "op_package", .rules = rules_from("op_package.cpp"), .kinds = n_kinds, .draw = draw, .build = build};
}
}  // namespace

TEST_CASE("the example op package's rules preserve results on random graphs") {
  const Package p = op_package();
  // Every rule of the package's source registered: as many as og-parse reads there.
  const auto in_source = og_test::rules_in_source(OG_OP_PACKAGE_SOURCE);
  REQUIRE(in_source);
  REQUIRE(*in_source > 0);
  REQUIRE(p.rules.size() == *in_source);
  check_package(p, 10);
}
