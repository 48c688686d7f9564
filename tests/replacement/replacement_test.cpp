// The replacement grammar at run time on real graphs: AUTOSPLIT (with TYPICAL_SLICE,
// CHANGEDIM_SLICE, AUTOSPLIT_SLICE, TYPICAL_CONV_SLICE, split variables), OP_ITER and
// ITER_INPUT_OF, external functions, MESSAGE, LAYOUT_CHUNKSIZE, the AUTOSPLIT verify mode, and
// transactional rewrites under injected faults.
#include <optgrammar/core/declarations.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace optgrammar;

// ---- external functions ---------------------------------------------------------------------
// :::EXTERNAL_SHAPEFN::: { bool depth_at_least(Constraint&, OpRef, int); }
static bool depth_at_least(Constraint& c, OpRef x, int n) { return c.output(x).dim(3) >= static_cast<std::size_t>(n); }
// :::EXTERNAL_SHAPEFN::: { float half_depth(Constraint&, OpRef, float); }
static float half_depth(Constraint& c, OpRef x, float k) { return static_cast<float>(c.output(x).dim(3)) * k; }
// :::EXTERNAL_SHAPEFN::: { QuickShape twice_depth(Replacement&, OpRef, int); }
static QuickShape twice_depth(Replacement& rpx, OpRef x, int extra) {
  const OutputDef& d = rpx.graph().output(x);
  QuickShape q;
  q.rank = 4;
  q.dims = {d.dim(0), d.dim(1), d.dim(2), 2 * d.dim(3) + static_cast<std::size_t>(extra)};
  return q;
}
// :::EXTERNAL_SHAPEFN::: { OpRef const_of_rank(Replacement&, OpRef); }
static OpRef const_of_rank(Replacement& rpx, OpRef x) {
  std::int32_t v = static_cast<std::int32_t>(rpx.graph().output(x).rank);
  return rpx.constant(OutputDef::make(DType::Int32, {1, 1, 1, 1}), std::span<const std::int32_t>(&v, 1));
}
// :::EXTERNAL_SHAPEFN::: { QuickShape my_start(Replacement&, Split_Context const&, OpRef); }
static QuickShape my_start(Replacement& rpx, Split_Context const& sc, OpRef x) {
  return simple_split_start(rpx, sc, x);
}
// :::EXTERNAL_SHAPEFN::: { QuickShape my_size(Replacement&, Split_Context const&, OpRef); }
static QuickShape my_size(Replacement& rpx, Split_Context const& sc, OpRef x) { return simple_split_size(rpx, sc, x); }
static OpRef keep_old(Replacement&, OpDef const&) { return OpRef{}; }  // replaced below by its root
static OpRef keep_self(Replacement& rpx, OpDef const&) { return rpx.root(); }
static OpRef to_negate(Replacement& rpx, OpDef const& old) {
  OpRef in = rpx.graph().input(rpx.root(), 0);
  (void)old;
  return rpx.op("T_Negated", {in});
}
// An external function holds the OpDef of ops made for it, and of the replaced op, while it makes
// enough ops to move the graph's records (with OPTGRAMMAR_CHECK_RECORD_MOVES, as the asan preset
// builds, every one of them moves them): it must read what the ops were when it was called.
struct SeenDefs {
  OpNameId a_name = 0, b_name = 0;
  std::uint32_t root_output = no_index;
  std::uint64_t root_id = 0;
};
static SeenDefs seen;
// :::EXTERNAL_SHAPEFN::: { OpRef both_after_many(Replacement&, OpDef const&, OpDef const&); }
static OpRef both_after_many(Replacement& rpx, OpDef const& a, OpDef const& b) {
  OpRef x = rpx.graph().input(rpx.root(), 0);
  for (int i = 0; i < 300; ++i) x = rpx.op("T_Link", {x});
  seen.a_name = a.name;
  seen.b_name = b.name;
  return x;
}
static OpRef grows_then_reads(Replacement& rpx, OpDef const& old) {
  OpRef x = rpx.graph().input(rpx.root(), 0);
  for (int i = 0; i < 300; ++i) x = rpx.op("T_Link", {x});
  seen.root_output = old.output;
  seen.root_id = old.id;
  return x;
}
// Fault injection.
static OpRef throws_midway(Replacement& rpx, OpDef const&) {
  rpx.op("T_Leftover", {rpx.graph().input(rpx.root(), 0)});  // made, then the function fails
  throw std::runtime_error("injected fault");
}
static OpRef nonsense_ref(Replacement& rpx, OpRef x) {
  rpx.op("T_Leftover", {x});
  return OpRef{};  // not an op of the graph
}
static QuickShape nonsense_shape(Replacement&, OpRef) {
  QuickShape q;
  q.rank = 99;
  return q;
}

// ---- rules -------------------------------------------------------------------------------------
// AUTOSPLIT along the height with TYPICAL_SLICE: three parts (4, 4, 2) joined by a Concat.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_Relu", "x"), GT(DIM_OF("*", 1), 4),
                         AUTOSPLIT(1, "I", 4, Op("T_Relu", TYPICAL_SLICE("x", "I"))))
// AUTOTHREAD_HVX as public LLM packages write it (their attention op, threaded over the height
// while it is above 1): at most autothread_hvx_ntiles parts, which the rule leaves alone after.
// AUTOTHREAD_HMX reads autothread_hmx_ntiles.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_Attn", "q", "k"), GT(DIM_HEIGHT("*"), 1),
                         AUTOTHREAD_HVX(1, "I", Op("T_Attn", TYPICAL_SLICE("q", "I"), "k")))
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_AttnHmx", "q"), GT(DIM_HEIGHT("*"), 1),
                         AUTOTHREAD_HMX(1, "I", Op("T_AttnHmx", TYPICAL_SLICE("q", "I"))))
