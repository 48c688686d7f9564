// The typing column of the construct table (dsl/grammar.hpp) as dsl/typing.hpp reads it: result
// rules, the fault and the operand a bad typing gives, and the C++ front end's typing through it.
// (rejections.inc holds the texts of the faults, checked on both front ends.)
#include <optgrammar/dsl/node.hpp>
#include <optgrammar/dsl/typing.hpp>

#include <catch2/catch.hpp>

#include <initializer_list>

namespace {
using namespace optgrammar::dsl;

constexpr TypeVerdict verdict(Family f, std::initializer_list<VType> a) {
  return type_operands(typing_of(f), a.begin(), a.size());
}
static_assert(verdict(Family::LCM, {VType::Int, VType::Size}).type == VType::Size);  // common: size over int
static_assert(verdict(Family::LCM, {VType::Int, VType::Int}).type == VType::Int);
static_assert(verdict(Family::ADD, {VType::Int, VType::Float, VType::Size}).type == VType::Float);
static_assert(verdict(Family::ADD, {VType::Bool, VType::Int}).fault == Fault::operand_type &&
              verdict(Family::ADD, {VType::Bool, VType::Int}).operand == 0 &&
              verdict(Family::ADD, {VType::Bool, VType::Int}).want == OperandKind::number);
static_assert(verdict(Family::gen_ConstArr_f32, {VType::Float, VType::Float}).fault == Fault::operand_type &&
              verdict(Family::gen_ConstArr_f32, {VType::Float, VType::Float}).operand == 1);
static_assert(verdict(Family::gen_Shape, {}).fault == Fault::needs_operand);  // variadic, nothing written
static_assert(verdict(Family::gen_Shape, {VType::Int, VType::Size}).type == VType::Shape);
static_assert(verdict(Family::gen_ConstScalar_f32, {VType::Bool}).type == VType::Bad);  // a number, not a bool
static_assert(verdict(Family::CEILDIV, {VType::Int, VType::Float}).type == VType::Float);
static_assert(verdict(Family::SAME_SHAPE, {VType::OpRef, VType::Int}).fault == Fault::needs_opref &&
              verdict(Family::SAME_SHAPE, {VType::OpRef, VType::Int}).operand == 1);
static_assert(verdict(Family::EQ, {VType::DType, VType::DType}).type == VType::Bool);
static_assert(verdict(Family::EQ, {VType::DType, VType::Int}).fault == Fault::dtype_compare &&
              verdict(Family::EQ, {VType::DType, VType::Int}).other == 1);
static_assert(verdict(Family::LT, {VType::Int, VType::DType}).fault == Fault::dtype_use &&
              verdict(Family::LT, {VType::Int, VType::DType}).operand == 1);
static_assert(verdict(Family::DIM_OF, {VType::Int, VType::Int}).fault == Fault::needs_opref &&
              verdict(Family::DIM_OF, {VType::Int, VType::Int}).operand == 0);
static_assert(verdict(Family::LCM, {VType::Int, VType::Float}).fault == Fault::needs_integral);
static_assert(verdict(Family::OPTION_UINT, {}).type == VType::Size);  // the option name is no typed operand
static_assert(verdict(Family::SPLIT_START, {VType::Text}).type == VType::Bad);
static_assert(!typing_of(Family::SELECT).regular() && !typing_of(Family::WITH_SIZE).regular());
// The C++ front end's typing of a regular kind is the column's.
static_assert(detail::type_of(Kind::Lcm, std::initializer_list<VType>{VType::Size, VType::Int}.begin(), 2) ==
              VType::Size);

TEST_CASE("the typing column types the constraint families") {
  int regular = 0;
  for (std::size_t f = 0; f <= static_cast<std::size_t>(Family::EXPANDED); ++f) {
    regular += typing_of(static_cast<Family>(f)).regular() ? 1 : 0;
  }
  CHECK(regular >= 51);  // casts, operators, comparisons, properties, constant readers, options, split variables
}

}  // namespace
