// Constraint constructs evaluated on real graphs: each rule's constraint is an expression whose
// value the spec fixes; the probe op is rewritten only when it holds.
#include "probe.hpp"

#include <catch2/catch.hpp>

#define PROBE(NAME, CST) DEF_PACKAGE_OPTIMIZATION(EARLY, Op("P_" #NAME, "x"), CST, Op("Yes", "x"))

// Arithmetic and C's mixing of int and size.
PROBE(rem_sign, AND(EQ(REM(-7, 2), -1), EQ(REM(7, -2), 1), EQ(MOD(-7, 2), 1), EQ(MOD(7, -2), -1), EQ(MOD(6, 3), 0)))
PROBE(arith, AND(EQ(ADD(1, 2, 3), 6), EQ(MUL(2, 3, 4), 24), EQ(SUB(2, 5), -3), EQ(DIV(-7, 2), -3), EQ(MIN(4, 2, 9), 2),
                 EQ(MAX(4, 2, 9), 9), EQ(NEG(3), -3), EQ(ABS(-4), 4), EQ(ABS(-2.5f), 2.5f)))
PROBE(size_mix, AND(GT(DIM_WIDTH("*"), 32), EQ(ADD(DIM_OF("*", 0), 1U), 2U), GT(SUB(0U, 1U), 1000U)))
PROBE(div_zero_fails, EQ(DIV(1, SUB(RANK_OF("*"), RANK_OF("*"))), 0))
PROBE(casts, AND(EQ(INT(2.9f), 2), EQ(UINT(3), 3U), EQ(FLOAT(3), 3.0f), EQ(INT(DType::QUInt8), 2),
                 EQ(DTYPE(2), DType::QUInt8), EQ(INT(true), 1)))
PROBE(pow2_roundup,
      AND(IS_POW2(64), NOT(IS_POW2(48)), NOT(IS_POW2(0)), EQ(ROUNDUP(33, 32), 64), EQ(ROUNDUP(64, 32), 64)))
PROBE(lcm, AND(EQ(LCM(4, 6), 12), EQ(LCM(-4, 6), 12), EQ(LCM(0, 5), 0), EQ(LCM(DIM_OF("x", 1), 48U), 192U),
               EQ(LCM(DIM_DEPTH("x"), 24), 48U)))
PROBE(lcm_overflow_fails, EQ(LCM(65536, 65537), 0))
PROBE(logic, AND(OR(false, true), XOR(true, false, false), NOT(XOR(true, true)), NOT(AND(true, false)), OK))
PROBE(select_value,
      AND(EQ(SELECT(GT(RANK_OF("*"), 3), 10, 20), 10), EQ(SELECT(false, DType::Int32, DType::QInt8), DType::QInt8)))
PROBE(float_arith, AND(EQ(MUL(2, 3.5f), 7.0f), EQ(REM(-7.5f, 2), -1.5f), EQ(MOD(-7.5f, 2), 0.5f),
                       EQ(DIV(1, 4.0f), 0.25f), EQ(ADD(1U, 0.5f), 1.5f), LT(SUB(1, 1.5f), 0)))
PROBE(floats, AND(LT(NEG_INF, -1.0e30f), GT(INF, 1.0e30f), EQ(1.5f, 1.5), LE(0.5f, 0.5f), GE(2, 1.5f)))
// Properties of the input x: f32[1,64,48,16].
PROBE(properties,
      AND(EQ(RANK_OF("x"), 4U), EQ(DIM_OF("x", 1), 64U), EQ(DIM_OF("x", 7), 0U), EQ(DIM_OF("x", 9), 0U),
          EQ(ELEMENTSIZE_OF("x"), 4U), EQ(INPUTS_OF("*"), 1U), EQ(OUTPUTS_OF("x"), 1U), IS_FLOAT32("x"), IS_FLOAT("x"),
          NOT(IS_QUINT8("x")), EQ(DIM_BATCHES("x"), 1U), EQ(DIM_HEIGHT("x"), 64U), EQ(DIM_DEPTH("x"), 16U),
          EQ(DIM_NFILTS("x"), 16U), SAME_SHAPE("x", "*"), SAME_ENCODING("x", "*"), EQ(STEPSIZE_OF("x"), 1.0f),
          EQ(ZERO_OFFSET_OF("x"), 0), SAME_OP(INPUT_OF("*", 0), "x"), NOT(SAME_OP("x", "*"))))
