// index/: builtin ops' output->input maps (checked against direct index computation and the
// seed's maps), input boxes, and the AUTOSPLIT tiling checker.
#include "helpers.hpp"

#include <catch2/catch.hpp>

using namespace index_test;

namespace {
// `m` is defined exactly on `output` and sends every output index `o` to `expected(o)`.
template <class F>
void check_total_map(IndexingMap const& m, Shape const& output, F&& expected) {
  REQUIRE(m.num_ranges() == 0);
  std::size_t seen = 0;
  for_each_in_box(full_box(output), [&](Point const& o) {
    INFO("output index " << ::Catch::Detail::stringify(o) << "\n" << m.to_string());
    REQUIRE(m.in_domain(o));
    REQUIRE(m.apply(o) == expected(o));
    ++seen;
  });
  std::size_t in_domain = 0;
  m.for_each_point([&](auto, auto) { ++in_domain; });
  CHECK(in_domain == seen);
}

std::string seed_map(std::string const& text) { return parse_indexing_map(text).to_string(); }

Point unlinearize(std::int64_t l, Shape const& s) {
  Point p(s.size());
  for (std::size_t i = s.size(); i-- > 0;) {
    p[i] = l % s[i];
    l /= s[i];
  }
  return p;
}
std::int64_t linear(Point const& p, Shape const& s) {
  std::int64_t l = 0;
  for (std::size_t i = 0; i < s.size(); ++i) l = l * s[i] + p[i];
  return l;
}
}  // namespace

// ---- per-op maps against the seed -----------------------------------------------------------

TEST_CASE("seed: elementwise", "[index][seed][ops]") {
  CHECK(elementwise_map({10, 20}).to_string() ==
        seed_map("(d0, d1) -> (d0, d1)\ndomain:\nd0 in [0, 9]\nd1 in [0, 19]"));
}

TEST_CASE("seed: broadcast f32[20] -> f32[10, 20, 30], dimensions={1}", "[index][seed][ops]") {
  CHECK(broadcast_map({20}, {10, 20, 30}, {1}).to_string() ==
        seed_map("(d0, d1, d2) -> (d1)\ndomain:\nd0 in [0, 9]\nd1 in [0, 19]\nd2 in [0, 29]"));
  // the seed's input->output map: each input element reaches a 10x1x30 slab
  IndexingMap in_out =
      parse_indexing_map("(d0)[s0, s1] -> (s0, d0, s1)\ndomain:\nd0 in [0, 19]\ns0 in [0, 9]\ns1 in [0, 29]");
  IndexingMap round = compose(in_out, broadcast_map({20}, {10, 20, 30}, {1}));
  CHECK(round.to_string() == seed_map("(d0) -> (d0) domain: d0 in [0, 19]"));
}

TEST_CASE("seed: transpose dimensions={0, 2, 3, 1}", "[index][seed][ops]") {
  CHECK(transpose_map({3, 12288, 6, 128}, {0, 2, 3, 1}).to_string() ==
        seed_map("(d0, d1, d2, d3) -> (d0, d3, d1, d2)\ndomain:\nd0 in [0, 2]\nd1 in [0, 5]\nd2 in [0, 127]\nd3 in [0, "
                 "12287]"));
}

TEST_CASE("seed: reverse dimensions={1, 2}", "[index][seed][ops]") {
  CHECK(reverse_map({1, 17, 9, 9}, {1, 2}).to_string() ==
        seed_map("(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3)\ndomain:\nd0 in [0, 0]\nd1 in [0, 16]\nd2 in [0, "
                 "8]\nd3 in [0, 8]"));
}

TEST_CASE("seed: reduce f32[256,10] dimensions={0}", "[index][seed][ops]") {
  CHECK(reduce_map({256, 10}, {0}).to_string() ==
        seed_map("(d0)[s0] -> (s0, d0)\ndomain:\nd0 in [0, 9]\ns0 in [0, 255]"));
  CHECK(scalar_operand_map({10}).to_string() == seed_map("(d0) -> ()\ndomain:\nd0 in [0, 9]"));
  // the intro's reduction 2x4x8x16 -> 4x8: (d0, d1) -> (r0, d0, d1, r1)
  CHECK(reduce_map({2, 4, 8, 16}, {0, 3}).to_string() ==
        seed_map("(d0, d1)[s0, s1] -> (s0, d0, d1, s1) domain: d0 in [0, 3] d1 in [0, 7] s0 in [0, 1] s1 in [0, 15]"));
}

