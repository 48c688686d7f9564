// The verifier checks what the ONNX ops' reference evaluation relies on (ops/onnx.hpp, checks):
// a graph it passes, the interpreter runs; each fault below is reported in the verifier's form
// and the interpreter refuses the same op.
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/ops/definition_verify.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {
using namespace optgrammar;

OutputDef f32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Float32, s); }
OpRef ints(Graph& g, std::vector<std::int32_t> v) {
  return g.add_const(OutputDef::make(DType::Int32, {v.size()}), std::span<const std::int32_t>(v));
}
OpRef floats(Graph& g, OutputDef d, float x = 0.5f) {
  std::vector<float> v(d.element_count(), x);
  return g.add_const(d, std::span<const float>(v));
}
OpRef op(Graph& g, std::string_view name, const std::vector<OpRef>& operands, const OutputDef& d) {
  return g.add_op(intern_op_name(name), std::span<const OpRef>(operands), d);
}

/// The verifier's problems of g's ops, and whether the interpreter ran g.
struct Outcome {
  std::vector<std::string> problems;
  bool runs = false;
};
Outcome check(Graph& g, OpRef result) {
  g.add_output(result);
  Outcome o{ops::verify_ops(g), true};
  try {
    engine::interpret(g, engine::random_inputs(g, 1));
  } catch (const std::exception&) {
    o.runs = false;
  }
  return o;
}
bool mentions(const Outcome& o, std::string_view what) {
  return std::any_of(o.problems.begin(), o.problems.end(),
                     [&](const std::string& s) { return s.find(what) != std::string::npos; });
}

/// onnx.Conv of X [1,2,4,4] with W [wm, 2/group, 3, 3] (kernel_shape ks), bias of nb elements.
Outcome conv(std::size_t wm, std::size_t nb, std::vector<std::int32_t> ks = {}, std::int32_t group = 1,
             std::size_t out_m = 0) {
  Graph g;
  OpRef x = g.add_input(f32({1, 2, 4, 4}));
  OpRef w = floats(g, f32({wm, 2 / static_cast<std::size_t>(group), 3, 3}));
  OpRef b = floats(g, nb ? f32({nb}) : f32({0}));
  OpRef c = op(g, "onnx.Conv",
               {ints(g, {0}), ints(g, {}), ints(g, {group}), ints(g, std::move(ks)), ints(g, {1, 1, 1, 1}), ints(g, {}),
                x, w, b},
               f32({1, out_m ? out_m : wm, 4, 4}));
  return check(g, c);
}
}  // namespace

TEST_CASE("onnx checks: Conv's bias has M elements, kernel_shape names the weight's window") {
  const Outcome good = conv(3, 3, {3, 3});
  CHECK(good.problems.empty());
  CHECK(good.runs);
  CHECK(conv(3, 0).problems.empty());  // no bias
  const Outcome short_bias = conv(3, 2);
  REQUIRE(short_bias.problems.size() == 1);
  CHECK(short_bias.problems[0] == "%9 (onnx.Conv): bias B [2] has 2 elements, the weight gives 3 output channels");
  CHECK(!short_bias.runs);
  CHECK(mentions(conv(3, 4), "bias B [4] has 4 elements"));  // too long is wrong too
  const Outcome ks = conv(3, 3, {2, 2});
  CHECK(mentions(ks, "kernel_shape [2,2] disagrees with the weight W [3,2,3,3]"));
  CHECK(!ks.runs);
  CHECK(mentions(conv(3, 3, {3}), "kernel_shape [3] disagrees"));
  CHECK(mentions(conv(3, 3, {}, 2), "3 output channels, not a multiple of group 2"));
  CHECK(mentions(conv(3, 3, {}, 1, 4), "output [1,4,4,4] is not [1,3,...] of rank 4"));
}

