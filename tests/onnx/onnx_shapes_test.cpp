// Shapes that models compute: shape arithmetic (Shape -> Gather -> ... -> Reshape, Resize, ...)
// is evaluated at import, so every tensor gets a static shape where ONNX's inference alone finds
// none; a shape that depends on the model's inputs is an error naming the node; If and Loop
// whose condition and trip count are known at import are inlined.
#include "onnx_import.hpp"

#include <optgrammar/ops/definition_verify.hpp>

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

namespace oi = optgrammar::onnx_import;
using optgrammar::DType;

namespace {

/// Writes a model node by node: `op("Add", {"a", "b"}, {"c"})`, with attributes added to the
/// node it returns.
struct Builder {
  onnx::ModelProto m;
  onnx::GraphProto* g;

  explicit Builder(int opset) : g(m.mutable_graph()) {
    m.set_ir_version(8);
    m.add_opset_import()->set_version(opset);
  }
  static void type(onnx::ValueInfoProto* v, const std::string& name, int elem,
                   std::initializer_list<std::int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* shape = t->mutable_shape();  // (a scalar has a shape of no dims)
    for (auto d : dims) shape->add_dim()->set_dim_value(d);
  }
  void input(const std::string& name, std::initializer_list<std::int64_t> dims,
             int elem = onnx::TensorProto_DataType_FLOAT) {
    type(g->add_input(), name, elem, dims);
  }
  /// A graph output without a declared shape: the import has to find it.
  void output(const std::string& name) {
    auto* v = g->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  }
  onnx::NodeProto* op(const std::string& type, std::initializer_list<std::string> in,
                      std::initializer_list<std::string> out, onnx::GraphProto* into = nullptr) {
    auto* n = (into ? into : g)->add_node();
    n->set_op_type(type);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
  }
  /// An int64 initializer (of rank 1, or a scalar when `scalar`).
  void ints(const std::string& name, std::initializer_list<std::int64_t> v, bool scalar = false) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    if (!scalar) t->add_dims(static_cast<std::int64_t>(v.size()));
    for (auto x : v) t->add_int64_data(x);
  }
  void real(const std::string& name, float v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    t->add_float_data(v);
  }
  /// The error importing the model raises as not claimed (a shape, condition or trip count
  /// that depends on the model's inputs); its text, or a note that there was none.
  std::string unclaimed(const std::string& file) {
    try {
      (void)import(file);
    } catch (const oi::ImportError& e) {
      if (e.kind == oi::ImportError::Kind::unsupported_op) return e.what();
      return std::string("an error of another kind: ") + e.what();
    }
    return "the model was accepted";
  }
  oi::Imported import(const std::string& file, const oi::ImportOptions& options = {}) {
    const std::string path = file + ".onnx";
    std::ofstream os(path, std::ios::binary);
    m.SerializeToOstream(&os);
    os.close();
    return oi::import_file(path, options);
  }
};

void int_attr(onnx::NodeProto* n, const std::string& name, std::int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}

std::vector<std::size_t> dims_of(const optgrammar::OutputDef& d) { return {d.dims.begin(), d.dims.begin() + d.rank}; }

/// How many live ops of the graph have this name.
std::size_t count(const optgrammar::Graph& g, std::string_view name) {
  std::size_t n = 0;
  for (auto r : g.live_ops()) n += g.name(r) == name;
  return n;
}

/// The value the graph's (first) Output op reads.
optgrammar::OpRef result(const optgrammar::Graph& g) {
  for (auto r : g.live_ops())
    if (g.name(r) == "Output") return g.input(r, 0);
  FAIL("no Output op");
  return {};
}

}  // namespace

