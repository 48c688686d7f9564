// The helper names of the original framework's rule headers (shape tests, quantization tests, the
// size estimates of its tiling rules as its 2023 headers define them), evaluated on graphs: each
// probe's expected values are worked out by hand from the definitions in docs/grammar/compat.md
// for the shapes below. og-parse reads the same rules (its cross-check links this file), so both
// front ends are held to one expansion.
// A package's own definition of a helper, before any include, as a package header copied from
// the framework's may give it: it comes first, and the library's headers still compile.
#define IS_NOT_SCALAR(X) OR(NE(DIM_BATCHES(X), 1), NE(DIM_HEIGHT(X), 1), NE(DIM_WIDTH(X), 1), NE(DIM_DEPTH(X), 1))
// And a utility header's MIN and MAX, as C code defines them: the library's words of those names
// must still be declared (the rules here do not write MIN or MAX, so the macros stay unused).
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
// And the named values as the framework's rule header defines them, object-like macros (checked
// to break the library's headers without their guard in dsl/words.hpp). The rules below then read
// these macros, which mean what the library's own words mean.
#define MIN_CHANNEL_SPLIT_SIZE 32
#define CHANNEL_SPLIT_SIZE 256
#define TCM_MAXTENSOR_SIZE OPTION_UINT("tcm_size_for_tiling")
#define TCM_MAXTENSOR_HALF_SIZE DIV(OPTION_UINT("tcm_size_for_tiling"), 2)
#define MIN_WIDTH 8
#define TILE_HEIGHT OPTION_UINT("tile_height")

#include "probe.hpp"

#include <catch2/catch.hpp>

#include <cstring>

#define HELPER_PROBE(NAME, CST) DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_" #NAME, "x"), CST, Op("Yes", "x"))

// x: f32[1,64,48,16] (element size 4, so a row of 192 bytes), options tile_height 8,
// tcm_size_for_tiling 460800 (half: 230400).
// FLAT_TENSOR_SIZE: 4*1*64*48*16. ESTIMATE_TENSOR_SIZE: 1*roundup(64,8)*roundup(192,8)*roundup(16,32).
// ELEMWISE_TILE_SIZE: 8*roundup(192,8)*roundup(min(256,16),32); three of them stay under 460800.
// MAX_CHANNEL_SIZE: roundup(max(1, 230400/(roundup(64,8)*roundup(192,8))), 32) = roundup(18, 32).
// MIN_WIDTH_OF: 2 for 4-byte elements; SUBS: a difference that stops at 0.
HELPER_PROBE(sizes,
             AND(EQ(FLAT_TENSOR_SIZE("x"), 196608U), EQ(ESTIMATE_TENSOR_SIZE("x"), 393216U),
                 EQ(ELEMWISE_TILE_SIZE("x"), 49152U), NOT(ELEMWISE_TOOBIG("x", "x", "*")),
                 EQ(MAX_CHANNEL_SIZE("x"), 32U), EQ(TCM_MAXTENSOR_SIZE, 460800U), EQ(TCM_MAXTENSOR_HALF_SIZE, 230400U),
                 EQ(MIN_WIDTH, 8), EQ(MIN_WIDTH_OF("x"), 2), EQ(TILE_HEIGHT, 8U), EQ(CHANNEL_SPLIT_SIZE, 256),
                 EQ(MIN_CHANNEL_SPLIT_SIZE, 32), EQ(SUBS(7, 3), 4), EQ(SUBS(3, 7), 0)))
// The tiling size below three element-wise tiles: too big.
HELPER_PROBE(toobig, ELEMWISE_TOOBIG("x", "x", "*"))
// Shape tests of x, which is no scalar and not 1x1x1xd.
HELPER_PROBE(not_scalar,
             AND(IS_NOT_SCALAR("x"), NOT(IS_SCALAR("x")), NOT(IS_SHAPE_1x1x1xd("x")), NOT(IS_SHAPE_1x1x1x1xc("x")),
                 IS_BINARY_FP32("x", "x", "*"), NOT(IS_BINARY_FP16("x", "x", "*"))))

