// An example op package written the way op packages of the original framework are: ops with
// dotted names, their tensor properties and parameter order, external constraint and shape
// functions with their annotations, helper macros inside rules, compatibility names
// (FROM_DEFAULT_PACKAGE, OPCONST, IS_SCALAR, TILE_HEIGHT, CHANNEL_SPLIT_SIZE, ...), quantized types,
// AUTOSPLIT along the height (convolution) and the depth (elementwise), OP_ITER over inputs.
// Its rules match the ops of this project (docs/ops.md), which are not all in the framework's form:
// the default Conv2d is Conv2d(x, w) (stride 1, same padding, f32), where the framework's takes a
// stride operand, and a Flatten is the Reshape(x) to rank 2 that examples/htp_lowering makes of
// onnx.Flatten. The package's own pkg.Conv2d keeps the framework's form (in, filt, stride).
// pkg.Conv2d and pkg.Flatten have reference implementations (docs/packages.md), so og-opt's
// --check and --verify run the rules that make them.
// tests/replacement/op_package_test.cpp runs it on graphs; og-parse reads it in the cross-check.
#include <optgrammar/core/declarations.hpp>
#include <optgrammar/ops/definition.hpp>
#include <optgrammar/rules.hpp>

#include <algorithm>

using optgrammar::Constraint;
using optgrammar::OpDef;
using optgrammar::OpRef;
using optgrammar::QuickShape;
using optgrammar::Replacement;

// Op implementations (their bodies do not matter here).
static int conv_impl() { return 0; }
static int relu_impl() { return 0; }
static int requant_impl() { return 0; }
DEF_PACKAGE_OP(conv_impl, "pkg.Conv2d")
DEF_PACKAGE_OP(relu_impl, "pkg.Relu")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(requant_impl, "pkg.Requantize", SNAIL, Flags::RESOURCE_HVX)

DEF_TENSOR_PROPERTIES(Op("pkg.Conv2d", "in", "filt", "stride"), Flat("*", "in"), MainMemory("filt", "stride"),
                      Crouton("in"))
DEF_TENSOR_PROPERTIES(Op("pkg.Relu", "x"), Tcm("x", "*"), Crouton("x", "*"))
DEF_PACKAGE_PARAM_ORDER("pkg.Conv2d", "stride", true, nullptr, "pad", false, nullptr)

