#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/graph.hpp>
#include <optgrammar/core/registry.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/core/verify.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <sstream>

using namespace optgrammar;

namespace {
OutputDef f32(std::initializer_list<std::size_t> d) { return OutputDef::make(DType::Float32, d); }

struct Small {
  Graph g;
  OpRef x, w, c, r, out;
  Small() {
    x = g.add_input(f32({1, 4, 4, 2}));
    w = g.add_const(f32({1, 1, 1, 2}), {0.5f, -1.0f});
    c = g.add_op("Conv2d", {x, w}, f32({1, 4, 4, 2}));
    r = g.add_op("Relu", {c}, f32({1, 4, 4, 2}));
    out = g.add_output(r);
  }
};

int impl_plain(int a) { return a; }
template <class T>
int impl_template(T a) { return static_cast<int>(a); }
}  // namespace

DEF_PACKAGE_OP(impl_plain, "TestPlainOp")
DEF_PACKAGE_OP((impl_template<float>), "TestTemplateOp")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(impl_plain, "TestCostlyOp", SNAIL, Flags::RESOURCE_HVX, Flags::INHIBIT_CONST_PROP)

TEST_CASE("dtype element sizes and names") {
  CHECK(element_size(DType::Float32) == 4);
  CHECK(element_size(DType::Float16) == 2);
  CHECK(element_size(DType::QUInt8) == 1);
  CHECK(element_size(DType::QInt8) == 1);
  CHECK(element_size(DType::QUInt16) == 2);
  CHECK(element_size(DType::QInt16) == 2);
  CHECK(element_size(DType::QInt32) == 4);
  CHECK(element_size(DType::Int32) == 4);
  CHECK(parse_dtype("QUInt8") == DType::QUInt8);
  CHECK(parse_dtype("qi16") == DType::QInt16);
  CHECK_FALSE(parse_dtype("f64"));
  CHECK(is_quantized(DType::QInt32));
  CHECK_FALSE(is_quantized(DType::Int32));
}

TEST_CASE("graph keeps use lists in step with inputs") {
  Small s;
  CHECK(s.g.live_count() == 5);
  CHECK(s.g.n_uses(s.x) == 1);
  CHECK(s.g.users(s.c) == std::vector<OpRef>{s.r});
  CHECK(s.g.name(s.c) == "Conv2d");
  CHECK(verify(s.g).empty());
  // Bypass the Relu: the output reads the conv; the Relu becomes dead and is removed.
  s.g.replace_all_uses(s.r, s.c);
  CHECK(s.g.n_uses(s.r) == 0);
  CHECK(s.g.erase_if_dead(s.r) == 1);
  CHECK_FALSE(s.g.alive(s.r));
  CHECK(s.g.input(s.out, 0) == s.c);
  CHECK(verify(s.g).empty());
  CHECK_THROWS_AS(s.g.erase(s.c), GraphError);  // still used
}

TEST_CASE("dead code removal cascades but keeps outputs") {
  Small s;
  auto extra = s.g.add_op("Relu", {s.c}, f32({1, 4, 4, 2}));
  auto extra2 = s.g.add_op("Relu", {extra}, f32({1, 4, 4, 2}));
  CHECK(s.g.remove_dead() == 2);
  CHECK_FALSE(s.g.alive(extra2));
  CHECK(s.g.alive(s.out));
  CHECK(s.g.live_count() == 5);
}

TEST_CASE("graph inputs are never removed as dead, even when nothing reads them") {
  Small s;
  auto unread = s.g.add_input(f32({2, 2}));  // an input nothing reads, from the start
  CHECK(s.g.remove_dead() == 0);
  CHECK(s.g.alive(unread));
  // Bypass everything between x and the output by the weight constant: the conv and relu die and
  // so does x's last use, but x stays; the constant w stays because the output reads it.
  s.g.replace_all_uses(s.r, s.w);
  CHECK(s.g.erase_if_dead(s.r) == 2);  // relu, conv
  CHECK(s.g.alive(s.x));
  CHECK(s.g.n_uses(s.x) == 0);
  CHECK(s.g.alive(unread));
  CHECK(s.g.remove_dead() == 0);
  CHECK(s.g.live_count() == 4);  // x, unread, w, out
  CHECK(verify(s.g).empty());
}