TEST_CASE("onnx checks: ConvTranspose's bias has M = W[1] * group elements") {
  auto conv_t = [](std::size_t nb, std::vector<std::int32_t> ks) {
    Graph g;
    OpRef x = g.add_input(f32({1, 2, 3, 3}));
    OpRef w = floats(g, f32({2, 3, 2, 2}));
    OpRef b = floats(g, nb ? f32({nb}) : f32({0}));
    OpRef c = op(g, "onnx.ConvTranspose",
                 {ints(g, {0}), ints(g, {}), ints(g, {1}), ints(g, std::move(ks)), ints(g, {}), ints(g, {}),
                  ints(g, {}), ints(g, {}), x, w, b},
                 f32({1, 3, 4, 4}));
    return check(g, c);
  };
  const Outcome good = conv_t(3, {2, 2});
  CHECK(good.problems.empty());
  CHECK(good.runs);
  const Outcome bad = conv_t(1, {});
  CHECK(mentions(bad, "(onnx.ConvTranspose): bias B [1] has 1 elements, the weight gives 3 output channels"));
  CHECK(!bad.runs);
  CHECK(mentions(conv_t(3, {3, 3}), "kernel_shape [3,3] disagrees with the weight W [2,3,2,2]"));
}

TEST_CASE("onnx checks: Gemm's operands agree") {
  auto gemm = [](OutputDef a, OutputDef b, OutputDef c, OutputDef out) {
    Graph g;
    OpRef r = op(g, "onnx.Gemm",
                 {floats(g, f32({1}), 1.0f), floats(g, f32({1}), 1.0f), ints(g, {0}), ints(g, {0}), g.add_input(a),
                  g.add_input(b), c.element_count() ? floats(g, c) : floats(g, f32({0}))},
                 out);
    return check(g, r);
  };
  const Outcome good = gemm(f32({2, 3}), f32({3, 4}), f32({4}), f32({2, 4}));
  CHECK(good.problems.empty());
  CHECK(good.runs);
  CHECK(mentions(gemm(f32({2, 3}), f32({2, 4}), f32({0}), f32({2, 4})), "A [2,3] gives K = 3, B [2,4] gives 2"));
  CHECK(mentions(gemm(f32({2, 3, 1}), f32({3, 4}), f32({0}), f32({2, 4})), "must have rank 2"));
  const Outcome bad_c = gemm(f32({2, 3}), f32({3, 4}), f32({3}), f32({2, 4}));
  CHECK(mentions(bad_c, "C [3] does not broadcast to [2,4]"));
  CHECK(!bad_c.runs);
  CHECK(mentions(gemm(f32({2, 3}), f32({3, 4}), f32({0}), f32({2, 5})), "output [2,5] is not 2 x 4"));
}

TEST_CASE("onnx checks: BatchNormalization's parameters have one value per channel") {
  auto bn = [](OutputDef var, std::int32_t training) {
    Graph g;
    OpRef r =
        op(g, "onnx.BatchNormalization",
           {floats(g, f32({1}), 1e-5f), floats(g, f32({1}), 0.9f), ints(g, {training}), g.add_input(f32({1, 3, 2, 2})),
            floats(g, f32({3})), floats(g, f32({3})), floats(g, f32({3})), floats(g, var, 1.0f)},
           f32({1, 3, 2, 2}));
    return check(g, r);
  };
  const Outcome good = bn(f32({3}), 0);
  CHECK(good.problems.empty());
  CHECK(good.runs);
  const Outcome bad = bn(f32({2}), 0);
  CHECK(mentions(bad, "input_var [2] is not a vector of the 3 channels of input X"));
  CHECK(!bad.runs);
  // ONNX's parameters are vectors [C]: 3 channels' values as [3, 1, 1] are refused.
  const Outcome not_vector = bn(f32({3, 1, 1}), 0);
  CHECK(mentions(not_vector, "input_var [3,1,1] is not a vector of the 3 channels of input X"));
  CHECK(!not_vector.runs);
  CHECK(mentions(bn(f32({3}), 1), "training_mode is set"));
}

TEST_CASE("onnx checks: Resize's scales and sizes have an element per dim of X") {
  auto resize = [](OutputDef scales) {
    Graph g;
    OpRef x = g.add_input(f32({1, 1, 2, 2}));
    const OpRef attrs[] = {
        ints(g, {0}), floats(g, f32({}), -0.75f), ints(g, {0}), floats(g, f32({}), 0.0f), ints(g, {0}), ints(g, {0})};
    std::vector<OpRef> operands(std::begin(attrs), std::end(attrs));
    operands.insert(operands.end(), {x, floats(g, f32({0})), floats(g, scales, 1.0f),
                                     g.add_const(OutputDef::make(DType::Int64, {0}), std::span<const std::int64_t>())});
    return check(g, op(g, "onnx.Resize", operands, f32({1, 1, 2, 2})));
  };
  const Outcome good = resize(f32({4}));
  CHECK(good.problems.empty());
  CHECK(good.runs);
  CHECK(mentions(resize(f32({1, 4})), "scales [1,4] is not a vector of an element per dim of X [1,1,2,2]"));
  CHECK(mentions(resize(f32({3})), "scales [3] is not a vector"));
}

