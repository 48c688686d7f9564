// RuleInfo::explain (engine/explain.hpp): each kind of failure is named by the rule's own node text,
// with what was found, and the explainer's verdict agrees with the rule's apply function.
#include <optgrammar/engine/explain.hpp>
#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

// x: f32[1,64,48,16] in every graph below.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_depth1", Op("X_inner", "a"), "b"), OK, Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_depth2", Op("X_inner", Op("X_leaf", "a"))), OK, Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_count", Op("X_inner", "a", "b")), OK, Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, OpVarIn("X_varin", "a", "b", "c"), OK, Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_twice", "a", "a"), OK, Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_let", LET("l", Op("X_inner", "a")), "l"), OK, Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_dims", "a"), AND(EQ(RANK_OF("a"), 4), EQ(DIM_OF("a", 1), 32), IS_FLOAT32("a")),
                         Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_dtype", "a"), AND(EQ(RANK_OF("a"), 4), EQ(DTYPE_OF("a"), DType::QUInt8)),
                         Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_const", "a", LET("c", Op("$Const"))), GT(CONSTVAL_FLOAT("c", 1), 0.0f),
                         Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_or", "a"), OR(EQ(DIM_OF("a", 2), 7), LT(RANK_OF("a"), 3)), Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_not", "a"), NOT(EQ(DIM_OF("a", 3), 16)), Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_div", "a"), EQ(DIV(1, SUB(RANK_OF("a"), 4U)), 0U), Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_fires", "a"), EQ(RANK_OF("a"), 4), Op("Yes", "a"))

namespace {
using namespace optgrammar;

const RuleInfo& rule_rooted(std::string_view root) {
  for (const RuleInfo* r : RuleSet::global().rules())
    if (r->file.find("explain_test.cpp") != std::string::npos && op_name_of(r->root) == root) return *r;
  FAIL("no rule rooted at " << root);
  throw;
}

struct Case {
  Graph g;
  OpRef x;
  Case() { x = g.add_input(OutputDef::make(DType::Float32, {1, 64, 48, 16})); }
  OpRef op(std::string_view name, std::initializer_list<OpRef> in) { return g.add_op(name, in, g.output(x)); }
  /// The explanation of the rule rooted at `root`'s name on `root`, checked against the apply
  /// function's own verdict on a copy of the graph.
  Explanation explain(OpRef root) {
    const RuleInfo& r = rule_rooted(g.name(root));
    REQUIRE(r.explain);
    Explanation e;
    r.explain(r, g, root, e);
    Graph copy = g;
    std::vector<RuleStats> stats(r.index + 1);
    Rewriter rw(copy, stats);
    const bool fired = r.apply(rw, r, root);
    const RuleStats& st = stats[r.index];
    CHECK((e.verdict == Explanation::Verdict::match_failed) == (st.matched == 0));
    if (e.verdict == Explanation::Verdict::constraint_false) CHECK((!fired && st.failed == 0));
    if (e.verdict == Explanation::Verdict::passes) CHECK(e.fires == fired);
    return e;
  }
  std::string text(const Explanation& e, std::size_t k = 0) {
    REQUIRE(e.findings.size() > k);
    const RuleInfo& r = rule_rooted(root_name);
    return node_text(r, e.findings[k].node);
  }
  std::string value(const Explanation& e, std::string_view node, std::size_t k = 0) {
    const RuleInfo& r = rule_rooted(root_name);
    for (const auto& [i, v] : e.findings.at(k).values)
      if (node_text(r, i) == node) return v;
    return "(no value of " + std::string(node) + ")";
  }
  std::string root_name;
  Explanation run(OpRef root) {
    root_name = std::string(g.name(root));
    return explain(root);
  }
};
}  // namespace

TEST_CASE("why not: a wrong op name at depth 1 and 2") {
  Case c;
  const OpRef other = c.op("X_other", {c.x});
  const Explanation e1 = c.run(c.op("X_depth1", {other, c.x}));
  CHECK(e1.verdict == Explanation::Verdict::match_failed);
  CHECK(c.text(e1) == R"(Op("X_inner","a"))");
  CHECK(e1.findings[0].found == "input 0 of %2 (X_depth1) is %1 (X_other)");

  const OpRef inner = c.op("X_inner", {other});
  const Explanation e2 = c.run(c.op("X_depth2", {inner}));
  CHECK(e2.verdict == Explanation::Verdict::match_failed);
  CHECK(c.text(e2) == R"(Op("X_leaf","a"))");
  CHECK(e2.findings[0].found == "input 0 of %3 (X_inner) is %1 (X_other)");
}

