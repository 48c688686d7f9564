// External functions of rules (dsl/external.hpp): how a C++ signature is read (parameter kinds,
// what a rule argument may be passed to, the result's kind), as static_assert tables, and the
// framework's shape functions the header provides, run on a small graph.
#include <optgrammar/dsl/external.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

namespace {
using namespace optgrammar;
using dsl::accepts;
using dsl::param_kind;
using dsl::ParamKind;
using dsl::Returns;
using dsl::returns_of;
using dsl::signature_of;
using dsl::VType;

static_assert(param_kind<OpRef>() == ParamKind::OpRef && param_kind<const OpRef&>() == ParamKind::OpRef);
static_assert(param_kind<const OpDef&>() == ParamKind::OpDef);
static_assert(param_kind<OpDef>() == ParamKind::Other, "an OpDef is taken by const reference only");
static_assert(param_kind<OpDef&>() == ParamKind::Other);
static_assert(param_kind<bool>() == ParamKind::Bool && param_kind<int>() == ParamKind::Integral &&
              param_kind<std::size_t>() == ParamKind::Integral && param_kind<float>() == ParamKind::Floating &&
              param_kind<DType>() == ParamKind::DType && param_kind<Graph&>() == ParamKind::Other);
static_assert(dsl::param_kind_name(ParamKind::OpDef) == "OpDef const&");

// An argument of a rule's value type goes to a parameter of a kind when no meaning is lost.
static_assert(accepts(ParamKind::Integral, VType::Int) && accepts(ParamKind::Integral, VType::Size));
static_assert(!accepts(ParamKind::Integral, VType::Float) && !accepts(ParamKind::Integral, VType::Bool));
static_assert(accepts(ParamKind::Floating, VType::Float) && accepts(ParamKind::Floating, VType::Int));
static_assert(accepts(ParamKind::Bool, VType::Bool) && !accepts(ParamKind::Bool, VType::Int));
static_assert(accepts(ParamKind::DType, VType::DType) && !accepts(ParamKind::DType, VType::Int));
static_assert(!accepts(ParamKind::OpRef, VType::Int) && !accepts(ParamKind::Other, VType::Int));

// The framework parameters are kinds of their own, exactly as the engine passes them.
static_assert(param_kind<Constraint&>() == ParamKind::Constraint && param_kind<Constraint>() == ParamKind::Other);
static_assert(param_kind<Replacement&>() == ParamKind::Replacement &&
              param_kind<const Replacement&>() == ParamKind::Other);
static_assert(param_kind<const Split_Context&>() == ParamKind::SplitContext &&
              param_kind<Split_Context&>() == ParamKind::Other);
static_assert(!accepts(ParamKind::Replacement, VType::OpRef) && !accepts(ParamKind::SplitContext, VType::Int));

static_assert(returns_of<bool (*)(Constraint&, OpRef, int)>() == Returns::Bool);
static_assert(returns_of<int (*)(Constraint&, OpRef)>() == Returns::Int);
static_assert(returns_of<std::uint32_t (*)(Constraint&, OpRef)>() == Returns::Size);
static_assert(returns_of<double (*)(Constraint&)>() == Returns::Float);
static_assert(returns_of<QuickShape (*)(Replacement&, OpRef)>() == Returns::QuickShape);
static_assert(returns_of<OpRef (*)(Replacement&, OpRef) noexcept>() == Returns::OpRef,
              "noexcept functions are read alike");
static_assert(returns_of<DType (*)(Constraint&, OpRef)>() == Returns::Other);
static_assert(returns_of<int>() == Returns::not_a_function);
// A rule sees a shape function's result as a shape construction, a constraint's as its scalar.
static_assert(dsl::result_vtype(Returns::QuickShape) == VType::Shape &&
              dsl::result_vtype(Returns::OpRef) == VType::Shape);
static_assert(dsl::result_vtype(Returns::Size) == VType::Size && dsl::result_vtype(Returns::Other) == VType::Text);

// A signature: the result and each parameter's kind, in order.
constexpr dsl::Signature split_fn = signature_of<QuickShape (*)(Replacement&, Split_Context const&, OpRef, int)>();
static_assert(split_fn.result == Returns::QuickShape && split_fn.n_params == 4 &&
              split_fn.params[0] == ParamKind::Replacement && split_fn.params[1] == ParamKind::SplitContext &&
              split_fn.params[2] == ParamKind::OpRef && split_fn.params[3] == ParamKind::Integral);

OpRef int_const(Graph& g, std::initializer_list<std::int32_t> v) {
  const std::array<std::int32_t, 4> data{v.size() > 0 ? v.begin()[0] : 0, v.size() > 1 ? v.begin()[1] : 0,
                                         v.size() > 2 ? v.begin()[2] : 0, v.size() > 3 ? v.begin()[3] : 0};
  return g.add_const(OutputDef::make(DType::Int32, {v.size()}), std::span<const std::int32_t>(data.data(), v.size()));
}
}  // namespace

TEST_CASE("the framework's split shape functions: start and size of one part") {
  Graph g;
  const OpRef in = g.add_input(OutputDef::make(DType::Float32, {1, 32, 24, 16}));
  Replacement rpx(g, in);
  const Split_Context sc{8, 4, 1};  // rows 8..11 of dim 1
  const QuickShape start = simple_split_start(rpx, sc, in);
  const QuickShape size = simple_split_size(rpx, sc, in);
  CHECK(start.rank == 4);
  CHECK(start.dims[0] == 0);
  CHECK(start.dims[1] == 8);
  CHECK(start.dims[2] == 0);
  CHECK(size.dims[0] == 1);
  CHECK(size.dims[1] == 4);
  CHECK(size.dims[2] == 24);
  CHECK(size.dims[3] == 16);
  // along another dimension than the split's
  CHECK(simpledim_split_start(rpx, sc, in, 2).dims[2] == 8);
  CHECK(simpledim_split_size(rpx, sc, in, 2).dims[2] == 4);
  CHECK(simpledim_split_size(rpx, sc, in, 2).dims[1] == 32);
  // a dimension the input does not have changes nothing
  CHECK(simpledim_split_size(rpx, sc, in, 7).dims[1] == 32);
}

TEST_CASE("the framework's padding shape functions read their constant, or give no shape") {
  Graph g;
  const OpRef act = g.add_input(OutputDef::make(DType::Float32, {1, 10, 12, 3}));
  const OpRef pad = int_const(g, {1, 2, 3, 4});
  const OpRef hw = int_const(g, {3, 5});
  Replacement rpx(g, act);
  const QuickShape total = pad_total_for_qnn(rpx, act, pad);
  CHECK(total.rank == 4);
  CHECK(total.dims[1] == 13);
  CHECK(total.dims[2] == 19);
  CHECK(total.dims[3] == 3);
  const QuickShape before = pad_before_for_qnn(rpx, act, pad);
  CHECK(before.dims[1] == 1);
  CHECK(before.dims[2] == 3);
  const QuickShape w = reshape_hw_to_4d(rpx, hw);
  CHECK(w.rank == 4);
  CHECK(w.dims[1] == 3);
  CHECK(w.dims[2] == 5);
  // not a constant, or too few elements: a rank no shape has, so the rule fails
  CHECK(pad_total_for_qnn(rpx, act, act).rank == max_rank + 1);
  CHECK(pad_before_for_qnn(rpx, act, hw).rank == max_rank + 1);
}