// Reference implementations. The rules make pkg.Conv2d with the stride [1, 1, 1, 1] only: then it
// is the default Conv2d of its first two operands, whose definition (found when the op is run,
// after the program's definitions are filled in) infers and computes it. Other strides are not
// modelled: the inference rejects them. pkg.Flatten keeps its input's elements in their order.
// (Internal linkage: a package's exported symbols could bind to a program's of the same name.)
namespace {
namespace ops = optgrammar::ops;

const ops::OpDefinition* default_conv() { return ops::Definitions::instance().find("Conv2d"); }

bool unit_stride(const ops::OpView& v) {
  const optgrammar::OutputDef& s = *v.operands[2].def;
  return s.rank == 4 && s.element_count() == 1;
}

ops::OpView first_two(const ops::OpView& v) { return {v.operands.first(2), v.declared}; }

ops::Inferred conv_shape(const ops::OpView& v) {
  const ops::OpDefinition* conv = default_conv();
  if (unit_stride(v) && conv != nullptr && conv->infer != nullptr) return conv->infer(first_two(v));
  ops::Inferred r;
  r.error = "only the stride [1,1,1,1] is modelled, the stride is " + ops::infer::shape_string(*v.operands[2].def);
  return r;
}

bool conv(const ops::OpView& v, std::span<std::byte> out, ops::Backend be) {
  const ops::OpDefinition* c = default_conv();
  return unit_stride(v) && c != nullptr && c->eval != nullptr && c->eval(first_two(v), out, be);
}

bool flatten(const ops::OpView& v, std::span<std::byte> out, ops::Backend) {
  const ops::ValueView& x = v.operands[0];
  if (!x.known || x.def->dtype != v.declared->dtype || x.data.size() != out.size()) return false;
  std::copy(x.data.begin(), x.data.end(), out.begin());
  return true;
}

ops::OperandSpec data(std::string_view name, std::string_view summary) {
  return {name, ops::Arity::single, ops::TypeRule::in_set, ops::dtypes::f32, summary};
}

[[maybe_unused]] const bool defined = [] {
  ops::OpDefinition c;
  c.name = "pkg.Conv2d";
  c.summary = "The default Conv2d in the framework's form: a stride operand, its shape [1, sh, sw, 1].";
  c.operands = {
      data("in", "input [N,H,W,Cin]"),
      data("filt", "filter [KH,KW,Cin,Cout]"),
      {"stride", ops::Arity::single, ops::TypeRule::in_set, ops::dtypes::any, "its shape: [1,1,1,1]", 0, true}};
  c.result = {"out", ops::TypeRule::same_as_first, ops::dtypes::f32, "[N,H,W,Cout]"};
  c.traits = ops::Trait::pure;
  c.infer = &conv_shape;
  c.eval = &conv;
  c.kernel = "the default Conv2d's";
  ops::Definitions::instance().add(std::move(c));
  ops::OpDefinition f;
  f.name = "pkg.Flatten";
  f.summary = "Its input's elements in the declared (rank-2) shape.";
  f.operands = {{"x", ops::Arity::single, ops::TypeRule::in_set, ops::dtypes::any, "input"}};
  f.result = {"out", ops::TypeRule::same_as_first, ops::dtypes::any, "x's elements"};
  f.traits = ops::Trait::pure;
  f.eval = &flatten;
  f.kernel = "a copy";
  ops::Definitions::instance().add(std::move(f));
  return true;
}();
}  // namespace

// :::EXTERNAL_SHAPEFN::: { bool small_filter(Constraint&, OpRef, int); }
static bool small_filter(Constraint& c, OpRef filt, int max) {
  return c.output(filt).dim(0) <= static_cast<std::size_t>(max) &&
         c.output(filt).dim(1) <= static_cast<std::size_t>(max);
}
// :::EXTERNAL_SHAPEFN::: { QuickShape padded_depth(Replacement&, OpRef, int); }
static QuickShape padded_depth(Replacement& rpx, OpRef x, int multiple) {
  const auto& d = rpx.graph().output(x);
  QuickShape q;
  q.rank = d.rank;
  for (std::uint32_t i = 0; i < d.rank; ++i) q.dims[i] = d.dims[i];
  auto m = static_cast<std::size_t>(multiple);
  q.dims[3] = (q.dims[3] + m - 1) / m * m;
  return q;
}
// :::EXTERNAL_SHAPEFN::: { OpRef keep_or_flatten(Replacement&, OpDef const&); }
static OpRef keep_or_flatten(Replacement& rpx, OpDef const&) {
  OpRef x = rpx.graph().input(rpx.root(), 0);
  if (rpx.graph().output(x).same_shape(rpx.graph().output(rpx.root()))) return rpx.root();  // already flat: no change
  return rpx.op("pkg.Flatten", {x});
}

#define PKG_IS_Q8(X) OR(IS_QUINT8(X), IS_QINT8(X))
#define PKG_SAME_Q(X, Y) AND(EQ(DTYPE_OF(X), DTYPE_OF(Y)), SAME_QUANT(X, Y))

// Relu(Relu(x)) is Relu(x).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op(FROM_DEFAULT_PACKAGE("Relu"), LET("inner", Op(FROM_DEFAULT_PACKAGE("Relu"), "x"))),
                         OK, "inner")

// Quantized Relu becomes the package's Relu.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op(FROM_DEFAULT_PACKAGE("Relu"), "x"), AND(PKG_IS_Q8("x"), PKG_SAME_Q("x", "*")),
                         WITH_SAME_OUTPUT("*", Op("pkg.Relu", "x")))