PROBE(input_of_out_of_range_fails, EQ(RANK_OF(INPUT_OF("*", 3)), 4U))
// Options: tile_height uint 8, ratio float 0.5, flag bool true, name string "abc", empty string "".
PROBE(options,
      AND(EQ(OPTION_UINT("tile_height"), 8U), EQ(OPTION_INT("tile_height"), 8), EQ(OPTION_FLOAT("ratio"), 0.5f),
          OPTION_BOOL("flag"), EQ(OPTION_INT("flag"), 1), EQ(OPTION_INT("name"), 1), EQ(OPTION_INT("empty"), 0),
          NOT(OPTION_BOOL("missing")), EQ(OPTION_INT("missing"), 0), OPTION_BOOL("tile_height"), EQ(TILE_HEIGHT, 8U)))

// Constants: Add(x, c) with c = f32 {0.25, -3.0, 2.5e9}.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("P_const", "x", LET("c", Op("$Const"))),
                         AND(EQ(CONSTVAL_FLOAT("c", 0), 0.25f), EQ(CONSTVAL_INT("c", 1), -3),
                             CONSTVAL_INT_VALID("c", 1), NOT(CONSTVAL_INT_VALID("c", 0)),
                             NOT(CONSTVAL_INT_VALID("c", 2)), EQ(CONSTVAL_INT("c", 0), SUB(-2147483647, 1)),
                             CONSTVAL_FLOAT_VALID("c", 2), NOT(CONSTVAL_FLOAT_VALID("c", 3)),
                             NE(CONSTVAL_FLOAT("c", 3), CONSTVAL_FLOAT("c", 3)), NOT(CONSTVAL_FLOAT_VALID("x", 0)),
                             EQ(CONSTVAL_INT("x", 0), SUB(-2147483647, 1))),
                         Op("Yes", "x"))
// Repeated tags: both operands the same node.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("P_same", "a", "a"), OK, Op("Yes", "a"))
// OpVarIn: at least the listed inputs. "*" in a match: any operand.
DEF_PACKAGE_OPTIMIZATION(EARLY, OpVarIn("P_varin", "a"), EQ(INPUTS_OF("*"), 3U), Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("P_wild", "a", "*"), OK, Op("Yes", "a"))
// A constant constraint: `false` never fires.
PROBE(false_never_fires, false)
// Comparisons of one property of two operands: the engine answers them at once when both have
// the same (interned) output definition; otherwise it compares the values.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("P_cmp_eq", "a", "b"),
                         AND(SAME_SHAPE("a", "b"), EQ(RANK_OF("a"), RANK_OF("b")), LE(DIM_OF("a", 3), DIM_OF("b", 3)),
                             GE(DIM_OF("a", 3), DIM_OF("b", 3)), NOT(LT(DIM_OF("a", 2), DIM_OF("b", 2))),
                             NOT(GT(DIM_OF("a", 1), DIM_OF("b", 1))), NOT(NE(DIM_OF("a", 0), DIM_OF("b", 0))),
                             NE(DIM_OF("a", 3), DIM_OF("b", 2)), EQ(DTYPE_OF("a"), DTYPE_OF("b"))),
                         Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("P_cmp_same_shape", "a", "b"),
                         AND(SAME_SHAPE("a", "b"), EQ(RANK_OF("a"), RANK_OF("b")), NE(DTYPE_OF("a"), DTYPE_OF("b")),
                             NE(ELEMENTSIZE_OF("a"), ELEMENTSIZE_OF("b"))),
                         Op("Yes", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("P_cmp_other_shape", "a", "b"),
                         AND(NOT(SAME_SHAPE("a", "b")), GT(DIM_OF("a", 3), DIM_OF("b", 3)),
                             EQ(DIM_OF("a", 2), DIM_OF("b", 2)), EQ(RANK_OF("a"), RANK_OF("b"))),
                         Op("Yes", "a"))

namespace {
using namespace optgrammar;
struct Base {
  Graph g;
  OpRef x;
  Base() {
    x = g.add_input(OutputDef::make(DType::Float32, {1, 64, 48, 16}));
    g.set_option("tile_height", std::uint64_t{8});
    g.set_option("ratio", 0.5);
    g.set_option("flag", true);
    g.set_option("name", std::string("abc"));
    g.set_option("empty", std::string());
  }
  bool fires(const char* op) { return probe::fires(op, g, x, "constraint_test.cpp"); }
};
}  // namespace

