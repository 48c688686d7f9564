// index/: expressions, printer, parser, simplifier, composition; the seed's simplifier examples.
#include "helpers.hpp"

#include <algorithm>

#include <catch2/catch.hpp>

using namespace index_test;

namespace {
// The simplified form of `text` printed, to compare with the seed's expected map.
std::string simplified(std::string const& text) { return simplify(parse_indexing_map(text)).to_string(); }
// The canonical print of an expected map (so the test states the seed's text, in the seed's
// spelling, and is not sensitive to `2d0` versus `d0 * 2`).
std::string canonical(std::string const& text) { return simplify(parse_indexing_map(text)).to_string(); }
// Checks that simplification did not change the relation, and returns the simplified map.
IndexingMap simplify_checked(IndexingMap const& m) {
  IndexingMap s = simplify(m);
  CHECK(same_relation(m, s));
  return s;
}
}  // namespace

// ---- expressions and printing --------------------------------------------------------------

TEST_CASE("expr: builders fold the obvious cases", "[index][expr]") {
  CHECK(to_string(dim(0) * 1) == "d0");
  CHECK(to_string(dim(0) + 0) == "d0");
  CHECK(to_string(dim(0) * 0) == "0");
  CHECK(to_string((dim(0) * 2) * 3) == "d0 * 6");
  CHECK(to_string(constant(7) + constant(5)) == "12");
  CHECK(to_string(floordiv(constant(-7), 2)) == "-4");
  CHECK(to_string(ceildiv(constant(-7), 2)) == "-3");
  CHECK(to_string(mod(constant(-1), 2)) == "1");
  CHECK(to_string(mod(dim(1), 1)) == "0");
  CHECK_THROWS_AS(floordiv(dim(0), 0), std::invalid_argument);
  CHECK_THROWS_AS(mod(dim(0), -3), std::invalid_argument);
}

TEST_CASE("expr: printer uses the seed's notation", "[index][expr]") {
  CHECK(to_string(dim(0) + floordiv(dim(1), 16)) == "d0 + d1 floordiv 16");
  CHECK(to_string(dim(1) * 7 + 3) == "d1 * 7 + 3");
  CHECK(to_string(-dim(1) + 16) == "-d1 + 16");
  CHECK(to_string(dim(1) - 5) == "d1 - 5");
  CHECK(to_string(floordiv(dim(1) - 3, 7)) == "(d1 - 3) floordiv 7");
  CHECK(to_string(dim(2) + mod(dim(1), 2) * 4) == "d2 + (d1 mod 2) * 4");
  CHECK(to_string(dim(0) - dim(1) * 3) == "d0 - d1 * 3");
  CHECK(to_string(dim(0) - (dim(1) + dim(2))) == "d0 - (d1 + d2)");
  CHECK(to_string(-floordiv(dim(0), 2)) == "-(d0 floordiv 2)");
  CHECK(to_string(floordiv(-dim(0), 2)) == "(-d0) floordiv 2");
  CHECK(to_string(dim(0) * -3) == "d0 * -3");
  CHECK(to_string(sym(0) + 5) == "s0 + 5");
  CHECK(to_string(ceildiv(dim(0), 4)) == "d0 ceildiv 4");
}

TEST_CASE("expr: evaluation uses floor semantics", "[index][expr]") {
  std::vector<std::int64_t> d{-7, 3};
  CHECK(evaluate(floordiv(dim(0), 2), d) == -4);
  CHECK(evaluate(ceildiv(dim(0), 2), d) == -3);
  CHECK(evaluate(mod(dim(0), 2), d) == 1);
  CHECK(evaluate(dim(0) * 3 + dim(1), d) == -18);
  CHECK_THROWS_AS(evaluate(sym(0), d), std::out_of_range);
}

// ---- parser --------------------------------------------------------------------------------

