// Unit tests of og-parse's library: constants and the canonical form, JSON, declarations,
// annotations across files, options, and robustness against hostile input.
#include "../dsl/expansion_text.hpp"

#include <og_parse/og_parse.hpp>
#include <optgrammar/dsl/canonical.hpp>
#include <optgrammar/dsl/grammar.hpp>
#include <optgrammar/dsl/typing.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Parsed {
  std::unique_ptr<og_parse::Session> s;
  std::vector<std::string> canonical;
  std::vector<std::string> diags;
};

Parsed parse(const std::string& text, og_parse::Options o = {}) {
  Parsed p;
  p.s = std::make_unique<og_parse::Session>(o);
  p.s->add_source("t.cpp", text);
  p.s->run();
  for (const auto& r : p.s->rules())
    if (r.valid) p.canonical.push_back(p.s->canonical(r));
  for (const auto& d : p.s->diagnostics()) p.diags.push_back(p.s->format(d));
  return p;
}

/// The canonical constraint of a one-rule file whose match is Op("A", "x").
std::string constraint_of(const std::string& c) {
  auto p = parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), " + c + ", Op(\"B\", \"x\"))\n");
  INFO(c);
  for (const auto& d : p.diags) INFO(d);
  REQUIRE(p.canonical.size() == 1);
  const std::string& r = p.canonical[0];
  const std::string head = "DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"A\",\"x\"),";
  const std::string tail = ",Op(\"B\",\"x\"))";
  REQUIRE(r.rfind(head, 0) == 0);
  return r.substr(head.size(), r.size() - head.size() - tail.size());
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

}  // namespace

TEST_CASE("integer constants print as their decimal value, size ones with U", "[canonical]") {
  CHECK(constraint_of("EQ(12, 0x10)") == "EQ(12,16)");
  CHECK(constraint_of("EQ(-3, 7L)") == "EQ(-3,7)");
  CHECK(constraint_of("EQ(12u, 12UL)") == "EQ(12U,12U)");
  CHECK(constraint_of("EQ(0b101, 017)") == "EQ(5,15)");
  CHECK(constraint_of("EQ(1'000, +2)") == "EQ(1000,2)");
  CHECK(constraint_of("EQ(-2147483648, 2147483647)") == "EQ(-2147483648,2147483647)");
  CHECK(constraint_of("EQ(18446744073709551615u, 0)") == "EQ(18446744073709551615U,0)");
}

TEST_CASE("float constants print rounded to float with %.9g and an f", "[canonical]") {
  // (the library's printer, which og-parse prints with)
  const auto text = [](double v) {
    std::string s;
    optgrammar::dsl::print_float(s, v);
    return s;
  };
  CHECK(text(0.5) == "0.5f");
  CHECK(text(1.0) == "1.0f");
  CHECK(text(-1.331e-2) == "-0.0133100003f");
  CHECK(text(1e20) == "1.00000002e+20f");
  CHECK(constraint_of("LT(1.f, -1.331e-2)") == "LT(1.0f,-0.0133100003f)");
  CHECK(constraint_of("LT(.5, 3e2)") == "LT(0.5f,300.0f)");
  CHECK(constraint_of("LT(0x1p-2, 2.5F)") == "LT(0.25f,2.5f)");
  CHECK(constraint_of("LT(NEG_INF, INF)") == "LT(NEG_INF,INF)");
}

TEST_CASE("bool and dtype constants, functional casts", "[canonical]") {
  CHECK(constraint_of("AND(OK, true, false)") == "AND(true,true,false)");
  CHECK(constraint_of("EQ(DTYPE_OF(\"x\"), DType::QUInt8)") == "EQ(DTYPE_OF(\"x\"),DType::QUInt8)");
  CHECK(constraint_of("GT(RANK_OF(\"x\"), size_t(CHANNEL_SPLIT_SIZE))") == "GT(RANK_OF(\"x\"),256U)");
  CHECK(constraint_of("GT(RANK_OF(\"x\"), int(2.9))") == "GT(RANK_OF(\"x\"),2)");
  CHECK(constraint_of("GT(STEPSIZE_OF(\"x\"), float(3))") == "GT(STEPSIZE_OF(\"x\"),3.0f)");
}

TEST_CASE("adjacent strings concatenate, also across comments and macro expansions", "[canonical]") {
  auto p = parse(
      "#define SUFFIX \".opt\"\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op(\"Re\" /* c */ \"lu\", \"x\"), OK, Op(\"Relu\" SUFFIX, "
      "Operand(\"x\")))\n");
  REQUIRE(p.canonical.size() == 1);
  CHECK(p.canonical[0] == "DEF_PACKAGE_OPTIMIZATION(EARLY+1,Op(\"Relu\",\"x\"),true,Op(\"Relu.opt\",\"x\"))");
}

TEST_CASE("pass specs: names, offsets and priorities", "[pass]") {
  auto p = parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op(\"A\", \"x\"), OK, Op(\"B\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op(\"A\", \"x\"), OK, Op(\"C\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(LATE-2, Op(\"A\", \"x\"), OK, Op(\"D\", \"x\"))\n");
  const auto& r = p.s->rules();
  REQUIRE(r.size() == 3);
  CHECK(r[0].pass.name == "EARLY");
  CHECK(r[0].pass.offset == 1);
  CHECK(r[0].pass.priority == 3051);
  CHECK(r[1].pass.priority == 50);
  CHECK(r[2].pass.offset == -2);
  CHECK(r[2].pass.priority == 21048);
  CHECK(p.canonical[2].rfind("DEF_PACKAGE_OPTIMIZATION(LATE-2,", 0) == 0);
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0] ==
        "t.cpp:3:30: warning: 'LATE - 2' is outside the grammar (a pass spec is NAME or NAME + N); accepted");
}

