// The framework's rule surface of framework_surface.cpp, run: what each macro and word means here
// (docs/htp-compat.md), on graphs made for each, and with PREPARE_DISABLED (OG_PREPARE_DISABLED)
// only the registrations.
#include <optgrammar/htp_compat.hpp>
#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

using namespace optgrammar;

namespace {
bool from_surface(const RuleInfo& r) { return r.file.find("framework_surface.cpp") != std::string::npos; }

const OpImplInfo* implementation(std::string_view impl, std::string_view op) {
  for (const OpImplInfo& i : OpRegistry::instance().entries())
    if (i.impl_name == impl && i.name == intern_op_name(op)) return &i;
  return nullptr;
}

#ifndef OG_PREPARE_DISABLED
OutputDef f32(std::initializer_list<std::size_t> shape) { return OutputDef::make(DType::Float32, shape); }

/// The parts an AUTOSPLIT joined into the op `out` reads: Concat(axis, part0, part1, ...).
std::vector<OpRef> parts_of(const Graph& g, OpRef out) {
  const OpRef joined = g.input(out, 0);
  std::vector<OpRef> parts;
  if (g.name(joined) != "Concat") return parts;
  for (std::uint32_t i = 1; i < g.n_inputs(joined); ++i) parts.push_back(g.input(joined, i));
  return parts;
}
#endif
}  // namespace

TEST_CASE("framework surface: registrations that name a registry are the plain forms'") {
  const OpImplInfo* plain = implementation("surfCopyImpl<Tensor>", "SurfSrc");
  REQUIRE(plain);
  CHECK(plain->cost == Cost::GLACIAL);
  const OpImplInfo* costed = implementation("(surfCopyImpl<PlainFloatTensor>)", "SurfSrc");
  if (!costed) costed = implementation("surfCopyImpl<PlainFloatTensor>", "SurfSrc");
  REQUIRE(costed);
  CHECK(costed->cost == Cost::FAST);
  CHECK(costed->flags == Flags::RESOURCE_HVX);
  const OpImplInfo* with_function = implementation("surfCopyImpl<Tensor>", "SurfSink");
  REQUIRE(with_function);
  CHECK(with_function->cost_function == "surfCost");
}

#ifndef OG_PREPARE_DISABLED
TEST_CASE("framework surface: the rules made of other rule macros keep their flags") {
  bool ordered = false, im = false, fp16 = false;
  for (const RuleInfo* r : RuleSet::global().rules()) {
    if (!from_surface(*r)) continue;
    if (r->canonical.find("Op(\"SurfOrd\",\"x\")") != std::string::npos) {
      ordered = true;
      CHECK(r->flags == "ordered_autosplit_flag");
      CHECK(r->pass_name == "TILING+2");
      // the chunk test DEF_AUTOSPLIT adds to the constraint
      CHECK(r->canonical.find("AND(GT(DIM_OF(\"*\",3),8),true)") != std::string::npos);
    }
    if (r->canonical.find("Op(\"SurfIm\",\"x\")") != std::string::npos) {
      im = true;
      CHECK(r->flags == "explicit_autosplit_flag");
    }
    if (r->canonical.find("Op(\"SurfMul\",\"a\",\"b\")") != std::string::npos) {
      fp16 = true;
      CHECK(r->flags == "relaxed_precision_flag");
      CHECK(r->pass_name == "CLEANUP_GRAPH+130");
    }
  }
  CHECK(ordered);
  CHECK(im);
  CHECK(fp16);
}

