// The ONNX importer on small models written by the test: unknown ops are errors naming the op
// type and the node, Constant nodes become constants, attributes become constant operands,
// and the interpreter computes ONNX's results.
#include "onnx_import.hpp"

#include <optgrammar/ops/definition_verify.hpp>
#include <optgrammar/ops/onnx.hpp>

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace oi = optgrammar::onnx_import;
using optgrammar::DType;
using optgrammar::engine::Tensor;

namespace {

onnx::ModelProto model(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  return m;
}

void typed(onnx::ValueInfoProto* v, const std::string& name, std::vector<std::int64_t> dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  for (auto d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

/// A node of `type` reading `inputs` and writing `outputs`.
onnx::NodeProto* node(onnx::GraphProto* g, const std::string& type, std::initializer_list<std::string> inputs,
                      std::initializer_list<std::string> outputs) {
  auto* n = g->add_node();
  n->set_op_type(type);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

/// An integer attribute of `n`.
void int_attribute(onnx::NodeProto* n, const std::string& name, std::int64_t value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(value);
}

/// A Constant node `name` = the 1-d float tensor `values`; returns its tensor.
onnx::TensorProto* float_constant(onnx::GraphProto* g, const std::string& name, std::vector<float> values) {
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output(name);
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto_DataType_FLOAT);
  t->add_dims(static_cast<std::int64_t>(values.size()));
  for (float f : values) t->add_float_data(f);
  return t;
}

std::string save(const onnx::ModelProto& m, const std::string& name) {
  const std::string path = name + ".onnx";
  std::ofstream os(path, std::ios::binary);
  m.SerializeToOstream(&os);
  return path;
}

Tensor floats(std::vector<float> v) {
  Tensor t{optgrammar::OutputDef::make(DType::Float32, {v.size()}), std::vector<std::byte>(v.size() * 4)};
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

std::vector<float> values(const Tensor& t) {
  std::vector<float> v(t.def.element_count());
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

}  // namespace

TEST_CASE("an op type the importer does not claim is an error naming the op type and the node") {
  auto m = model(13);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "x", {2});
  auto* n = g->add_node();
  n->set_op_type("NoSuchOp");
  n->set_name("the_node");
  n->add_input("x");
  n->add_output("y");
  typed(g->add_output(), "y", {2});
  try {
    oi::import_file(save(m, "unknown_op"));
    FAIL("no error");
  } catch (const oi::ImportError& e) {
    CHECK(e.kind == oi::ImportError::Kind::unsupported_op);
    CHECK_THAT(e.what(), Catch::Contains("'NoSuchOp'") && Catch::Contains("'the_node'"));
  }
  // Every op type it does not claim is named at once, with its number of nodes, in the order
  // the model first uses them (a claimed Relu between them is not).
  for (const char* type : {"Relu", "NoSuchOp", "OtherOp"}) {
    auto* k = g->add_node();
    k->set_op_type(type);
    k->add_input("x");
    k->add_output(std::string("out_") + type);
  }
  g->mutable_node(3)->set_domain("com.vendor");
  try {
    oi::import_file(save(m, "unknown_ops"));
    FAIL("no error");
  } catch (const oi::ImportError& e) {
    CHECK(e.kind == oi::ImportError::Kind::unsupported_op);
    CHECK_THAT(e.what(),
               Catch::EndsWith("node 0 'the_node' (NoSuchOp): op type 'NoSuchOp' is not claimed by the importer; "
                               "the op types it does not claim: NoSuchOp (2 nodes), com.vendor.OtherOp (1 node)"));
  }
}

TEST_CASE("bytes that parse but hold no model are refused: no IR version, no graph") {
  // An empty file parses as an empty ModelProto.
  CHECK_THROWS_WITH(oi::import_bytes("", "empty.onnx"),
                    Catch::Contains("empty.onnx: not an ONNX model: it states no IR version"));
  const std::string no_graph = model(13).SerializeAsString();
  CHECK_THROWS_WITH(oi::import_bytes(no_graph, "no_graph.onnx"),
                    Catch::Contains("no_graph.onnx: not an ONNX model: it has no graph"));
  // Their kind says so, apart from a model that is malformed (og-opt tells a file that is neither
  // the graph text format nor a model by it).
  for (const std::string& bytes : {std::string(), no_graph, std::string("\x0f\xff", 2)}) try {
      oi::import_bytes(bytes, "x.onnx");
      FAIL("accepted");
    } catch (const oi::ImportError& e) {
      CHECK(e.kind == oi::ImportError::Kind::not_a_model);
    }
}

TEST_CASE("opsets above 17 are refused") {
  auto m = model(18);
  typed(m.mutable_graph()->add_input(), "x", {1});
  CHECK_THROWS_WITH(oi::import_file(save(m, "opset18")), Catch::Contains("opset 18"));
}

TEST_CASE("input shapes: NAME=D0,D1,... is parsed strictly, and a name that is no input is an error") {
  oi::ImportOptions io;
  CHECK(io.add_input_shape("x=1,3,0,224"));
  CHECK(io.input_shapes.at("x") == std::vector<std::size_t>{1, 3, 0, 224});
  CHECK(io.add_input_shape("x=5"));  // the last one given counts
  CHECK(io.input_shapes.at("x") == std::vector<std::size_t>{5});
  for (const char* bad :
       {"x", "=3", "x=", "x=3,", "x=,3", "x=3,,4", "x=-1", "x=a", "x=3a", "x= 3", "x=99999999999999999999999"}) {
    INFO(bad);
    oi::ImportOptions none;
    CHECK_FALSE(none.add_input_shape(bad));
    CHECK(none.input_shapes.empty());
  }

  // A model whose input x has a symbolic dim: fixed by a shape for x; a shape for y (its output)
  // is refused with the model's inputs named.
  auto m = model(13);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "x", {2});
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("n");
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  typed(g->add_output(), "y", {2});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("n");
  const std::string path = save(m, "symbolic_input");
  CHECK_THROWS_WITH(
      oi::import_file(path),
      Catch::Contains("inputs without a fixed shape: 'x' ([n]); give their dims, e.g. --input-shape x=1"));
  {
    // Every such input at once, each with its declared shape; an example that fixes them keeps
    // the fixed dims.
    auto m2 = m;
    typed(m2.mutable_graph()->add_input(), "state", {2, 1, 128});
    m2.mutable_graph()
        ->mutable_input(1)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(1)
        ->clear_dim_value();
    auto* mul = m2.mutable_graph()->add_node();
    mul->set_op_type("Identity");
    mul->add_input("state");
    mul->add_output("s2");
    CHECK_THROWS_WITH(
        oi::import_file(save(m2, "two_symbolic_inputs")),
        Catch::Contains("inputs without a fixed shape: 'x' ([n]), 'state' ([2, ?, 128]); give their dims, "
                        "e.g. --input-shape x=1 --input-shape state=2,1,128"));
  }
  oi::ImportOptions fixed;
  REQUIRE(fixed.add_input_shape("x=4"));
  const auto im = oi::import_file(path, fixed);
  CHECK(im.graph.output(optgrammar::OpRef{0}).element_count() == 4);
  oi::ImportOptions wrong;
  REQUIRE(wrong.add_input_shape("y=4"));
  try {
    oi::import_file(path, wrong);
    FAIL("no error");
  } catch (const oi::ImportError& e) {
    CHECK(e.kind == oi::ImportError::Kind::bad_option);
    CHECK_THAT(e.what(), Catch::Contains("a shape is given for 'y', which is no input of the model (its inputs: x)"));
  }
  // A shape of another rank is refused in the words of the shape, not of the first node that
  // reads the input.
  oi::ImportOptions rank;
  REQUIRE(rank.add_input_shape("x=4,4"));
  try {
    oi::import_file(path, rank);
    FAIL("no error");
  } catch (const oi::ImportError& e) {
    CHECK(e.kind == oi::ImportError::Kind::bad_option);
    CHECK_THAT(e.what(), Catch::Contains("the shape given for 'x' has 2 dims, the model's input has 1: [n]"));
  }
}

TEST_CASE("Constant nodes become constants, attributes constant operands, and the interpreter runs them") {
  auto m = model(13);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "x", {3});
  float_constant(g, "c", {1.0f, 2.0f, 3.0f});
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("c");
  add->add_output("s");
  auto* lr = g->add_node();  // LeakyRelu(alpha = 0.5)
  lr->set_op_type("LeakyRelu");
  lr->add_input("s");
  lr->add_output("y");
  auto* alpha = lr->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  alpha->set_f(0.5f);
  typed(g->add_output(), "y", {3});

  auto im = oi::import_file(save(m, "const_attr"));
  const auto& gr = im.graph;
  CHECK(im.nodes == 3);
  CHECK(im.inputs == std::vector<std::string>{"x"});
  // The LeakyRelu's operand 0 is its alpha, a Float32 constant.
  bool found = false;
  for (auto r : gr.live_ops())
    if (gr.name(r) == "onnx.LeakyRelu") {
      found = true;
      REQUIRE(gr.n_inputs(r) == 2);
      const auto k = gr.input(r, 0);
      REQUIRE(gr.is_const(k));
      float v;
      std::memcpy(&v, gr.payload(k).data(), 4);
      CHECK(v == 0.5f);
      CHECK(gr.name(gr.input(r, 1)) == "onnx.Add");
    }
  CHECK(found);
  CHECK(optgrammar::ops::verify_ops(gr).empty());
  auto out = optgrammar::engine::interpret(gr, {floats({-5.0f, 0.0f, 1.0f})});
  REQUIRE(out.size() == 1);
  CHECK(values(out[0]) == std::vector<float>{-2.0f, 2.0f, 4.0f});  // (-4)*0.5, 2, 4
}

TEST_CASE("each used output of a multi-output node is an op of its own that names its output") {
  // Split into three, of which the model uses outputs 0 and 2.
  auto m = model(13);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "x", {6});
  auto* sp = g->add_node();
  sp->set_op_type("Split");
  sp->add_input("x");
  for (const char* o : {"p0", "p1", "p2"}) sp->add_output(o);
  typed(g->add_output(), "p2", {2});
  typed(g->add_output(), "p0", {2});