// A part stays marked when a later rule replaces it.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("T_AttnHmx", "q"), IS_AUTOTHREADED("*"), Op("T_AttnHmxPart", "q"))
// Split variables in a hand-made AUTOSPLIT_SLICE; SPLIT_DIM in a constant.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_Vars", "x"), GT(DIM_OF("*", 3), 2),
                         AUTOSPLIT(3, "K", 2,
                                   Op("T_Vars",
                                      AUTOSPLIT_SLICE("x", gen_Shape(0, 0, 0, SPLIT_START("K")),
                                                      gen_Shape(DIM_OF("x", 0), DIM_OF("x", 1), DIM_OF("x", 2),
                                                                SPLIT_SIZE("K"))),
                                      gen_ConstScalar_i32(SPLIT_DIM("K")))))
// CHANGEDIM_SLICE: the output's depth split slices the weights along their dimension 0.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_Fc", "x", "w"), GT(DIM_OF("*", 3), 4),
                         AUTOSPLIT(3, "I", 4, Op("T_Fc", "x", CHANGEDIM_SLICE("w", "I", 0))))
// TYPICAL_CONV_SLICE: stride from a stride tensor, window from the filter's height.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_Conv", "in", "w", "s"), GT(DIM_OF("*", 1), 4),
                         AUTOSPLIT(1, "I", 4,
                                   Op("T_Conv", TYPICAL_CONV_SLICE("in", "I", "s", DIM_OF("w", 0)), "w", "s")))
// User shape functions through AUTOSPLIT_SHAPEFN_APPLY, AUTOSPLIT nested in an Op operand.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_User", "x"), GT(DIM_OF("*", 2), 3),
                         Op("T_Requant",
                            AUTOSPLIT(2, "I", 3,
                                      Op("T_User", AUTOSPLIT_SLICE("x", AUTOSPLIT_SHAPEFN_APPLY(my_start, "I", "x"),
                                                                   AUTOSPLIT_SHAPEFN_APPLY(my_size, "I", "x"))))))
// A slice of an Op construction, as public LLM packages write TYPICAL_SLICE(CAST_FP16("q"), "I")
// (the grammar wants an existing opref): the expansion builds the cast where it uses it, and the
// copies merge into one cast that every part slices.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_Half", "x"), GT(DIM_OF("*", 1), 4),
                         AUTOSPLIT(1, "I", 4, Op("T_HalfPart", TYPICAL_SLICE(CAST_TO_FP16("x"), "I"))))
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_FcHalf", "x", "w"), GT(DIM_OF("*", 3), 4),
                         AUTOSPLIT(3, "I", 4, Op("T_FcHalfPart", "x", CHANGEDIM_SLICE(CAST_TO_FP16("w"), "I", 0))))
// A chunk larger than the dimension: one part.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_One", "x"), OK, AUTOSPLIT(1, "I", 8, Op("T_OneDone", TYPICAL_SLICE("x", "I"))))
// A split whose slices are off by one: rejected in verify mode.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_Skew", "x"), GT(DIM_OF("*", 1), 4),
                         AUTOSPLIT(1, "I", 4,
                                   Op("T_Skew", AUTOSPLIT_SLICE("x", gen_Shape(0, ADD(SPLIT_START("I"), 1), 0, 0),
                                                                gen_Shape(1, SPLIT_SIZE("I"), 4, 2)))))
// OP_ITER with ITER_VAR and ITER_INPUT_OF; the temporary base op does not survive.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("T_Iter", "x"), OK,
                         OP_ITER(Op("T_Join", "x"), "J", 0, 3, Op("T_Piece", "x", gen_ConstScalar_i32(ITER_VAR("J")))))
DEF_PACKAGE_OPTIMIZATION(TILING, OpVarIn("T_Many", "a"), OK,
                         OP_ITER(Op("T_Sum"), "J", 0, INPUTS_OF("*"), WrapOpAlways("T_Neg", ITER_INPUT_OF("*", "J"))))
// External functions.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_Ext", "x"),
                         AND(EXTERNAL_CONSTRAINT(depth_at_least, "x", 4),
                             GT(EXTERNAL_CONSTRAINT(half_depth, "x", 0.5f), 1.5f),
                             MESSAGE("ext fired on depth", DIM_OF("x", 3), DTYPE_OF("x"))),
                         Op("T_ExtOut", "x", SHAPEFN_APPLY(twice_depth, "x", 1), SHAPEFN_APPLY(const_of_rank, "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_Keep", "x"), OK, EXTERNAL_REPLACE(keep_self))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_Neg2", "x"), OK, SELECT(IS_FLOAT("x"), EXTERNAL_REPLACE(to_negate), "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_Null", "x"), OK, EXTERNAL_REPLACE(keep_old))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_Chunk", "x"),
                         AND(EQ(LAYOUT_CHUNKSIZE(Crouton, 3000), 4096U), EQ(LAYOUT_CHUNKSIZE(Flat, 3), 3U)),
                         Op("T_Chunked", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_NoClass", "x"), EQ(LAYOUT_CHUNKSIZE(NoSuchClass, 3), 3U), Op("T_Chunked", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_Two", "x"), OK,
                         Op("T_Both", SHAPEFN_APPLY(both_after_many, Op("T_A", "x"), Op("T_B", "x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("T_Grow", "x"), OK, EXTERNAL_REPLACE(grows_then_reads))
// Faults.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("F_Throw", "x"), OK, EXTERNAL_REPLACE(throws_midway))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("F_Ref", "x"), OK, Op("F_Out", Op("F_Mid", "x"), SHAPEFN_APPLY(nonsense_ref, "x")))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("F_Shape", "x"), OK,
                         Op("F_Out", Op("F_Mid", "x"), SHAPEFN_APPLY(nonsense_shape, "x")))

namespace {
RuleSet this_file() {
  return RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("replacement_test.cpp") != std::string::npos; });
}
OutputDef f32(std::initializer_list<std::size_t> s) { return OutputDef::make(DType::Float32, s); }
std::vector<OpRef> named(const Graph& g, std::string_view n) {
  std::vector<OpRef> v;
  for (auto r : g.live_ops())
    if (g.name(r) == n) v.push_back(r);
  return v;
}
/// start and size shapes of a Slice_shape op along `dim`.
std::pair<std::size_t, std::size_t> slice_of(const Graph& g, OpRef slice, std::size_t dim) {
  return {g.output(g.input(slice, 1)).dim(dim), g.output(g.input(slice, 2)).dim(dim)};
}
std::int32_t const_i32(const Graph& g, OpRef c) {
  std::int32_t v;
  std::memcpy(&v, g.payload(c).data(), 4);
  return v;
}
struct VerifyMode {
  bool saved = autosplit_verify_enabled();
  explicit VerifyMode(bool on) { set_autosplit_verify(on); }
  ~VerifyMode() { set_autosplit_verify(saved); }
};
}  // namespace