TEST_CASE("seed: slice {[5:10:1], [3:20:7], [0:50:2]}", "[index][seed][ops]") {
  CHECK(slice_map({10, 20, 50}, {5, 3, 0}, {10, 20, 50}, {1, 7, 2}).to_string() ==
        seed_map("(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2)\ndomain:\nd0 in [0, 4]\nd1 in [0, 2]\nd2 in [0, 24]"));
}

TEST_CASE("seed: reshapes", "[index][seed][ops]") {
  CHECK(reshape_map({4, 8}, {32}).to_string() == seed_map("(d0) -> (d0 floordiv 8, d0 mod 8)\ndomain:\nd0 in [0, 31]"));
  CHECK(reshape_map({32}, {4, 8}).to_string() ==
        seed_map("(d0, d1) -> (d0 * 8 + d1)\ndomain:\nd0 in [0, 3]\nd1 in [0, 7]"));
  CHECK(reshape_map({4, 8}, {2, 4, 4}).to_string() ==
        seed_map("(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, d2 + (d1 mod 2) * 4)\ndomain:\nd0 in [0, 1]\nd1 in [0, "
                 "3]\nd2 in [0, 3]"));
  CHECK(reshape_map({4, 8, 12}, {32, 3, 4}).to_string() ==
        seed_map("(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2)\ndomain:\nd0 in [0, 31]\nd1 in [0, 2]\nd2 in "
                 "[0, 3]"));
}

TEST_CASE("seed: concatenate dimensions={1}", "[index][seed][ops]") {
  auto m = concat_maps({{2, 5, 7}, {2, 11, 7}, {2, 17, 7}}, 1);
  REQUIRE(m.size() == 3);
  CHECK(m[0].to_string() ==
        seed_map("(d0, d1, d2) -> (d0, d1, d2)\ndomain:\nd0 in [0, 1]\nd1 in [0, 4]\nd2 in [0, 6]"));
  CHECK(m[1].to_string() ==
        seed_map("(d0, d1, d2) -> (d0, d1 - 5, d2)\ndomain:\nd0 in [0, 1]\nd1 in [5, 15]\nd2 in [0, 6]"));
  CHECK(m[2].to_string() ==
        seed_map("(d0, d1, d2) -> (d0, d1 - 16, d2)\ndomain:\nd0 in [0, 1]\nd1 in [16, 32]\nd2 in [0, 6]"));
  CHECK(concat_shape({{2, 5, 7}, {2, 11, 7}, {2, 17, 7}}, 1) == Shape{2, 33, 7});
}

TEST_CASE("seed: dot", "[index][seed][ops]") {
  CHECK(dot_map({4, 128, 256}, {4, 256, 64}, {0}, {0}, {2}, {1}, true).to_string() ==
        seed_map(
            "(d0, d1, d2)[s0] -> (d0, d1, s0)\ndomain:\nd0 in [0, 3]\nd1 in [0, 127]\nd2 in [0, 63]\ns0 in [0, 255]"));
  CHECK(dot_map({4, 128, 256}, {4, 256, 64}, {0}, {0}, {2}, {1}, false).to_string() ==
        seed_map(
            "(d0, d1, d2)[s0] -> (d0, s0, d2)\ndomain:\nd0 in [0, 3]\nd1 in [0, 127]\nd2 in [0, 63]\ns0 in [0, 255]"));
}

TEST_CASE("seed: pad 1_4_1x4_8_0", "[index][seed][ops]") {
  IndexingMap m = pad_map({4, 4}, {{1, 4, 1}, {4, 8, 0}});
  CHECK(
      m.to_string() ==
      seed_map(
          "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4)\ndomain:\nd0 in [1, 7]\nd1 in [4, 7]\n(d0 - 1) mod 2 in [0, 0]"));
  CHECK(pad_shape({4, 4}, {{1, 4, 1}, {4, 8, 0}}) == Shape{12, 16});
  CHECK(scalar_operand_map({12, 16}).to_string() == seed_map("(d0, d1) -> ()\ndomain:\nd0 in [0, 11]\nd1 in [0, 15]"));
}