TEST_CASE("framework surface: DEF_AUTOSPLIT and DEF_AUTOSPLIT_TYPICAL split as their AUTOSPLIT rules") {
  Graph g;
  const OpRef x = g.add_input(f32({1, 2, 10, 4}));
  const OpRef tile = g.add_output(g.add_op("SurfTile", {x}, f32({1, 2, 10, 4})));
  const OpRef a = g.add_input(f32({1, 4, 2, 8})), b = g.add_input(f32({1, 4, 2, 8}));
  const OpRef c = g.add_input(f32({1, 1, 1, 8}));
  const OpRef add = g.add_output(g.add_op("SurfAdd", {a, b, c}, f32({1, 4, 2, 8})));
  run_rules(g, RuleSet::global());
  CHECK(verify(g).empty());
  // widths 4, 4, 2: the parts are no wider than the chunk, so the rule does not apply to them
  const auto tiles = parts_of(g, tile);
  REQUIRE(tiles.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(g.name(tiles[i]) == "SurfTile");
    CHECK(g.output(tiles[i]).dim(2) == (i < 2 ? 4u : 2u));
    CHECK(g.name(g.input(tiles[i], 0)) == "Slice_shape");
  }
  // two parts of height 2: the first two inputs sliced, the third whole
  const auto adds = parts_of(g, add);
  REQUIRE(adds.size() == 2);
  for (const OpRef p : adds) {
    REQUIRE(g.n_inputs(p) == 3);
    CHECK(g.name(g.input(p, 0)) == "Slice_shape");
    CHECK(g.input(g.input(p, 0), 0) == a);
    CHECK(g.input(g.input(p, 1), 0) == b);
    CHECK(g.input(p, 2) == c);
    CHECK(g.output(p).dim(1) == 2);
  }
}

TEST_CASE("framework surface: CONVERT_BINARY_OP_TO_FP16 under relaxed precision only") {
  for (const bool relaxed : {false, true}) {
    Graph g;
    const OpRef a = g.add_input(f32({1, 1, 2, 4})), b = g.add_input(f32({1, 1, 2, 4}));
    const OpRef out = g.add_output(g.add_op("SurfMul", {a, b}, f32({1, 1, 2, 4})));
    if (relaxed) g.set_option("relaxed_precision_flag", true);
    run_rules(g, RuleSet::global());
    CHECK(verify(g).empty());
    const OpRef top = g.input(out, 0);
    if (!relaxed) {
      CHECK(g.name(top) == "SurfMul");
      continue;
    }
    REQUIRE(g.name(top) == "QNN_Cast");
    const OpRef mul = g.input(top, 0);
    CHECK(g.name(mul) == "SurfMul");
    CHECK(g.output(mul).dtype == DType::Float16);
    CHECK(g.name(g.input(mul, 0)) == "QNN_Cast");
    CHECK(g.input(g.input(mul, 1), 0) == b);
  }
}

TEST_CASE("framework surface: IS_OP and PRODUCER_FOR read the op's name and its readers' names") {
  Graph g;
  const OpRef in = g.add_input(f32({1, 1, 1, 4}));
  const OpRef src = g.add_op("SurfSrc", {in}, f32({1, 1, 1, 4}));
  const OpRef fed = g.add_op("SurfWrap", {src}, f32({1, 1, 1, 4}));
  const OpRef sink = g.add_output(g.add_op("SurfSink", {fed}, f32({1, 1, 1, 4})));
  const OpRef unfed = g.add_output(g.add_op("SurfWrap", {src}, f32({1, 1, 1, 4})));
  const OpRef wrap_in = g.add_op("SurfWrap", {in}, f32({1, 1, 1, 4}));
  const OpRef other = g.add_output(g.add_op("SurfSink", {wrap_in}, f32({1, 1, 1, 4})));
  const OpRef peek_src = g.add_output(g.add_op("SurfPeek", {src}, f32({1, 1, 1, 4})));
  const OpRef peek_in = g.add_output(g.add_op("SurfPeek", {in}, f32({1, 1, 1, 4})));
  run_rules(g, RuleSet::global());
  CHECK(verify(g).empty());
  CHECK(g.name(g.input(g.input(sink, 0), 0)) == "SurfWrapped");  // of a SurfSrc, read by a SurfSink
  CHECK(g.name(g.input(unfed, 0)) == "SurfWrap");                // read by no SurfSink
  CHECK(g.name(g.input(g.input(other, 0), 0)) == "SurfWrap");    // not of a SurfSrc
  CHECK(g.name(g.input(peek_src, 0)) == "SurfPeek");
  CHECK(g.name(g.input(peek_in, 0)) == "SurfPeeked");
}