TEST_CASE("Resize sizes computed from the input's shape through float arithmetic are evaluated at import") {
  // sizes = Concat([1, 3], Cast(Floor(Cast(Shape(x)[2:4]) * 2.5))): ONNX's inference, even with
  // its data propagation, does not follow the floats; the import evaluates them.
  Builder b(13);
  b.input("x", {1, 3, 4, 6});
  b.ints("two", {2});
  b.ints("four", {4});
  b.ints("head", {1, 3});
  b.real("scale", 2.5f);
  b.op("Shape", {"x"}, {"s"});
  b.op("Slice", {"s", "two", "four"}, {"hw"});
  int_attr(b.op("Cast", {"hw"}, {"hwf"}), "to", onnx::TensorProto_DataType_FLOAT);
  b.op("Mul", {"hwf", "scale"}, {"hws"});
  b.op("Floor", {"hws"}, {"hwr"});
  int_attr(b.op("Cast", {"hwr"}, {"hwi"}), "to", onnx::TensorProto_DataType_INT64);
  int_attr(b.op("Concat", {"head", "hwi"}, {"sizes"}), "axis", 0);
  b.op("Resize", {"x", "", "", "sizes"}, {"y"});
  b.output("y");

  const auto im = b.import("shape_resize");
  const auto& g = im.graph;
  REQUIRE(im.outputs.size() == 1);
  const auto out = result(g);
  CHECK(g.name(out) == "onnx.Resize");
  CHECK(dims_of(g.output(out)) == std::vector<std::size_t>{1, 3, 10, 15});
  // The shape arithmetic became one constant: no Shape, Slice, Cast, Mul, Floor or Concat is left.
  for (const char* op : {"onnx.Shape", "onnx.Slice", "onnx.Cast", "onnx.Mul", "onnx.Floor", "onnx.Concat"}) {
    INFO(op);
    CHECK(count(g, op) == 0);
  }
  const auto sizes = g.input(out, g.n_inputs(out) - 1);
  REQUIRE(g.is_const(sizes));
  CHECK(optgrammar::ops::verify_ops(g).empty());
  const auto res = optgrammar::engine::interpret(g, optgrammar::engine::random_inputs(g, 1));
  REQUIRE(res.size() == 1);
  CHECK(dims_of(res[0].def) == std::vector<std::size_t>{1, 3, 10, 15});
}

TEST_CASE("a Reshape target built from Shape, Gather, Unsqueeze and Concat gives every later tensor its shape") {
  // y = Transpose(Reshape(x, [Shape(x)[0], -1])): the Transpose's shape follows from the Reshape's.
  Builder b(13);
  b.input("x", {2, 3, 4});
  b.ints("zero", {0}, true);
  b.ints("axes", {0});
  b.ints("minus_one", {-1});
  b.op("Shape", {"x"}, {"s"});
  int_attr(b.op("Gather", {"s", "zero"}, {"n"}), "axis", 0);
  b.op("Unsqueeze", {"n", "axes"}, {"n1"});
  int_attr(b.op("Concat", {"n1", "minus_one"}, {"target"}), "axis", 0);
  b.op("Reshape", {"x", "target"}, {"r"});
  b.op("Transpose", {"r"}, {"y"});
  b.output("y");

  const auto im = b.import("shape_reshape");
  const auto& g = im.graph;
  const auto out = result(g);
  CHECK(dims_of(g.output(out)) == std::vector<std::size_t>{12, 2});
  CHECK(count(g, "onnx.Shape") == 0);
  CHECK(count(g, "onnx.Gather") == 0);
  CHECK(count(g, "onnx.Reshape") == 1);
}

TEST_CASE("a shape that depends on the model's inputs is an error naming the node and the input") {
  Builder b(13);
  b.input("x", {2, 3});
  b.input("target", {2}, onnx::TensorProto_DataType_INT64);
  b.op("Reshape", {"x", "target"}, {"y"})->set_name("reshape_by_data");
  b.output("y");
  const std::string what = b.unclaimed("shape_from_data");
  CHECK_THAT(what, Catch::Contains("node 0 'reshape_by_data' (Reshape): output 'y': its shape is not known at import"));
  CHECK_THAT(what, Catch::Contains("inputs whose values are known only when the model runs: 'x', 'target'"));
}

