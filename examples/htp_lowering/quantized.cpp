// The lowering package (docs/htp_lowering.md): quantized networks in ONNX's QDQ form. Each
// QuantizeLinear becomes a quantized tensor (QUInt8, QInt8, QUInt16 or QInt16 with its scale and
// zero point in its output definition); DequantizeLinear -> Conv / Gemm / MatMul / Add / Mul /
// MaxPool / Relu -> QuantizeLinear groups become the library's quantized ops, with per-channel
// weights; what has no quantized kernel computes in float between Dequantize and Quantize; a
// Dequantize followed by a Quantize is one Requantize (or nothing).
//
//   CLEANUP_GRAPH     the groups, rooted at their QuantizeLinear (inputs first: the sweep visits
//                     producers first, so a group's input is a quantized tensor already); every
//                     other QuantizeLinear: Quantize
//   CLEANUP_GRAPH+1   DequantizeLinear of a quantized tensor: Dequantize; of constant integers
//                     (weights no group took): DequantizeAxis
//   EARLY             Quantize(Dequantize(x)): Requantize(x), or x when the encodings agree
#include "htp_lowering.hpp"

#include <optgrammar/core/element.hpp>

#include <cmath>

using optgrammar::Constraint;
using optgrammar::OpRef;

// :::EXTERNAL_SHAPEFN::: { bool htp_bias_scale_ok(Constraint&, OpRef, OpRef, OpRef); }
// Whether the bias's scale is the input's times the weight's, per output channel (within 1e-6
// relative, as a quantizer computes it in float): the quantized kernels take the bias at that scale.
static bool htp_bias_scale_ok(Constraint& c, OpRef x_scale, OpRef w_scale, OpRef b_scale) {
  namespace ops = optgrammar::ops;
  const auto& g = c.graph();
  auto values = [&](OpRef r) {
    const ops::ValueView v = ops::value_view(g, r);
    std::vector<double> out;
    if (!ops::eval::has_data(v)) return out;
    for (std::size_t i = 0; i < v.def->element_count(); ++i)
      out.push_back(optgrammar::element_value(v.def->dtype, v.data.data(), i));
    return out;
  };
  const auto xs = values(x_scale), ws = values(w_scale), bs = values(b_scale);
  if (xs.size() != 1 || ws.empty() || (bs.size() != ws.size() && ws.size() != 1)) return false;
  for (std::size_t k = 0; k < bs.size(); ++k) {
    const double want = xs[0] * ws[ws.size() == 1 ? 0 : k];
    if (!(std::fabs(bs[k] - want) <= 1e-6 * std::fabs(want))) return false;
  }
  return true;
}

// ---- helpers --------------------------------------------------------------------------------------

// The quantized dtype of a QuantizeLinear's zero point's integer type.
#define HTP_QTYPE(ZP)                                            \
  SELECT(EQ(DTYPE_OF(ZP), DType::Int8), DType::QInt8,            \
         SELECT(EQ(DTYPE_OF(ZP), DType::UInt16), DType::QUInt16, \
                SELECT(EQ(DTYPE_OF(ZP), DType::Int16), DType::QInt16, DType::QUInt8)))
#define HTP_QTYPE_OK(ZP)                                                                             \
  OR(EQ(DTYPE_OF(ZP), DType::UInt8), EQ(DTYPE_OF(ZP), DType::Int8), EQ(DTYPE_OF(ZP), DType::UInt16), \
     EQ(DTYPE_OF(ZP), DType::Int16))
// The output quantization QuantizeLinear(., S, Z) gives.
#define HTP_QOUT(S, Z, OP) WITH_OUTPUT_TYPE(HTP_QTYPE(Z), CONSTVAL_INT(Z, 0), CONSTVAL_FLOAT(S, 0), OP)
#define HTP_PER_TENSOR(S, Z)                                                                 \
  AND(CONSTVAL_FLOAT_VALID(S, 0), NOT(CONSTVAL_FLOAT_VALID(S, 1)), CONSTVAL_INT_VALID(Z, 0), \
      NOT(CONSTVAL_INT_VALID(Z, 1)), HTP_QTYPE_OK(Z))