TEST_CASE("AUTOSPLIT with TYPICAL_SLICE: parts of chunk size, the last smaller, joined by Concat along the dim") {
  VerifyMode vm(true);
  Graph g;
  auto x = g.add_input(f32({1, 10, 8, 3}));
  g.add_output(g.add_op("T_Relu", {x}, f32({1, 10, 8, 3})));
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  auto cats = named(g, "Concat");
  REQUIRE(cats.size() == 1);
  OpRef cat = cats[0];
  CHECK(g.output(cat).same_shape(f32({1, 10, 8, 3})));
  REQUIRE(g.n_inputs(cat) == 4);
  CHECK(const_i32(g, g.input(cat, 0)) == 1);  // the axis
  std::size_t want_start[] = {0, 4, 8}, want_size[] = {4, 4, 2};
  for (std::uint32_t p = 0; p < 3; ++p) {
    OpRef part = g.input(cat, p + 1);
    CHECK(g.name(part) == "T_Relu");
    CHECK(g.output(part).same_shape(f32({1, want_size[p], 8, 3})));
    OpRef sl = g.input(part, 0);
    REQUIRE(g.name(sl) == "Slice_shape");
    CHECK(g.input(sl, 0) == x);
    CHECK(slice_of(g, sl, 1) == std::make_pair(want_start[p], want_size[p]));
    CHECK(g.output(sl).same_shape(f32({1, want_size[p], 8, 3})));
  }
  CHECK(named(g, "$Shape").size() == 6);  // the WITH_SIZE copies of the size shapes were removed
}

TEST_CASE("a slice of an Op construction slices one op built from it: TYPICAL_SLICE, CHANGEDIM_SLICE of CAST_TO_FP16") {
  VerifyMode vm(true);
  Graph g;
  auto x = g.add_input(f32({1, 10, 8, 3}));
  g.add_output(g.add_op("T_Half", {x}, f32({1, 10, 8, 3})));
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  CHECK(named(g, "T_Half").empty());
  const auto casts = named(g, "QNN_Cast");
  REQUIRE(casts.size() == 1);
  const OpRef cast = casts[0];
  CHECK(g.input(cast, 0) == x);
  CHECK(g.output(cast).dtype == DType::Float16);
  CHECK(g.output(cast).same_shape(f32({1, 10, 8, 3})));
  auto cats = named(g, "Concat");
  REQUIRE(cats.size() == 1);
  REQUIRE(g.n_inputs(cats[0]) == 4);
  std::size_t want_start[] = {0, 4, 8}, want_size[] = {4, 4, 2};
  for (std::uint32_t p = 0; p < 3; ++p) {
    OpRef part = g.input(cats[0], p + 1);
    REQUIRE(g.name(part) == "T_HalfPart");
    OpRef sl = g.input(part, 0);
    REQUIRE(g.name(sl) == "Slice_shape");
    CHECK(g.input(sl, 0) == cast);
    CHECK(slice_of(g, sl, 1) == std::make_pair(want_start[p], want_size[p]));
    CHECK(g.output(sl).dtype == DType::Float16);  // WITH_TYPE of the cast
    CHECK(g.output(sl).same_shape(f32({1, want_size[p], 8, 3})));
  }
  CHECK(named(g, "Slice_shape").size() == 3);
  // CHANGEDIM_SLICE alike: three parts along the output's depth slice one cast of the weights
  // along their dimension 0.
  Graph h;
  auto in = h.add_input(f32({1, 1, 1, 6}));
  auto w = h.add_input(f32({10, 1, 1, 6}));
  h.add_output(h.add_op("T_FcHalf", {in, w}, f32({1, 1, 1, 10})));
  run_rules(h, this_file());
  CHECK(verify(h).empty());
  const auto wcasts = named(h, "QNN_Cast");
  REQUIRE(wcasts.size() == 1);
  CHECK(h.input(wcasts[0], 0) == w);
  const auto parts = named(h, "T_FcHalfPart");
  REQUIRE(parts.size() == 3);
  std::size_t covered = 0;
  for (auto part : parts) {
    OpRef sl = h.input(part, 1);
    REQUIRE(h.name(sl) == "Slice_shape");
    CHECK(h.input(sl, 0) == wcasts[0]);
    CHECK(h.output(sl).dtype == DType::Float16);
    covered += slice_of(h, sl, 0).second;
  }
  CHECK(covered == 10);
}