TEST_CASE("framework surface: the constant placements match any constant") {
  Graph g;
  const OpRef x = g.add_input(f32({1, 1, 1, 4}));
  const OpRef w = g.add_const(f32({1, 1, 1, 4}), {1.0f, 2.0f, 3.0f, 4.0f});
  const OpRef v = g.add_const(f32({1, 1, 1, 4}), {0.5f, 0.5f, 0.5f, 0.5f});
  const OpRef tcm = g.add_output(g.add_op("SurfScale", {x, w}, f32({1, 1, 1, 4})));
  const OpRef ddr = g.add_output(g.add_op("SurfScaleDdr", {x, w}, f32({1, 1, 1, 4})));
  const OpRef flat = g.add_output(g.add_op("SurfScaleFlat", {v, w}, f32({1, 1, 1, 4})));
  const OpRef not_const = g.add_output(g.add_op("SurfScale", {x, x}, f32({1, 1, 1, 4})));
  run_rules(g, RuleSet::global());
  CHECK(verify(g).empty());
  CHECK(g.name(g.input(tcm, 0)) == "SurfScaled");
  CHECK(g.input(g.input(tcm, 0), 1) == w);
  CHECK(g.name(g.input(ddr, 0)) == "SurfScaled");
  CHECK(g.name(g.input(flat, 0)) == "SurfScaled");
  CHECK(g.name(g.input(not_const, 0)) == "SurfScale");
}

TEST_CASE("framework surface: SHOULD_AUTOTHREAD compares DATA_SIZE with the option autothread_size_kb") {
  auto run = [](std::initializer_list<std::size_t> shape, bool options) {
    Graph g;
    const OpRef x = g.add_input(f32(shape));
    const OpRef out = g.add_output(g.add_op("SurfThread", {x}, f32(shape)));
    if (options) {
      g.set_option("enable_autothread", std::int64_t{1});
      g.set_option("autothread_size_kb", std::int64_t{1});
      g.set_option("autothread_hvx_ntiles", std::uint64_t{2});
    }
    run_rules(g, RuleSet::global());
    CHECK(verify(g).empty());
    return parts_of(g, out).size();
  };
  CHECK(run({1, 8, 16, 16}, true) == 2);   // 8,192 bytes, over 1 KiB: two threads
  CHECK(run({1, 8, 4, 4}, true) == 0);     // 512 bytes
  CHECK(run({1, 8, 16, 16}, false) == 0);  // autothreading off
}

TEST_CASE("framework surface: the conditional messages are their conditions") {
  Graph g;
  const OpRef x = g.add_input(f32({1, 1, 1, 4}));
  const OpRef q = g.add_input(OutputDef::make(DType::QUInt8, {1, 1, 1, 4}, 0, 0.5f));
  const OpRef yes = g.add_output(g.add_op("SurfMsg", {x}, f32({1, 1, 1, 4})));
  const OpRef no = g.add_output(g.add_op("SurfMsg", {q}, f32({1, 1, 1, 4})));
  run_rules(g, RuleSet::global());
  CHECK(g.name(g.input(yes, 0)) == "SurfMsgDone");
  CHECK(g.name(g.input(no, 0)) == "SurfMsg");
}

TEST_CASE("framework surface: REARRANGE_TO_W1 and REARRANGE_FROM_W1 go through the shape SHAPE_FROM_W1 gives") {
  Graph g;
  const OutputDef qu8 = OutputDef::make(DType::QUInt8, {1, 10, 1, 32}, 3, 0.25f);
  const OpRef x = g.add_input(qu8);
  const OpRef out = g.add_output(g.add_op("SurfW1", {x}, qu8));
  run_rules(g, RuleSet::global());
  CHECK(verify(g).empty());
  const OpRef back = g.input(out, 0);
  REQUIRE(g.name(back) == "space_rearrange");
  CHECK(g.output(back).same_shape(qu8));
  const OpRef tiled = g.input(back, 0);
  REQUIRE(g.name(tiled) == "SurfW1Tiled");
  // a quint8 tensor of height 10 and width 1: height 2 of 8 rows each
  CHECK(g.output(tiled).same_shape(OutputDef::make(DType::QUInt8, {1, 2, 8, 32})));
  const OpRef there = g.input(tiled, 0);
  REQUIRE(g.name(there) == "space_rearrange");
  CHECK(g.input(there, 0) == x);
  CHECK(g.output(there).same_shape(OutputDef::make(DType::QUInt8, {1, 2, 8, 32})));
  CHECK(g.output(there).zero_offset == 3);  // the type of x
}
#else
TEST_CASE("framework surface under PREPARE_DISABLED: the rules made of other rule macros vanish too") {
  std::size_t n = 0;
  for (const RuleInfo* r : RuleSet::global().rules()) n += from_surface(*r) ? 1 : 0;
  CHECK(n == 0);
}
#endif