TEST_CASE("parser: the seed's notation", "[index][parser]") {
  IndexingMap m = parse_indexing_map(R"((d0, d1)[s0] -> (d0 + d1 floordiv 16, d1 mod 16, s0)
domain:
d0 in [0, 9]
d1 in [0, 14]
s0 in [0, 3]
d0 mod 2 in [0, 0]
)");
  REQUIRE(m.num_dims() == 2);
  REQUIRE(m.num_ranges() == 1);
  REQUIRE(m.num_results() == 3);
  CHECK(m.dims[1] == Interval{0, 14});
  CHECK(m.ranges[0] == Interval{0, 3});
  REQUIRE(m.constraints.size() == 1);
  CHECK(to_string(m.constraints[0].expr) == "d0 mod 2");
  CHECK(m.to_string() ==
        "(d0, d1)[s0] -> (d0 + d1 floordiv 16, d1 mod 16, s0)\ndomain:\nd0 in [0, 9]\nd1 in [0, 14]\n"
        "s0 in [0, 3]\nd0 mod 2 in [0, 0]\n");
}

TEST_CASE("parser: names, implicit products, case and one-line domains", "[index][parser]") {
  IndexingMap m = parse_indexing_map("(i, j, k) -> (j), domain: i in [0, 10], j in [0, 20], k in [0, 30]");
  CHECK(m.to_string() == "(d0, d1, d2) -> (d1)\ndomain:\nd0 in [0, 10]\nd1 in [0, 20]\nd2 in [0, 30]\n");
  CHECK(to_string(parse_affine_expr("100d0 + 10d1 + d2", 3)) == "d0 * 100 + d1 * 10 + d2");
  CHECK(to_string(parse_affine_expr("(d0) floorDiv 4 + d1 MOD 3", 2)) == "d0 floordiv 4 + d1 mod 3");
  CHECK(to_string(parse_affine_expr("3 * d0 * 2", 1)) == "d0 * 6");
  CHECK(to_string(parse_affine_expr("d0 * -2", 1)) == "d0 * -2");
  // unary minus covers the whole product: -(x) floordiv 11 is -((x) floordiv 11)
  CHECK(to_string(parse_affine_expr("-(d0 - 3) floordiv 11 + 9", 1)) == "-((d0 - 3) floordiv 11) + 9");
  CHECK(to_string(parse_indexing_map("()[s0] -> (s0) domain: s0 in [0, 9]").results[0]) == "s0");
  CHECK(parse_indexing_map("(d0, d1) -> () domain: d0 in [0, 9] d1 in [0, 1]").num_results() == 0);
}