TEST_CASE("JSON: every rule with file, line, pass and typed trees, and the declarations", "[json]") {
  const std::string text =
      "// :::EXTERNAL_SHAPEFN::: { QuickShape half(Replacement &, OpRef const &); }\n"
      "DEF_PACKAGE_OP((impl<float, 2>), \"Half\")\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(impl2, \"Half.q\", SNAIL, Flags::IS_CONST, RESOURCE_HVX)\n"
      "DEF_TENSOR_PROPERTIES(Op(\"Half\", \"in\"), Flat(\"*\", \"in\"), Tcm(\"in\"))\n"
      "DEF_PACKAGE_PARAM_ORDER(\"Half\", \"axis\", false, 3)\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY + 1,\n"
      "    Op(\"Half\", \"x\"),\n"
      "    GT(DIM_WIDTH(\"x\"), 32),\n"
      "    WITH_SIZE(SHAPEFN_APPLY(half, \"x\"), Op(\"Half.q\", \"x\")))\n";
  auto p = parse(text);
  CHECK(p.diags.empty());
  const nlohmann::json j = p.s->to_json();
  REQUIRE(j["rules"].size() == 1);
  const auto& r = j["rules"][0];
  CHECK(r["file"] == "t.cpp");
  CHECK(r["line"] == 6);
  CHECK(r["pass"]["name"] == "EARLY");
  CHECK(r["pass"]["offset"] == 1);
  CHECK(r["pass"]["priority"] == 3051);
  CHECK(r["match"]["node"] == "call");
  CHECK(r["match"]["name"] == "Op");
  CHECK(r["match"]["type"] == "pattern");
  CHECK(r["match"]["args"][0]["type"] == "opstring");
  CHECK(r["match"]["args"][1]["type"] == "tag");
  const auto& c = r["constraint"];
  CHECK(c["name"] == "GT");
  CHECK(c["type"] == "bool");
  CHECK(c["args"][0]["name"] == "DIM_OF");
  CHECK(c["args"][0]["type"] == "size");
  CHECK(c["args"][0]["args"][1]["value"] == 2);
  CHECK(c["args"][1]["node"] == "integer");
  CHECK(c["args"][1]["type"] == "int");
  const auto& rp = r["replacement"];
  CHECK(rp["name"] == "WITH_SIZE");
  CHECK(rp["type"] == "op");
  CHECK(rp["args"][0]["type"] == "shape");
  CHECK(rp["args"][0]["args"][0]["type"] == "function");
  CHECK(r["canonical"] == p.canonical[0]);
  REQUIRE(j["ops"].size() == 2);
  CHECK(j["ops"][0]["function"] == "impl<float, 2>");
  CHECK(j["ops"][0]["op"] == "Half");
  CHECK(j["ops"][1]["cost"] == "SNAIL");
  CHECK(j["ops"][1]["flags"] == nlohmann::json({"IS_CONST", "RESOURCE_HVX"}));
  REQUIRE(j["tensor_properties"].size() == 1);
  CHECK(j["tensor_properties"][0]["properties"][0]["name"] == "Flat");
  CHECK(j["tensor_properties"][0]["properties"][0]["operands"] == nlohmann::json({"*", "in"}));
  REQUIRE(j["param_orders"].size() == 1);
  CHECK(j["param_orders"][0]["params"][0]["name"] == "axis");
  CHECK(j["param_orders"][0]["params"][0]["mandatory"] == false);
  CHECK(j["param_orders"][0]["params"][0]["default"] == "3");
  REQUIRE(j["shape_functions"].size() == 1);
  CHECK(j["shape_functions"][0]["name"] == "half");
  CHECK(j["shape_functions"][0]["return_type"] == "QuickShape");
  CHECK(j["shape_functions"][0]["params"].size() == 2);
  CHECK(j["errors"] == 0);
}

TEST_CASE("tensor properties of a multi-output op: Outputs(...) names its outputs", "[decl]") {
  auto ok = parse(
      "DEF_TENSOR_PROPERTIES(Op(\"Gen\", \"a\", \"b\"), Outputs(\"lo\", \"hi\"), Flat(\"lo\", \"a\"), "
      "MainMemory(\"hi\"))\n");
  CHECK(ok.diags.empty());
  REQUIRE(ok.s->tensor_properties().size() == 1);
  const auto& tp = ok.s->tensor_properties()[0];
  CHECK(tp.outputs == std::vector<std::string>{"lo", "hi"});
  REQUIRE(tp.properties.size() == 2);
  CHECK(tp.properties[1].second == std::vector<std::string>{"hi"});
  const auto j = nlohmann::json::parse(ok.s->to_json().dump());
  CHECK(j["tensor_properties"][0]["outputs"] == nlohmann::json({"lo", "hi"}));
  auto bad = parse(
      "DEF_TENSOR_PROPERTIES(Op(\"G\", \"a\"), Flat(\"a\"), Outputs(\"lo\"))\n"
      "DEF_TENSOR_PROPERTIES(Op(\"G\", \"a\"), Outputs(\"lo\", \"a\"))\n"
      "DEF_TENSOR_PROPERTIES(Op(\"G\", \"a\"), Outputs(\"lo\", \"lo\"))\n"
      "DEF_TENSOR_PROPERTIES(Op(\"G\", \"a\"), Outputs())\n"
      "DEF_TENSOR_PROPERTIES(Op(\"G\", \"a\"), Outputs(\"lo\"), Flat(\"hi\"))\n");
  REQUIRE(bad.diags.size() == 5);
  CHECK(bad.diags[0] ==
        "t.cpp:1:48: error: Outputs(...) names the op's outputs right after Op(...), before any tensor property");
  CHECK(bad.diags[1].find("t.cpp:2:51: error: \"a\" cannot name an output") == 0);
  CHECK(bad.diags[2].find("t.cpp:3:51: error: \"lo\" cannot name an output") == 0);
  CHECK(bad.diags[3] == "t.cpp:4:37: error: Outputs(...) names at least one output");
  CHECK(bad.diags[4].find("t.cpp:5:57: error: \"hi\" is neither an operand") == 0);
}