// DequantizeLinear of the quantized tensor T, whose own encoding is the one it names.
#define HTP_DQ(T) Op("onnx.DequantizeLinear", "*", T, OPCONST(T "_s"), OPCONST(T "_z"))
#define HTP_DQ_OK(T)                                                                 \
  AND(HTP_PER_TENSOR(T "_s", T "_z"), EQ(STEPSIZE_OF(T), CONSTVAL_FLOAT(T "_s", 0)), \
      EQ(ZERO_OFFSET_OF(T), CONSTVAL_INT(T "_z", 0)), IS_QUANT_TYPE(T), NOT(IS_QINT32(T)))
// DequantizeLinear of constant weights W, per tensor or per entry of axis AX of the output channels.
#define HTP_WDQ(W) Op("onnx.DequantizeLinear", OPCONST(W "_axis"), OPCONST(W), OPCONST(W "_s"), OPCONST(W "_z"))
#define HTP_W_OK(W, N, AX)                                                                 \
  AND(CONSTVAL_INT_VALID(W "_z", 0),                                                       \
      OR(NOT(CONSTVAL_FLOAT_VALID(W "_s", 1)),                                             \
         AND(EQ(CONSTVAL_INT(W "_axis", 0), AX), CONSTVAL_FLOAT_VALID(W "_s", SUB(N, 1U)), \
             NOT(CONSTVAL_FLOAT_VALID(W "_s", N)))))
// The group's root: QuantizeLinear(OP, ys, yz).
#define HTP_QROOT(OP) Op("onnx.QuantizeLinear", "*", OP, OPCONST("ys"), OPCONST("yz"))
#define HTP_QROOT_OK HTP_PER_TENSOR("ys", "yz")
// Transposes of quantized values keep their encoding.
#define HTP_QT(X, PERM, SHAPE) WITH_TYPE(X, WITH_SIZE(SHAPE, Op("Transpose", X, PERM)))
#define HTP_Q_TO_NHWC(X) HTP_QT(X, HTP_TO_NHWC_PERM, HTP_NHWC_SHAPE(X))
// An NHWC quantized op in place of the NCHW group: its result transposed back, quantized as the root says.
#define HTP_Q_NCHW_WRAP(OP) \
  HTP_QOUT("ys", "yz", Op("Transpose", HTP_QOUT("ys", "yz", WITH_SIZE(HTP_NHWC_SHAPE("*"), OP)), HTP_TO_NCHW_PERM))

// ---- CLEANUP_GRAPH: groups ------------------------------------------------------------------------

// Conv with a bias (Int32 at the input's times the weight's scale) or without.
#define HTP_QCONV(BIAS)                                                                                   \
  HTP_QROOT(Op("onnx.Conv", OPCONST("auto_pad"), "dilations", "group", "kernel_shape", "pads", "strides", \
               HTP_DQ("xq"), HTP_WDQ("w"), BIAS))
#define HTP_QCONV_OK                                                                            \
  AND(HTP_QROOT_OK, HTP_DQ_OK("xq"), EQ(CONSTVAL_INT("auto_pad", 0), 0), EQ(RANK_OF("xq"), 4U), \
      HTP_W_OK("w", DIM_OF("w", 0), 0))
#define HTP_QCONV_OUT(B) \
  HTP_Q_NCHW_WRAP(       \
      Op("QuantizedConvLayer", HTP_Q_TO_NHWC("xq"), "w", B, "w_s", "w_z", "dilations", "group", "pads", "strides"))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH,
                         HTP_QCONV(Op("onnx.DequantizeLinear", "ba", OPCONST("b"), OPCONST("bs"), OPCONST("bz"))),
                         AND(HTP_QCONV_OK, EQ(DTYPE_OF("b"), DType::Int32), EQ(CONSTVAL_INT("bz", 0), 0),
                             EXTERNAL_CONSTRAINT(htp_bias_scale_ok, "xq_s", "w_s", "bs")),
                         HTP_QCONV_OUT("b"))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_QCONV(OPCONST("b")), AND(HTP_QCONV_OK, HTP_EMPTY("b")),
                         HTP_QCONV_OUT(gen_ConstArr_i32(0, DIM_OF("w", 0))))

// Gemm (alpha 1, beta 1, A not transposed) and MatMul by constant weights: QuantizedFullyConnected.
#define HTP_QGEMM(BIAS)                                                                                    \
  HTP_QROOT(Op("onnx.Gemm", OPCONST("alpha"), OPCONST("beta"), OPCONST("ta"), OPCONST("tb"), HTP_DQ("xq"), \
               HTP_WDQ("w"), BIAS))