TEST_CASE("why not: an operand count, for Op and OpVarIn") {
  Case c;
  const Explanation e1 = c.run(c.op("X_count", {c.op("X_inner", {c.x})}));
  CHECK(c.text(e1) == R"(Op("X_inner","a","b"))");
  CHECK(e1.findings[0].found == "%1 (X_inner) has 1 operand; the pattern allows exactly 2");
  const Explanation e2 = c.run(c.op("X_varin", {c.x, c.x}));
  CHECK(c.text(e2) == R"(OpVarIn("X_varin","a","b","c"))");
  CHECK(e2.findings[0].found == "%3 (X_varin) has 2 operands; the pattern allows at least 3");
  const Explanation e3 = c.run(c.op("X_varin", {c.x, c.x, c.x, c.x}));
  CHECK(e3.verdict == Explanation::Verdict::passes);
  CHECK(e3.fires);
  CHECK(e3.rewrite == "the rule fires here");
}

TEST_CASE("why not: a tag bound to two different ops, also by LET") {
  Case c;
  const OpRef y = c.g.add_input(c.g.output(c.x));
  const Explanation e1 = c.run(c.op("X_twice", {c.x, y}));
  CHECK(c.text(e1) == R"("a")");
  CHECK(e1.findings[0].found == "input 1 of %2 (X_twice) is %1 (Input), but the tag is bound to %0 (Input)");
  const OpRef inner = c.op("X_inner", {c.x});
  const Explanation e2 = c.run(c.op("X_let", {inner, c.x}));
  CHECK(c.text(e2) == R"("l")");
  CHECK(e2.findings[0].found == "input 1 of %4 (X_let) is %0 (Input), but the tag is bound to %3 (X_inner)");
  CHECK(c.run(c.op("X_let", {inner, inner})).fires);
}

TEST_CASE("why not: the failing conjunct with the values it read") {
  Case c;
  const Explanation e = c.run(c.op("X_dims", {c.x}));
  CHECK(e.verdict == Explanation::Verdict::constraint_false);
  CHECK(c.text(e) == R"(EQ(DIM_OF("a",1),32))");
  CHECK(e.findings[0].found == "is false");
  CHECK(c.value(e, R"(DIM_OF("a",1))") == "64");
  CHECK(c.value(e, R"("a")") == "%0 (Input)");

  const Explanation d = c.run(c.op("X_dtype", {c.x}));
  CHECK(c.text(d) == R"(EQ(DTYPE_OF("a"),DType::QUInt8))");
  CHECK(c.value(d, R"(DTYPE_OF("a"))") == "DType::Float32");
}

TEST_CASE("why not: constant values") {
  Case c;
  const OpRef k = c.g.add_const(OutputDef::make(DType::Float32, {1, 1, 1, 2}), {0.5f, -2.0f});
  const Explanation e = c.run(c.op("X_const", {c.x, k}));
  CHECK(c.text(e) == R"(GT(CONSTVAL_FLOAT("c",1),0.0f))");
  CHECK(c.value(e, R"(CONSTVAL_FLOAT("c",1))") == "-2.0f");
}

TEST_CASE("why not: an OR of two false terms, NOT, and a term that cannot be evaluated") {
  Case c;
  const Explanation o = c.run(c.op("X_or", {c.x}));
  REQUIRE(o.findings.size() == 3);
  CHECK(c.text(o, 0) == R"(OR(EQ(DIM_OF("a",2),7),LT(RANK_OF("a"),3)))");
  CHECK(o.findings[0].found == "none of its 2 terms holds");
  CHECK(c.text(o, 1) == R"(EQ(DIM_OF("a",2),7))");
  CHECK(c.value(o, R"(DIM_OF("a",2))", 1) == "48");
  CHECK(c.text(o, 2) == R"(LT(RANK_OF("a"),3))");
  CHECK(c.value(o, R"(RANK_OF("a"))", 2) == "4");

  const Explanation n = c.run(c.op("X_not", {c.x}));
  CHECK(c.text(n) == R"(NOT(EQ(DIM_OF("a",3),16)))");
  CHECK(c.value(n, R"(EQ(DIM_OF("a",3),16))") == "true");
  CHECK(c.value(n, R"(DIM_OF("a",3))") == "16");

  const Explanation d = c.run(c.op("X_div", {c.x}));
  CHECK(d.verdict == Explanation::Verdict::constraint_false);
  CHECK(c.text(d) == R"(EQ(DIV(1,SUB(RANK_OF("a"),4U)),0U))");
  CHECK(d.findings[0].found.starts_with("could not be evaluated"));
  CHECK(c.value(d, R"(SUB(RANK_OF("a"),4U))") == "0");
}

TEST_CASE("why not: an op of another name at the root, and a rule that fires") {
  Case c;
  const OpRef other = c.op("X_other", {c.x});
  const RuleInfo& r = rule_rooted("X_fires");
  Explanation e;
  r.explain(r, c.g, other, e);
  CHECK(e.verdict == Explanation::Verdict::match_failed);
  CHECK(node_text(r, e.findings.at(0).node) == R"(Op("X_fires","a"))");
  CHECK(e.findings[0].found == "the root is %1 (X_other)");
  const Explanation f = c.run(c.op("X_fires", {c.x}));
  CHECK(f.verdict == Explanation::Verdict::passes);
  CHECK(f.fires);
}