TEST_CASE("declaration errors", "[decl]") {
  auto p = parse(
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(f, \"A\", CHEAP)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(f, \"A\", FAST, Flags::FAST_PLEASE)\n"
      "DEF_TENSOR_PROPERTIES(Op(\"A\", \"in\"), Flat(\"out\"))\n"
      "DEF_PACKAGE_PARAM_ORDER(\"A\", \"p\", maybe, nullptr)\n");
  REQUIRE(p.diags.size() == 4);
  CHECK(p.diags[0] == "t.cpp:1:43: error: unknown cost 'CHEAP' (the costs are FREE, FAST, SNAIL, GLACIAL)");
  CHECK(p.diags[1] ==
        "t.cpp:2:49: error: unknown flag 'FAST_PLEASE' (the flags are IS_CONST, INHIBIT_CONST_PROP, RESOURCE_HVX, "
        "RESOURCE_HMX)");
  CHECK(
      p.diags[2] ==
      "t.cpp:3:43: error: \"out\" is neither an operand of Op(\"A\", ...), an output named by Outputs(...), nor \"*\"");
  CHECK(p.diags[3] == "t.cpp:4:35: error: expected true or false (is \"p\" mandatory?), found 'maybe'");
  CHECK(p.s->ops().empty());
}

TEST_CASE("annotations of one file apply to the rules of another", "[annotation]") {
  og_parse::Session s;
  s.add_source("rules.cpp",
               "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"B\", SHAPEFN_APPLY(fn, \"x\", 2, 3)))\n");
  s.add_source("fns.h", "// :::EXTERNAL_SHAPEFN::: { OpRef fn(Replacement &, OpRef, int); }\n");
  s.run();
  REQUIRE(s.diagnostics().size() == 1);
  CHECK(s.format(s.diagnostics()[0]) ==
        "rules.cpp:1:59: error: SHAPEFN_APPLY(fn, ...) passes 3 arguments but fn takes 2 after its framework "
        "parameters");
}

TEST_CASE("a function's own declaration checks its uses as an annotation would", "[annotation]") {
  // Package sources define their shape functions and constraints beside their rules, without
  // annotations: the declarations at namespace scope give the parameters (names and default
  // values left out: `is_float_scale` is a float, not a bool).
  const std::string fns =
      "namespace {\n"
      "// the split sizes\n"
      "static OpRef half_size(Replacement &rpx, OpRef const &x, int parts) { return x; }\n"
      "[[maybe_unused]] static inline bool deep_enough(Constraint &c, OpRef const &x, int depth,\n"
      "                                                float is_float_scale = 1.0f);\n"
      "}\n";
  auto p =
      parse(fns +
            "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), EXTERNAL_CONSTRAINT(deep_enough, \"x\", 32, 1.5f), "
            "Op(\"B\", SHAPEFN_APPLY(half_size, \"x\", 2, 3)))\n"
            "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A2\", \"x\"), EXTERNAL_CONSTRAINT(deep_enough, \"x\", 32), "
            "Op(\"B\", SHAPEFN_APPLY(half_size, \"x\", 2)))\n"
            "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A3\", \"x\"), EXTERNAL_CONSTRAINT(deep_enough, \"x\", 32, 2.0f), "
            "Op(\"B\", SHAPEFN_APPLY(half_size, \"x\", 2)))\n");
  REQUIRE(p.diags.size() == 2);
  CHECK(
      p.diags[0] ==
      "t.cpp:7:104: error: SHAPEFN_APPLY(half_size, ...) passes 3 arguments but half_size takes 2 after its framework "
      "parameters");
  CHECK(p.diags[1] ==
        "t.cpp:8:48: error: EXTERNAL_CONSTRAINT(deep_enough, ...) passes 2 arguments but deep_enough takes 3 after its "
        "framework parameters");
  CHECK(p.canonical.size() == 1);
  // What the reading cannot be sure of is left to the compiler: overloads, members, templates,
  // declarations inside a function or a class, and a name declared in a header not read.
  auto q = parse(
      "OpRef over(Replacement &, OpRef);\n"
      "OpRef over(Replacement &, OpRef, int);\n"
      "struct S { static OpRef inner(Replacement &rpx, OpRef x); };\n"
      "OpRef S::member(Replacement &rpx, OpRef x) { return x; }\n"
      "template <class T> OpRef tmpl(Replacement &rpx, OpRef x) { return x; }\n"
      "void f() { OpRef local(Replacement &, OpRef); }\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"B\", SHAPEFN_APPLY(over, \"x\", 1, 2, 3), "
      "SHAPEFN_APPLY(inner, \"x\", 1, 2), SHAPEFN_APPLY(member, \"x\", 1, 2), SHAPEFN_APPLY(tmpl, \"x\", 1, 2), "
      "SHAPEFN_APPLY(local, \"x\", 1, 2), SHAPEFN_APPLY(elsewhere, \"x\", 1, 2)))\n");
  CHECK(q.diags.empty());
  CHECK(q.canonical.size() == 1);
  // A header og-parse finds gives its declarations too (a package's helpers live there).
  const auto dir = std::filesystem::temp_directory_path() / ("og_parse_decl_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "helpers.h")
      << "#pragma once\nstatic OpRef split_size(Replacement &rpx, OpRef const &x, int n);\n";
  og_parse::Session hs;
  hs.add_source(
      "rules.cpp",
      "#include \"helpers.h\"\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"B\", SHAPEFN_APPLY(split_size, \"x\", 2, 3)))\n",
      (dir / "rules.cpp").string());
  hs.run();
  std::filesystem::remove_all(dir);
  REQUIRE(hs.diagnostics().size() == 1);
  CHECK(hs.format(hs.diagnostics()[0]) ==
        "rules.cpp:2:59: error: SHAPEFN_APPLY(split_size, ...) passes 3 arguments but split_size takes 2 after its "
        "framework parameters");
  // A declaration that lists a Split_Context, which only AUTOSPLIT_SHAPEFN_APPLY passes: its
  // parameters are counted as the C++ front end counts the function's.
  auto w = parse(
      "OpRef with_ctx(Replacement &rpx, Split_Context const &ctx, OpRef x);\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"B\", SHAPEFN_APPLY(with_ctx, \"x\")))\n");
  REQUIRE(w.diags.size() == 1);
  CHECK(w.diags[0] ==
        "t.cpp:2:59: error: SHAPEFN_APPLY(with_ctx, ...) passes 1 argument but with_ctx takes 2 after its framework "
        "parameters");
  // An annotation says more than a declaration: it wins.
  auto r = parse(
      "// :::EXTERNAL_SHAPEFN::: { OpRef both(Replacement &, OpRef, int, int); }\n"
      "OpRef both(Replacement &rpx, OpRef x);\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"B\", SHAPEFN_APPLY(both, \"x\", 1, 2)))\n");
  CHECK(r.diags.empty());
}

TEST_CASE("a function annotated or declared after the rules that name it checks them as one before", "[annotation]") {
  // The sources are read a construct at a time; a name that resolves differently at the end
  // makes the session read them again, every annotation known first.
  const std::string rules =
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), EXTERNAL_CONSTRAINT(late_fn, \"x\"), Op(\"B\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"C\", \"x\"), OK, Op(\"D\", SHAPEFN_APPLY(late_shape, \"x\", 3), \"x\"))\n";
  const std::string fns =
      "// :::EXTERNAL_SHAPEFN::: { QuickShape late_shape(Replacement &, OpRef const &); }\n"
      "bool late_fn(Constraint &c, OpRef const &a, int b);\n";
  const auto after = parse(rules + fns);
  const auto before = parse(fns + rules);
  const std::vector<std::string> expected = {
      "t.cpp:1:47: error: EXTERNAL_CONSTRAINT(late_fn, ...) passes 1 argument but late_fn takes 2 after its framework "
      "parameters",
      "t.cpp:2:59: error: SHAPEFN_APPLY(late_shape, ...) passes 2 arguments but late_shape takes 1 after its framework "
      "parameters"};
  CHECK(after.diags == expected);
  // the same messages with the functions first, two lines further down
  REQUIRE(before.diags.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    CHECK(before.diags[i].substr(before.diags[i].find(": error")) == expected[i].substr(expected[i].find(": error")));
  // a second declaration, after the rule, that disagrees: the function is overloaded, unchecked
  const auto overloaded =
      parse("bool late_fn(Constraint &c, OpRef const &a, int b);\n" + rules.substr(0, rules.find('\n') + 1) +
            "bool late_fn(Constraint &c, OpRef const &a);\n");
  CHECK(overloaded.diags.empty());
}

TEST_CASE("options: without keep_trees a run keeps no nodes and gives the same diagnostics", "[options]") {
  const std::string text = slurp(fs::path(OG_PARSE_TEST_DATA) / "valid" / "lint.cpp");
  og_parse::Session kept, lean({.keep_trees = false});
  kept.add_source("lint.cpp", text);
  lean.add_source("lint.cpp", text);
  kept.run();
  lean.run();
  REQUIRE(kept.diagnostics().size() >= 4);  // the file's duplicate, shadowed rules and unused tags
  REQUIRE(lean.diagnostics().size() == kept.diagnostics().size());
  for (std::size_t i = 0; i < kept.diagnostics().size(); ++i)
    CHECK(lean.format(lean.diagnostics()[i]) == kept.format(kept.diagnostics()[i]));
  REQUIRE(lean.rules().size() == kept.rules().size());
  for (std::size_t i = 0; i < lean.rules().size(); ++i) {
    CHECK(lean.rules()[i].nodes.empty());
    CHECK(!kept.rules()[i].nodes.empty());
    CHECK(lean.rules()[i].lint.match_hash == kept.rules()[i].lint.match_hash);
  }
}

TEST_CASE("options: no lint, strict", "[options]") {
  const std::string dup =
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\", \"unused\"), OK, Op(\"B\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\", \"unused\"), OK, Op(\"B\", \"x\"))\n";
  CHECK(parse(dup).diags.size() == 3);
  CHECK(parse(dup, {.strict = false, .lint = false}).diags.empty());
  const std::string nested =
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"R\", AUTOSPLIT(0, \"I\", 1, Op(\"B\", "
      "TYPICAL_SLICE(\"x\", \"I\")))))\n";
  auto lax = parse(nested);
  CHECK(lax.canonical.size() == 1);
  CHECK(lax.s->error_count() == 0);
  CHECK(lax.s->warning_count() == 1);
  auto strict = parse(nested, {.strict = true, .lint = true});
  CHECK(strict.canonical.empty());
  CHECK(strict.s->error_count() == 1);
  // A modifier over a constant construction (the SDK's Softmax example): a warning, strict an error.
  const std::string on_const =
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\", LET(\"b\", Op(\"$Const\"))), OK, "
      "Op(\"B\", \"x\", WITH_SAME_OUTPUT(\"b\", gen_ConstScalar_f32(MUL(CONSTVAL_FLOAT(\"b\", 0), 2.0f)))))\n";
  auto lax_const = parse(on_const);
  REQUIRE(lax_const.canonical.size() == 1);
  REQUIRE(lax_const.diags.size() == 1);
  CHECK(lax_const.diags[0] ==
        "t.cpp:1:110: warning: WITH_SAME_OUTPUT's last operand is a constant construction: the grammar wants an Op "
        "construction (an error in strict mode)");
  auto strict_const = parse(on_const, {.strict = true, .lint = true});
  CHECK(strict_const.canonical.empty());
  CHECK(strict_const.s->error_count() == 1);
}

TEST_CASE("a match's bare \"*\" is an anonymous wildcard, elsewhere it names the root", "[match]") {
  auto p = parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"*\", \"*\"), GT(RANK_OF(\"*\"), 1), Op(\"B\", INPUT_OF(\"*\", "
      "1)))\n");
  REQUIRE(p.canonical.size() == 1);
  CHECK(p.diags.empty());
  const auto& r = p.s->rules()[0];
  REQUIRE(r.nodes[r.match].n == 2);
  CHECK(r.nodes[r.match + 1].wildcard);
  CHECK(r.nodes[r.match + 2].wildcard);
  CHECK(r.nodes[r.constraint + 2].slot == 0);  // RANK_OF("*"): the root's slot
}

TEST_CASE("hostile input never crashes or hangs", "[robustness]") {
  SECTION("deep nesting") {
    std::string deep = "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), ";
    for (int i = 0; i < 100000; ++i) deep += "NOT(";
    deep += "OK";
    for (int i = 0; i < 100000; ++i) deep += ")";
    deep += ", \"x\")\n";
    auto p = parse(deep);
    REQUIRE(p.s->error_count() == 1);
    CHECK(p.diags[0].find("nested too deeply") != std::string::npos);
  }
  SECTION("recursive and exploding macros") {
    auto p = parse(
        "#define A B(A)\n#define B(x) A x\n#define C(x) C(x x x x x x x x)\n"
        "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(A, C(1)), \"x\")\n");
    CHECK(p.s->error_count() == 1);
  }
  SECTION("a file full of runaway macros: each construct is bounded, and so is the file") {
    // R1 doubles 20 times: each use stops at the per-construct bound, and after enough uses the
    // file's own bound stops every later one at once.
    std::string t;
    for (int i = 1; i <= 20; ++i)
      t += "#define R" + std::to_string(i) + " R" + std::to_string(i + 1) + " R" + std::to_string(i + 1) + "\n";
    t += "#define R21 x x\n";
    const int uses = 200;
    for (int i = 0; i < uses; ++i) t += "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(R1, 0), \"x\")\n";
    auto p = parse(t);
    CHECK(p.canonical.empty());
    CHECK(p.s->error_count() == static_cast<std::size_t>(uses));
    std::size_t per_construct = 0, per_file = 0;
    for (const auto& d : p.diags) {
      per_construct += d.find("macro expansion exceeds 32768 tokens") != std::string::npos;
      per_file += d.find("macro expansions in this file exceed") != std::string::npos;
    }
    CHECK(per_construct > 0);
    CHECK(per_file > 0);
    CHECK(per_construct + per_file == static_cast<std::size_t>(uses));
  }
  SECTION("binary garbage and truncated files") {
    std::string junk;
    for (int i = 0; i < 4096; ++i) junk += static_cast<char>((i * 7919) & 0xff);
    auto p = parse(junk);
    CHECK(p.canonical.empty());
    auto q = parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK");
    CHECK(q.s->error_count() == 1);
    auto r = parse("/* :::EXTERNAL_SHAPEFN::: { int f(int");
    CHECK(r.s->error_count() == 0);
  }
  SECTION("random mutations of the test data files") {
    std::mt19937 rng(4);
    std::vector<std::string> seeds;
    for (const char* dir : {"valid", "invalid"})
      for (const auto& e : fs::directory_iterator(fs::path(OG_PARSE_TEST_DATA) / dir))
        if (e.path().extension() == ".cpp") seeds.push_back(slurp(e.path()));
    REQUIRE(!seeds.empty());
    const std::string alphabet = "()\",+-*/\\#'\n 0123456789xLUuefDEF_PACKAGE_OPTIMIZATION:";
    std::size_t reparsed = 0;
    for (int i = 0; i < 300; ++i) {
      std::string t = seeds[rng() % seeds.size()];
      const int edits = 1 + static_cast<int>(rng() % 8);
      for (int e = 0; e < edits && !t.empty(); ++e) {
        const std::size_t at = rng() % t.size();
        switch (rng() % 3) {
          case 0: t.erase(at, 1 + rng() % 16); break;
          case 1: t.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
          default: t[at] = alphabet[rng() % alphabet.size()];
        }
      }
      auto p = parse(t);
      (void)p.s->to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      // what survives a mutation is a rule like any other: its canonical text, checked alone, is
      // a rule whose canonical text is itself (where it checks alone: a rule may name an external
      // function or an option that the mutated file declared)
      for (const std::string& c : p.canonical) {
        const auto q = parse(c + "\n");
        if (q.canonical.size() != 1) continue;
        CHECK(q.canonical[0] == c);
        ++reparsed;
      }
    }
    CHECK(reparsed > 100);
  }
}

TEST_CASE("the fuzz corpus and every saved crash input replay cleanly", "[robustness]") {
  std::size_t n = 0;
  for (const char* dir : {OG_PARSE_CORPUS_DIR, OG_PARSE_CRASHES_DIR}) {
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().filename().string()[0] == '.') continue;
      og_parse::Session s;
      s.add_source(e.path().filename().string(), slurp(e.path()));
      s.run();
      (void)s.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      for (const auto& r : s.rules())
        if (r.valid) (void)s.canonical(r);
      ++n;
    }
  }
  CHECK(n > 0);
}