  auto im = oi::import_file(save(m, "split_outputs"));
  const auto& gr = im.graph;
  std::vector<int> outputs;  // the `output` operand of each onnx.Split
  for (auto r : gr.live_ops())
    if (gr.name(r) == "onnx.Split") {
      const auto k = gr.input(r, 2);  // after axis and split
      REQUIRE(gr.is_const(k));
      std::int32_t which;
      std::memcpy(&which, gr.payload(k).data(), 4);
      outputs.push_back(which);
    }
  std::sort(outputs.begin(), outputs.end());
  CHECK(outputs == std::vector<int>{0, 2});  // the unused output 1 has no op
  CHECK(optgrammar::ops::verify_ops(gr).empty());
  auto out = optgrammar::engine::interpret(gr, {floats({1, 2, 3, 4, 5, 6})});
  REQUIRE(out.size() == 2);
  CHECK(values(out[0]) == std::vector<float>{5, 6});
  CHECK(values(out[1]) == std::vector<float>{1, 2});
}

TEST_CASE("opset 6's broadcast attribute lines B up with A from axis on") {
  auto m = model(6);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "a", {2, 3});
  typed(g->add_input(), "b", {2});
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("a");
  add->add_input("b");
  add->add_output("y");
  for (auto [name, v] : {std::pair{"broadcast", 1}, std::pair{"axis", 0}}) {
    auto* at = add->add_attribute();
    at->set_name(name);
    at->set_type(onnx::AttributeProto_AttributeType_INT);
    at->set_i(v);
  }
  typed(g->add_output(), "y", {2, 3});
  auto im = oi::import_file(save(m, "legacy_broadcast"));
  CHECK(optgrammar::ops::verify_ops(im.graph).empty());
  // b [2] along axis 0: each row of a gets one of b's values (numpy's way would need b of 3).
  auto out = optgrammar::engine::interpret(im.graph, {floats({0, 0, 0, 1, 1, 1}), floats({10, 20})});
  REQUIRE(out.size() == 1);
  CHECK(values(out[0]) == std::vector<float>{10, 10, 10, 21, 21, 21});
}