// Two operands: their shape and quantization tests.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_shape1", "a"), AND(IS_SHAPE_1x1x1xd("a"), IS_NOT_SCALAR("a")), Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_scalar", "a"),
                         AND(IS_SHAPE_1x1x1xd("a"), IS_SCALAR("a"), NOT(IS_NOT_SCALAR("a"))), Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_shape1_5d", "a"), AND(IS_SHAPE_1x1x1x1xc("a"), NOT(IS_SHAPE_1x1x1xd("a"))),
                         Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_1hd_h1d", "a", "b"), IS_1HD_H1D("a", "b"), Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_same_quant", "a", "b"), SAME_QUANT("a", "b"), Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_same_dtype_quant", "a", "b"), SAME_DTYPE_QUANT("a", "b"), Op("Yes", "a"))

// A weight w: f32[3,3,16,64] (filter height, width, depth, count), the activation x, the op's
// own output (x's shape). WEIGHT_STORAGE(w, 32) = 4*3*3*16*min(32,64); ACT_STORAGE_EST(w, x, 32) =
// roundup(7+3,8)*roundup(192,8)*roundup(16,32) + 8*roundup(192,8)*32 = 98304 + 49152. The bound of
// GOOD_WEIGHTS for 4-byte weights is (460800/2048)*1041 = 234225: 18432 + 147456 is under it,
// 36864 + 294912 (a split of 128) is not. SMART_CHANNEL_SIZE: 256 and 128 do not fit, 64 does
// (36864 + 196608 = 233472). ESTIMATE_SIZE(x, w, x) = 1*roundup(64+8,8)*roundup(192+8,8)*32
// + roundup(36864,2048) + 393216 + roundup(8*32,2048).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_weights", "x", "w"),
                         AND(EQ(WEIGHT_STORAGE("w", 32), 18432U), EQ(ACT_STORAGE_EST("w", "x", 32), 147456U),
                             GOOD_WEIGHTS("w", "x", 32), NOT(GOOD_WEIGHTS("w", "x", 128)),
                             EQ(SMART_CHANNEL_SIZE("w", "x"), 64), EQ(ESTIMATE_SIZE("x", "w", "x"), 892928U)),
                         Op("Yes", "x"))

// A replacement: the zero offset as a constant.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_zero_off", "q"), OK, Op("Yes", "q", CONST_ZERO_OFF("q")))
// A match through a cast of a constant.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_cast", FP16_CONST_CAST("c", "v")), IS_FLOAT32("v"), Op("Yes", "c"))

namespace {
using namespace optgrammar;
constexpr const char* file = "framework_helpers_test.cpp";

struct Base {
  Graph g;
  OpRef x;
  explicit Base(std::uint64_t tcm = 460800) {
    x = g.add_input(OutputDef::make(DType::Float32, {1, 64, 48, 16}));
    g.set_option("tile_height", std::uint64_t{8});
    g.set_option("tcm_size_for_tiling", tcm);
  }
  /// Runs this file's rules on root (made the graph's output); the graph afterwards.
  Graph run(OpRef root) const {
    Graph r = g;
    r.add_output(root);
    RuleSet set = RuleSet::global().select([](const RuleInfo& i) { return i.file.find(file) != std::string::npos; });
    run_rules(r, set);
    return r;
  }
  static OpRef yes(const Graph& r) {
    for (auto o : r.live_ops())
      if (r.name(o) == "Yes") return o;
    return {};
  }
  bool fires(const char* op, OpRef a) { return yes(run(g.add_op(op, {a}, g.output(a)))).valid(); }
  bool fires(const char* op, OpRef a, OpRef b) { return yes(run(g.add_op(op, {a, b}, g.output(a)))).valid(); }
};
}  // namespace

TEST_CASE("framework helpers: the size estimates of tiling rules") {
  Base b;
  CHECK(b.fires("H_sizes", b.x));
  CHECK_FALSE(b.fires("H_toobig", b.x));
  Base small(100000);
  CHECK(small.fires("H_toobig", small.x));
  CHECK_FALSE(small.fires("H_sizes", small.x));
  OpRef w = b.g.add_input(OutputDef::make(DType::Float32, {3, 3, 16, 64}));
  CHECK(b.fires("H_weights", b.x, w));
}