TEST_CASE("nested expansions that share operands are bounded", "[robustness]") {
  // CEILDIV(a, b) uses b twice: 40 levels would print 2^40 nodes.
  std::string c = "RANK_OF(\"x\")";
  for (int i = 0; i < 40; ++i) c = "CEILDIV(1, " + c + ")";
  auto p = parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(" + c + ", 1), \"x\")\n");
  REQUIRE(p.s->error_count() == 1);
  CHECK(p.diags[0].find("too large once its macros are expanded") != std::string::npos);
  std::string ok = "RANK_OF(\"x\")";
  for (int i = 0; i < 8; ++i) ok = "CEILDIV(1, " + ok + ")";
  CHECK(parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(" + ok + ", 1), \"x\")\n").canonical.size() == 1);
  // nested in the operand used once, the repeated one a constant: 40 levels grow the rule linearly
  std::string linear = "RANK_OF(\"x\")";
  for (int i = 0; i < 40; ++i) linear = "CEILDIV(" + linear + ", 2)";
  const auto l = parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(" + linear + ", 1), \"x\")\n");
  CHECK(l.s->error_count() == 0);
  CHECK(l.canonical.size() == 1);
}

TEST_CASE("CRLF line ends and a UTF-8 byte order mark", "[lexical]") {
  auto p = parse(
      "\xEF\xBB\xBF"
      "DEF_PACKAGE_OPTIMIZATION(EARLY,\r\n  Op(\"A\", \"x\"),\r\n  OK, Op(\"B\", \"x\"))\r\n"
      "#define M(a) \\\r\n  Op(\"C\", a)\r\n"
      "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"A\", \"x\"), OK, M(\"x\"))\r\n");
  CHECK(p.diags.empty());
  REQUIRE(p.canonical.size() == 2);
  CHECK(p.canonical[1] == "DEF_PACKAGE_OPTIMIZATION(LATE,Op(\"A\",\"x\"),true,Op(\"C\",\"x\"))");
  CHECK(p.s->rules()[1].line == 6);
}