TEST_CASE("output definitions and constant payloads are interned") {
  Graph g;
  auto a = g.add_const(f32({1, 1, 1, 2}), {1.0f, 2.0f});
  auto b = g.add_const(f32({1, 1, 1, 2}), {1.0f, 2.0f});
  auto c = g.add_const(f32({1, 1, 1, 2}), {1.0f, 3.0f});
  CHECK(a != b);  // distinct ops ...
  CHECK(g.payload_index(a) == g.payload_index(b));  // ... sharing one payload
  CHECK(g.payload_index(a) != g.payload_index(c));
  CHECK(g.distinct_outputs() == 1);
  CHECK(g.distinct_payloads() == 2);
  CHECK_THROWS_AS(g.add_const(f32({1, 1, 1, 3}), {1.0f}), GraphError);
}

TEST_CASE("an empty constant with no buffer gets an empty payload, not another constant's") {
  Graph g;
  g.add_const(f32({1, 1, 1, 2}), {1.0f, 2.0f});  // payload 0: 8 bytes
  const OpRef e = g.add_const(f32({0}), std::span<const std::byte>{});
  CHECK(g.payload(e).empty());
}

TEST_CASE("rollback restores the graph exactly") {
  Small s;
  std::string before = to_text(s.g);
  auto cp = s.g.checkpoint();
  auto n1 = s.g.add_op("Neg", {s.c}, f32({1, 4, 4, 2}));
  s.g.add_op("Neg", {n1, s.x}, f32({1, 4, 4, 2}));
  CHECK(s.g.n_uses(s.c) == 2);
  s.g.rollback(cp);
  CHECK(s.g.n_uses(s.c) == 1);
  CHECK(s.g.n_uses(s.x) == 1);
  CHECK(to_text(s.g) == before);
  CHECK(verify(s.g).empty());
}

TEST_CASE("rollback also undoes edits to ops that existed at the checkpoint") {
  Small s;
  std::string before = to_text(s.g);
  auto cp = s.g.checkpoint();
  auto n = s.g.add_op("Neg", {s.x}, f32({1, 4, 4, 2}));
  s.g.set_input(s.r, 0, n);                           // rewire an existing op
  s.g.set_output(s.c, f32({1, 2, 2, 8}));             // change an existing output definition
  s.g.set_op_id(s.w, 4242);
  s.g.set_split_history(s.c, {3, 1});
  s.g.replace_all_uses(s.r, s.c);                     // the graph output now reads the conv
  s.g.erase_if_dead(s.r);                             // and the relu is erased
  CHECK_FALSE(s.g.alive(s.r));
  s.g.rollback(cp);
  CHECK(s.g.alive(s.r));
  CHECK(to_text(s.g) == before);
  CHECK(verify(s.g).empty());
  CHECK(s.g.split_history(s.c).empty());
  // After a commit, edits stay.
  auto cp2 = s.g.checkpoint();
  s.g.set_op_id(s.w, 77);
  s.g.commit(cp2);
  CHECK(s.g.op_id(s.w) == 77);
}

TEST_CASE("verifier reports a constant of the wrong size and a cycle") {
  Small s;
  CHECK(verify(s.g).empty());
  s.g.set_output(s.w, f32({1, 1, 1, 3}));
  auto problems = verify(s.g);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("constant holds 8 bytes") != std::string::npos);
  s.g.set_output(s.w, f32({1, 1, 1, 2}));
  s.g.set_input(s.c, 0, s.r);  // conv reads relu reads conv
  bool cycle = false;
  for (auto& p : verify(s.g)) cycle |= p.find("cycle") != std::string::npos;
  CHECK(cycle);
}

TEST_CASE("verifier reports graph inputs and outputs of the wrong arity and bad quantization") {
  Graph g;
  auto x = g.add_input(f32({2}));
  auto q = g.add_op("Quantize", {x}, OutputDef::make(DType::QUInt8, {2}, 128, 0.5f));
  g.add_output(q);
  CHECK(verify(g).empty());
  g.add_op("Output", {x, q}, f32({2}));
  g.add_op("Input", {x}, f32({2}));
  g.add_op("Quantize", {x}, OutputDef::make(DType::QUInt8, {2}, 256, 0.5f));
  g.add_op("Quantize", {x}, OutputDef::make(DType::QInt8, {2}, 0, 0.0f));
  auto problems = verify(g);
  REQUIRE(problems.size() == 4);
  CHECK(problems[0] == "%3: Output has 2 inputs, but must have exactly one");
  CHECK(problems[1] == "%4: Input has 1 input, but must have none");
  CHECK(problems[2] == "%5: zero offset 256 is outside qu8's range");
  CHECK(problems[3].find("%6: step size 0") == 0);
}