TEST_CASE("parser: errors name the place and the problem", "[index][parser]") {
  auto message = [](std::string const& text) {
    try {
      parse_indexing_map(text);
    } catch (ParseError const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("(d0) -> (d0 floordiv d0) domain: d0 in [0, 3]"),
             Catch::Contains("line 1, column 22: floordiv needs a positive constant divisor, found 'd0)'"));
  CHECK_THAT(message("(d0) -> (d0 mod 0) domain: d0 in [0, 3]"),
             Catch::Contains("mod needs a positive constant divisor"));
  CHECK_THAT(message("(d0, d1) -> (d0 * d1) domain: d0 in [0, 3] d1 in [0, 3]"),
             Catch::Contains("a product needs a constant operand"));
  CHECK_THAT(message("(d0) -> (d1) domain: d0 in [0, 3]"), Catch::Contains("unknown variable 'd1'"));
  CHECK_THAT(message("(d0, d1) -> (d0)\ndomain:\nd0 in [0, 3]\n"), Catch::Contains("no bounds for 'd1'"));
  CHECK_THAT(message("(d0) -> (d0)\ndomain:\nd0 in [0, 3]\nd0 in [1, 2]"),
             Catch::Contains("line 4, column 1: a second bound for 'd0'"));
  CHECK_THAT(message("(d0) -> (d0 domain: d0 in [0, 3]"), Catch::Contains("expected ')'"));
  CHECK_THAT(message("(d0) (d0)"), Catch::Contains("expected '->'"));
  CHECK_THAT(message("(d0) -> (d0) domain: d0 on [0, 3]"), Catch::Contains("expected 'in'"));
  CHECK_THAT(message("(d0) -> (d0) domain: d0 in [0 3]"), Catch::Contains("expected ','"));
  CHECK_THAT(message("(d0, d0) -> (d0) domain: d0 in [0, 3]"), Catch::Contains("declared twice"));
  // the seed's runtime variables are not part of this library
  CHECK_THAT(
      message("(d0)[s0] -> (d0 + s0)\ndomain:\nd0 in [0, 0]\ns0 in [0, 1]\nhlo: of1 = s32[] parameter(1)\n(d0) -> ()"),
      Catch::Contains("runtime variables (hlo: ...) are not supported"));
  CHECK_THROWS_AS(parse_affine_expr("d0 +", 1), ParseError);
  CHECK_THROWS_AS(parse_affine_expr("d0 d0", 1), ParseError);
}

TEST_CASE("parser: print/parse round trip on random expressions", "[index][parser]") {
  std::mt19937 rng(12345);
  std::vector<std::int64_t> pts{-9, -4, -1, 0, 1, 3, 7, 12};
  for (int n = 0; n < 2000; ++n) {
    AffineExpr e = random_expr(rng, 2, 1, 4);
    std::string s = to_string(e);
    AffineExpr back = parse_affine_expr(s, 2, 1);
    INFO(s);
    CHECK(to_string(back) == s);
    for (auto a : pts)
      for (auto b : pts) {
        std::vector<std::int64_t> d{a, b}, sy{a - b};
        REQUIRE(evaluate(back, d, sy) == evaluate(e, d, sy));
      }
  }
}

TEST_CASE("parser: map round trip", "[index][parser]") {
  IndexingMap m = parse_indexing_map(
      "(d0, d1)[s0, s1] -> (d0 * 2 + s0, d1 - s1 floordiv 3) domain: d0 in [0, 4] d1 in [2, 9] s0 in [0, 1] s1 in [0, "
      "5] "
      "(d0 + s1) mod 3 in [0, 1]");
  CHECK(parse_indexing_map(m.to_string()).to_string() == m.to_string());
}

// ---- the seed's simplifier examples -----------------------------------------------------------

TEST_CASE("seed: (d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16) with d in [0, 6] x [0, 14]", "[index][seed][simplify]") {
  CHECK(simplified("(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16) domain: d0 in [0, 6] d1 in [0, 14]") ==
        canonical("(d0, d1) -> (d0, d1) domain: d0 in [0, 6] d1 in [0, 14]"));
  // and with the domain of the issue's example
  CHECK(to_string(simplify(parse_indexing_map(
                               "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16) domain: d0 in [0, 9] d1 in [0, 14]"))
                      .results[1]) == "d1");
}

TEST_CASE("seed: digits of 100d0 + 10d1 + d2 with d_i in [0, 9]", "[index][seed][simplify]") {
  std::string in =
      "(d0, d1, d2) -> ((100d0 + 10d1 + d2) floorDiv 100, ((100d0 + 10d1 + d2) mod 100) floordiv 10, d2 mod 10) "
      "domain: d0 in [0, 9] d1 in [0, 9] d2 in [0, 9]";
  IndexingMap s = simplify_checked(parse_indexing_map(in));
  CHECK(s.to_string() == canonical("(d0, d1, d2) -> (d0, d1, d2) domain: d0 in [0, 9] d1 in [0, 9] d2 in [0, 9]"));
}

TEST_CASE("seed: (16d0 + 4d1 + d2) floordiv 8 and mod 8 with d_i in [0, 9]", "[index][seed][simplify]") {
  std::string in =
      "(d0, d1, d2) -> ((16d0 + 4d1 + d2) floordiv 8, (16d0 + 4d1 + d2) mod 8) domain: d0 in [0, 9] d1 in [0, 9] d2 in "
      "[0, 9]";
  IndexingMap s = simplify_checked(parse_indexing_map(in));
  CHECK(s.to_string() == canonical("(d0, d1, d2) -> (2d0 + (4d1 + d2) floordiv 8, (4d1 + d2) mod 8) domain: d0 in [0, "
                                   "9] d1 in [0, 9] d2 in [0, 9]"));
  CHECK(to_string(s.results[0]) == "d0 * 2 + (d1 * 4 + d2) floordiv 8");
}

TEST_CASE("seed: -(-11d0 - d1 + 109) floordiv 11 + 9 with d in [0, 9] x [0, 10]", "[index][seed][simplify]") {
  IndexingMap s = simplify_checked(
      parse_indexing_map("(d0, d1) -> (-(-11d0 - d1 + 109) floordiv 11 + 9) domain: d0 in [0, 9] d1 in [0, 10]"));
  CHECK(s.to_string() == canonical("(d0, d1) -> (d0) domain: d0 in [0, 9] d1 in [0, 10]"));
}

TEST_CASE("seed: reshape [10,10,10] -> [50,20] -> [10,10,10] composes to the identity", "[index][seed][compose]") {
  // output->input of reshape2 first, then of reshape1
  IndexingMap r2 = reshape_map({50, 20}, {10, 10, 10});
  IndexingMap r1 = reshape_map({10, 10, 10}, {50, 20});
  IndexingMap fused = compose(r2, r1);
  CHECK(fused.to_string() == "(d0, d1, d2) -> (d0, d1, d2)\ndomain:\nd0 in [0, 9]\nd1 in [0, 9]\nd2 in [0, 9]\n");
  CHECK(same_relation(fused, compose(r2, r1, false)));
}

TEST_CASE("seed: constraint simplification", "[index][seed][simplify]") {
  // always satisfied: d0 + s0 in [0, 20] with d0 in [0, 5], s0 in [1, 3]
  IndexingMap a = simplify_checked(
      parse_indexing_map("(d0)[s0] -> (d0 + s0) domain: d0 in [0, 5] s0 in [1, 3] d0 + s0 in [0, 20]"));
  CHECK(a.constraints.empty());
  // lower <= e floordiv c <= upper  ->  bounds on e
  IndexingMap b = simplify_checked(
      parse_indexing_map("(d0, d1) -> (d0) domain: d0 in [0, 15] d1 in [0, 15] (d0 + d1) floordiv 4 in [1, 2]"));
  REQUIRE(b.constraints.size() == 1);
  CHECK(to_string(b.constraints[0].expr) == "d0 + d1");
  CHECK(b.constraints[0].range == Interval{4, 11});
  // lower <= e * c + k <= upper on one variable becomes its bound
  IndexingMap c = simplify_checked(parse_indexing_map("(d0) -> (d0) domain: d0 in [0, 15] d0 * 3 + 2 in [4, 20]"));
  CHECK(c.constraints.empty());
  CHECK(c.dims[0] == Interval{1, 6});
  IndexingMap d = simplify_checked(parse_indexing_map("(d0) -> (d0) domain: d0 in [0, 15] d0 floordiv 4 in [1, 2]"));
  CHECK(d.dims[0] == Interval{4, 11});
  // the expression inside a constraint is simplified like a result
  IndexingMap e = simplify_checked(
      parse_indexing_map("(d0, d1) -> (d0) domain: d0 in [0, 9] d1 in [0, 14] (d0 * 16 + d1) mod 16 in [0, 7]"));
  CHECK(e.dims[1] == Interval{0, 7});
  // never satisfied
  IndexingMap f = simplify(parse_indexing_map("(d0) -> (d0) domain: d0 in [0, 5] d0 * 2 in [1, 1]"));
  CHECK(f.known_empty);
}

// ---- simplifier rules --------------------------------------------------------------------------

TEST_CASE("simplify: rules on single expressions", "[index][simplify]") {
  std::vector<Interval> d{{0, 9}, {0, 15}, {0, 3}};
  RangeEnv env{d, {}};
  auto s = [&](std::string const& t) { return to_string(simplify(parse_affine_expr(t, 3), env)); };
  CHECK(s("(d0 * 16 + d1) floordiv 16") == "d0");
  CHECK(s("(d0 * 16 + d1) mod 16") == "d1");
  CHECK(s("(d0 * 16 + d1 + 32) floordiv 16") == "d0 + 2");
  CHECK(s("(d1 + 35) floordiv 16") == "(d1 + 3) floordiv 16 + 2");
  CHECK(s("(d1 + 35) mod 16") == "(d1 + 3) mod 16");
  CHECK(s("d0 + d0 - d0 * 2 + 3 + 4") == "7");
  CHECK(s("(d0 floordiv 2) floordiv 3") == "d0 floordiv 6");
  CHECK(s("(d0 + 5) mod 10 mod 5") == "d0 mod 5");
  CHECK(s("(d1 * 4 + d2) floordiv 8") == "d1 floordiv 2");
  CHECK(s("(d1 * 4 + d2) mod 8") == "d2 + (d1 mod 2) * 4");
  CHECK(s("(d0 floordiv 4) * 4 + d0 mod 4") == "d0");
  CHECK(s("(d0 floordiv 4) * 12 + (d0 mod 4) * 3") == "d0 * 3");
  CHECK(s("((d1 mod 12) floordiv 2) * 2 + d1 mod 2") == "d1 mod 12");
  CHECK(s("((d1 floordiv 3) mod 2) * 3 + (d1 floordiv 6) * 6 + d1 mod 3") == "d1");
  CHECK(s("d2 ceildiv 4") == "d2 ceildiv 4");  // d2 in [0, 3] spans two blocks: stays
  CHECK(s("(d2 + 1) ceildiv 4") == "1");
  CHECK(s("(d0 * 8 + d2) ceildiv 4") == "d0 * 2 + d2 ceildiv 4");
  std::vector<Interval> point{{3, 3}};
  CHECK(to_string(simplify(parse_affine_expr("d0 * 5 + 1", 1), RangeEnv{point, {}})) == "16");
}

TEST_CASE("simplify: exact on random expressions and domains", "[index][simplify]") {
  std::mt19937 rng(777);
  int simplified_smaller = 0;
  for (int n = 0; n < 600; ++n) {
    IndexingMap m;
    auto lo = [&] { return std::uniform_int_distribution<int>(-6, 6)(rng); };
    auto len = [&] { return std::uniform_int_distribution<int>(0, 9)(rng); };
    for (int i = 0; i < 2; ++i) {
      auto l = lo();
      m.dims.push_back({l, l + len()});
    }
    {
      auto l = lo();
      m.ranges.push_back({l, l + len()});
    }
    m.results = {random_expr(rng, 2, 1, 4), random_expr(rng, 2, 1, 3)};
    if (n % 3 == 0) m.constraints.push_back({random_expr(rng, 2, 1, 2), {-3, 5}});
    IndexingMap s = simplify(m);
    INFO(m.to_string() << "simplified:\n" << s.to_string());
    if (s.known_empty) {
      CHECK(relation(m).empty());
      continue;
    }
    REQUIRE(same_relation(m, s));
    // idempotent
    CHECK(simplify(s).to_string() == s.to_string());
    if (s.to_string().size() < m.to_string().size()) ++simplified_smaller;
  }
  CHECK(simplified_smaller > 100);
}

TEST_CASE("simplify: unused range variables are removed", "[index][simplify]") {
  IndexingMap m = parse_indexing_map(
      "(d0)[s0, s1, s2] -> (d0 + s2 * 0 + s1, s1 + 1) domain: d0 in [0, 3] s0 in [0, 4] s1 in [0, 5] s2 in [0, 6]");
  IndexingMap s = simplify_checked(m);
  CHECK(s.to_string() == "(d0)[s0] -> (d0 + s0, s0 + 1)\ndomain:\nd0 in [0, 3]\ns0 in [0, 5]\n");
  // a range variable used only by a constraint stays
  IndexingMap c =
      simplify_checked(parse_indexing_map("(d0)[s0] -> (d0) domain: d0 in [0, 3] s0 in [0, 5] d0 + s0 in [2, 2]"));
  CHECK(c.num_ranges() == 1);
}

TEST_CASE("simplify: interval evaluation over the domain", "[index][simplify]") {
  IndexingMap m = parse_indexing_map(
      "(d0, d1)[s0] -> (d0 * 4 + s0 - d1, d1 mod 8, (d0 - d0) + 5) domain: d0 in [1, 3] d1 in [0, 5] s0 in [0, 3]");
  Box r = result_ranges(m);
  CHECK(r[0] == Interval{-1, 15});
  CHECK(r[1] == Interval{0, 5});
  CHECK(r[2] == Interval{5, 5});
  CHECK(range_of(parse_affine_expr("d0 floordiv 2 - d1", 2), m) == Interval{-5, 1});
}

// ---- composition --------------------------------------------------------------------------------

TEST_CASE("compose: merges domains and range variables", "[index][compose]") {
  // reduce over dim 1 of [4, 6] after a slice of rows 1..6 step 2 of a [4, 12] tensor... as maps:
  IndexingMap reduce = reduce_map({4, 6}, {1});                     // (d0)[s0] -> (d0, s0)
  IndexingMap slice = slice_map({4, 12}, {0, 1}, {4, 12}, {1, 2});  // (d0, d1) -> (d0, d1 * 2 + 1)
  IndexingMap fused = compose(reduce, slice);
  CHECK(fused.to_string() == "(d0)[s0] -> (d0, s0 * 2 + 1)\ndomain:\nd0 in [0, 3]\ns0 in [0, 5]\n");
  CHECK(same_relation(fused, compose(reduce, slice, false)));
  // two range variables: reduce of a reduce
  IndexingMap r2 = compose(reduce_map({4, 6}, {1}), reduce_map({4, 6, 5}, {2}));
  CHECK(r2.to_string() == "(d0)[s0, s1] -> (d0, s0, s1)\ndomain:\nd0 in [0, 3]\ns0 in [0, 5]\ns1 in [0, 4]\n");
  // the second map's domain becomes constraints on the first one's results
  IndexingMap pad = pad_map({4}, {{PadDim{2, 2, 0}}});  // (d0) -> (d0 - 2), d0 in [2, 5]
  IndexingMap fused_pad = compose(IndexingMap::identity({8}), pad);
  CHECK(fused_pad.dims[0] == Interval{2, 5});
  CHECK_THROWS_AS(compose(IndexingMap::identity({2, 2}), IndexingMap::identity({2})), std::invalid_argument);
}

TEST_CASE("compose: with the seed's input->output maps gives the identity", "[index][seed][compose]") {
  // slice: output->input built here, input->output typed in from the seed
  IndexingMap out_in = slice_map({10, 20, 50}, {5, 3, 0}, {10, 20, 50}, {1, 7, 2});
  IndexingMap in_out = parse_indexing_map(R"((d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2)
domain:
d0 in [5, 9]
d1 in [3, 17]
d2 in [0, 48]
(d1 - 3) mod 7 in [0, 0]
d2 mod 2 in [0, 0])");
  CHECK(compose(out_in, in_out).to_string() == IndexingMap::identity({5, 3, 25}).to_string());
  IndexingMap back = compose(in_out, out_in);
  CHECK(same_relation(back, compose(in_out, out_in, false)));
  for (auto const& [d, rs] : relation(back)) CHECK(rs == std::set<Point>{d});

  // collapse and expand reshapes of the seed
  IndexingMap collapse = reshape_map({4, 8}, {32});
  IndexingMap collapse_in_out = parse_indexing_map("(d0, d1) -> (d0 * 8 + d1) domain: d0 in [0, 3] d1 in [0, 7]");
  CHECK(compose(collapse, collapse_in_out).to_string() == IndexingMap::identity({32}).to_string());
  CHECK(compose(collapse_in_out, collapse).to_string() == IndexingMap::identity({4, 8}).to_string());
  // general reshapes of the seed, both directions
  IndexingMap g1 = parse_indexing_map(
      "(d0, d1) -> (d0 floordiv 2, d1 floordiv 4 + (d0 mod 2) * 2, d1 mod 4) domain: d0 in [0, 3] d1 in [0, 7]");
  CHECK(compose(reshape_map({4, 8}, {2, 4, 4}), g1).to_string() == IndexingMap::identity({2, 4, 4}).to_string());
  CHECK(compose(g1, reshape_map({4, 8}, {2, 4, 4})).to_string() == IndexingMap::identity({4, 8}).to_string());
  IndexingMap g2 = parse_indexing_map(
      "(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4) domain: d0 in [0, 3] d1 in [0, 7] d2 in [0, 11]");
  CHECK(compose(reshape_map({4, 8, 12}, {32, 3, 4}), g2).to_string() == IndexingMap::identity({32, 3, 4}).to_string());
  CHECK(compose(g2, reshape_map({4, 8, 12}, {32, 3, 4})).to_string() == IndexingMap::identity({4, 8, 12}).to_string());
  // concat operand 2 and its input->output map
  auto cm = concat_maps({{2, 5, 7}, {2, 11, 7}, {2, 17, 7}}, 1);
  IndexingMap c2_in_out =
      parse_indexing_map("(d0, d1, d2) -> (d0, d1 + 5, d2) domain: d0 in [0, 1] d1 in [0, 10] d2 in [0, 6]");
  CHECK(compose(c2_in_out, cm[1]).to_string() == IndexingMap::identity({2, 11, 7}).to_string());
  // transpose and reverse
  IndexingMap t_in_out = parse_indexing_map(
      "(d0, d1, d2, d3) -> (d0, d2, d3, d1) domain: d0 in [0, 2] d1 in [0, 12287] d2 in [0, 5] d3 in [0, 127]");
  CHECK(compose(transpose_map({3, 12288, 6, 128}, {0, 2, 3, 1}), t_in_out).to_string() ==
        IndexingMap::identity({3, 6, 128, 12288}).to_string());
  IndexingMap rev = reverse_map({1, 17, 9, 9}, {1, 2});
  // d0 in [0, 0] is the constant 0 after simplification
  CHECK(compose(rev, rev).to_string() ==
        "(d0, d1, d2, d3) -> (0, d1, d2, d3)\ndomain:\nd0 in [0, 0]\nd1 in [0, 16]\nd2 in [0, 8]\nd3 in [0, 8]\n");
}

TEST_CASE("compose: reshape followed by its inverse, many shapes", "[index][compose]") {
  std::vector<std::pair<Shape, Shape>> cases{
      {{4, 8}, {32}},   {{4, 8}, {2, 4, 4}},    {{4, 8, 12}, {32, 3, 4}}, {{10, 10, 10}, {50, 20}},
      {{6, 4}, {3, 8}}, {{2, 3, 4}, {4, 3, 2}}, {{12}, {2, 2, 3}},        {{1, 6, 1}, {3, 2}},
      {{5, 6}, {6, 5}}, {{2, 2, 2, 2}, {4, 4}}, {{3, 4, 5}, {60}},        {{8, 9}, {4, 2, 3, 3}},
  };
  for (auto const& [a, b] : cases) {
    INFO(a.size() << " -> " << b.size());
    // a -> b -> a: output (a-shaped) of the second reshape back to the first's operand
    IndexingMap there = reshape_map(a, b);  // b-index -> a-index
    IndexingMap back = reshape_map(b, a);   // a-index -> b-index
    IndexingMap id = compose(back, there);
    CHECK(same_relation(id, IndexingMap::identity(a)));
    CHECK(id.to_string() == simplify(IndexingMap::identity(a)).to_string());
  }
}

TEST_CASE("seed: fusion examples", "[index][seed][compose]") {
  // p0 + transpose(p0): two maps for p0
  IndexingMap direct = elementwise_map({1000, 1000});
  IndexingMap through = compose(elementwise_map({1000, 1000}), transpose_map({1000, 1000}, {1, 0}));
  CHECK(to_string(direct.results[0]) + ", " + to_string(direct.results[1]) == "d0, d1");
  CHECK(through.to_string() == canonical("(d0, d1) -> (d1, d0) domain: d0 in [0, 999] d1 in [0, 999]"));
  // two transpose chains that end up as the same map
  IndexingMap lhs = compose(compose(transpose_map({10, 20, 50}, {0, 2, 1}), elementwise_map({10, 20, 50})),
                            transpose_map({20, 10, 50}, {1, 0, 2}));
  IndexingMap rhs = compose(compose(transpose_map({50, 10, 20}, {1, 0, 2}), elementwise_map({50, 10, 20})),
                            transpose_map({20, 10, 50}, {2, 1, 0}));
  std::string expected = canonical("(d0, d1, d2) -> (d2, d0, d1) domain: d0 in [0, 9] d1 in [0, 49] d2 in [0, 19]");
  CHECK(lhs.to_string() == expected);
  CHECK(rhs.to_string() == expected);
}

TEST_CASE("compose: chains of reshapes back to the start shape", "[index][compose]") {
  // a long chain through several factorizations of 120 composes to the identity
  std::vector<Shape> chain{{2, 3, 4, 5}, {6, 20},      {120},    {4, 30},     {8, 15},
                           {2, 3, 4, 5}, {5, 4, 3, 2}, {10, 12}, {2, 3, 4, 5}};
  IndexingMap m = IndexingMap::identity(chain.back());
  for (std::size_t i = chain.size() - 1; i > 0; --i) m = compose(m, reshape_map(chain[i - 1], chain[i]));
  CHECK(m.to_string() == IndexingMap::identity({2, 3, 4, 5}).to_string());

  // random chains: always exact; most (not all: see docs/indexing-maps.md) fully simplified
  std::mt19937 rng(5);
  std::vector<std::int64_t> primes{2, 2, 2, 3, 5};
  auto random_shape = [&] {
    auto p = primes;
    std::shuffle(p.begin(), p.end(), rng);
    Shape s;
    std::int64_t cur = 1;
    for (auto x : p) {
      cur *= x;
      if (std::uniform_int_distribution<int>(0, 1)(rng)) {
        s.push_back(cur);
        cur = 1;
      }
    }
    if (cur > 1 || s.empty()) s.push_back(cur);
    return s;
  };
  int identities = 0;
  const int total = 60;
  for (int n = 0; n < total; ++n) {
    std::vector<Shape> c{random_shape()};
    int len = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int i = 0; i < len; ++i) c.push_back(random_shape());
    c.push_back(c.front());
    IndexingMap f = IndexingMap::identity(c.back());
    for (std::size_t i = c.size() - 1; i > 0; --i) f = compose(f, reshape_map(c[i - 1], c[i]));
    INFO(f.to_string());
    REQUIRE(same_relation(f, IndexingMap::identity(c.back())));
    if (f.to_string() == simplify(IndexingMap::identity(c.back())).to_string()) ++identities;
  }
  CHECK(identities * 2 > total);
}