TEST_CASE("the compatibility names expand as the grammar's records say", "[canonical]") {
  // Each constraint construct defined by others (a family with a typing: IS_*, DIM_*, SAME_SHAPE,
  // ...), written with sample operands: og-parse's canonical text is the record's expansion with
  // the operands put in for $1, $2.
  int checked = 0;
  for (const auto& r : optgrammar::dsl::constructs) {
    if (r.expansion.empty() || !optgrammar::dsl::typing_of(r.family).regular()) continue;
    const bool ints = r.family == optgrammar::dsl::Family::CEILDIV;
    const bool scalar =
        ints || r.family == optgrammar::dsl::Family::DIM_N || r.family == optgrammar::dsl::Family::SHAPE_SIZE;
    const std::vector<std::string> args =
        ints ? std::vector<std::string>{"7", "2"} : std::vector<std::string>{"\"x\"", "\"*\"", "\"x\""};
    std::string use = std::string(r.name) + "(";
    for (std::size_t k = 0; k < r.min_args; ++k) use += (k ? "," : "") + args[k];
    use += ")";
    // (a name used in the text of another is expanded too)
    std::string want = expansion_text::fully_expanded(expansion_text::substituted(r.expansion, args));
    if (scalar) {
      use = "GT(" + use + ",0)";
      want = "GT(" + want + ",0)";
    }
    INFO(r.name);
    CHECK(constraint_of(use) == want);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("the names checked as their expansion read as rules: each prints its expansion", "[canonical]") {
  // Every record of the EXPANDED family that a constraint may write (the framework's size
  // heuristics, SHOULD_TILE, the conditional messages, ...), with sample operands: the rule's
  // canonical constraint is the record's expansion with the operands put in. A number is compared
  // with 0. A new record needs its sample here.
  struct Use {
    std::string_view name;
    std::vector<std::string> args;
    bool test = false;  ///< bool-valued
  };
  const std::string x = "\"x\"", w = "\"w\"", o = "\"*\"", tcm = "4096";
  const std::vector<Use> uses = {
      {"IS_EMPTY_DIM", {x, "2"}, true},
      {"MIN_WIDTH_OF", {x}},
      {"SUBS", {"7", "3"}},
      {"WEIGHT_STORAGE", {w, "32"}},
      {"ACT_STORAGE_EST", {w, x, "32"}},
      {"GOOD_WEIGHTS", {w, x, "32"}, true},
      {"SMART_CHANNEL_SIZE", {w, x}},
      {"ESTIMATE_SIZE", {x, w, o}},
      {"SHOULD_TILE", {"IS_FLOAT32(\"x\")", "GT(RANK_OF(\"x\"),1)"}, true},
      {"MESSAGE_IF", {"true", "\"note\""}, true},
      {"MESSAGE_IFNOT", {"true", "\"note\""}, true},
      {"MESSAGE_VALUE", {"RANK_OF(\"x\")", "\"rank\""}},
      {"DWC_ACT_STORAGE_EST", {w, x, "32"}},
      {"DWC_GOOD_WEIGHTS", {w, x, "32"}, true},
      {"DWC_SMART_CHANNEL_SIZE", {w, x}},
      {"GET_IN_SIZE", {"8", "3", "2", "1"}},
      {"ESTIMATE_MIN_SIZE", {x, w, o, "1", "2"}},
      {"ESTIMATE_SIZE_ALIGNED_SLICE", {x, w, o}},
      {"MAX_GOOD_WIDTH_CONV", {x, w, o, "2", "1", tcm}},
      {"MAX_GOOD_WIDTH", {x, w, o, tcm}},
      {"EVEN_TILE_UNDER_CUSTOM", {"300", "256", "8"}},
      {"EVEN_TILE_UNDER_CUTOFF2_CUSTOM", {"300", "256", "8"}},
      {"SMART_EARLY_WIDTH_S2", {x, w, o, tcm, "16"}},
      {"SMART_EARLY_WIDTH_ADAPTIVE_ROUNDING_S2", {x, w, o, tcm}},
      {"MAX_GOOD_WIDTH_CHANSHUF", {x, o, tcm}},
      {"MAX_GOOD_WIDTH_QUANTIZE", {x, o, tcm}},
      {"MAX_GOOD_WIDTH_ELEMWISE", {x, w, o, tcm}},
      {"MAX_GOOD_WIDTH_DILATION", {x, w, o, "2", tcm}},
      {"S2S2D_BYTESLEFT", {w, x, tcm}},
      {"S2S2D_MAXWIDTH", {w, x, tcm}},
      {"S2S2D_GOODWIDTH", {w, x, tcm}},
      {"MAX_GOOD_WIDTH_S2D", {x, w, o, tcm}},
      {"ESTIMATE_H1_MATMUL_SIZE", {x, w}},
      {"SMART_BATCHNORM_WIDTH", {x, w, o, "256"}},
      {"GOOD_WIDTH_DEPTHTOSPACE_CHECK", {x, o, "64"}, true},
      {"SMART_WIDTH_DEPTHTOSPACE", {x, o, "128"}},
  };
  int checked = 0;
  for (const auto& r : optgrammar::dsl::constructs) {
    if (r.family != optgrammar::dsl::Family::EXPANDED || !(r.places & optgrammar::dsl::in_constraint)) continue;
    INFO(r.name);
    const auto it = std::find_if(uses.begin(), uses.end(), [&](const Use& u) { return u.name == r.name; });
    REQUIRE(it != uses.end());
    std::string use = std::string(r.name) + "(";
    for (std::size_t k = 0; k < it->args.size(); ++k) use += (k ? "," : "") + it->args[k];
    use += ")";
    std::string want = expansion_text::fully_expanded(expansion_text::substituted(r.expansion, it->args));
    if (!it->test) {
      use = "GT(" + use + ",0)";
      want = "GT(" + want + ",0)";
    }
    // (the constraint of a rule over x, w and the root)
    auto p = parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\", \"w\"), " + use + ", \"x\")\n");
    for (const auto& d : p.diags) INFO(d);
    REQUIRE(p.canonical.size() == 1);
    CHECK(p.canonical[0] == "DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"A\",\"x\",\"w\")," + want + ",\"x\")");
    ++checked;
  }
  CHECK(checked >= 30);
}

TEST_CASE("registrations as the framework's older headers take them: a variable op name, a cost in quotes") {
  auto p = parse(
      "DEF_PACKAGE_OP(reluImpl<Tensor>, op_name_relu)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<PlainFloatTensor>), op_name_relu, \"SNAIL\", Flags::RESOURCE_HVX)\n"
      "DEF_PACKAGE_OP_AND_COST_AND_FLAGS(reluImpl<Other>, \"Relu\", \"SLOW\")\n");
  const auto& ops = p.s->ops();
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].op.empty());
  CHECK(ops[0].op_variable == "op_name_relu");
  CHECK(ops[1].op_variable == "op_name_relu");
  CHECK(ops[1].cost == "SNAIL");
  REQUIRE(p.diags.size() == 3);
  CHECK(p.diags[0].find("t.cpp:1:34: warning: the op name is the variable 'op_name_relu', not a string constant") == 0);
  CHECK(p.diags[2] == "t.cpp:3:60: error: unknown cost \"SLOW\" (the costs are FREE, FAST, SNAIL, GLACIAL)");
  // In a rule, the op name must be a string constant: the catalogue's message, worded as the C++
  // front end words it (which cannot spell what was written).
  auto rule = parse("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Neg\", Op(op_name_relu, \"x\")), OK, \"x\")\n");
  REQUIRE(rule.diags.size() == 1);
  CHECK(rule.diags[0] ==
        "t.cpp:1:43: error: Op's first operand must be the op name as a string constant (\"Relu\"), not "
        "a C++ variable or expression");
  const nlohmann::json j = p.s->to_json();
  // DEF_PACKAGE_OP's cost and flags: the framework's defaults, as the C++ registry records them.
  CHECK(j["ops"][0]["cost"] == "GLACIAL");
  CHECK(j["ops"][0]["flags"] == nlohmann::json::array({"RESOURCE_HVX"}));
  CHECK(j["ops"][0]["op"] == "");
  CHECK(j["ops"][0]["op_variable"] == "op_name_relu");
  CHECK(j["ops"][1]["cost"] == "SNAIL");
}