TEST_CASE("text format round-trips") {
  Small s;
  s.g.set_option("tile_height", std::uint64_t{8});
  s.g.set_option("relaxed", true);
  s.g.set_option("name", std::string("pkg"));
  s.g.set_option("scale", 0.25);
  s.g.set_option("bias", std::int64_t{-3});
  auto q = s.g.add_op("Quantize", {s.r}, OutputDef::make(DType::QUInt8, {1, 4, 4, 2}, 128, 0.0078125f));
  s.g.set_split_history(q, {0, 2});
  s.g.add_output(q);
  s.g.add_const(OutputDef::make(DType::QInt8, {2}), {std::int8_t{-128}, std::int8_t{127}});
  s.g.add_const(OutputDef::make(DType::Int32, {3}), {1, -2, 2147483647});
  s.g.add_const(OutputDef::make(DType::Float16, {1}), {std::uint16_t{0x3c00}});
  std::string t1 = to_text(s.g);
  Graph back = from_text(t1);
  CHECK(to_text(back) == t1);
  CHECK(verify(back).empty());
  CHECK(back.live_count() == s.g.live_count());
}

TEST_CASE("text format writes a rewritten graph in topological order") {
  Small s;
  auto late = s.g.add_op("Neg", {s.c}, f32({1, 4, 4, 2}));
  s.g.set_input(s.r, 0, late);  // r now reads an op with a higher index
  Graph back = from_text(to_text(s.g));
  CHECK(to_text(back) == to_text(s.g));
}