TEST_CASE("onnx checks: a string attribute's index lies within its choices") {
  // Pad's mode: constant, reflect or edge (0, 1, 2).
  auto pad = [](std::int32_t mode) {
    Graph g;
    OpRef x = g.add_input(f32({2}));
    const std::int64_t pads[] = {1, 1};
    OpRef p = g.add_const(OutputDef::make(DType::Int64, {2}), std::span<const std::int64_t>(pads));
    return check(g, op(g, "onnx.Pad",
                       {ints(g, {mode}), ints(g, {}), floats(g, f32({}), 0.0f), x, p, floats(g, f32({0}))}, f32({4})));
  };
  for (std::int32_t mode : {0, 1, 2}) CHECK(pad(mode).problems.empty());
  CHECK(mentions(pad(3), "operand 0 (mode) is 3, not an index into its 3 choices"));
  CHECK(mentions(pad(-1), "operand 0 (mode) is -1, not an index into its 3 choices"));
}

TEST_CASE("onnx checks: Concat's axis and parts fit the output") {
  auto concat = [](std::int32_t axis, OutputDef b, OutputDef out) {
    Graph g;
    OpRef r = op(g, "onnx.Concat", {ints(g, {axis}), g.add_input(f32({2, 3})), g.add_input(b)}, out);
    return check(g, r);
  };
  const Outcome good = concat(1, f32({2, 2}), f32({2, 5}));
  CHECK(good.problems.empty());
  CHECK(good.runs);
  CHECK(concat(-1, f32({2, 2}), f32({2, 5})).problems.empty());
  const Outcome bad_axis = concat(2, f32({2, 2}), f32({2, 5}));
  CHECK(mentions(bad_axis, "axis 2 is outside the output's rank 2"));
  CHECK(!bad_axis.runs);
  CHECK(mentions(concat(1, f32({3, 2}), f32({2, 5})), "input 1 [3,2] does not fit output [2,5] along axis 1"));
  CHECK(mentions(concat(1, f32({2, 2}), f32({2, 6})), "the inputs add up to 5 along axis 1, the output has 6"));
}

TEST_CASE("onnx checks: Gather's axis and constant indices lie within data") {
  auto gather = [](std::int32_t axis, std::vector<std::int32_t> idx) {
    Graph g;
    const std::size_t n = idx.size();
    OpRef r = op(g, "onnx.Gather", {ints(g, {axis}), g.add_input(f32({4, 3})), ints(g, std::move(idx))}, f32({n, 3}));
    return check(g, r);
  };
  const Outcome good = gather(0, {0, 3, -4});
  CHECK(good.problems.empty());
  CHECK(good.runs);
  const Outcome bad = gather(0, {1, 4});
  CHECK(mentions(bad, "index 4 is outside [-4, 4) along axis 0"));
  CHECK(!bad.runs);
  CHECK(mentions(gather(2, {0}), "axis 2 is outside data's rank 2"));
}

TEST_CASE("onnx checks: a pool's kernel, strides and dilations are at least 1, or the interpreter refuses it") {
  // onnx.AveragePool(auto_pad, ceil_mode, count_include_pad, kernel_shape, pads, strides; X [1,1,4,4])
  const auto pool = [](std::vector<std::int32_t> kernel, std::vector<std::int32_t> strides,
                       std::vector<std::int32_t> pads) {
    Graph g;
    OpRef x = g.add_input(f32({1, 1, 4, 4}));
    OpRef p = op(g, "onnx.AveragePool",
                 {ints(g, {0}), ints(g, {0}), ints(g, {0}), ints(g, std::move(kernel)), ints(g, std::move(pads)),
                  ints(g, std::move(strides)), x},
                 f32({1, 1, 2, 2}));
    return check(g, p).runs;
  };
  CHECK(pool({2, 2}, {2, 2}, {}));
  CHECK(!pool({-1, 2}, {2, 2}, {}));  // -1 read as a size would be a window of 2^64 taps
  CHECK(!pool({0, 2}, {2, 2}, {}));
  CHECK(!pool({2, 2}, {0, 2}, {}));
}

