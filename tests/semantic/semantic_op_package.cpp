// Random semantic check of the example op package (examples/op_package/op_package.cpp).
//
// The package's own ops (pkg.Relu, pkg.PadDepth, pkg.Relu.padded, pkg.Flatten, and the Flatten it
// rewrites) have no definitions in the op library, whose Relu takes no quantized types: this test
// gives them the meaning the rules assume (Relu of a quantized tensor is max(q, zero offset) in
// the input's encoding; pkg.Relu is Relu; pkg.PadDepth pads the depth, pkg.Relu.padded is Relu of
// the first channels; both Flattens keep the row-major data) and checks the rules against it. Not covered:
// the convolution rules (the package's Conv2d is quantized with a stride operand, the library's
// is f32 with two operands: no reference semantics), its Concat rule and the AUTOSPLIT rules
// (their Concat(axis, parts...) has an axis operand the library's Concat definition has not,
// so the interpreter cannot run their results; docs/robustness.md).
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
    const int q = o.dtype == DType::QUInt8 ? std::to_integer<int>(x.data[i]) : static_cast<std::int8_t>(std::to_integer<int>(x.data[i]));
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
  t.add(renamed("Reshape", "Flatten"));
  t.add(renamed("Reshape", "pkg.Flatten"));
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

enum Kind { relu_relu, q_relu, add_zero, mul_one, flatten, n_kinds };

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
    case flatten: {  // Flatten(x) to [N, rest]; rank 2 stays as it is
      const auto d = shape_of(DType::Float32, m, 2 + static_cast<std::uint32_t>(m.variant % 3));
      const auto od = OutputDef::make(DType::Float32, {d.dims[0], d.element_count() / d.dims[0]});
      b.output(g.add_op("Flatten", {b.value(d, m.share, rng())}, od));
      break;
    }
    default: break;
  }
}

Motif draw(std::mt19937_64& rng, int kind) {
  Motif m;
  m.kind = kind;
  m.variant = static_cast<int>(rng() % 6);
  m.dims = random_dims(rng, 6);
  if (kind == relu_relu || kind == q_relu) m.dims[3] = 1 + rng() % 70;  // depth: padded to 32 or not
  return m;
}

Package op_package() {
  add_package_semantics();
  Package p;
  p.name = "op_package";
  p.rules = RuleSet::global().select([](const RuleInfo& r) { return r.file.find("op_package.cpp") != std::string::npos; });
  p.kinds = n_kinds;
  p.draw = draw;
  p.build = build;
  return p;
}
}  // namespace

TEST_CASE("the example op package's rules preserve results on random graphs") {
  const Package p = op_package();
  REQUIRE(p.rules.size() == 10);
  // Not generated (the top of this file says why).
  const std::string none = "no reference semantics for its ops in this test";
  check_package(p, 10, {{"op_package.cpp:67", none}, {"op_package.cpp:86", none}, {"op_package.cpp:102", none},
                        {"op_package.cpp:109", none}});
}