TEST_CASE("bad graph text gives file:line:col errors") {
  auto error_of = [](const std::string& text) {
    try {
      from_text(text, "bad.ogt");
    } catch (const TextError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("%0 = Input() : f32[1]\n%1 = Relu(%7) : f32[1]\n") ==
        "bad.ogt:2:11: error: input %7 is not defined before this line");
  CHECK(error_of("%0 = Input() : f64[1]\n") ==
        "bad.ogt:1:16: error: unknown dtype 'f64' (f32 f16 qu8 qi8 qu16 qi16 qi32 i32)");
  CHECK(error_of("%0 = $Const() : f32[2] data=[1]\n") ==
        "bad.ogt:1:1: error: constant %0 has 1 elements, its shape needs 2");
  CHECK(error_of("%0 = $Const() : qu8[1] data=[300]\n") ==
        "bad.ogt:1:30: error: element 300 out of range for qu8");
  CHECK(error_of("Input()\n") == "bad.ogt:1:1: error: expected '%' to start an op definition '%N = Name(...)', found 'I'");
  CHECK(error_of("%0 = Input() : f32[1\n") == "bad.ogt:1:21: error: expected ']' to close the shape, found end of line");
  CHECK(error_of("option x double 1\n") == "bad.ogt:1:10: error: unknown option type 'double' (int, uint, float, bool, string)");
  CHECK(error_of("%0 = Input() : f32[1]\n%0 = Input() : f32[1]\n") == "bad.ogt:2:1: error: op %0 is defined twice");
  // A float too large for f32 is an error, not a silent infinity.
  CHECK(error_of("%0 = $Const() : f32[2] data=[1, 1e39]\n") == "bad.ogt:1:33: error: '1e39' is out of range for a float element");
  CHECK(error_of("option x float 1e999\n") == "bad.ogt:1:16: error: '1e999' is out of range for a float value");
}

TEST_CASE("graph text rejects what it cannot represent, at the line and column") {
  auto error_of = [](const std::string& text) {
    try {
      from_text(text, "big.ogt");
    } catch (const TextError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // The reported crash: a constant whose element count wrapped to 0 (2^32 * 2^32) was accepted
  // with no data.
  CHECK(error_of("%0 = $Const() : f32[4294967296,4294967296] data=[]\n") ==
        "big.ogt:1:21: error: dimension 4294967296 exceeds 2147483647");
  CHECK(error_of("%0 = Input() : f32[1, 2147483648]\n") == "big.ogt:1:23: error: dimension 2147483648 exceeds 2147483647");
  CHECK(error_of("%0 = Input() : f32[1, 2147483647]\n") == "no error");
  // Dims within the limit whose byte size passes 2^48; a zero dim does not hide the others.
  CHECK(error_of("%0 = Input() : f32[65536,65536,65536]\n") ==
        "big.ogt:1:16: error: shape cannot be represented: the byte size exceeds 2^48");
  CHECK(error_of("%0 = $Const() : f32[0,65536,65536,65536] data=[]\n") ==
        "big.ogt:1:17: error: shape cannot be represented: the byte size exceeds 2^48");
  CHECK(error_of("%0 = Input() : qu8[65536,65536,65536]\n") == "no error");  // exactly 2^48 bytes
  CHECK(error_of("%0 = Input() : f32[1,1,1,1,1,1,1,1,1]\n") == "big.ogt:1:36: error: more than 8 dimensions");
  CHECK(error_of("%0 = Input() : f32[18446744073709551616]\n") ==
        "big.ogt:1:20: error: expected a dimension, found '18446744073709551616'");
  CHECK(error_of("%0 = Input() : f32[1] id=4294967296\n") == "big.ogt:1:26: error: op id 4294967296 does not fit in 32 bits");
  CHECK(error_of("%0 = Input() : f32[1] id=4294967295\n") == "no error");
  // 65535 inputs fit the record; the 65536th is an error at its column.
  std::string wide = "%0 = Input() : f32[1]\n%1 = Concat(%0";
  for (int i = 1; i < 65535; ++i) wide += ",%0";
  CHECK(error_of(wide + ") : f32[65535]\n") == "no error");
  CHECK(error_of(wide + ",%0) : f32[65536]\n") == "big.ogt:2:" + std::to_string(13 + 2 + 3 * 65534 + 1) + ": error: an op may have at most 65535 inputs");
}

TEST_CASE("the reader gives each op line, and verify the op of each problem") {
  std::vector<int> lines;
  Graph g = from_text("# comment\n%0 = Input() : qu8[1]{zero=300,step=1}\n\n%1 = Output(%0, %0) : qu8[1]{zero=300,step=1}\n",
                      "u.ogt", &lines);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == 2);
  CHECK(lines[1] == 4);
  std::vector<OpRef> where;
  auto problems = verify(g, &where);
  REQUIRE(problems.size() == where.size());
  REQUIRE(problems.size() == 3);
  CHECK(where[0].index == 0);
  CHECK(where[2].index == 1);
  CHECK(problems[2] == "%1: Output has 2 inputs, but must have exactly one");
  // A graph built in code with a shape the text reader would reject.
  Graph h;
  OutputDef d = f32({1 << 20, 1 << 20, 1 << 20});
  h.add_output(h.add_input(d));
  where.clear();
  problems = verify(h, &where);
  REQUIRE(!problems.empty());
  CHECK(problems[0] == "%0: shape cannot be represented: the byte size exceeds 2^48");
  CHECK(where[0].index == 0);
}

TEST_CASE("text format keeps the extreme floats: the largest, infinities, NaN") {
  Graph g;
  g.add_output(g.add_const(OutputDef::make(DType::Float32, {5}),
                           {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::denorm_min()}));
  const std::string t1 = to_text(g);
  Graph back = from_text(t1);
  CHECK(to_text(back) == t1);
  float p[5];
  const auto bytes = back.payload(back.input(back.live_ops().back(), 0));
  REQUIRE(bytes.size() == sizeof p);
  std::memcpy(p, bytes.data(), sizeof p);
  CHECK(p[0] == std::numeric_limits<float>::max());
  CHECK(p[3] == -std::numeric_limits<float>::infinity());
  CHECK(p[4] == std::numeric_limits<float>::denorm_min());
}

TEST_CASE("DOT output has a node per op and an edge per input") {
  Small s;
  std::ostringstream os;
  write_dot(os, s.g);
  std::string dot = os.str();
  CHECK(dot.rfind("digraph", 0) == 0);
  CHECK(dot.find("Conv2d\\n%2 f32[1,4,4,2]") != std::string::npos);
  std::size_t edges = 0;
  for (std::size_t p = dot.find("->"); p != std::string::npos; p = dot.find("->", p + 1)) ++edges;
  CHECK(edges == 4);
}

TEST_CASE("op registry records implementations, costs and flags") {
  auto* plain = OpRegistry::instance().find("TestPlainOp");
  REQUIRE(plain);
  CHECK(plain->impl_name == "impl_plain");
  CHECK(plain->cost == Cost::GLACIAL);  // DEF_PACKAGE_OP's defaults are the framework's
  CHECK(plain->flags == Flags::RESOURCE_HVX);
  auto* tmpl = OpRegistry::instance().find("TestTemplateOp");
  REQUIRE(tmpl);
  CHECK(tmpl->impl_name == "(impl_template<float>)");
  CHECK(tmpl->arity == 1);
  auto* costly = OpRegistry::instance().find("TestCostlyOp");
  REQUIRE(costly);
  CHECK(costly->cost == Cost::SNAIL);
  CHECK(costly->flags == (Flags::RESOURCE_HVX | Flags::INHIBIT_CONST_PROP));
  CHECK(Cost::FREE < Cost::FAST);
  CHECK(Cost::SNAIL < Cost::GLACIAL);
}