TEST_CASE(
    "AUTOTHREAD_HVX and _HMX split into at most the option's number of parts, once; without the option, not at all") {
  VerifyMode vm(true);
  const auto graph = [](std::uint64_t hvx_tiles, std::uint64_t hmx_tiles, bool set) {
    Graph g;
    auto q = g.add_input(f32({1, 10, 4, 8}));
    auto k = g.add_input(f32({1, 1, 4, 8}));
    g.add_output(g.add_op("T_Attn", {q, k}, f32({1, 10, 4, 8})));
    g.add_output(g.add_op("T_AttnHmx", {q}, f32({1, 10, 4, 8})));
    if (set) {
      g.set_option("autothread_hvx_ntiles", hvx_tiles);
      g.set_option("autothread_hmx_ntiles", hmx_tiles);
    }
    return g;
  };
  const auto heights = [](const Graph& g, OpRef cat) {
    std::vector<std::size_t> h;
    for (std::uint32_t p = 1; p < g.n_inputs(cat); ++p) h.push_back(g.output(g.input(cat, p)).dim(1));
    return h;
  };
  {
    // 10 rows in at most 4 parts: chunks of 3. The parts' height is still above 1, but they are
    // not threaded again (the rule fails on them: the trace says so).
    Graph g = graph(4, 6, true);
    std::ostringstream trace;
    DriverOptions opt;
    opt.trace = &trace;
    run_rules(g, this_file(), opt);
    CHECK(verify(g).empty());
    auto cats = named(g, "Concat");
    REQUIRE(cats.size() == 2);
    std::vector<std::vector<std::size_t>> got;
    for (OpRef c : cats) {
      std::string part = g.name(g.input(c, 1)) == "T_Attn" ? "T_Attn" : "T_AttnHmxPart";
      for (std::uint32_t p = 1; p < g.n_inputs(c); ++p) {
        CHECK(g.name(g.input(c, p)) == part);
        // marked, T_AttnHmxPart too: an op made by a rewrite inherits the replaced op's history
        const std::vector<int>& h = g.split_history(g.input(c, p));
        CHECK(std::find(h.begin(), h.end(), OPTGRAMMAR_AUTOTHREAD_MARK) != h.end());
      }
      got.push_back(heights(g, c));
    }
    std::sort(got.begin(), got.end());
    // HVX: chunks of ceil(10/4) = 3; HMX: ceil(10/6) = 2 (5 parts, at most 6).
    CHECK(got == std::vector<std::vector<std::size_t>>{{2, 2, 2, 2, 2}, {3, 3, 3, 1}});
    CHECK(named(g, "T_AttnHmx").empty());  // LATE's rule found every HMX part marked
    CHECK_THAT(trace.str(), Catch::Contains("chunk size 0 is not positive"));
  }
  for (std::uint64_t tiles : {0, 1}) {
    // No threads to spread over: nothing changes (option 0 or 1, or not set at all).
    for (bool set : {true, false}) {
      Graph g = graph(tiles, tiles, set);
      run_rules(g, this_file());
      CHECK(named(g, "Concat").empty());
      CHECK(named(g, "T_Attn").size() == 1);
      CHECK(named(g, "T_AttnHmx").size() == 1);
    }
  }
}

TEST_CASE("a split of one part is that part, without a Concat, split variables reach their operands") {
  Graph g;
  auto x = g.add_input(f32({1, 2, 2, 5}));
  g.add_output(g.add_op("T_Vars", {x}, f32({1, 2, 2, 5})));
  run_rules(g, this_file());
  auto cat = named(g, "Concat");
  REQUIRE(cat.size() == 1);
  REQUIRE(g.n_inputs(cat[0]) == 4);  // axis + 3 parts: 2, 2, 1
  for (std::uint32_t p = 0; p < 3; ++p) {
    OpRef part = g.input(cat[0], p + 1);
    CHECK(const_i32(g, g.input(part, 1)) == 3);  // SPLIT_DIM
    CHECK(slice_of(g, g.input(part, 0), 3) == std::make_pair<std::size_t, std::size_t>(2 * p, p == 2 ? 1 : 2));
  }
  Graph g1;
  auto y = g1.add_input(f32({1, 3, 2, 2}));
  g1.add_output(g1.add_op("T_Relu", {y}, f32({1, 3, 2, 2})));  // constraint false: no split
  g1.add_output(g1.add_op("T_One", {y}, f32({1, 3, 2, 2})));   // one part of 3
  run_rules(g1, this_file());
  CHECK(named(g1, "Concat").empty());
  CHECK(named(g1, "T_Relu").size() == 1);
  auto one = named(g1, "T_OneDone");
  REQUIRE(one.size() == 1);
  CHECK(slice_of(g1, g1.input(one[0], 0), 1) == std::make_pair<std::size_t, std::size_t>(0, 3));
}

TEST_CASE("CHANGEDIM_SLICE slices another dimension of its input, AUTOSPLIT nested in an Op operand") {
  Graph g;
  auto x = g.add_input(f32({1, 1, 1, 6}));
  auto w = g.add_input(f32({10, 1, 1, 6}));
  g.add_output(g.add_op("T_Fc", {x, w}, f32({1, 1, 1, 10})));
  auto y = g.add_input(f32({1, 2, 7, 4}));
  g.add_output(g.add_op("T_User", {y}, f32({1, 2, 7, 4})));
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  auto fcs = named(g, "T_Fc");
  REQUIRE(fcs.size() == 3);
  for (auto fc : fcs) {
    OpRef sl = g.input(fc, 1);
    REQUIRE(g.name(sl) == "Slice_shape");
    auto [st, sz] = slice_of(g, sl, 0);
    CHECK(sz == g.output(fc).dim(3));
    CHECK(st % 4 == 0);
    CHECK(g.output(sl).dim(0) == sz);
  }
  auto req = named(g, "T_Requant");
  REQUIRE(req.size() == 1);
  OpRef cat = g.input(req[0], 0);
  REQUIRE(g.name(cat) == "Concat");
  CHECK(g.n_inputs(cat) == 4);  // 3 + 3 + 1 along dim 2
  CHECK(const_i32(g, g.input(cat, 0)) == 2);
}

TEST_CASE("TYPICAL_CONV_SLICE gives each part the input rows its window reads") {
  VerifyMode vm(true);
  Graph g;
  auto in = g.add_input(f32({1, 17, 8, 4}));
  auto w = g.add_input(f32({3, 3, 4, 4}));
  auto s = g.add_input(OutputDef::make(DType::Int32, {1, 2, 2, 1}));
  g.add_output(g.add_op("T_Conv", {in, w, s}, f32({1, 8, 4, 4})));
  run_rules(g, this_file());
  auto convs = named(g, "T_Conv");
  REQUIRE(convs.size() == 2);
  std::set<std::pair<std::size_t, std::size_t>> slices;
  for (auto c : convs) slices.insert(slice_of(g, g.input(c, 0), 1));
  CHECK(slices == std::set<std::pair<std::size_t, std::size_t>>{{0, 9}, {8, 9}});
}