TEST_CASE("REM has the sign of the dividend, MOD of the divisor") { CHECK(Base().fires("P_rem_sign")); }
TEST_CASE("reduce and binary arithmetic") { CHECK(Base().fires("P_arith")); }
TEST_CASE("int and size mix as in C") { CHECK(Base().fires("P_size_mix")); }
TEST_CASE("division by zero makes the constraint fail") { CHECK_FALSE(Base().fires("P_div_zero_fails")); }
TEST_CASE("casts INT UINT FLOAT DTYPE") { CHECK(Base().fires("P_casts")); }
TEST_CASE("IS_POW2 and ROUNDUP") { CHECK(Base().fires("P_pow2_roundup")); }
TEST_CASE("LCM of the magnitudes, in the operands' common type") { CHECK(Base().fires("P_lcm")); }
TEST_CASE("an LCM its type cannot hold makes the constraint fail") {
  CHECK_FALSE(Base().fires("P_lcm_overflow_fails"));
}
TEST_CASE("AND OR XOR NOT") { CHECK(Base().fires("P_logic")); }
TEST_CASE("SELECT of values and dtypes") { CHECK(Base().fires("P_select_value")); }
TEST_CASE("float arithmetic: REM and MOD by fmod, int and size promote to float") {
  CHECK(Base().fires("P_float_arith"));
}
TEST_CASE("float constants INF NEG_INF") { CHECK(Base().fires("P_floats")); }
TEST_CASE("properties, cst_macros, SAME_*, DIM_OF past the rank is 0") { CHECK(Base().fires("P_properties")); }
TEST_CASE("INPUT_OF past the inputs makes the constraint fail") {
  CHECK_FALSE(Base().fires("P_input_of_out_of_range_fails"));
}
TEST_CASE("options are read with the spec's conversions") { CHECK(Base().fires("P_options")); }
TEST_CASE("a constraint that is the constant false never fires") { CHECK_FALSE(Base().fires("P_false_never_fires")); }

TEST_CASE("CONSTVAL_* and their failure values") {
  Base b;
  const float vals[] = {0.25f, -3.0f, 2.5e9f};
  OpRef c = b.g.add_const(OutputDef::make(DType::Float32, {1, 1, 1, 3}), std::span<const float>(vals, 3));
  OpRef p = b.g.add_op("P_const", {b.x, c}, b.g.output(b.x));
  b.g.add_output(p);
  RuleSet set = RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("constraint_test.cpp") != std::string::npos; });
  run_rules(b.g, set);
  bool yes = false;
  for (auto r : b.g.live_ops()) yes |= b.g.name(r) == "Yes";
  CHECK(yes);
}

TEST_CASE("repeated tags, OpVarIn and the match wildcard") {
  Base b;
  OpRef y = b.g.add_input(b.g.output(b.x));
  auto run = [&](OpRef root) {
    Graph g = b.g;
    g.add_output(root);
    RuleSet set = RuleSet::global().select(
        [](const RuleInfo& r) { return r.file.find("constraint_test.cpp") != std::string::npos; });
    run_rules(g, set);
    for (auto r : g.live_ops())
      if (g.name(r) == "Yes") return true;
    return false;
  };
  CHECK(run(b.g.add_op("P_same", {b.x, b.x}, b.g.output(b.x))));
  CHECK_FALSE(run(b.g.add_op("P_same", {b.x, y}, b.g.output(b.x))));
  CHECK(run(b.g.add_op("P_varin", {b.x, y, y}, b.g.output(b.x))));
  CHECK_FALSE(run(b.g.add_op("P_varin", {b.x, y}, b.g.output(b.x))));  // constraint wants 3
  CHECK_FALSE(run(b.g.add_op("P_varin", {}, b.g.output(b.x))));
  CHECK(run(b.g.add_op("P_wild", {b.x, y}, b.g.output(b.x))));
  CHECK_FALSE(run(b.g.add_op("P_wild", {b.x}, b.g.output(b.x))));
}

TEST_CASE("comparing one property of two operands: same definition, same shape, other shape") {
  Base b;
  OpRef same = b.g.add_input(b.g.output(b.x));                                         // same definition
  OpRef q8 = b.g.add_input(OutputDef::make(DType::QUInt8, {1, 64, 48, 16}, 3, 0.5f));  // same shape only
  OpRef narrow = b.g.add_input(OutputDef::make(DType::Float32, {1, 64, 48, 8}));       // other shape
  auto run = [&](const char* op, OpRef a, OpRef c) {
    Graph g = b.g;
    g.add_output(g.add_op(op, {a, c}, g.output(a)));
    RuleSet set = RuleSet::global().select(
        [](const RuleInfo& r) { return r.file.find("constraint_test.cpp") != std::string::npos; });
    run_rules(g, set);
    for (auto r : g.live_ops())
      if (g.name(r) == "Yes") return true;
    return false;
  };
  CHECK(run("P_cmp_eq", b.x, same));
  CHECK(run("P_cmp_eq", b.x, b.x));
  CHECK_FALSE(run("P_cmp_eq", b.x, q8));  // DTYPE_OF differs
  CHECK(run("P_cmp_same_shape", b.x, q8));
  CHECK_FALSE(run("P_cmp_same_shape", b.x, same));
  CHECK(run("P_cmp_other_shape", b.x, narrow));
  CHECK_FALSE(run("P_cmp_other_shape", b.x, same));
  CHECK_FALSE(run("P_cmp_other_shape", narrow, b.x));  // DIM_OF(a, 3) is the smaller one
}
