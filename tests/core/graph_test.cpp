#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/graph.hpp>
#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/registry.hpp>
#include <optgrammar/core/text_io.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
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

/// A reproducible random number below n, from a 64-bit LCG.
struct Lcg {
  std::uint64_t st;
  std::uint64_t operator()(std::uint64_t n) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    return (st >> 33) % n;
  }
};

/// Requires two graphs to hold the same ops: as many slots, live ops and input records, and each
/// slot alive in both or neither, with the same name, inputs and readers (in use-list order
/// where `same_use_order`: rollback does not promise that order).
void require_same_ops(const Graph& a, const Graph& b, bool same_use_order) {
  REQUIRE(a.size() == b.size());
  REQUIRE(a.live_count() == b.live_count());
  REQUIRE(a.use_records() == b.use_records());
  for (std::uint32_t i = 0; i < a.size(); ++i) {
    const OpRef r{i};
    REQUIRE(a.alive(r) == b.alive(r));
    if (!a.alive(r)) continue;
    REQUIRE(a.name_id(r) == b.name_id(r));
    REQUIRE(a.n_inputs(r) == b.n_inputs(r));
    for (std::uint32_t k = 0; k < a.n_inputs(r); ++k) REQUIRE(a.input(r, k) == b.input(r, k));
    auto users_a = a.users(r), users_b = b.users(r);
    if (!same_use_order) {
      std::sort(users_a.begin(), users_a.end());
      std::sort(users_b.begin(), users_b.end());
    }
    REQUIRE(users_a == users_b);
  }
}

int impl_plain(int a) { return a; }
template <class T>
int impl_template(T a) {
  return static_cast<int>(a);
}
}  // namespace

DEF_PACKAGE_OP(impl_plain, "TestPlainOp")
DEF_PACKAGE_OP((impl_template<float>), "TestTemplateOp")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(impl_plain, "TestCostlyOp", SNAIL, Flags::RESOURCE_HVX, Flags::INHIBIT_CONST_PROP)

TEST_CASE("the framework's op names have their fixed ids, whatever was interned first") {
  namespace on = optgrammar::op_names;
  for (OpNameId id = 0; id < std::size(on::builtin); ++id) {
    CHECK(optgrammar::op_name_of(id) == on::builtin[id]);
    CHECK(optgrammar::intern_op_name(on::builtin[id]) == id);
  }
  CHECK(optgrammar::op_name_of(on::const_op) == "$Const");
  CHECK(optgrammar::op_name_of(on::input) == "Input");
  CHECK(optgrammar::op_name_of(on::output) == "Output");
  CHECK(optgrammar::op_name_of(on::out) == "$Out");
  CHECK(optgrammar::op_name_of(on::shape) == "$Shape");
  CHECK(optgrammar::intern_op_name("SomeOtherOp") >= std::size(on::builtin));
}

TEST_CASE("dtype element sizes and names") {
  CHECK(element_size(DType::Float32) == 4);
  CHECK(element_size(DType::Float16) == 2);
  CHECK(element_size(DType::QUInt8) == 1);
  CHECK(element_size(DType::QInt8) == 1);
  CHECK(element_size(DType::QUInt16) == 2);
  CHECK(element_size(DType::QInt16) == 2);
  CHECK(element_size(DType::QInt32) == 4);
  CHECK(element_size(DType::Int32) == 4);
  CHECK(element_size(DType::Float64) == 8);
  CHECK(element_size(DType::BFloat16) == 2);
  CHECK(element_size(DType::Int64) == 8);
  CHECK(element_size(DType::UInt64) == 8);
  CHECK(element_size(DType::Bool) == 1);
  CHECK(parse_dtype("QUInt8") == DType::QUInt8);
  CHECK(parse_dtype("qi16") == DType::QInt16);
  CHECK(parse_dtype("f64") == DType::Float64);
  CHECK(parse_dtype("Bool") == DType::Bool);
  CHECK_FALSE(parse_dtype("f128"));
  CHECK(is_quantized(DType::QInt32));
  CHECK_FALSE(is_quantized(DType::Int32));
}