TEST_CASE("verify mode checks every AUTOSPLIT with indexing maps, a wrong split is not applied") {
  auto build = [] {
    Graph g;
    auto x = g.add_input(f32({1, 8, 4, 2}));
    g.add_output(g.add_op("T_Skew", {x}, f32({1, 8, 4, 2})));
    return g;
  };
  {
    VerifyMode vm(true);
    Graph g = build();
    std::string before = to_text(g);
    auto rep = run_rules(g, this_file());
    CHECK(to_text(g) == before);
    std::uint64_t failed = 0;
    for (auto& st : rep.stats) failed += st.failed;
    CHECK(failed == 1);
  }
  {
    VerifyMode vm(false);
    Graph g = build();
    run_rules(g, this_file());
    CHECK(named(g, "Concat").size() == 1);  // unchecked, the skewed split goes through
  }
  // The check itself, on a hand-made record: a gap and a slice outside its input.
  Graph g;
  auto x = g.add_input(f32({1, 8, 4, 2}));
  OutputDef out = f32({1, 8, 4, 2});
  engine::SplitRecord rec;
  auto part = [&](std::size_t start, std::size_t size, std::size_t slice_start) {
    std::size_t first = g.size();
    OutputDef st = OutputDef::make(DType::Int32, {0, slice_start, 0, 0});
    OutputDef sz = OutputDef::make(DType::Int32, {1, size, 4, 2});
    OpRef a = g.add_op("$Shape", {}, st), b = g.add_op("$Shape", {}, sz);
    OutputDef pd = f32({1, size, 4, 2});
    OpRef sl = g.add_op("Slice_shape", {x, a, b}, pd);
    OpRef p = g.add_op("P", {sl}, pd);
    rec.parts.push_back({start, size, p, first, g.size()});
  };
  part(0, 4, 0);
  part(4, 4, 4);
  CHECK(engine::check_split(g, rec, out, 1).empty());
  part(9, 3, 6);  // past the end: out of bounds, and slice rows 6..8 of 8
  std::string msg = engine::check_split(g, rec, out, 1);
  CHECK(msg.find("reaches outside") != std::string::npos);
}

TEST_CASE("OP_ITER appends one operand per iteration, ITER_INPUT_OF reads input ITER_VAR") {
  Graph g;
  auto x = g.add_input(f32({1, 1, 1, 4}));
  g.add_output(g.add_op("T_Iter", {x}, f32({1, 1, 1, 4})));
  auto a = g.add_input(f32({1, 1, 1, 2}));
  auto b = g.add_input(f32({1, 1, 1, 2}));
  g.add_output(g.add_op("T_Many", {a, b, a}, f32({1, 1, 1, 2})));
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  auto joins = named(g, "T_Join");
  REQUIRE(joins.size() == 1);
  REQUIRE(g.n_inputs(joins[0]) == 4);
  CHECK(g.input(joins[0], 0) == x);
  for (std::uint32_t i = 0; i < 3; ++i) {
    OpRef p = g.input(joins[0], i + 1);
    CHECK(g.name(p) == "T_Piece");
    CHECK(const_i32(g, g.input(p, 1)) == static_cast<std::int32_t>(i));
  }
  auto sums = named(g, "T_Sum");
  REQUIRE(sums.size() == 1);
  REQUIRE(g.n_inputs(sums[0]) == 3);
  OpRef want[] = {a, b, a};
  for (std::uint32_t i = 0; i < 3; ++i) {
    CHECK(g.name(g.input(sums[0], i)) == "T_Neg");
    CHECK(g.input(g.input(sums[0], i), 0) == want[i]);
  }
}

TEST_CASE("external constraint, shape functions, EXTERNAL_REPLACE, MESSAGE writes to the trace") {
  Graph g;
  auto x = g.add_input(f32({1, 2, 2, 4}));
  auto small = g.add_input(f32({1, 2, 2, 3}));
  g.add_output(g.add_op("T_Ext", {x}, f32({1, 2, 2, 4})));
  g.add_output(g.add_op("T_Ext", {small}, f32({1, 2, 2, 3})));  // depth 3 < 4: not rewritten
  g.add_output(g.add_op("T_Keep", {x}, f32({1, 2, 2, 4})));
  g.add_output(g.add_op("T_Neg2", {x}, f32({1, 2, 2, 4})));
  g.add_output(g.add_op("T_Chunk", {x}, f32({1, 2, 2, 4})));
  g.add_output(g.add_op("T_NoClass", {x}, f32({1, 2, 2, 4})));
  std::ostringstream trace;
  DriverOptions opt;
  opt.trace = &trace;
  auto rep = run_rules(g, this_file(), opt);
  CHECK(verify(g).empty());
  auto outs = named(g, "T_ExtOut");
  REQUIRE(outs.size() == 1);
  OpRef shape = g.input(outs[0], 1);
  CHECK(g.name(shape) == "$Shape");
  CHECK(g.output(shape).dim(3) == 9);  // 2 * 4 + 1
  CHECK(const_i32(g, g.input(outs[0], 2)) == 4);
  CHECK(named(g, "T_Ext").size() == 1);
  CHECK(named(g, "T_Keep").size() == 1);  // returning the old op leaves the graph unchanged
  CHECK(named(g, "T_Negated").size() == 1);
  CHECK(named(g, "T_Chunked").size() == 1);  // Crouton: 3000 → 4096; NoSuchClass: constraint fails
  CHECK(trace.str().find("MESSAGE: ext fired on depth 4 Float32") != std::string::npos);
  // EXTERNAL_REPLACE returning an invalid ref is a failed replacement, rolled back.
  Graph g2;
  auto y = g2.add_input(f32({1, 1, 1, 1}));
  g2.add_output(g2.add_op("T_Null", {y}, f32({1, 1, 1, 1})));
  std::string before = to_text(g2);
  run_rules(g2, this_file());
  CHECK(to_text(g2) == before);
}

TEST_CASE("external functions read their OpDef arguments right while the graph's records move") {
  Graph g;
  const OpRef x = g.add_input(f32({1, 2, 2, 4}));
  g.add_output(g.add_op("T_Two", {x}, f32({1, 2, 2, 4})));
  const OpRef grow = g.add_op("T_Grow", {x}, f32({1, 2, 2, 4}));
  g.add_output(grow);
  const std::uint64_t grow_id = g.op_id(grow);
  const std::uint32_t grow_output = g.output_index(grow);
  const std::size_t capacity = g.op_capacity();
  seen = {};
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  CHECK(g.op_capacity() > capacity);  // the records moved, in every build
  CHECK(seen.a_name == intern_op_name("T_A"));
  CHECK(seen.b_name == intern_op_name("T_B"));
  CHECK(seen.root_id == grow_id);
  CHECK(seen.root_output == grow_output);
  CHECK(named(g, "T_Link").size() == 600);
  CHECK(named(g, "T_Both").size() == 1);
  CHECK(named(g, "T_A").empty());  // made for the function only: dead after the rewrite
}