TEST_CASE("seed: reduce-window as composition of window and pad-free indexing", "[index][seed][ops]") {
  // the seed's map typed in: (d0, d1)[s0] -> (d0, d1 + s0); window 1x512 over [1024, 514]
  IndexingMap m =
      parse_indexing_map("(d0, d1)[s0] -> (d0, d1 + s0) domain: d0 in [0, 1023] d1 in [0, 2] s0 in [0, 511]");
  CHECK(result_ranges(m) == Box{{0, 1023}, {0, 513}});
}

// ---- per-op maps against direct index computation ---------------------------------------------

TEST_CASE("ops: transpose, broadcast, reverse, slice by brute force", "[index][ops]") {
  Shape in{2, 3, 4};
  std::vector<std::vector<int>> perms{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}};
  for (auto const& p : perms) {
    Shape out;
    for (int i : p) out.push_back(in[static_cast<std::size_t>(i)]);
    check_total_map(transpose_map(in, p), out, [&](Point const& o) {
      Point r(3);
      for (std::size_t i = 0; i < 3; ++i) r[static_cast<std::size_t>(p[i])] = o[i];
      return r;
    });
  }
  check_total_map(broadcast_map({3, 1}, {2, 3, 5}, {1, 2}), {2, 3, 5}, [](Point const& o) { return Point{o[1], 0}; });
  check_total_map(numpy_broadcast_map({4}, {3, 4}), {3, 4}, [](Point const& o) { return Point{o[1]}; });
  check_total_map(reverse_map({3, 5}, {1}), {3, 5}, [](Point const& o) { return Point{o[0], 4 - o[1]}; });
  check_total_map(slice_map({9, 10}, {1, 2}, {8, 9}, {3, 2}), {3, 4}, [](Point const& o) {
    return Point{1 + 3 * o[0], 2 + 2 * o[1]};
  });
  check_total_map(slice_map_sizes({64, 32}, {16, 0}, {16, 32}), {16, 32}, [](Point const& o) {
    return Point{16 + o[0], o[1]};
  });
  CHECK_THROWS_AS(transpose_map(in, {0, 0, 1}), std::invalid_argument);
  CHECK_THROWS_AS(slice_map({4}, {2}, {5}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(broadcast_map({3}, {4}, {0}), std::invalid_argument);
}

TEST_CASE("ops: reshape by brute force on many shape pairs", "[index][ops]") {
  std::vector<std::pair<Shape, Shape>> cases{
      {{4, 8}, {32}},           {{32}, {4, 8}},      {{4, 8}, {2, 4, 4}},
      {{4, 8, 12}, {32, 3, 4}}, {{6, 4}, {4, 6}},    {{6, 4}, {3, 8}},
      {{2, 3, 4}, {4, 3, 2}},   {{1, 6, 1}, {3, 2}}, {{5, 7}, {7, 5}},
      {{2, 2, 2, 2}, {4, 4}},   {{12, 5}, {3, 20}},  {{9, 4}, {6, 6}},
      {{3, 4, 5}, {5, 4, 3}},   {{8}, {8}},          {{10, 10, 10}, {50, 20}},
  };
  for (auto const& ab : cases) {
    Shape const& a = ab.first;
    Shape const& b = ab.second;
    IndexingMap m = reshape_map(a, b);
    INFO(m.to_string());
    check_total_map(m, b, [&](Point const& o) { return unlinearize(linear(o, b), a); });
  }
  CHECK_THROWS_AS(reshape_map({4, 8}, {31}), std::invalid_argument);
}

TEST_CASE("ops: concat by brute force", "[index][ops]") {
  std::vector<Shape> ops{{2, 3}, {2, 1}, {2, 4}};
  auto maps = concat_maps(ops, 1);
  for_each_in_box(full_box({2, 8}), [&](Point const& o) {
    std::int64_t off = 0;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      bool mine = o[1] >= off && o[1] < off + ops[k][1];
      REQUIRE(maps[k].in_domain(o) == mine);
      if (mine) REQUIRE(maps[k].apply(o) == Point{o[0], o[1] - off});
      off += ops[k][1];
    }
  });
  CHECK_THROWS_AS(concat_maps({{2, 3}, {3, 3}}, 1), std::invalid_argument);
}