TEST_CASE("framework helpers: shape tests") {
  Base b;
  CHECK(b.fires("H_not_scalar", b.x));
  CHECK(b.fires("H_shape1", b.g.add_input(OutputDef::make(DType::Float32, {1, 1, 1, 7}))));
  CHECK_FALSE(b.fires("H_shape1", b.g.add_input(OutputDef::make(DType::Float32, {1, 2, 1, 7}))));
  CHECK(b.fires("H_scalar", b.g.add_input(OutputDef::make(DType::Float32, {1, 1, 1, 1}))));
  CHECK_FALSE(b.fires("H_scalar", b.g.add_input(OutputDef::make(DType::Float32, {1, 1, 1, 7}))));
  CHECK(b.fires("H_shape1_5d", b.g.add_input(OutputDef::make(DType::Float32, {1, 1, 1, 1, 9}))));
  CHECK_FALSE(b.fires("H_shape1_5d", b.g.add_input(OutputDef::make(DType::Float32, {1, 1, 1, 9}))));
  // 1 x H x D against H x 1 x D: a's width is b's height, both depths agree.
  auto in = [&](std::initializer_list<std::size_t> d) { return b.g.add_input(OutputDef::make(DType::Float32, d)); };
  CHECK(b.fires("H_1hd_h1d", in({1, 1, 6, 8}), in({1, 6, 1, 8})));
  CHECK_FALSE(b.fires("H_1hd_h1d", in({1, 1, 6, 8}), in({1, 5, 1, 8})));
  CHECK_FALSE(b.fires("H_1hd_h1d", in({1, 1, 1, 8}), in({1, 1, 1, 8})));  // a's width must not be 1
}

TEST_CASE("framework helpers: SAME_QUANT holds for equal quantization or two floats of one type") {
  Base b;
  auto in = [&](DType t, std::int32_t zero, float step) {
    return b.g.add_input(OutputDef::make(t, {1, 4, 4, 8}, zero, step));
  };
  const OpRef q = in(DType::QUInt8, 3, 0.5f);
  CHECK(b.fires("H_same_quant", q, in(DType::QUInt8, 3, 0.5f)));
  CHECK_FALSE(b.fires("H_same_quant", q, in(DType::QUInt8, 4, 0.5f)));
  CHECK_FALSE(b.fires("H_same_quant", q, in(DType::QUInt8, 3, 0.25f)));
  // Two fp16 (or two fp32) tensors count as the same whatever their recorded parameters.
  CHECK(b.fires("H_same_quant", in(DType::Float16, 0, 0.5f), in(DType::Float16, 1, 1.0f)));
  CHECK(b.fires("H_same_quant", in(DType::Float32, 0, 0.5f), in(DType::Float32, 1, 1.0f)));
  CHECK_FALSE(b.fires("H_same_quant", in(DType::Float16, 0, 0.5f), in(DType::Float32, 1, 1.0f)));
  // SAME_DTYPE_QUANT also wants the same dtype.
  CHECK(b.fires("H_same_dtype_quant", q, in(DType::QUInt8, 3, 0.5f)));
  CHECK_FALSE(b.fires("H_same_dtype_quant", q, in(DType::QInt8, 3, 0.5f)));
}

TEST_CASE("framework helpers: CONST_ZERO_OFF builds the zero offset as a constant") {
  Base b;
  const OpRef q = b.g.add_input(OutputDef::make(DType::QUInt8, {1, 4, 4, 8}, 3, 0.5f));
  Graph r = b.run(b.g.add_op("H_zero_off", {q}, b.g.output(q)));
  OpRef y = Base::yes(r);
  REQUIRE(y.valid());
  const OpRef c = r.input(y, 1);
  REQUIRE(r.is_const(c));
  CHECK(r.output(c).dtype == DType::Int32);
  std::int32_t v = 0;
  REQUIRE(r.payload(c).size() == sizeof v);
  std::memcpy(&v, r.payload(c).data(), sizeof v);
  CHECK(v == 3);
}

TEST_CASE("framework helpers: FP16_CONST_CAST matches a cast of its operand") {
  Base b;
  const OpRef cast = b.g.add_op("Cast_fp32_to_fp16_plain", {b.x}, OutputDef::make(DType::Float16, {1, 64, 48, 16}));
  CHECK(b.fires("H_cast", cast));
  CHECK_FALSE(b.fires("H_cast", b.x));
}