TEST_CASE("fault injection: a rule failing part-way leaves the graph exactly as it was") {
  auto build = [](const char* op) {
    Graph g;
    auto x = g.add_input(f32({1, 4, 4, 4}));
    auto c = g.add_op("T_Side", {x}, f32({1, 4, 4, 4}));
    g.add_output(g.add_op(op, {c}, f32({1, 4, 4, 4})));
    return g;
  };
  for (const char* op : {"F_Ref", "F_Shape"}) {
    INFO(op);
    Graph g = build(op);
    std::string before = to_text(g);
    std::size_t size = g.size(), live = g.live_count();
    auto rep = run_rules(g, this_file());
    CHECK(to_text(g) == before);
    CHECK(g.size() == size);
    CHECK(g.live_count() == live);
    CHECK(verify(g).empty());
    std::uint64_t failed = 0;
    for (auto& st : rep.stats) failed += st.failed;
    CHECK(failed == 1);
  }
  // An exception from an external function: the graph is rolled back, the exception reaches the caller.
  Graph g = build("F_Throw");
  std::string before = to_text(g);
  CHECK_THROWS_WITH(run_rules(g, this_file()), "injected fault");
  CHECK(to_text(g) == before);
  CHECK(verify(g).empty());
}

// ---- relaxed-precision casts and the framework's padding shape functions ------------------------
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_Any", "x"), OK, CAST_TO_DTYPE("x", DType::QUInt8))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_Use", "x"), OK, Op("H_Used", CAST_TO_FP16("x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_Back", "x"), OK, CAST_TO_FP32(Op("H_Inner", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_Mul", "a", "b"), IS_FLOAT32("*"),
                         MAKE_OP_FP16_AND_INSERT_CAST(Op("H_Mul16", CAST_TO_FP16("a"), CAST_TO_FP16("b"))))
DEF_PACKAGE_OPTIMIZATION(
    EARLY, Op("H_Pool", "act", "win", "stride", "pad"), OK,
    Op("H_PoolValid",
       WITH_SIZE(SHAPEFN_APPLY(pad_total_for_qnn, "act", "pad"),
                 WITH_TYPE("act", Op("SlicePad_shape", "act", SHAPEFN_APPLY(pad_before_for_qnn, "act", "pad"),
                                     gen_Shape(0, 0, 0, 0), SHAPEFN_APPLY(pad_total_for_qnn, "act", "pad"),
                                     gen_ConstScalar_i32(0)))),
       SHAPEFN_APPLY(reshape_hw_to_4d, "win"), SHAPEFN_APPLY(reshape_hw_to_4d, "stride")))

// A modifier over a constant construction, as the SDK's Softmax example writes it: the new scalar
// gets the output of the constant it replaces (a "should" of the grammar; og-parse warns).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("K_Scale", "in", LET("beta", Op("$Const"))), OK,
                         Op("K_Scaled", "in",
                            WITH_SAME_OUTPUT("beta", gen_ConstScalar_f32(MUL(CONSTVAL_FLOAT("beta", 0), 2.0f)))))
// The same onto an output the constant's data does not fit (two elements): the rule does not apply.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("K_Wide", "in", "w"), OK,
                         Op("K_Widened", "in", WITH_SAME_OUTPUT("w", gen_ConstScalar_f32(1.0f))))

namespace {
OpRef i32_const(Graph& g, std::initializer_list<std::size_t> shape, std::initializer_list<std::int32_t> v) {
  return g.add_const(OutputDef::make(DType::Int32, shape), std::span<const std::int32_t>(v.begin(), v.size()));
}
}  // namespace

TEST_CASE("a modifier over a constant construction gives the constant its output, if its data fits it") {
  Graph g;
  auto in = g.add_input(f32({1, 2, 2, 4}));
  const OutputDef scalar = OutputDef::make(DType::Float32, {1, 1, 1, 1}, 3, 0.25f);  // odd quantization fields kept
  const float b = 1.5f;
  auto beta = g.add_const(scalar, std::span<const float>(&b, 1));
  const OpRef o1 = g.add_output(g.add_op("K_Scale", {in, beta}, f32({1, 2, 2, 4})));
  auto w = g.add_input(f32({1, 1, 1, 2}));
  const OpRef o2 = g.add_output(g.add_op("K_Wide", {in, w}, f32({1, 2, 2, 4})));
  std::ostringstream trace;
  DriverOptions opt;
  opt.trace = &trace;
  run_rules(g, this_file(), opt);
  CHECK(verify(g).empty());
  const OpRef scaled = g.input(o1, 0);
  REQUIRE(g.name(scaled) == "K_Scaled");
  const OpRef c = g.input(scaled, 1);
  REQUIRE(g.is_const(c));
  CHECK(c != beta);
  CHECK(g.output(c) == g.output(beta));  // beta's output, whole
  float v = 0;
  std::memcpy(&v, g.payload(c).data(), sizeof v);
  CHECK(v == 3.0f);
  // one float cannot be a [1,1,1,2] tensor: the replacement fails and the graph keeps K_Wide
  CHECK(g.name(g.input(o2, 0)) == "K_Wide");
  CHECK(trace.str().find("WITH_SAME_OUTPUT: the constant it applies to would get an output its data does not fit") !=
        std::string::npos);
}