TEST_CASE("unknown names: an error where only framework headers were not found, unchecked rules where others were") {
  // The framework's headers that the library stands in for, and the QNN API's, give a rule no
  // word og-parse does not know: a misspelt name is an error, with the likely name, as with g++.
  auto fw = parse(
      "#include \"HTP/core/optimize.h\"\n"
      "#include \"QnnOpPackage.h\"\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), IS_FLAOT16(\"x\"), Op(\"Relu.fp16\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(DIM_HEIGHT(\"x\"), TILE_HIEGHT), Op(\"B\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, AUTOTHREAD_HXV(1, \"I\", Op(\"B\", TYPICAL_SLICE(\"x\", "
      "\"I\"))))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), IS_NOTHING_LIKE_IT(\"x\"), Op(\"B\", \"x\"))\n");
  REQUIRE(fw.diags.size() == 4);
  CHECK(fw.diags[0] == "t.cpp:3:50: error: unknown function 'IS_FLAOT16' (did you mean 'IS_FLOAT16'?)");
  CHECK(fw.diags[1] == "t.cpp:4:67: error: unknown name 'TILE_HIEGHT' (did you mean 'TILE_HEIGHT'?)");
  CHECK(fw.diags[2] == "t.cpp:5:51: error: unknown function 'AUTOTHREAD_HXV' (did you mean 'AUTOTHREAD_HVX'?)");
  CHECK(fw.diags[3] == "t.cpp:6:47: error: unknown function 'IS_NOTHING_LIKE_IT'");
  // A package's own header that was not found may define the name, called or not: the rule is
  // left unchecked with a warning (before, a name used without a call was an error).
  auto own = parse(
      "#include \"HTP/core/optimize.h\"\n"
      "#include \"my_constants.h\"\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(DIM_WIDTH(\"x\"), TILE_N), Op(\"B\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op(\"C\", \"x\"), GT(DIM_WIDTH(\"x\"), TILE_F(1)), Op(\"D\", \"x\"))\n"
      "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"E\", \"x\"), OK, \"x\")\n");
  REQUIRE(own.diags.size() == 2);
  CHECK(own.diags[0] ==
        "t.cpp:3:66: warning: rule not checked: 'TILE_N' is neither a construct of the rule language nor a "
        "macro og-parse could read (it may come from \"my_constants.h\", which og-parse did not find; give "
        "its folder with -I)");
  CHECK(own.diags[1].find("t.cpp:4:70: warning: rule not checked: 'TILE_F' is neither") == 0);
  CHECK(own.canonical.size() == 1);  // the third rule, whose words are all the language's
}