TEST_CASE("onnx operand dtypes follow ONNX's type constraints: index inputs are integers, Clip's bounds x's type") {
  auto reduce = [](DType axes_type) {
    Graph g;
    OpRef x = g.add_input(f32({2, 3}));
    const std::vector<std::int64_t> one = {1};
    OpRef axes = axes_type == DType::Int64
                     ? g.add_const(OutputDef::make(DType::Int64, {1}), std::span<const std::int64_t>(one))
                     : floats(g, f32({1}), 1.0f);
    return check(g, op(g, "onnx.ReduceMean", {ints(g, {}), ints(g, {1}), ints(g, {0}), x, axes}, f32({2, 1})));
  };
  const Outcome good = reduce(DType::Int64);
  CHECK(good.problems.empty());
  CHECK(good.runs);
  CHECK(mentions(reduce(DType::Float32), "operand 4 (axes) is f32, the definition takes i64"));
  auto clip = [](DType bound_type) {
    Graph g;
    OpRef x = g.add_input(f32({4}));
    const double zero = 0.0;
    OpRef lo = bound_type == DType::Float64
                   ? g.add_const(OutputDef::make(DType::Float64, {}), std::span<const double>(&zero, 1))
                   : floats(g, f32({}), 0.0f);
    OpRef hi = g.add_const(OutputDef::make(bound_type, {0}), std::span<const float>());
    const float inf = HUGE_VALF;
    OpRef amin = g.add_const(f32({}), std::span<const float>(&inf, 1));
    return check(g, op(g, "onnx.Clip", {amin, amin, x, lo, hi}, f32({4})));
  };
  CHECK(clip(DType::Float32).problems.empty());
  // Float64 bounds of an f32 input: ONNX's Clip takes one type T for all three.
  CHECK(mentions(clip(DType::Float64), "operand 3 (min) is f64, the definition takes operand 2's dtype"));
}

TEST_CASE("onnx kernels refuse a declared output their operands do not give") {
  // Transpose by [0, 2, 1] of [1, 2, 3] gives [1, 3, 2]; the same element count in another shape is refused.
  auto transpose = [](OutputDef out) {
    Graph g;
    OpRef x = g.add_input(f32({1, 2, 3}));
    return check(g, op(g, "onnx.Transpose", {ints(g, {0, 2, 1}), x}, out)).runs;
  };
  CHECK(transpose(f32({1, 3, 2})));
  CHECK_FALSE(transpose(f32({1, 2, 3})));
  // MatMul of [1, 1] and [1, 1, 1] gives [1, 1, 1] (batch dims broadcast), not [1, 1].
  auto matmul = [](OutputDef out) {
    Graph g;
    OpRef a = g.add_input(f32({1, 1}));
    OpRef b = floats(g, f32({1, 1, 1}));
    return check(g, op(g, "onnx.MatMul", {a, b}, out)).runs;
  };
  CHECK(matmul(f32({1, 1, 1})));
  CHECK_FALSE(matmul(f32({1, 1})));
}

TEST_CASE("onnx Split's kernel takes parts that are lengths adding up to the input's along axis") {
  // Output k of [4] split along axis 0 into the parts `parts` (an input), declared [len].
  auto part = [](std::vector<std::int64_t> parts, std::int32_t k, std::size_t len) {
    Graph g;
    OpRef x = g.add_input(f32({4}));
    OpRef p = g.add_const(OutputDef::make(DType::Int64, {parts.size()}), std::span<const std::int64_t>(parts));
    return check(g, op(g, "onnx.Split", {ints(g, {0}), ints(g, {}), ints(g, {k}), x, p}, f32({len}))).runs;
  };
  CHECK(part({1, 3}, 0, 1));
  CHECK(part({1, 3}, 1, 3));
  CHECK(part({0, 4}, 1, 4));
  // A negative part would have the next one start before the input: [-1, 5]'s part 1 read x[-1].
  CHECK_FALSE(part({-1, 5}, 1, 5));
  // Parts not adding up to 4: fewer elements (1 + 2) or more (2 + 3) than the input has.
  CHECK_FALSE(part({1, 2}, 0, 1));
  CHECK_FALSE(part({2, 3}, 0, 2));
  CHECK_FALSE(part({2, 3}, 1, 3));
}