TEST_CASE("ops: reduce and dot by brute force", "[index][ops]") {
  Shape in{3, 4, 2};
  for (bool keep : {false, true}) {
    IndexingMap m = reduce_map(in, {0, 2}, keep);
    auto rel = relation(m);
    Shape out = keep ? Shape{1, 4, 1} : Shape{4};
    std::size_t outs = 0;
    for_each_in_box(full_box(out), [&](Point const& o) {
      ++outs;
      std::set<Point> expected;
      for_each_in_box(full_box(in), [&](Point const& i) {
        if (i[1] == o[keep ? 1 : 0]) expected.insert(i);
      });
      REQUIRE(rel[o] == expected);
    });
    CHECK(rel.size() == outs);
  }
  // dot [2,3,4] x [2,4,5] -> [2,3,5]
  IndexingMap l = dot_map({2, 3, 4}, {2, 4, 5}, {0}, {0}, {2}, {1}, true);
  IndexingMap r = dot_map({2, 3, 4}, {2, 4, 5}, {0}, {0}, {2}, {1}, false);
  auto lr = relation(l), rr = relation(r);
  for_each_in_box(full_box({2, 3, 5}), [&](Point const& o) {
    std::set<Point> el, er;
    for (std::int64_t k = 0; k < 4; ++k) {
      el.insert({o[0], o[1], k});
      er.insert({o[0], k, o[2]});
    }
    REQUIRE(lr[o] == el);
    REQUIRE(rr[o] == er);
  });
}

TEST_CASE("ops: pad by brute force, with interior and cropping", "[index][ops]") {
  std::vector<std::pair<Shape, std::vector<PadDim>>> cases{
      {{4, 4}, {{1, 4, 1}, {4, 8, 0}}},
      {{5}, {{-2, 1, 0}}},
      {{5}, {{-3, -1, 2}}},
      {{3, 2}, {{0, 0, 3}, {2, -1, 1}}},
  };
  for (auto const& c : cases) {
    Shape const& in = c.first;
    std::vector<PadDim> const& cfg = c.second;
    IndexingMap m = pad_map(in, cfg);
    Shape out = pad_shape(in, cfg);
    INFO(m.to_string());
    for_each_in_box(full_box(out), [&](Point const& o) {
      Point src;
      bool hit = true;
      for (std::size_t i = 0; i < o.size(); ++i) {
        std::int64_t t = o[i] - cfg[i].low, step = cfg[i].interior + 1;
        if (t < 0 || t % step != 0 || t / step >= in[i]) hit = false;
        src.push_back(t >= 0 ? t / step : -1);
      }
      REQUIRE(m.in_domain(o) == hit);
      if (hit) REQUIRE(m.apply(o) == src);
    });
    CHECK(same_relation(m, simplify(m)));
  }
}

// ---- input boxes ---------------------------------------------------------------------------------

TEST_CASE("input_box: matches the brute-force bounding box", "[index][tiling]") {
  std::vector<std::pair<IndexingMap, Shape>> maps{
      {transpose_map({4, 6, 5}, {2, 0, 1}), {5, 4, 6}},
      {reshape_map({4, 8, 3}, {8, 12}), {8, 12}},
      {reshape_map({12}, {3, 4}), {3, 4}},
      {slice_map({20, 9}, {2, 1}, {20, 9}, {3, 2}), {6, 4}},
      {pad_map({4, 4}, {{1, 4, 1}, {4, 8, 0}}), {12, 16}},
      {concat_maps({{3, 4}, {5, 4}}, 0)[1], {8, 4}},
      {reduce_map({6, 4, 3}, {1}), {6, 3}},
      {broadcast_map({4}, {3, 4}, {1}), {3, 4}},
      {reverse_map({7, 3}, {0}), {7, 3}},
  };
  std::mt19937 rng(99);
  for (auto const& [m, out] : maps) {
    for (int n = 0; n < 40; ++n) {
      Box tile;
      for (auto e : out) {
        auto a = std::uniform_int_distribution<std::int64_t>(0, e - 1)(rng);
        auto b = std::uniform_int_distribution<std::int64_t>(0, e - 1)(rng);
        tile.push_back({std::min(a, b), std::max(a, b)});
      }
      auto got = input_box(m, tile);
      auto want = brute_input_box(m, tile);
      INFO(m.to_string() << "tile " << to_string(tile));
      REQUIRE(got.has_value() == want.has_value());
      if (got) REQUIRE(to_string(*got) == to_string(*want));
    }
  }
}

// ---- the tiling checker ------------------------------------------------------------------------