TEST_CASE(
    "an axis attribute outside its input's rank is refused before ONNX's inference; OneHot's counts in its output") {
  auto m = model(13);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "x", {2, 3});
  auto* sm = node(g, "Softmax", {"x"}, {"y"});
  sm->set_name("sm");
  int_attribute(sm, "axis", 5);
  typed(g->add_output(), "y", {2, 3});
  try {
    oi::import_file(save(m, "softmax_axis_5"));
    FAIL("no error");
  } catch (const oi::ImportError& e) {
    CHECK(e.kind == oi::ImportError::Kind::invalid);
    CHECK_THAT(e.what(), Catch::Contains("attribute axis is 5, outside [-2, 2] for an input of rank 2"));
  }
  // OneHot of indices of rank 1 has an output of rank 2: axis -2 is its first dimension.
  auto m2 = model(13);
  auto* g2 = m2.mutable_graph();
  typed(g2->add_input(), "i", {3});
  float_constant(g2, "depth", {4});
  float_constant(g2, "vals", {0, 1});
  int_attribute(node(g2, "OneHot", {"i", "depth", "vals"}, {"y"}), "axis", -2);
  typed(g2->add_output(), "y", {4, 3});
  auto im = oi::import_file(save(m2, "onehot_axis_first"));
  CHECK(optgrammar::ops::verify_ops(im.graph).empty());
  auto out = optgrammar::engine::interpret(im.graph, {floats({0, 2, 3})});
  REQUIRE(out.size() == 1);
  CHECK(values(out[0]) == std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1});
}