TEST_CASE("CAST_TO_DTYPE, CAST_TO_FP16, CAST_TO_FP32: a QNN_Cast of the dtype, sized as the framework sizes it") {
  Graph g;
  auto x = g.add_input(f32({1, 2, 3, 4}));
  auto any = g.add_op("H_Any", {x}, f32({1, 5, 5, 5}));
  auto use = g.add_op("H_Use", {x}, f32({1, 6, 6, 6}));
  auto back = g.add_op("H_Back", {x}, f32({1, 7, 7, 7}));
  const OpRef outs[] = {g.add_output(any), g.add_output(use), g.add_output(back)};
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  // CAST_TO_DTYPE: the dtype given, zero offset 0, step size 1, the replaced op's size.
  const OpRef c8 = g.input(outs[0], 0);
  REQUIRE(g.name(c8) == "QNN_Cast");
  CHECK(g.input(c8, 0) == x);
  CHECK(g.output(c8).dtype == DType::QUInt8);
  CHECK(g.output(c8).zero_offset == 0);
  CHECK(g.output(c8).stepsize == 1.0f);
  CHECK(g.output(c8).same_shape(f32({1, 5, 5, 5})));
  // CAST_TO_FP16: fp16 with its operand's size.
  const OpRef used = g.input(outs[1], 0);
  REQUIRE(g.name(used) == "H_Used");
  const OpRef c16 = g.input(used, 0);
  REQUIRE(g.name(c16) == "QNN_Cast");
  CHECK(g.output(c16).dtype == DType::Float16);
  CHECK(g.output(c16).same_shape(f32({1, 2, 3, 4})));
  CHECK(g.output(used).same_shape(f32({1, 6, 6, 6})));
  // CAST_TO_FP32: fp32, the replaced op's size.
  const OpRef c32 = g.input(outs[2], 0);
  REQUIRE(g.name(c32) == "QNN_Cast");
  CHECK(g.output(c32).dtype == DType::Float32);
  CHECK(g.output(c32).same_shape(f32({1, 7, 7, 7})));
  CHECK(g.name(g.input(c32, 0)) == "H_Inner");
}

TEST_CASE("MAKE_OP_FP16_AND_INSERT_CAST: the op in fp16 between casts, the result fp32 as before") {
  Graph g;
  auto a = g.add_input(f32({1, 4, 4, 8}));
  auto b = g.add_input(f32({1, 1, 1, 8}));
  const OpRef o1 = g.add_output(g.add_op("H_Mul", {a, b}, f32({1, 4, 4, 8})));
  auto q = g.add_input(OutputDef::make(DType::QUInt8, {1, 4, 4, 8}));
  const OpRef o2 =
      g.add_output(g.add_op("H_Mul", {q, q}, OutputDef::make(DType::QUInt8, {1, 4, 4, 8})));  // not fp32: kept
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  const OpRef out = g.input(o1, 0);
  REQUIRE(g.name(out) == "QNN_Cast");
  CHECK(g.output(out).dtype == DType::Float32);
  CHECK(g.output(out).same_shape(f32({1, 4, 4, 8})));
  const OpRef mul = g.input(out, 0);
  REQUIRE(g.name(mul) == "H_Mul16");
  CHECK(g.output(mul).dtype == DType::Float16);
  CHECK(g.output(mul).same_shape(f32({1, 4, 4, 8})));
  const OpRef ca = g.input(mul, 0), cb = g.input(mul, 1);
  REQUIRE(g.name(ca) == "QNN_Cast");
  REQUIRE(g.name(cb) == "QNN_Cast");
  CHECK(g.input(ca, 0) == a);
  CHECK(g.input(cb, 0) == b);
  CHECK(g.output(ca).dtype == DType::Float16);
  CHECK(g.output(ca).same_shape(f32({1, 4, 4, 8})));
  CHECK(g.output(cb).same_shape(f32({1, 1, 1, 8})));  // each operand's cast keeps its size
  CHECK(g.name(g.input(o2, 0)) == "H_Mul");
}

TEST_CASE("pad_total_for_qnn, pad_before_for_qnn, reshape_hw_to_4d through SHAPEFN_APPLY") {
  Graph g;
  auto act = g.add_input(f32({1, 5, 6, 3}));
  auto win = i32_const(g, {2}, {3, 2});
  auto stride = i32_const(g, {2}, {2, 1});
  auto pad = i32_const(g, {2, 2}, {1, 2, 0, 3});  // [[top, bottom], [left, right]]
  const OpRef o = g.add_output(g.add_op("H_Pool", {act, win, stride, pad}, f32({1, 3, 8, 3})));
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  const OpRef pool = g.input(o, 0);
  REQUIRE(g.name(pool) == "H_PoolValid");
  const OpRef padded = g.input(pool, 0);
  REQUIRE(g.name(padded) == "SlicePad_shape");
  CHECK(g.output(padded).same_shape(f32({1, 8, 9, 3})));  // H 5+1+2, W 6+0+3
  const OpRef before = g.input(padded, 1);
  REQUIRE(g.name(before) == "$Shape");
  CHECK(g.output(before).rank == 4);
  CHECK(g.output(before).dim(0) == 0);
  CHECK(g.output(before).dim(1) == 1);
  CHECK(g.output(before).dim(2) == 0);
  CHECK(g.output(before).dim(3) == 0);
  CHECK(g.output(g.input(padded, 3)).same_shape(OutputDef::make(DType::Int32, {1, 8, 9, 3})));
  CHECK(g.output(g.input(pool, 1)).same_shape(OutputDef::make(DType::Int32, {1, 3, 2, 1})));
  CHECK(g.output(g.input(pool, 2)).same_shape(OutputDef::make(DType::Int32, {1, 2, 1, 1})));

  // A pad that is not a constant gives no shape: the rule fails and the graph stays as it was.
  Graph g2;
  auto act2 = g2.add_input(f32({1, 5, 6, 3}));
  auto p2 = g2.add_input(OutputDef::make(DType::Int32, {2, 2}));
  g2.add_output(
      g2.add_op("H_Pool", {act2, i32_const(g2, {2}, {3, 3}), i32_const(g2, {2}, {1, 1}), p2}, f32({1, 3, 4, 3})));
  const std::string before_text = to_text(g2);
  run_rules(g2, this_file());
  CHECK(to_text(g2) == before_text);
}