namespace {
// An op with output [64, 32] reading a transposed [32, 64] input and a [64, 32] elementwise one.
TilingSpec two_input_spec() {
  TilingSpec s;
  s.output = {64, 32};
  s.dim = 0;
  s.inputs = {{{32, 64}, transpose_map({32, 64}, {1, 0})}, {{64, 32}, elementwise_map({64, 32})}};
  return s;
}
TilePart part(std::int64_t start, std::int64_t size) {
  return {start, size, {Box{{0, 31}, {start, start + size - 1}}, Box{{start, start + size - 1}, {0, 31}}}};
}
}  // namespace

TEST_CASE("tiling: AUTOSPLIT parts cover exactly and read what they need", "[index][tiling]") {
  TilingSpec s = two_input_spec();
  s.parts = autosplit_parts(s.output, s.dim, 24, s.inputs);
  REQUIRE(s.parts.size() == 3);
  CHECK(s.parts[2].start == 48);
  CHECK(s.parts[2].size == 16);  // the last one smaller
  CHECK(to_string(s.parts[1].input_slices[0]) == "[0, 31] x [24, 47]");
  CHECK(to_string(s.parts[1].input_slices[1]) == "[24, 47] x [0, 31]");
  TilingResult r = check_tiling(s);
  CHECK(r.ok());
  CHECK(r.message() == "tiling ok");
  // hand-written parts are the same
  s.parts = {part(0, 24), part(24, 24), part(48, 16)};
  CHECK(check_tiling(s).ok());
}

TEST_CASE("tiling: gap", "[index][tiling]") {
  TilingSpec s = two_input_spec();
  s.parts = {part(0, 24), part(32, 32)};
  TilingResult r = check_tiling(s);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.issues.size() == 1);
  CHECK(r.issues[0].fault == TilingFault::gap);
  CHECK(r.issues[0].part == 1);
  CHECK(r.issues[0].dim == 0);
  CHECK(r.message() == "gap: no part computes [24, 31] of dimension 0 (between part 0 [0, 23] and part 1 [32, 63])");
  s.parts = {part(0, 24), part(24, 24)};
  CHECK(check_tiling(s).message() == "gap: no part computes [48, 63] of dimension 0 (after part 1 [24, 47])");
}

TEST_CASE("tiling: overlap", "[index][tiling]") {
  TilingSpec s = two_input_spec();
  s.parts = {part(0, 24), part(20, 24), part(44, 20)};
  TilingResult r = check_tiling(s);
  REQUIRE(r.issues.size() == 1);
  CHECK(r.issues[0].fault == TilingFault::overlap);
  CHECK(r.issues[0].part == 1);
  CHECK(r.message() == "overlap: part 0 [0, 23] and part 1 [20, 43] both compute [20, 23] of dimension 0");
}

TEST_CASE("tiling: parts outside the output, empty, or out of order", "[index][tiling]") {
  TilingSpec s = two_input_spec();
  s.parts = {part(0, 32), part(32, 40)};
  s.parts[1].input_slices = part(32, 32).input_slices;
  TilingResult r = check_tiling(s);
  CHECK(r.has(TilingFault::out_of_bounds));
  CHECK_THAT(r.message(), Catch::Contains("part 1 [32, 71] reaches outside dimension 0 of the output, [0, 63]"));
  s.parts = {part(32, 32), part(0, 32)};
  r = check_tiling(s);
  REQUIRE(r.issues.size() == 1);
  CHECK(r.issues[0].fault == TilingFault::out_of_order);
  s.parts = {part(0, 64), TilePart{64, 0, {Box{{0, -1}, {0, -1}}, Box{{0, -1}, {0, -1}}}}};
  CHECK(check_tiling(s).has(TilingFault::empty_part));
}