TEST_CASE("every claimed op type has a definition with its attributes first, then its inputs") {
  for (const auto& s : optgrammar::ops::onnx::table()) {
    const auto* d = optgrammar::ops::find_definition(optgrammar::ops::onnx::op_name(s.type));
    REQUIRE(d != nullptr);
    CHECK(d->eval != nullptr);
    // A multi-output op reads which output it computes as one more constant after the attributes.
    REQUIRE(d->operands.size() == s.attr_operands() + s.inputs.size());
    for (std::size_t k = 0; k < s.attr_operands(); ++k) {
      CHECK(d->operands[k].name == (k < s.attrs.size() ? s.attrs[k].name : std::string_view("output")));
      CHECK(d->operands[k].must_be_constant);
    }
  }
}

namespace {

/// The data of `t` moved to `file` (created or appended to) at its current end, as ONNX's
/// external data: location, offset and, when `with_length`, length.
void move_out(onnx::TensorProto& t, const std::string& dir, const std::string& file, bool with_length) {
  std::string bytes;
  for (float f : t.float_data()) bytes.append(reinterpret_cast<const char*>(&f), 4);
  t.clear_float_data();
  std::ofstream os(dir + "/" + file, std::ios::binary | std::ios::app);
  os.seekp(0, std::ios::end);
  const auto offset = static_cast<long long>(os.tellp());
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* e = t.add_external_data();
  e->set_key("location");
  e->set_value(file);
  e = t.add_external_data();
  e->set_key("offset");
  e->set_value(std::to_string(offset));
  if (with_length) {
    e = t.add_external_data();
    e->set_key("length");
    e->set_value(std::to_string(bytes.size()));
  }
}

/// y = (x + w) * c, w an initializer and c a Constant node, both of 3 floats, their data in
/// `dir`/weights.bin (w at offset 0 with a length, c after it without one).
onnx::ModelProto external_model(const std::string& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto m = model(13);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "x", {3});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto_DataType_FLOAT);
  w->add_dims(3);
  for (float f : {10.0f, 20.0f, 30.0f}) w->add_float_data(f);
  move_out(*w, dir, "weights.bin", true);
  move_out(*float_constant(g, "c", {2.0f, 3.0f, 4.0f}), dir, "weights.bin", false);
  node(g, "Add", {"x", "w"}, {"s"});
  node(g, "Mul", {"s", "c"}, {"y"});
  typed(g->add_output(), "y", {3});
  return m;
}

void save_in(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream os(path, std::ios::binary);
  m.SerializeToOstream(&os);
}

std::string import_error(const std::string& path, const oi::ImportOptions& o = {}) {
  try {
    oi::import_file(path, o);
  } catch (const oi::ImportError& e) {
    CHECK(e.kind == oi::ImportError::Kind::invalid);
    return e.what();
  }
  FAIL("the model was accepted");
  return {};
}

}  // namespace