// Convolutions with small filters become the package's, in the framework's form: its stride
// operand is the shape [1, 1, 1, 1] (the default Conv2d's stride), its padding the same.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op(FROM_DEFAULT_PACKAGE("Conv2d"), "in", "filt"),
                         AND(IS_FLOAT32("in"), EXTERNAL_CONSTRAINT(small_filter, "filt", 5),
                             MESSAGE("conv to pkg.Conv2d, filter height", DIM_FILTHEIGHT("filt"))),
                         WITH_SAME_OUTPUT("*", Op("pkg.Conv2d", "in", "filt", gen_Shape(1, 1, 1, 1))))

// x + 0 is x.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op(FROM_DEFAULT_PACKAGE("Add"), "x", OPCONST("c")),
                         AND(IS_SCALAR("c"), EQ(CONSTVAL_FLOAT("c", 0), 0.0f), SAME_SHAPE("x", "*")), "x")

// x * 1 is x, when precision may be relaxed (and the one-element c broadcasts to no larger shape).
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precision_flag, Op(FROM_DEFAULT_PACKAGE("Mul"), "x", OPCONST("c")),
                                    AND(IS_FLOAT32("x"), IS_SCALAR("c"), EQ(CONSTVAL_FLOAT("c", 0), 1.0f),
                                        SAME_SHAPE("x", "*")),
                                    "x")

// Quantized concatenations requantize every input to the output's encoding (OP_ITER).
DEF_PACKAGE_OPTIMIZATION(
    EARLY + 2, OpVarIn(FROM_DEFAULT_PACKAGE("Concat"), "axis", "a"), AND(IS_QUINT8("*"), NOT(PKG_SAME_Q("a", "*"))),
    OP_ITER(Op("pkg.Concat", "axis"), "J", 1, INPUTS_OF("*"),
            WITH_TYPE("*", WITH_SIZE(ITER_INPUT_OF("*", "J"), Op("pkg.Requantize", ITER_INPUT_OF("*", "J"))))))

// Pad the depth of a quantized package Relu's input to a multiple of 32 (shape function).
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("pkg.Relu", "x"),
                         AND(PKG_IS_Q8("x"), NE(REM(DIM_DEPTH("x"), MIN_CHANNEL_SPLIT_SIZE), 0), EQ(RANK_OF("x"), 4U)),
                         Op("pkg.Relu.padded", WITH_SIZE(SHAPEFN_APPLY(padded_depth, "x", MIN_CHANNEL_SPLIT_SIZE),
                                                         WITH_TYPE("x", Op("pkg.PadDepth", "x")))))

// Flattens (reshapes to rank 2) go through an external replacement (which may leave them alone).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Reshape", "x"), EQ(RANK_OF("*"), 2U), EXTERNAL_REPLACE(keep_or_flatten))

// Tiling: convolutions by rows of TILE_HEIGHT, each part reading the rows its window needs. With
// same padding, a part of a taller filter would pad its own first and last rows: one-row filters.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("pkg.Conv2d", "in", "filt", "stride"),
                         AND(GT(TILE_HEIGHT, 0U), GT(DIM_HEIGHT("*"), TILE_HEIGHT), EQ(DIM_FILTHEIGHT("filt"), 1U)),
                         AUTOSPLIT(1, "I", TILE_HEIGHT,
                                   Op("pkg.Conv2d", TYPICAL_CONV_SLICE("in", "I", "stride", DIM_FILTHEIGHT("filt")),
                                      "filt", "stride")))

// Tiling: elementwise ops by CHANNEL_SPLIT_SIZE channels.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("pkg.Relu", "x"), GT(DIM_DEPTH("*"), CHANNEL_SPLIT_SIZE),
                         AUTOSPLIT(3, "I", CHANNEL_SPLIT_SIZE,
                                   WITH_SPLIT_HISTORY("*", 3, Op("pkg.Relu", TYPICAL_SLICE("x", "I")))))