TEST_CASE("parameter orders as the SDK's generated sources write them: the op name in a variable") {
  // g++ takes the variable (the registry reads it at static initialization); og-parse warns that
  // it cannot know the op, and keeps the parameters.
  auto p = parse(
      "DEF_PACKAGE_PARAM_ORDER(sg_opNameReluX, \"X_VAL\", true, nullptr)\n"
      "DEF_PACKAGE_PARAM_ORDER(\"Lone\")\n"
      "DEF_PACKAGE_PARAM_ORDER(sg_opNameLone, \"axis\", false)\n");
  const auto& po = p.s->param_orders();
  REQUIRE(po.size() == 1);
  CHECK(po[0].op.empty());
  CHECK(po[0].op_variable == "sg_opNameReluX");
  REQUIRE(po[0].params.size() == 1);
  CHECK(po[0].params[0].name == "X_VAL");
  CHECK(po[0].params[0].mandatory);
  REQUIRE(p.diags.size() == 4);
  CHECK(p.diags[0] ==
        "t.cpp:1:25: warning: the op name is the variable 'sg_opNameReluX', not a string constant: og-parse "
        "cannot tell which op these parameters belong to");
  // An op name alone: the framework's macro wants a triple at least, and so do both front ends.
  CHECK(p.diags[1] ==
        "t.cpp:2:31: error: DEF_PACKAGE_PARAM_ORDER takes the op name, then one or more triples of "
        "(\"param\", mandatory, default)");
  CHECK(p.diags[3] ==
        "t.cpp:3:53: error: DEF_PACKAGE_PARAM_ORDER takes the op name, then one or more triples of "
        "(\"param\", mandatory, default)");
  CHECK(p.s->to_json()["param_orders"][0]["op_variable"] == "sg_opNameReluX");
}

TEST_CASE("DEF_OPT and DEF_OPTIM, the framework's short names of the rule macros", "[canonical]") {
  // No #define needed; the rules print as the long macros'.
  auto p = parse(
      "DEF_OPT(EARLY + 1, Op(\"A\", \"x\"), IS_FLOAT32(\"x\"), \"x\")\n"
      "DEF_OPTIM(CLEANUP_GRAPH + 130, relaxed_precision_flag, Op(\"B\", \"x\"), IS_FLOAT32(\"*\"),\n"
      "MAKE_OP_FP16_AND_INSERT_CAST(Op(\"B\", CAST_TO_FP16(\"x\"))))\n"
      "DEF_OPT(EARLY, Op(\"C\", \"x\"), IS_FLOAT32(\"y\"), \"x\")\n");
  REQUIRE(p.canonical.size() == 2);
  CHECK(p.canonical[0] == "DEF_PACKAGE_OPTIMIZATION(EARLY+1,Op(\"A\",\"x\"),EQ(DTYPE_OF(\"x\"),DType::Float32),\"x\")");
  CHECK(p.canonical[1].rfind(
            "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(CLEANUP_GRAPH+130,relaxed_precision_flag,Op(\"B\",\"x\"),", 0) == 0);
  // a fault in a DEF_OPT rule is reported as in any rule
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].find("t.cpp:4:") == 0);
  CHECK(p.diags[0].find("never bound") != std::string::npos);
  // A rule macro og-parse does not know gets one warning; a construct's name at the start of its
  // continuation line (as the public DEF_OPTIM rule writes MAKE_OP_FP16_AND_INSERT_CAST) is no
  // second unknown macro.
  auto unknown = parse(
      "MY_RULE(EARLY, Op(\"B\", \"x\"), OK,\n"
      "MAKE_OP_FP16_AND_INSERT_CAST(Op(\"B\", CAST_TO_FP16(\"x\"))))\n");
  REQUIRE(unknown.diags.size() == 1);
  CHECK(unknown.diags[0].find("t.cpp:1:1: warning: 'MY_RULE(...)' looks like a rule") == 0);
}

TEST_CASE("the framework's rule macros made of others, known without a #define", "[canonical]") {
  // include/optgrammar/htp_compat_macros.hpp, built into og-parse: the rules print as the
  // long macros they stand for.
  auto p = parse(
      "DEF_AUTOSPLIT(TILING, Op(\"T\", \"x\"), IS_FLOAT32(\"x\"), 2, \"I\", 4, Op(\"T\", TYPICAL_SLICE(\"x\", "
      "\"I\")))\n"
      "DEF_AUTOSPLIT_ORDERED(TILING + 1, Op(\"U\", \"x\"), OK, 1, \"I\", 8, Op(\"U\", TYPICAL_SLICE(\"x\", \"I\")))\n"
      "DEF_AUTOSPLIT_TYPICAL(TILING + 2, \"V\", 2, 1, 16)\n"
      "CONVERT_BINARY_OP_TO_FP16(\"Mul\", \"a\", \"b\")\n"
      "DEF_INTERNAL_PACKAGE_OPTIMIZATION(EARLY, Op(\"W\", \"x\"), OK, \"x\")\n"
      "DEF_PACKAGE_OP_REG(\"core\", reluImpl<Tensor>, \"Relu\")\n"
      "TILE_LIKE(Op(\"T\", \"x\"), \"x\");\n"
      "DEF_TILE_PROPERTIES(Op(\"T\", \"x\"), Flat(\"x\"))\n");
  for (const auto& d : p.diags) INFO(d);
  CHECK(p.diags.empty());
  REQUIRE(p.canonical.size() == 5);
  CHECK(p.canonical[0].rfind("DEF_PACKAGE_OPTIMIZATION(TILING,Op(\"T\",\"x\"),AND(GT(DIM_OF(\"*\",2),4),"
                             "EQ(DTYPE_OF(\"x\"),DType::Float32)),AUTOSPLIT(2,\"I\",4,Op(\"T\",",
                             0) == 0);
  CHECK(p.canonical[1].rfind("DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(TILING+1,ordered_autosplit_flag,Op(\"U\",\"x\"),",
                             0) == 0);
  CHECK(p.canonical[2].rfind(
            "DEF_PACKAGE_OPTIMIZATION(TILING+2,OpVarIn(\"V\"),GT(DIM_OF(\"*\",1),16),AUTOSPLIT(1,\"I\",16,"
            "OP_ITER(Op(\"V\"),\"J\",0,INPUTS_OF(\"*\"),SELECT(GE(SPLIT_START(\"J\"),2),ITER_INPUT_OF(\"*\",\"J\"),",
            0) == 0);
  CHECK(p.canonical[3].rfind(
            "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(CLEANUP_GRAPH+130,relaxed_precision_flag,Op(\"Mul\",\"a\",\"b\"),",
            0) == 0);
  CHECK(p.canonical[4] == "DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"W\",\"x\"),true,\"x\")");
  REQUIRE(p.s->ops().size() == 1);
  CHECK(p.s->ops()[0].op == "Relu");
  // A source's own definition of one of them comes first.
  auto own = parse(
      "#define DEF_AUTOSPLIT(P, M, C, D, T, N, R) DEF_PACKAGE_OPTIMIZATION(P, M, C, R)\n"
      "DEF_AUTOSPLIT(TILING, Op(\"T\", \"x\"), OK, 2, \"I\", 4, \"x\")\n");
  REQUIRE(own.canonical.size() == 1);
  CHECK(own.canonical[0] == "DEF_PACKAGE_OPTIMIZATION(TILING,Op(\"T\",\"x\"),true,\"x\")");
}