TEST_CASE("an If whose condition depends on the model's inputs is an error naming the node") {
  Builder b(13);
  b.input("x", {2});
  b.input("c", {}, onnx::TensorProto_DataType_BOOL);
  auto* n = b.op("If", {"c"}, {"y"});
  n->set_name("branch");
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
    auto* sub = a->mutable_g();
    b.op("Identity", {"x"}, {std::string("out_") + name}, sub);
    Builder::type(sub->add_output(), std::string("out_") + name, onnx::TensorProto_DataType_FLOAT, {2});
  }
  b.output("y");
  CHECK_THAT(b.unclaimed("if_from_data"),
             Catch::Contains("node 0 'branch' (If): its condition 'c' depends on the model's inputs"));
}

TEST_CASE("an input given a value (--input-value) is a constant, and the shapes that follow from it are known") {
  Builder b(13);
  b.input("x", {2, 3});
  b.input("target", {2}, onnx::TensorProto_DataType_INT64);
  b.op("Reshape", {"x", "target"}, {"y"});
  b.output("y");
  oi::ImportOptions opt;
  CHECK_FALSE(opt.add_input_value("target"));
  CHECK_FALSE(opt.add_input_value("target=3,"));
  CHECK_FALSE(opt.add_input_value("=3"));
  CHECK_FALSE(opt.add_input_value("target=3,two"));
  REQUIRE(opt.add_input_value("target=3,2"));
  const auto im = b.import("input_value", opt);
  CHECK(im.inputs == std::vector<std::string>{"x"});
  CHECK(dims_of(im.graph.output(result(im.graph))) == std::vector<std::size_t>{3, 2});

  SECTION("a value for a name that is no input, or of the wrong element count, is an error") {
    oi::ImportOptions bad;
    REQUIRE(bad.add_input_value("shape=3,2"));
    CHECK_THROWS_WITH(
        b.import("input_value_bad", bad),
        Catch::Contains("a value is given for 'shape', which is no input of the model (its inputs: x, target)"));
    oi::ImportOptions short_one;
    REQUIRE(short_one.add_input_value("target=6"));
    CHECK_THROWS_WITH(b.import("input_value_short", short_one),
                      Catch::Contains("input 'target': 1 values are given for its 2 elements"));
  }
}

namespace {
/// If(cond) with then = x + 1, else = x - 1, over a float [2] x.
Builder if_model(bool cond_is_input) {
  Builder b(13);
  b.input("x", {2});
  b.real("one", 1.0f);
  if (cond_is_input) {
    b.input("cond", {}, onnx::TensorProto_DataType_BOOL);
  } else {
    auto* t = b.g->add_initializer();
    t->set_name("cond");
    t->set_data_type(onnx::TensorProto_DataType_BOOL);
    t->add_int32_data(1);
  }
  auto* n = b.op("If", {"cond"}, {"y"});
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
    auto* sub = a->mutable_g();
    const std::string out = std::string("out_") + name;
    b.op(name[0] == 't' ? "Add" : "Sub", {"x", "one"}, {out}, sub);
    Builder::type(sub->add_output(), out, onnx::TensorProto_DataType_FLOAT, {2});
  }
  b.output("y");
  return b;
}

std::vector<float> run_floats(const optgrammar::Graph& g, std::vector<float> x) {
  optgrammar::engine::Tensor in{optgrammar::OutputDef::make(DType::Float32, {x.size()}),
                                std::vector<std::byte>(x.size() * 4)};
  std::memcpy(in.data.data(), x.data(), in.data.size());
  const auto out = optgrammar::engine::interpret(g, {in});
  REQUIRE(out.size() >= 1);
  std::vector<float> v(out[0].def.element_count());
  std::memcpy(v.data(), out[0].data.data(), v.size() * 4);
  return v;
}
}  // namespace