TEST_CASE("tensor data kept outside the model (external data) is read from the model's folder") {
  const auto m = external_model("ext_ok");
  save_in(m, "ext_ok/model.onnx");
  auto im = oi::import_file("ext_ok/model.onnx");
  CHECK(optgrammar::ops::verify_ops(im.graph).empty());
  auto out = optgrammar::engine::interpret(im.graph, {floats({1.0f, 2.0f, 3.0f})});
  REQUIRE(out.size() == 1);
  CHECK(values(out[0]) == std::vector<float>{22.0f, 66.0f, 132.0f});

  // The same bytes in memory: the folder must be given.
  std::string bytes;
  m.SerializeToString(&bytes);
  CHECK_THROWS_WITH(
      oi::import_bytes(bytes, "mem.onnx"),
      Catch::Contains("initializer 'w': external data is in 'weights.bin', but the model's folder is not known"));
  oi::ImportOptions o;
  o.external_data_dir = "ext_ok";
  CHECK(oi::import_bytes(bytes, "mem.onnx", o).graph.live_count() == im.graph.live_count());
}

TEST_CASE("external data that is missing, short, or outside the model's folder is an error naming the tensor") {
  SECTION("a location outside the folder: absolute or through ..") {
    for (const std::string loc : {"../weights.bin", "/etc/passwd", "sub/../../weights.bin"}) {
      auto m = external_model("ext_escape");
      m.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_value(loc);
      save_in(m, "ext_escape/model.onnx");
      CHECK_THAT(import_error("ext_escape/model.onnx"),
                 Catch::Contains("initializer 'w': external data location '" + loc +
                                 "' is not a path inside the model's folder"));
    }
  }
  SECTION("a file that is not there") {
    auto m = external_model("ext_missing");
    std::filesystem::remove("ext_missing/weights.bin");
    save_in(m, "ext_missing/model.onnx");
    CHECK_THAT(import_error("ext_missing/model.onnx"),
               Catch::Contains("initializer 'w': external data file 'weights.bin' is not in") &&
                   Catch::Contains("ext_missing"));
  }
  SECTION("data that ends past the file (a truncated weights file)") {
    auto m = external_model("ext_short");
    std::filesystem::resize_file("ext_short/weights.bin", 20);
    save_in(m, "ext_short/model.onnx");
    CHECK_THAT(
        import_error("ext_short/model.onnx"),
        Catch::Contains("node 0 (Constant): attribute value: external data (bytes 12 to 24 of 'weights.bin') ends past "
                        "the file's 20 bytes"));
  }
  SECTION("an offset that is no number, and a tensor with no location") {
    auto m = external_model("ext_bad");
    m.mutable_graph()->mutable_initializer(0)->mutable_external_data(1)->set_value("12a");
    save_in(m, "ext_bad/model.onnx");
    CHECK_THAT(import_error("ext_bad/model.onnx"),
               Catch::Contains("initializer 'w': external data offset '12a' is no integer >= 0"));
    m = external_model("ext_bad");
    m.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_key("file");
    save_in(m, "ext_bad/model.onnx");
    CHECK_THAT(import_error("ext_bad/model.onnx"), Catch::Contains("initializer 'w': external data names no location"));
  }
}

TEST_CASE("bytes that are no model say what they are where that can be told") {
  auto m = external_model("ext_cut");
  std::string bytes;
  m.SerializeToString(&bytes);
  // Cut inside the graph (field 7, which holds everything but the header fields).
  const std::string cut = bytes.substr(0, bytes.size() - 10);
  CHECK_THROWS_WITH(oi::import_bytes(cut, "cut.onnx"),
                    Catch::Contains("cut.onnx is not an ONNX model: it ends inside its field 7, which states") &&
                        Catch::Contains("(a truncated file?)"));
  CHECK_THROWS_WITH(
      oi::import_bytes("version https://git-lfs.github.com/spec/v1\noid sha256:0123\nsize 99\n", "lfs.onnx"),
      Catch::Contains("lfs.onnx is not an ONNX model: it is a Git LFS pointer file"));
  CHECK_THROWS_WITH(oi::import_bytes("\n<!DOCTYPE html>\n<html><body>Not Found</body></html>", "page.onnx"),
                    Catch::Contains("page.onnx is not an ONNX model: it is an HTML or XML page"));
  // Other bytes that do not parse: no more is said.
  CHECK_THROWS_WITH(oi::import_bytes(std::string("\x0f\xff", 2), "junk.onnx"),
                    Catch::Equals("junk.onnx is not an ONNX model"));
}