#define HTP_QGEMM_OK                                                                                \
  AND(HTP_QROOT_OK, HTP_DQ_OK("xq"), HTP_IS_SCALAR_F("alpha", 1.0f), HTP_IS_SCALAR_F("beta", 1.0f), \
      EQ(CONSTVAL_INT("ta", 0), 0), EQ(RANK_OF("w"), 2U),                                           \
      HTP_W_OK("w", SELECT(EQ(CONSTVAL_INT("tb", 0), 0), DIM_OF("w", 1), DIM_OF("w", 0)),           \
               SELECT(EQ(CONSTVAL_INT("tb", 0), 0), 1, 0)))
#define HTP_LAYOUT_OF_TB HTP_SCALAR_I(SELECT(EQ(CONSTVAL_INT("tb", 0), 0), 1, 0))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH,
                         HTP_QGEMM(Op("onnx.DequantizeLinear", "ba", OPCONST("b"), OPCONST("bs"), OPCONST("bz"))),
                         AND(HTP_QGEMM_OK, EQ(DTYPE_OF("b"), DType::Int32), EQ(CONSTVAL_INT("bz", 0), 0),
                             EXTERNAL_CONSTRAINT(htp_bias_scale_ok, "xq_s", "w_s", "bs")),
                         HTP_QOUT("ys", "yz",
                                  Op("QuantizedFullyConnected", "xq", "w", "b", "w_s", "w_z", HTP_LAYOUT_OF_TB)))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_QGEMM(OPCONST("b")), AND(HTP_QGEMM_OK, HTP_EMPTY("b")),
                         HTP_QOUT("ys", "yz",
                                  Op("QuantizedFullyConnected", "xq", "w",
                                     gen_ConstArr_i32(0, SELECT(EQ(CONSTVAL_INT("tb", 0), 0), DIM_OF("w", 1),
                                                                DIM_OF("w", 0))),
                                     "w_s", "w_z", HTP_LAYOUT_OF_TB)))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_QROOT(Op("onnx.MatMul", HTP_DQ("xq"), HTP_WDQ("w"))),
                         AND(HTP_QROOT_OK, HTP_DQ_OK("xq"), EQ(RANK_OF("w"), 2U), HTP_W_OK("w", DIM_OF("w", 1), 1)),
                         HTP_QOUT("ys", "yz",
                                  Op("QuantizedFullyConnected", "xq", "w", gen_ConstArr_i32(0, DIM_OF("w", 1)), "w_s",
                                     "w_z", HTP_SCALAR_I(1))))
// Products of two quantized activations (attention's scores and context).
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_QROOT(Op("onnx.MatMul", HTP_DQ("aq"), HTP_DQ("bq"))),
                         AND(HTP_QROOT_OK, HTP_DQ_OK("aq"), HTP_DQ_OK("bq"), GE(RANK_OF("aq"), 2U),
                             GE(RANK_OF("bq"), 2U)),
                         HTP_QOUT("ys", "yz", Op("QuantizedMatMul", "aq", "bq")))

// Elementwise sums and products of two quantized tensors of one storage type (the kernels' own;
// up to rank 4, their broadcasting).
#define HTP_QBINARY(ONNX, LIB)                                                                           \
  DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_QROOT(Op(ONNX, HTP_DQ("aq"), HTP_DQ("bq"))),               \
                           AND(HTP_QROOT_OK, HTP_DQ_OK("aq"), HTP_DQ_OK("bq"), LE(RANK_OF("*"), 4U),     \
                               EQ(DTYPE_OF("aq"), DTYPE_OF("bq")), EQ(HTP_QTYPE("yz"), DTYPE_OF("aq"))), \
                           HTP_QOUT("ys", "yz", Op(LIB, "aq", "bq")))
HTP_QBINARY("onnx.Add", "QuantizedAdd")
HTP_QBINARY("onnx.Mul", "QuantizedMul")

// Max pooling and Relu compute on the stored values (the encoding keeps their order); a
// different output encoding is a Requantize after them.
#define HTP_SAME_ENC(T)                                                                          \
  AND(EQ(CONSTVAL_FLOAT("ys", 0), STEPSIZE_OF(T)), EQ(CONSTVAL_INT("yz", 0), ZERO_OFFSET_OF(T)), \
      EQ(HTP_QTYPE("yz"), DTYPE_OF(T)))