TEST_CASE("tiling: slices outside their input or missing needed elements", "[index][tiling]") {
  TilingSpec s = two_input_spec();
  s.parts = {part(0, 32), part(32, 32)};
  s.parts[1].input_slices[0][1] = {32, 64};  // the transposed input has only 64 columns
  TilingResult r = check_tiling(s);
  REQUIRE(r.issues.size() == 1);
  CHECK(r.issues[0].fault == TilingFault::slice_outside_input);
  CHECK(r.issues[0].part == 1);
  CHECK(r.issues[0].input == 0);
  CHECK(r.issues[0].dim == 1);
  CHECK(r.message() == "part 1 [32, 63], input 0: slice [32, 64] of dimension 1 is outside the input's [0, 63]");

  s.parts = {part(0, 32), part(32, 32)};
  s.parts[0].input_slices[1][0] = {0, 30};  // misses row 31
  r = check_tiling(s);
  REQUIRE(r.issues.size() == 1);
  CHECK(r.issues[0].fault == TilingFault::slice_too_small);
  CHECK(r.message() == "part 0 [0, 31], input 1: needs [0, 31] of dimension 0 but its slice holds [0, 30]");
  s.parts = {part(0, 32), part(32, 32)};
  s.parts[0].input_slices[1] = Box{{0, -1}, {0, -1}};
  CHECK_THAT(check_tiling(s).message(), Catch::Contains("its slice holds nothing"));
}

TEST_CASE("tiling: bad specs are reported, not crashed on", "[index][tiling]") {
  TilingSpec s = two_input_spec();
  s.dim = 2;
  CHECK_THAT(check_tiling(s).message(), Catch::Contains("split dimension 2 is not a dimension of the rank-2 output"));
  s = two_input_spec();
  s.parts = {TilePart{0, 64, {Box{{0, 31}, {0, 63}}}}};
  CHECK(check_tiling(s).has(TilingFault::bad_spec));
  s.parts = {TilePart{0, 64, {Box{{0, 31}}, Box{{0, 63}, {0, 31}}}}};
  CHECK_THAT(check_tiling(s).message(), Catch::Contains("slice has rank 1, the input has rank 2"));
}

TEST_CASE("tiling: AUTOSPLIT over reshape, concat, reduce, pad and slice", "[index][tiling]") {
  struct Case {
    Shape output;
    int dim;
    std::int64_t chunk;
    std::vector<TiledInput> inputs;
  };
  auto cm = concat_maps({{5, 6}, {5, 10}}, 1);
  std::vector<Case> cases{
      {{8, 12}, 0, 3, {{{4, 8, 3}, reshape_map({4, 8, 3}, {8, 12})}}},
      {{5, 16}, 1, 5, {{{5, 6}, cm[0]}, {{5, 10}, cm[1]}}},
      {{6, 3}, 1, 2, {{{6, 4, 3}, reduce_map({6, 4, 3}, {1})}}},
      {{12, 16}, 0, 5, {{{4, 4}, pad_map({4, 4}, {{1, 4, 1}, {4, 8, 0}})}}},
      {{6, 4}, 0, 4, {{{20, 9}, slice_map({20, 9}, {2, 1}, {20, 9}, {3, 2})}}},
  };
  for (auto const& c : cases) {
    TilingSpec s{c.output, c.dim, c.inputs, autosplit_parts(c.output, c.dim, c.chunk, c.inputs)};
    TilingResult r = check_tiling(s);
    INFO(r.message());
    CHECK(r.ok());
    // each part's slice is the exact bounding box of what it reads
    for (auto const& p : s.parts)
      for (std::size_t k = 0; k < c.inputs.size(); ++k) {
        auto want = brute_input_box(c.inputs[k].map, part_tile(c.output, c.dim, p.start, p.size));
        if (want)
          CHECK(to_string(p.input_slices[k]) == to_string(*want));
        else
          CHECK(p.input_slices[k][0].empty());
      }
    // shrinking any non-empty slice is caught
    for (std::size_t pi = 0; pi < s.parts.size(); ++pi)
      for (std::size_t k = 0; k < c.inputs.size(); ++k) {
        if (s.parts[pi].input_slices[k][0].empty()) continue;
        TilingSpec bad = s;
        bad.parts[pi].input_slices[k].back().hi -= 1;
        TilingResult br = check_tiling(bad);
        REQUIRE(br.has(TilingFault::slice_too_small));
        CHECK(br.issues[0].part == static_cast<int>(pi));
        CHECK(br.issues[0].input == static_cast<int>(k));
      }
  }
  // the concat case: the first part reads nothing of the second operand
  auto parts = autosplit_parts({5, 16}, 1, 5, {{{5, 6}, cm[0]}, {{5, 10}, cm[1]}});
  CHECK(parts[0].input_slices[1][0].empty());
  CHECK(to_string(parts[1].input_slices[0]) == "[0, 4] x [5, 5]");
  CHECK(to_string(parts[1].input_slices[1]) == "[0, 4] x [0, 3]");
}