// ---- rule flags: a relaxed-precision rule waits for the graph's option ---------------------------
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precision_flag, Op("H_Relaxed", "x"), IS_FLOAT32("*"),
                                    MAKE_OP_FP16_AND_INSERT_CAST(Op("H_Relaxed16", CAST_TO_FP16("x"))))
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, cse_after_always, Op("H_Always", "x"), OK, Op("H_AlwaysDone", "x"))

TEST_CASE("a rule flagged relaxed_precision_flag fires only when the graph's relaxed_precision_flag option is on") {
  auto count = [](const OptionValue* opt) {
    Graph g;
    auto x = g.add_input(f32({1, 2, 2, 4}));
    g.add_output(g.add_op("H_Relaxed", {x}, f32({1, 2, 2, 4})));
    g.add_output(g.add_op("H_Always", {x}, f32({1, 2, 2, 4})));
    if (opt) g.set_option("relaxed_precision_flag", *opt);
    run_rules(g, this_file());
    CHECK(named(g, "H_AlwaysDone").size() == 1);  // a flag without an option changes nothing
    return named(g, "H_Relaxed16").size();
  };
  CHECK(count(nullptr) == 0);
  const OptionValue off = false, on = true, one = std::int64_t{1};
  CHECK(count(&off) == 0);
  CHECK(count(&on) == 1);
  CHECK(count(&one) == 1);
  const RuleSet rules = this_file();
  bool seen = false;
  for (const RuleInfo* r : rules.rules())
    if (r->flags == "relaxed_precision_flag") {
      seen = true;
      CHECK(r->flag_bits == 1u << 10);
    }
  CHECK(seen);
}

// ---- external functions written as package code writes them -------------------------------------
// :::EXTERNAL_SHAPEFN::: { QuickShape pkg_split_start(Replacement&, Split_Context const&, OpRef const&, int); }
static QuickShape pkg_split_start(Replacement& rpx, Split_Context const& splitinfo, OpRef const& orig, int dim) {
  std::size_t dims[4] = {0, 0, 0, 0};
  dims[dim] = splitinfo.start;
  (void)rpx;
  (void)orig;
  return QuickShape(dims);
}
// :::EXTERNAL_SHAPEFN::: { QuickShape pkg_split_size(Replacement&, Split_Context const&, OpRef const&, int); }
static QuickShape pkg_split_size(Replacement& rpx, Split_Context const& splitinfo, OpRef const& orig, int dim) {
  std::size_t dims[4] = {orig.dim(rpx.graph(), 0), orig.dim(rpx.graph(), 1), orig.dim(rpx.graph(), 2),
                         orig.dim(rpx.graph(), 3)};
  dims[dim] = splitinfo.size;
  return QuickShape(dims[0], dims[1], dims[2], dims[3]);
}
// :::EXTERNAL_SHAPEFN::: { QuickShape pkg_rank_dtype(Replacement&, OpRef const&); }
static QuickShape pkg_rank_dtype(Replacement& rpx, OpRef const& x) {
  const Graph& g = rpx.graph();
  return QuickShape(1, x.rank(g), static_cast<int>(x.dtype(g)), x.dim(g, 7));
}
// The split dimension reaches the int parameter as a constraint expression: SUB(RANK_OF("x"), 2)
// is size (rank 4 - 2 = the width), SPLIT_DIM an int.
DEF_PACKAGE_OPTIMIZATION(
    TILING, Op("P_Split", "x"), GT(DIM_OF("*", 2), 2),
    AUTOSPLIT(2, "I", 2,
              Op("P_Split",
                 AUTOSPLIT_SLICE("x", AUTOSPLIT_SHAPEFN_APPLY(pkg_split_start, "I", "x", SUB(RANK_OF("x"), 2)),
                                 AUTOSPLIT_SHAPEFN_APPLY(pkg_split_size, "I", "x", SPLIT_DIM("I"))))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("P_Facts", "x"), OK, Op("P_FactsDone", "x", SHAPEFN_APPLY(pkg_rank_dtype, "x")))

TEST_CASE("QuickShape from 4 dims and from an array, OpRef's dim/rank/dtype, an int parameter fed an expression") {
  constexpr QuickShape four(1, 2u, std::size_t{3}, 4L);
  static_assert(four.rank == 4 && four.dims[0] == 1 && four.dims[3] == 4);
  constexpr int arr[3] = {5, 6, 7};
  constexpr QuickShape three(arr);
  static_assert(three.rank == 3 && three.dims[2] == 7);
  const std::array<std::size_t, 2> two{8, 9};
  CHECK(QuickShape(two).rank == 2);
  CHECK(QuickShape(two).dims[1] == 9);

  Graph g;
  auto x = g.add_input(f32({1, 2, 5, 3}));
  CHECK(x.dim(g, 2) == 5);
  CHECK(x.rank(g) == 4);
  CHECK(x.dtype(g) == DType::Float32);
  const OpRef o = g.add_output(g.add_op("P_Split", {x}, f32({1, 2, 5, 3})));
  const OpRef f = g.add_output(g.add_op("P_Facts", {x}, f32({1, 2, 5, 3})));
  run_rules(g, this_file());
  CHECK(verify(g).empty());
  const OpRef cat = g.input(o, 0);
  REQUIRE(g.name(cat) == "Concat");
  REQUIRE(g.n_inputs(cat) == 4);  // the axis, then parts of 2, 2, 1 along the width
  std::size_t want_start[] = {0, 2, 4}, want_size[] = {2, 2, 1};
  for (std::uint32_t p = 0; p < 3; ++p) {
    const OpRef sl = g.input(g.input(cat, p + 1), 0);
    REQUIRE(g.name(sl) == "Slice_shape");
    CHECK(slice_of(g, sl, 2) == std::make_pair(want_start[p], want_size[p]));
    CHECK(g.output(sl).same_shape(f32({1, 2, want_size[p], 3})));
  }
  const OpRef facts = g.input(f, 0);
  REQUIRE(g.name(facts) == "P_FactsDone");
  const OutputDef& s = g.output(g.input(facts, 1));
  CHECK(s.dim(1) == 4);
  CHECK(s.dim(2) == static_cast<std::size_t>(DType::Float32));
  CHECK(s.dim(3) == 0);  // dim past the rank
}