TEST_CASE("reserve sizes the graph and a quarter more for rewriting, and growing past it moves the records") {
  Graph g;
  CHECK(g.op_capacity() == 0);
  g.reserve(100, 40);
  CHECK(g.op_capacity() == 125);
  const OutputDef t = OutputDef::make(DType::Float32, {1});
  const OpRef first = g.add_input(t);
  // Where the first op's record lies, as a number (the record may have moved away since). A
  // block is left only after the new one is taken, so a move always changes the address.
  const auto at = [&] { return reinterpret_cast<std::uintptr_t>(&g.op(first)); };
  const std::uintptr_t before = at();
  OpRef x = g.add_op("Relu", {first}, t);
#if defined(OPTGRAMMAR_CHECK_RECORD_MOVES)
  CHECK(at() != before);  // the check moves the records at an append although there is room
#else
  CHECK(at() == before);  // there is room: nothing moves
#endif
  for (int i = 0; i < 123; ++i) x = g.add_op("Relu", {x}, t);
  CHECK(g.size() == 125);
  CHECK(g.op_capacity() == 125);
  const std::uintptr_t full = at();
  g.add_output(x);  // the 126th op does not fit: the records move
  CHECK(at() != full);
  CHECK(g.op_capacity() > 125);
  CHECK(g.name(x) == "Relu");  // OpRefs stay good
  CHECK(g.input(x, 0).index == x.index - 1);
  CHECK(verify(g).empty());
  g.reserve(1000, 10);  // a graph with ops keeps them when its room grows
  CHECK(g.size() == 126);
  CHECK(g.op_capacity() == 1250);
  CHECK(g.name(x) == "Relu");
  CHECK(verify(g).empty());
}