#define HTP_QMAXPOOL                                                                                     \
  HTP_QROOT(Op("onnx.MaxPool", OPCONST("auto_pad"), "ceil_mode", "dilations", OPCONST("kernel"), "pads", \
               "storage_order", "strides", OPCONST("output"), HTP_DQ("xq")))
#define HTP_QMAXPOOL_OK                                                                         \
  AND(HTP_QROOT_OK, HTP_DQ_OK("xq"), EQ(CONSTVAL_INT("auto_pad", 0), 0), EQ(RANK_OF("xq"), 4U), \
      EQ(CONSTVAL_INT("output", 0), 0), CONSTVAL_INT_VALID("kernel", 1), NOT(CONSTVAL_INT_VALID("kernel", 2)))
// x's encoding on an op that keeps it, NCHW again.
#define HTP_AS_X_NCHW(OP) WITH_TYPE("xq", WITH_SIZE("*", Op("Transpose", OP, HTP_TO_NCHW_PERM)))
DEF_PACKAGE_OPTIMIZATION(
    CLEANUP_GRAPH, HTP_QMAXPOOL, HTP_QMAXPOOL_OK,
    HTP_QOUT("ys", "yz",
             WITH_SIZE("*", Op("Requantize",
                               HTP_AS_X_NCHW(WITH_TYPE("xq", WITH_SIZE(HTP_NHWC_SHAPE("*"),
                                                                       Op("MaxPool2d", HTP_Q_TO_NHWC("xq"), "kernel",
                                                                          "pads", "strides", "dilations"))))))))
DEF_PACKAGE_OPTIMIZATION(
    CLEANUP_GRAPH, HTP_QROOT(Op("onnx.Relu", HTP_DQ("xq"))), AND(HTP_QROOT_OK, HTP_DQ_OK("xq")),
    HTP_QOUT(
        "ys", "yz",
        WITH_SIZE("*",
                  Op("Requantize",
                     WITH_TYPE("xq",
                               WITH_SIZE("*",
                                         Op("ReluMinMax", "xq",
                                            WITH_TYPE("xq", WITH_SIZE(gen_Shape(1),
                                                                      Op("Cast", HTP_SCALAR_I(ZERO_OFFSET_OF("xq"))))),
                                            WITH_TYPE("xq", WITH_SIZE(gen_Shape(1),
                                                                      Op("Cast", HTP_SCALAR_I(2147483647)))))))))))

// Every other QuantizeLinear of a float value, per tensor: Quantize.
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH, HTP_QROOT("x"), AND(HTP_QROOT_OK, IS_FLOAT32("x")),
                         HTP_QOUT("ys", "yz", Op("Quantize", "x")))

// ---- CLEANUP_GRAPH+1: the dequantizations left --------------------------------------------------

DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH + 1, HTP_DQ("xq"), AND(HTP_DQ_OK("xq"), IS_FLOAT32("*")), Op("Dequantize", "xq"))
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH + 1,
                         Op("onnx.DequantizeLinear", OPCONST("axis"), OPCONST("x"), OPCONST("s"), OPCONST("z")),
                         AND(IS_FLOAT32("*"), CONSTVAL_FLOAT_VALID("s", 0), CONSTVAL_INT_VALID("z", 0)),
                         Op("DequantizeAxis", "x", "s", "z", "axis"))

// ---- EARLY: requantization ----------------------------------------------------------------------

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Quantize", Op("Dequantize", "x")), SAME_DTYPE_QUANT("x", "*"), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Quantize", Op("Dequantize", "x")), NOT(SAME_DTYPE_QUANT("x", "*")),
                         Op("Requantize", "x"))
// The quantized elementwise ops move after the layout transposes (htp_lowering.hpp).
HTP_SINK("Quantize")
HTP_SINK("Dequantize")
HTP_SINK("Requantize")
HTP_SINK_OTHER("QuantizedAdd")
HTP_SINK_OTHER("QuantizedMul")
// Reshapes and slices move the stored values as they are: they happen before the dequantization,
// which then meets the next quantization (the pair above).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Reshape", Op("Dequantize", "x")), OK,
                         Op("Dequantize", WITH_TYPE("x", Op("Reshape", "x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("StridedSlice", Op("Dequantize", "x"), "b", "e", "s"), OK,
                         Op("Dequantize", WITH_TYPE("x", Op("StridedSlice", "x", "b", "e", "s"))))
// A requantization to the same encoding does nothing.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Requantize", "x"), SAME_DTYPE_QUANT("x", "*"), "x")