TEST_CASE("IS_OP, PRODUCER_FOR and DATA_SIZE: an existing opref, then an op name", "[canonical]") {
  CHECK(constraint_of("AND(IS_OP(\"x\", \"Relu\"), PRODUCER_FOR(INPUT_OF(\"*\", 0), \"Add\"))") ==
        "AND(IS_OP(\"x\",\"Relu\"),PRODUCER_FOR(INPUT_OF(\"*\",0),\"Add\"))");
  CHECK(constraint_of("GT(DATA_SIZE(\"x\"), 64)") == "GT(DATA_SIZE(\"x\"),64)");
  auto bad = parse(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), IS_OP(1, \"Relu\"), \"x\")\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"B\", \"x\"), PRODUCER_FOR(\"x\", \"\"), \"x\")\n");
  REQUIRE(bad.diags.size() == 2);
  CHECK(bad.diags[0].find("IS_OP's operand 1 must be an operand tag or opref, not int") != std::string::npos);
  CHECK(bad.diags[1].find("op name") != std::string::npos);
}

TEST_CASE("registrations as the framework writes them: template-ids without parentheses, cost functions, \"...\"") {
  auto p = parse(
      "DEF_PACKAGE_OP(reluImpl<Tensor>, \"Relu\")\n"
      "DEF_PACKAGE_OP(clipImpl<true>, \"Clip\")\n"
      "DEF_PACKAGE_OP(ns::impl<ns::T<float>>, \"Nested\")\n"
      "DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(reluImpl<PlainFloatTensor>, \"Relu\", relu_cost, Flags::RESOURCE_HVX)\n"
      "DEF_TENSOR_PROPERTIES(Op(\"Cat\", \"axis\", \"...\"), Flat(\"*\", \"...\"), MainMemory(\"axis\"))\n");
  for (const auto& d : p.diags) INFO(d);
  CHECK(p.diags.empty());
  const auto& ops = p.s->ops();
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].function == "reluImpl<Tensor>");
  CHECK(ops[1].function == "clipImpl<true>");
  CHECK(ops[2].function == "ns::impl<ns::T<float>>");
  CHECK(ops[3].function == "reluImpl<PlainFloatTensor>");
  CHECK(ops[3].cost == "relu_cost");
  REQUIRE(p.s->tensor_properties().size() == 1);
  CHECK(p.s->tensor_properties()[0].operands.back() == "...");

  auto bad = parse(
      "DEF_PACKAGE_OP(impl<T, true>, \"Two\")\n"
      "DEF_TENSOR_PROPERTIES(Op(\"Cat\", \"...\", \"axis\"), Flat(\"*\"))\n"
      "DEF_TENSOR_PROPERTIES(Op(\"Cat2\", \"axis\"), Flat(\"...\"))\n");
  REQUIRE(bad.diags.size() == 2);
  CHECK(bad.diags[0].find("t.cpp:1:22: error: the template-id 'impl<T...' has a ','") == 0);
  CHECK(bad.diags[1].find("t.cpp:2:40: error: \"...\" (this operand and all later ones) must be the last operand") ==
        0);
  // A property may name "..." when the Op has none (the inputs no other property singles out).
  REQUIRE(bad.s->tensor_properties().size() == 1);
  CHECK(bad.s->tensor_properties()[0].op == "Cat2");
}

TEST_CASE("rules that cannot match: an op nothing knows, an operand count the definition does not allow",
          "[op_check]") {
  const std::string text =
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"onnx.relu\", \"x\"), OK, \"x\")\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"onnx.Conv\", \"x\", \"*\", \"*\"), OK, \"x\")\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, OpVarIn(\"Relu\", \"x\", \"*\"), OK, \"x\")\n"
      // a package's op: known, and the built-in ReluMinMax's three operands do not count for it
      "DEF_PACKAGE_OP(impl, \"ReluMinMax\")\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"ReluMinMax\", \"x\", \"*\"), OK, Op(\"my.Made\", \"x\"))\n"
      // an op a replacement makes is known; an OpVarIn within what the op allows is fine
      "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"my.Made\", \"x\"), OK, \"x\")\n"
      "DEF_PACKAGE_OPTIMIZATION(LATE, OpVarIn(\"Concat\", \"a\", \"*\"), OK, \"a\")\n";
  og_parse::Options o;
  o.check_ops = true;
  const auto p = parse(text, o);
  REQUIRE(p.diags.size() == 3);
  CHECK(
      p.diags[0] ==
      "t.cpp:1:33: warning: the match names op \"onnx.relu\", which no op definition, package op or rule's replacement "
      "knows (did you mean \"onnx.Relu\"?)");
  CHECK(p.diags[1] ==
        "t.cpp:2:33: warning: Op(\"onnx.Conv\", ...) gives it 3 operands, its definition allows 9 operands (the "
        "attributes first: auto_pad, dilations, group, kernel_shape, pads, strides; then X, W, B): the match never "
        "succeeds");
  CHECK(p.diags[2] ==
        "t.cpp:3:33: warning: OpVarIn(\"Relu\", ...) gives it at least 2 operands, its definition allows 1 operand "
        "(x): the "
        "match never succeeds");
  // off by default in the library, and with lint off
  CHECK(parse(text).diags.empty());
  o.lint = false;
  CHECK(parse(text, o).diags.empty());
}