TEST_CASE("a graph with room for many ops moves its records a few times per doubling under the check, never without") {
  // The text reader reserves a block for every line of a file; the check must still move the
  // records now and then (so that a stale reference is caught) without copying the whole block
  // at each of the first appends (half the time of the million-op scale test under ASan).
  Graph g;
  g.reserve(10000, 10000);
  const std::size_t room = g.op_capacity();
  const OutputDef t = OutputDef::make(DType::Float32, {1});
  const OpRef first = g.add_input(t);
  OpRef x = first;
  int moves = 0;
  for (int i = 0; i < 4095; ++i) {
    const auto* before = &g.op(first);
    x = g.add_op("Relu", {x}, t);
    if (&g.op(first) != before) ++moves;
  }
  CHECK(g.size() == 4096);
  CHECK(g.op_capacity() == room);  // no growth: every move counted is the check's
#if defined(OPTGRAMMAR_CHECK_RECORD_MOVES)
  // Every append while fewer than 4 ops, then every op in [4, 8), every other in [8, 16), and
  // four per doubling from 16 on: 3 + 4 + 4 + 4 * 8 = 43 moves of the 4,095 appends.
  CHECK(moves == 43);
#else
  CHECK(moves == 0);
#endif
  CHECK(g.name(x) == "Relu");
  CHECK(verify(g).empty());
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
  CHECK(a != b);                                    // distinct ops ...
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
  s.g.set_input(s.r, 0, n);                // rewire an existing op
  s.g.set_output(s.c, f32({1, 2, 2, 8}));  // change an existing output definition
  s.g.set_op_id(s.w, 4242);
  s.g.set_split_history(s.c, {3, 1});
  s.g.replace_all_uses(s.r, s.c);  // the graph output now reads the conv
  s.g.erase_if_dead(s.r);          // and the relu is erased
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

TEST_CASE("graph text from other editors: CR LF line ends and a UTF-8 byte order mark read as the same graph") {
  Small s;
  const std::string text = to_text(s.g);
  std::string crlf;
  for (char ch : text) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
  CHECK(to_text(from_text(crlf)) == text);
  CHECK(to_text(from_text("\xEF\xBB\xBF" + text)) == text);
  CHECK(to_text(from_text("\xEF\xBB\xBF" + crlf)) == text);
  // Columns count from after the mark; a mark anywhere else is text (and an error here).
  try {
    from_text("\xEF\xBB\xBF%0 = Input() : f128[1]\n", "bom.ogt");
    FAIL("no error");
  } catch (const TextError& e) {
    CHECK(std::string(e.what()) ==
          "bom.ogt:1:16: error: unknown dtype 'f128' (f32 f16 qu8 qi8 qu16 qi16 qi32 i32 f64 bf16 i8 u8 i16 u16 i64 "
          "u32 u64 bool)");
  }
  CHECK_THROWS_AS(from_text(text + "\xEF\xBB\xBF\n"), TextError);
}

TEST_CASE("text format writes a rewritten graph in topological order") {
  Small s;
  auto late = s.g.add_op("Neg", {s.c}, f32({1, 4, 4, 2}));
  s.g.set_input(s.r, 0, late);  // r now reads an op with a higher index
  Graph back = from_text(to_text(s.g));
  CHECK(to_text(back) == to_text(s.g));
}

TEST_CASE("a graph read from text is sized by its lines before it is read") {
  Graph g;
  const OutputDef t = f32({1, 2, 2, 1});
  OpRef x = g.add_input(t);
  for (int i = 0; i < 20000; ++i) x = g.add_op("Relu", {x}, t);
  g.add_output(x);
  const std::string text = to_text(g);
  // One op at most per line, and a quarter more for rewriting (Graph::reserve; libstdc++ and
  // libc++ reserve exactly what is asked). A graph that grew op by op has a power of two.
  const std::size_t lines = 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  Graph back = from_text(text);
  CHECK(back.size() == g.size());
  CHECK(back.op_capacity() == lines + lines / 4);
  CHECK(to_text(back) == text);
  // The stream is read from where it stands, and only that part is counted.
  std::istringstream is("not a graph\n" + text);
  std::string skipped;
  std::getline(is, skipped);
  Graph rest = read_graph_text(is);
  CHECK(to_text(rest) == text);
  CHECK(rest.op_capacity() == lines + lines / 4);  // counted from where the stream stood
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
  CHECK(error_of("%0 = Input() : f128[1]\n") ==
        "bad.ogt:1:16: error: unknown dtype 'f128' (f32 f16 qu8 qi8 qu16 qi16 qi32 i32 f64 bf16 i8 u8 i16 u16 i64 u32 "
        "u64 bool)");
  CHECK(error_of("%0 = $Const() : f32[2] data=[1]\n") ==
        "bad.ogt:1:1: error: constant %0 has 1 elements, its shape needs 2");
  CHECK(error_of("%0 = $Const() : qu8[1] data=[300]\n") == "bad.ogt:1:30: error: element 300 out of range for qu8");
  CHECK(error_of("Input()\n") ==
        "bad.ogt:1:1: error: expected '%' to start an op definition '%N = Name(...)', found 'I'");
  CHECK(error_of("%0 = Input() : f32[1\n") ==
        "bad.ogt:1:21: error: expected ']' to close the shape, found end of line");
  CHECK(error_of("option x double 1\n") ==
        "bad.ogt:1:10: error: unknown option type 'double' (int, uint, float, bool, string)");
  CHECK(error_of("%0 = Input() : f32[1]\n%0 = Input() : f32[1]\n") == "bad.ogt:2:1: error: op %0 is defined twice");
  // A float too large for f32 is an error, not a silent infinity.
  CHECK(error_of("%0 = $Const() : f32[2] data=[1, 1e39]\n") ==
        "bad.ogt:1:33: error: '1e39' is out of range for a float element");
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
  CHECK(error_of("%0 = Input() : f32[1, 2147483648]\n") ==
        "big.ogt:1:23: error: dimension 2147483648 exceeds 2147483647");
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
  CHECK(error_of("%0 = Input() : f32[1] id=4294967296\n") ==
        "big.ogt:1:26: error: op id 4294967296 does not fit in 32 bits");
  CHECK(error_of("%0 = Input() : f32[1] id=4294967295\n") == "no error");
  // 65535 inputs fit the record; the 65536th is an error at its column.
  std::string wide = "%0 = Input() : f32[1]\n%1 = Concat(%0";
  for (int i = 1; i < 65535; ++i) wide += ",%0";
  CHECK(error_of(wide + ") : f32[65535]\n") == "no error");
  CHECK(error_of(wide + ",%0) : f32[65536]\n") ==
        "big.ogt:2:" + std::to_string(13 + 2 + 3 * 65534 + 1) + ": error: an op may have at most 65535 inputs");
}

TEST_CASE("the reader gives each op line, and verify the op of each problem") {
  std::vector<int> lines;
  Graph g =
      from_text("# comment\n%0 = Input() : qu8[1]{zero=300,step=1}\n\n%1 = Output(%0, %0) : qu8[1]{zero=300,step=1}\n",
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
  g.add_output(g.add_const(
      OutputDef::make(DType::Float32, {5}),
      {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity(),
       -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()}));
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

TEST_CASE("text format keeps every element of the plain types: 64-bit extremes, bool, double, bfloat16 bits") {
  Graph g;
  auto add = [&](DType t, std::initializer_list<std::size_t> dims, const auto& values) {
    std::vector<std::byte> b(sizeof values);
    std::memcpy(b.data(), &values, sizeof values);
    g.add_output(g.add_const(OutputDef::make(t, dims), b));
  };
  add(DType::Int64, {2}, std::array<std::int64_t, 2>{INT64_MIN, INT64_MAX});
  add(DType::UInt64, {1}, std::array<std::uint64_t, 1>{UINT64_MAX});
  add(DType::Bool, {2}, std::array<std::uint8_t, 2>{0, 1});
  add(DType::Float64, {2}, std::array<double, 2>{0.1, -1e300});
  add(DType::BFloat16, {1}, std::array<std::uint16_t, 1>{0x3F81});
  add(DType::Int8, {1}, std::array<std::int8_t, 1>{-128});
  add(DType::UInt32, {1}, std::array<std::uint32_t, 1>{4294967295u});
  const std::string t1 = to_text(g);
  CHECK(t1.find("data=[-9223372036854775808,9223372036854775807]") != std::string::npos);
  CHECK(t1.find("data=[18446744073709551615]") != std::string::npos);
  CHECK(t1.find("data=[0x3f81]") != std::string::npos);
  Graph back = from_text(t1);
  CHECK(to_text(back) == t1);
  // An element out of its type's range is refused at its column.
  CHECK_THROWS_WITH(from_text("%0 = $Const() : bool[1] data=[2]\n"),
                    Catch::Contains("element 2 out of range for bool"));
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

TEST_CASE("erased ops' input records serve new ops, and the use lists stay right") {
  Graph g;
  const OutputDef t = f32({1, 2, 2, 1});
  OpRef x = g.add_input(t);
  OpRef a = g.add_op("Relu", {x}, t);
  OpRef b = g.add_op("Add", {a, x}, t);
  OpRef c = g.add_op("Mul", {b, a}, t);
  OpRef out = g.add_output(c);
  const std::size_t records = g.use_records();  // 1 + 2 + 2 + 1
  CHECK(records == 6);
  // Bypass b and c: the output reads a; c, then b, are erased (4 records free, side by side).
  g.replace_all_uses(c, a);
  CHECK(g.erase_if_dead(c) == 2);
  // An op of three inputs fits in them: nothing is appended.
  OpRef d = g.add_op("Concat", {a, x, a}, t);
  CHECK(g.use_records() == records);
  CHECK(g.input(d, 0) == a);
  CHECK(g.input(d, 1) == x);
  CHECK(g.input(d, 2) == a);
  g.set_input(out, 0, d);
  CHECK(g.users(d) == std::vector<OpRef>{out});
  CHECK(g.n_uses(a) == 2);
  CHECK(verify(g).empty());
  // One record is left: a one-input op takes it, a two-input op is appended.
  OpRef e = g.add_op("Relu", {d}, t);
  CHECK(g.use_records() == records);
  OpRef f = g.add_op("Add", {e, d}, t);
  CHECK(g.use_records() == records + 2);
  CHECK(verify(g).empty());
  CHECK(g.erase_if_dead(f) == 2);  // f, then e
  CHECK(verify(g).empty());
}

TEST_CASE("no record is reused while a checkpoint is open, and rollback stays exact") {
  Graph g;
  const OutputDef t = f32({1, 2, 2, 1});
  OpRef x = g.add_input(t);
  OpRef a = g.add_op("Relu", {x}, t);
  OpRef b = g.add_op("Relu", {a}, t);
  OpRef out = g.add_output(b);
  g.replace_all_uses(b, a);
  CHECK(g.erase_if_dead(b) == 1);  // b's record is free
  const std::size_t records = g.use_records();
  auto cp = g.checkpoint();
  OpRef c = g.add_op("Relu", {a}, t);  // appended, not reused: rollback truncates
  CHECK(g.use_records() == records + 1);
  g.set_input(out, 0, c);
  CHECK(g.erase_if_dead(a) == 0);  // still read by c
  g.rollback(cp);
  CHECK(g.use_records() == records);
  CHECK(g.input(out, 0) == a);
  CHECK(g.users(a) == std::vector<OpRef>{out});
  CHECK(verify(g).empty());
  // After the checkpoint the free record serves again.
  OpRef d = g.add_op("Relu", {a}, t);
  CHECK(g.use_records() == records);
  CHECK(g.input(d, 0) == a);
  CHECK(verify(g).empty());
}

TEST_CASE("random edits with record reuse keep the graph consistent") {
  // Ops are added with random inputs, bypassed and erased, some steps inside a checkpoint that
  // is rolled back or committed; after every step the verifier checks use lists against input
  // slots, and every op still reads the inputs it was made with.
  Lcg rnd{12345};
  const OutputDef t = f32({1, 2, 2, 1});
  Graph g;
  std::vector<OpRef> live{g.add_input(t)};
  std::vector<std::vector<OpRef>> made_with;
  made_with.resize(1);
  auto sweep_live = [&] {
    std::vector<OpRef> keep;
    for (OpRef r : live)
      if (g.alive(r)) keep.push_back(r);
    live = keep;
  };
  for (int step = 0; step < 3000; ++step) {
    const bool in_cp = rnd(8) == 0;
    Graph::Checkpoint cp{};
    if (in_cp) cp = g.checkpoint();
    const Graph copy_for_rollback = in_cp ? g : Graph{};
    const std::uint64_t what = rnd(3);
    if (what < 2 || live.size() < 3) {
      std::vector<OpRef> in;
      for (std::uint64_t k = 0, n = 1 + rnd(4); k < n; ++k) in.push_back(live[rnd(live.size())]);
      OpRef r = g.add_op(intern_op_name("Op"), std::span<const OpRef>(in), t);
      if (made_with.size() <= r.index) made_with.resize(r.index + 1);
      made_with[r.index] = in;
      live.push_back(r);
    } else {
      // Bypass a random non-input op by one of its inputs, then remove what became dead.
      OpRef r = live[1 + rnd(live.size() - 1)];
      OpRef by = g.input(r, 0);
      g.replace_all_uses(r, by);
      for (std::uint32_t i = 0; i < g.size(); ++i)
        if (made_with.size() > i)
          for (std::uint32_t k = 0; k < made_with[i].size(); ++k)
            if (made_with[i][k] == r) made_with[i][k] = by;
      g.erase_if_dead(r);
    }
    if (in_cp) {
      if (rnd(2) == 0) {
        g.rollback(cp);
        require_same_ops(g, copy_for_rollback, false);
        // The model follows the restored graph.
        for (std::uint32_t i = 0; i < g.size(); ++i)
          if (g.alive(OpRef{i}) && i < made_with.size() && !made_with[i].empty())
            for (std::uint32_t k = 0; k < g.n_inputs(OpRef{i}); ++k) made_with[i][k] = g.input(OpRef{i}, k);
        live.clear();
        for (std::uint32_t i = 0; i < g.size(); ++i)
          if (g.alive(OpRef{i})) live.push_back(OpRef{i});
      } else {
        g.commit(cp);
      }
    }
    sweep_live();
    const auto problems = verify(g);
    REQUIRE(problems.empty());
    for (OpRef r : live) {
      if (r.index >= made_with.size() || made_with[r.index].empty()) continue;
      REQUIRE(g.n_inputs(r) == made_with[r.index].size());
      for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) REQUIRE(g.input(r, k) == made_with[r.index][k]);
    }
  }
  // Records were reused: far fewer than one per input ever made.
  std::size_t inputs_made = 0;
  for (const auto& m : made_with) inputs_made += m.size();
  CHECK(g.use_records() < inputs_made);
}

TEST_CASE("reform turns an op into a new one in its own slot and erases what it no longer reads") {
  Graph g;
  const OutputDef t = f32({1, 2, 2, 1});
  OpRef x = g.add_input(t);
  OpRef w = g.add_const(f32({1, 1, 1, 1}), {2.0f});
  OpRef b = g.add_const(f32({1, 1, 1, 1}), {1.0f});
  OpRef conv = g.add_op("Conv2d", {x, w}, t);
  OpRef bias = g.add_op("BiasAdd", {conv, b}, t);
  OpRef relu = g.add_op("Relu", {bias}, t);
  g.set_op_id(relu, 77);
  OpRef out = g.add_output(relu);
  const std::size_t slots = g.size(), records = g.use_records(), live = g.live_count();
  const OpRef in[] = {x, w, b};
  const OpNameId cbr = intern_op_name("ConvBiasRelu");
  REQUIRE(g.can_reform(relu, cbr, in));
  CHECK(g.reform(relu, cbr, in, g.output_index(relu), 77) == 2);  // bias, then conv
  CHECK(g.size() == slots);
  CHECK(g.alive(relu));
  CHECK(g.name(relu) == "ConvBiasRelu");
  CHECK(g.op_id(relu) == 77);
  CHECK(g.n_inputs(relu) == 3);
  CHECK((g.input(relu, 0) == x && g.input(relu, 1) == w && g.input(relu, 2) == b));
  CHECK_FALSE(g.alive(bias));
  CHECK_FALSE(g.alive(conv));
  CHECK(g.live_count() == live - 2);
  CHECK(g.users(relu) == std::vector<OpRef>{out});  // the reader kept its record
  CHECK(g.users(w) == std::vector<OpRef>{relu});
  CHECK(g.users(x) == std::vector<OpRef>{relu});
  CHECK(verify(g).empty());
  CHECK(g.remove_dead() == 0);
  // The three new records were appended (nothing was free yet); the five the old ops read
  // through are one free run now, and a new op takes its records from it.
  CHECK(g.use_records() == records + 3);
  OpRef later = g.add_op("Concat", {relu, x, w, b, relu}, t);
  CHECK(g.use_records() == records + 3);
  CHECK(g.input(later, 4) == relu);
  CHECK(verify(g).empty());
}

TEST_CASE("reform is refused where it would break topological order, a checkpoint or the interface") {
  Small s;
  const OpNameId neg = intern_op_name("Neg");
  const OpRef x[] = {s.x}, self[] = {s.r}, after[] = {s.out};
  CHECK(s.g.can_reform(s.r, neg, x));
  CHECK_FALSE(s.g.can_reform(s.r, neg, self));            // r cannot read itself
  CHECK_FALSE(s.g.can_reform(s.r, neg, after));           // an input after r
  CHECK_FALSE(s.g.can_reform(s.r, op_names::output, x));  // a graph output is never made in place
  CHECK_FALSE(s.g.can_reform(s.out, neg, x));             // nor a graph output turned into an op
  auto cp = s.g.checkpoint();
  CHECK_FALSE(s.g.can_reform(s.r, neg, x));  // rollback could not undo it
  s.g.commit(cp);
  CHECK(s.g.can_reform(s.r, neg, x));
}

TEST_CASE("random reforms keep the graph consistent and erase exactly what they leave unread") {
  // A random graph; random ops are turned into new ops over random earlier live ops. After each
  // step the verifier checks use lists against input slots, every op reads what it was last
  // made with, and an op that was read before the step and is not now is erased.
  Lcg rnd{777};
  const OutputDef t = f32({1, 2, 2, 1});
  Graph g;
  std::vector<std::vector<OpRef>> made_with(1);
  g.add_input(t);
  for (int i = 0; i < 400; ++i) {
    std::vector<OpRef> in;
    for (std::uint64_t k = 0, n = 1 + rnd(3); k < n; ++k) {
      OpRef v{static_cast<std::uint32_t>(rnd(g.size()))};
      in.push_back(v);
    }
    bool all_alive = true;
    for (OpRef v : in) all_alive = all_alive && g.alive(v);
    if (!all_alive) continue;
    OpRef r = g.add_op(intern_op_name("Op"), std::span<const OpRef>(in), t);
    made_with.resize(r.index + 1);
    made_with[r.index] = in;
  }
  std::size_t reformed = 0, erased = 0;
  for (int step = 0; step < 2000; ++step) {
    const OpRef r{static_cast<std::uint32_t>(1 + rnd(g.size() - 1))};
    if (!g.alive(r) || r.index < 2) continue;
    std::vector<OpRef> in;
    for (std::uint64_t k = 0, n = rnd(4); k < n; ++k) {
      const OpRef v{static_cast<std::uint32_t>(rnd(r.index))};
      if (g.alive(v)) in.push_back(v);
    }
    std::vector<bool> read_before(g.size()), alive_before(g.size());
    for (std::uint32_t i = 0; i < g.size(); ++i) {
      alive_before[i] = g.alive(OpRef{i});
      read_before[i] = alive_before[i] && g.n_uses(OpRef{i}) > 0;
    }
    const std::size_t live = g.live_count();
    const OpNameId name = intern_op_name(rnd(2) ? "Op" : "Other");
    REQUIRE(g.can_reform(r, name, in));
    const std::size_t n = g.reform(r, name, in, g.output_index(r), static_cast<std::uint32_t>(g.op_id(r)));
    ++reformed;
    erased += n;
    made_with[r.index] = in;
    REQUIRE(g.live_count() == live - n);
    REQUIRE(g.alive(r));
    REQUIRE(g.name_id(r) == name);
    REQUIRE(verify(g).empty());
    for (std::uint32_t i = 0; i < g.size(); ++i) {
      const OpRef o{i};
      if (read_before[i] && !g.is_root(o)) REQUIRE((g.n_uses(o) > 0 || !g.alive(o)));
      if (alive_before[i] && !g.alive(o)) REQUIRE(read_before[i]);  // only what lost its readers goes
      if (!g.alive(o) || i >= made_with.size() || made_with[i].empty()) continue;
      REQUIRE(g.n_inputs(o) == made_with[i].size());
      for (std::uint32_t k = 0; k < g.n_inputs(o); ++k) REQUIRE(g.input(o, k) == made_with[i][k]);
    }
  }
  CHECK(reformed > 500);
  CHECK(erased > 50);
}

namespace {
// Input trees a caller can know (Graph's KnownShape): root(inner(x, p), q), as a match of
// Transpose(Transpose(x, p), q) gives it, and root(bias(conv(x, w), b)), as
// Relu(BiasAdd(Conv2d(x, w), b)) does.
using PairShape = KnownShape<KnownShape<UnknownShape, KnownShape<>>, KnownShape<>>;
using ChainShape = KnownShape<KnownShape<KnownShape<UnknownShape, UnknownShape>, UnknownShape>>;

/// Everything two graphs must agree on after the same edit: each slot's life, name, inputs and
/// readers in use-list order, the counts, and where the next ops' input records go.
void require_same_graph(Graph& a, Graph& b) {
  require_same_ops(a, b, true);
  REQUIRE(verify(a).empty());
  const OpRef any = a.live_ops().front();
  const OutputDef t = a.output(any);
  for (std::size_t n = 1; n <= 3; ++n) {
    const std::vector<OpRef> in(n, any);
    const OpRef ra = a.add_op(intern_op_name("Later"), std::span<const OpRef>(in), t);
    const OpRef rb = b.add_op(intern_op_name("Later"), std::span<const OpRef>(in), t);
    REQUIRE(a.op(ra).first_input == b.op(rb).first_input);
  }
  REQUIRE(a.remove_dead() == b.remove_dead());
}

/// A random graph with a root of the given shape: the ops of its input tree are new or shared
/// with other readers, the leaves any earlier op (a graph input too), a leaf with no inputs
/// sometimes the same op in two slots. Returns the root.
template <class Shape>
OpRef shaped_root(Graph& g, Lcg& rnd);

template <>
OpRef shaped_root<PairShape>(Graph& g, Lcg& rnd) {
  const OutputDef t = f32({1, 2, 2, 1});
  auto earlier = [&] {  // a live op (the graph's first ops are inputs, never erased)
    for (;;)
      if (const OpRef o{static_cast<std::uint32_t>(rnd(g.size()))}; g.alive(o)) return o;
  };
  auto leaf = [&] {  // an op with no inputs: a new constant, or a graph input or constant there is
    for (int tries = 0; tries < 4 && rnd(2); ++tries)
      if (const OpRef o = earlier(); g.n_inputs(o) == 0) return o;
    return g.add_const(f32({1, 1, 1, 1}), {static_cast<float>(rnd(100))});
  };
  const OpRef x = earlier(), p = leaf();
  const OpRef q = rnd(4) == 0 ? p : leaf();
  const OpRef inner = g.add_op("Pair", {x, p}, t);
  if (rnd(4) == 0) g.add_op("Reader", {inner}, t);
  if (rnd(4) == 0) g.add_op("Reader", {p}, t);
  return g.add_op("Pair", {inner, q}, t);
}

template <>
OpRef shaped_root<ChainShape>(Graph& g, Lcg& rnd) {
  const OutputDef t = f32({1, 2, 2, 1});
  auto earlier = [&] {  // a live op (the graph's first ops are inputs, never erased)
    for (;;)
      if (const OpRef o{static_cast<std::uint32_t>(rnd(g.size()))}; g.alive(o)) return o;
  };
  const OpRef x = earlier(), w = rnd(4) == 0 ? x : earlier(), b = earlier();
  const OpRef conv = g.add_op("Conv", {x, w}, t);
  if (rnd(4) == 0) g.add_op("Reader", {conv}, t);
  const OpRef bias = g.add_op("Bias", {conv, b}, t);
  if (rnd(4) == 0) g.add_op("Reader", {bias}, t);
  return g.add_op("Fused", {bias}, t);
}

template <class Shape>
void check_shaped_edits(std::uint64_t seed) {
  Lcg rnd{seed};
  const OutputDef t = f32({1, 2, 2, 1});
  for (int round = 0; round < 300; ++round) {
    Graph g;
    g.add_input(t);
    g.add_input(t);
    g.add_const(f32({1, 1, 1, 1}), {1.0f});
    for (int i = 0, n = static_cast<int>(rnd(8)); i < n; ++i) {
      std::vector<OpRef> in;
      for (std::uint64_t k = 0, m = 1 + rnd(3); k < m; ++k)
        in.push_back(OpRef{static_cast<std::uint32_t>(rnd(g.size()))});
      g.add_op(intern_op_name("Op"), std::span<const OpRef>(in), t);
    }
    if (rnd(2)) g.remove_dead();  // free records (the hole the edit's free runs extend or not)
    const OpRef root = shaped_root<Shape>(g, rnd);
    for (std::uint64_t k = 0, m = rnd(3); k < m; ++k) {
      if (rnd(3) == 0)
        g.add_output(root);
      else
        g.add_op("Reader", {root}, t);
    }
    INFO("seed " << seed << " round " << round);
    auto earlier_live = [&] {
      for (;;)
        if (const OpRef o{static_cast<std::uint32_t>(rnd(root.index))}; g.alive(o)) return o;
    };
    {  // a bypass by an earlier op (in the tree or not)
      const OpRef with = earlier_live();
      Graph shaped = g, general = g;
      std::vector<OpRef> touched_s, touched_g;
      const std::size_t ns =
          shaped.replace_and_erase<true, Shape>(root, with, [&](OpRef u) { touched_s.push_back(u); });
      const std::size_t ng =
          general.replace_and_erase<true, UnknownShape>(root, with, [&](OpRef u) { touched_g.push_back(u); });
      REQUIRE(ns == ng);
      REQUIRE(touched_s == touched_g);
      require_same_graph(shaped, general);
    }
    {  // a re-forming over earlier ops
      std::vector<OpRef> in;
      for (std::uint64_t k = 0, m = rnd(4); k < m; ++k) in.push_back(earlier_live());
      const OpNameId name = intern_op_name("Made");
      REQUIRE(g.can_reform(root, name, in));  // (the inputs come before the root, no checkpoint is open)
      Graph shaped = g, general = g;
      const std::size_t ns = shaped.reform<Shape>(root, name, in, shaped.output_index(root), 5);
      const std::size_t ng = general.reform<UnknownShape>(root, name, in, general.output_index(root), 5);
      REQUIRE(ns == ng);
      require_same_graph(shaped, general);
    }
  }
}
}  // namespace

TEST_CASE("an edit told its root's input tree erases what the general walk erases, in its order") {
  // Graph::replace_and_erase and Graph::reform unroll the erasure over a KnownShape; the graph
  // after it (the records they free and reuse included) must be the one the general walk gives.
  check_shaped_edits<PairShape>(2024);
  check_shaped_edits<ChainShape>(99);
}
