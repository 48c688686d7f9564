// One out-of-line instance of each HVX kernel, for reading the generated code:
//   llvm-objdump-14 -d fold_hvx_shapes.o   (docs/fold.md lists the loop shapes)
#include "optgrammar/fold/hvx.hpp"

namespace fold = optgrammar::fold;
#define SHAPE(name, ...) extern "C" [[gnu::noinline]] void name __VA_ARGS__
SHAPE(add_u8, (const uint8_t* a, const uint8_t* b, uint8_t* o, size_t n)) {
  fold::hvx::binary<fold::BinOp::add>(a, b, o, n);
}
SHAPE(mul_u8, (const uint8_t* a, const uint8_t* b, uint8_t* o, size_t n)) {
  fold::hvx::binary<fold::BinOp::mul>(a, b, o, n);
}
SHAPE(mul_i16, (const int16_t* a, const int16_t* b, int16_t* o, size_t n)) {
  fold::hvx::binary<fold::BinOp::mul>(a, b, o, n);
}
SHAPE(mul_i32, (const int32_t* a, const int32_t* b, int32_t* o, size_t n)) {
  fold::hvx::binary<fold::BinOp::mul>(a, b, o, n);
}
SHAPE(max_i8, (const int8_t* a, const int8_t* b, int8_t* o, size_t n)) {
  fold::hvx::binary<fold::BinOp::max>(a, b, o, n);
}
SHAPE(neg_i16, (const int16_t* a, int16_t* o, size_t n)) { fold::hvx::unary<fold::UnOp::neg>(a, o, n); }
SHAPE(abs_i32, (const int32_t* a, int32_t* o, size_t n)) { fold::hvx::unary<fold::UnOp::abs>(a, o, n); }
SHAPE(relu_i8, (const int8_t* a, int8_t* o, size_t n)) { fold::hvx::unary<fold::UnOp::relu>(a, o, n); }
SHAPE(clamp_u8, (const uint8_t* a, uint8_t* o, size_t n)) { fold::hvx::clamp<uint8_t>(a, o, n, 3, 200); }
SHAPE(qadd_u8, (const uint8_t* a, const uint8_t* b, uint8_t* o, size_t n, fold::QAddParams p)) {
  fold::hvx::qadd(a, b, o, n, p);
}
SHAPE(qadd_i8, (const int8_t* a, const int8_t* b, int8_t* o, size_t n, fold::QAddParams p)) {
  fold::hvx::qadd(a, b, o, n, p);
}
SHAPE(qmul_u8, (const uint8_t* a, const uint8_t* b, uint8_t* o, size_t n, fold::QMulParams p)) {
  fold::hvx::qmul(a, b, o, n, p);
}
SHAPE(requant_i32_u8, (const int32_t* a, uint8_t* o, size_t n, fold::RequantParams p)) {
  fold::hvx::requantize<uint8_t>(a, o, n, p);
}
SHAPE(requant_i32_i16, (const int32_t* a, int16_t* o, size_t n, fold::RequantParams p)) {
  fold::hvx::requantize<int16_t>(a, o, n, p);
}