TEST_CASE("an If whose condition is known at import is its branch, inlined") {
  SECTION("a constant condition") {
    const auto im = if_model(false).import("if_constant");
    CHECK(count(im.graph, "onnx.Add") == 1);
    CHECK(count(im.graph, "onnx.Sub") == 0);
    CHECK(run_floats(im.graph, {1.0f, 2.0f}) == std::vector<float>{2.0f, 3.0f});
  }
  SECTION("a condition given as an input's value") {
    oi::ImportOptions opt;
    REQUIRE(opt.add_input_value("cond=0"));
    const auto im = if_model(true).import("if_input_value", opt);
    CHECK(im.inputs == std::vector<std::string>{"x"});
    CHECK(count(im.graph, "onnx.Sub") == 1);
    CHECK(run_floats(im.graph, {1.0f, 2.0f}) == std::vector<float>{0.0f, 1.0f});
  }
}

TEST_CASE("a Loop whose trip count is known at import is its body, unrolled, with its scan outputs stacked") {
  // acc = 0; 3 times: acc = acc + x, scan acc * 2. Outputs: acc and the stacked scans [3, 2].
  Builder b(13);
  b.input("x", {2});
  b.ints("trips", {3}, true);
  auto* z = b.g->add_initializer();
  z->set_name("zeros");
  z->set_data_type(onnx::TensorProto_DataType_FLOAT);
  z->add_dims(2);
  z->add_float_data(0.0f);
  z->add_float_data(0.0f);
  b.real("two", 2.0f);
  auto* loop = b.op("Loop", {"trips", "", "zeros"}, {"acc", "scans"});
  loop->set_name("repeat");
  auto* a = loop->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  auto* body = a->mutable_g();
  Builder::type(body->add_input(), "i", onnx::TensorProto_DataType_INT64, {});
  Builder::type(body->add_input(), "cond_in", onnx::TensorProto_DataType_BOOL, {});
  Builder::type(body->add_input(), "acc_in", onnx::TensorProto_DataType_FLOAT, {2});
  b.op("Identity", {"cond_in"}, {"cond_out"}, body);
  b.op("Add", {"acc_in", "x"}, {"acc_out"}, body);
  b.op("Mul", {"acc_out", "two"}, {"scan"}, body);
  Builder::type(body->add_output(), "cond_out", onnx::TensorProto_DataType_BOOL, {});
  Builder::type(body->add_output(), "acc_out", onnx::TensorProto_DataType_FLOAT, {2});
  Builder::type(body->add_output(), "scan", onnx::TensorProto_DataType_FLOAT, {2});
  b.output("acc");
  b.output("scans");

  const auto im = b.import("loop_unrolled");
  CHECK(count(im.graph, "onnx.Add") == 3);
  const auto out = optgrammar::engine::interpret(
      im.graph, {[] {
        optgrammar::engine::Tensor t{optgrammar::OutputDef::make(DType::Float32, {2}), std::vector<std::byte>(8)};
        const float v[2] = {1.0f, 2.0f};
        std::memcpy(t.data.data(), v, 8);
        return t;
      }()});
  REQUIRE(out.size() == 2);
  CHECK(dims_of(out[1].def) == std::vector<std::size_t>{3, 2});
  std::vector<float> acc(2), scans(6);
  std::memcpy(acc.data(), out[0].data.data(), 8);
  std::memcpy(scans.data(), out[1].data.data(), 24);
  CHECK(acc == std::vector<float>{3.0f, 6.0f});
  CHECK(scans == std::vector<float>{2.0f, 4.0f, 4.0f, 8.0f, 6.0f, 12.0f});

  SECTION("a trip count that depends on the model's inputs is an error naming the node") {
    Builder d = b;
    d.g = d.m.mutable_graph();
    d.g->mutable_initializer()->erase(d.g->mutable_initializer()->begin());  // "trips" becomes an input
    Builder::type(d.g->add_input(), "trips", onnx::TensorProto_DataType_INT64, {});
    CHECK_THAT(d.unclaimed("loop_from_data"),
               Catch::Contains("node 0 'repeat' (Loop): its trip count 'trips' depends on the model's inputs"));
  }
}
