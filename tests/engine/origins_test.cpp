// Provenance (core/origins.hpp): each op made by a rewrite records the rule that made it and the
// sources of every op the rule's match covered; constant folding records "fold"; the text format
// and the pictures carry it; a graph that does not track it records nothing.
#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

// A fusion of three ops (Op_C(Op_B(Op_A(x)), k) with k a constant) into one, and a rewrite that
// makes two ops.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Or_C", Op("Or_B", Op("Or_A", "x")), OPCONST("k")), OK, Op("Or_ABC", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Or_Two", "x"), OK, Op("Or_Outer", WITH_SIZE("x", Op("Or_Inner", "x"))))

namespace {
using namespace optgrammar;
RuleSet this_file() {
  return RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("origins_test.cpp") != std::string::npos; });
}
OutputDef f32() { return OutputDef::make(DType::Float32, {1, 2, 2, 4}); }

/// x -> Or_A -> Or_B -> Or_C(., k) -> Output, each op imported from a node of its own name.
Graph chain() {
  Graph g;
  g.track_origins();
  auto named = [&](OpRef r, const char* node) {
    const std::string from[] = {node};
    g.set_origin(r, "imported", from);
    return r;
  };
  const OpRef x = named(g.add_input(f32()), "input");
  const OpRef a = named(g.add_op("Or_A", {x}, f32()), "a");
  const OpRef b = named(g.add_op("Or_B", {a}, f32()), "b");
  const OpRef k = named(g.add_const(OutputDef::make(DType::Float32, {1}), {1.0f}), "k_weights");
  g.add_output(named(g.add_op("Or_C", {b, k}, f32()), "c"));
  return g;
}

OpRef only(const Graph& g, std::string_view name) {
  OpRef found;
  for (OpRef r : g.live_ops())
    if (g.name(r) == name) found = r;
  return found;
}
}  // namespace

TEST_CASE("a fused op records its rule and every node its match covered, in either rewrite mode") {
  for (bool in_place : {false, true}) {
    Graph g = chain();
    DriverOptions opt;
    opt.rewrite_in_place = in_place;
    std::ostringstream trace;
    opt.trace = &trace;
    run_rules(g, this_file(), opt);
    const OpRef fused = only(g, "Or_ABC");
    REQUIRE(fused.valid());
    CHECK(g.made_by(fused).find("origins_test.cpp:") == 0);
    // the constant is a value, not a node: its name is not among the fused op's sources
    CHECK(g.made_from(fused) == std::vector<std::string_view>{"a", "b", "c"});
    CHECK(trace.str().find("(Or_ABC) from a, b, c\n") != std::string::npos);
    // ops the run did not make keep their records
    CHECK(g.made_by(only(g, "Input")) == "imported");
  }
}

TEST_CASE("every op a rewrite makes gets its record; a graph that does not track records nothing") {
  Graph g;
  g.track_origins();
  const OpRef x = g.add_input(f32());
  g.add_output(g.add_op("Or_Two", {x}, f32()));
  run_rules(g, this_file());
  for (const char* made : {"Or_Outer", "Or_Inner"}) CHECK(g.made_by(only(g, made)).find("origins_test.cpp:") == 0);
  CHECK(g.made_by(x) == "imported");

  Graph plain;
  plain.add_output(plain.add_op("Or_Two", {plain.add_input(f32())}, f32()));
  run_rules(plain, this_file());
  CHECK_FALSE(plain.tracks_origins());
  for (OpRef r : plain.live_ops()) CHECK(plain.origins().of(r.index) == Origins::none);
}

TEST_CASE("a folded constant records the fold and what the folded op stood for") {
  Graph g;
  const OpRef a = g.add_const(OutputDef::make(DType::Float32, {2}), {1.0f, 2.0f});
  const OpRef sum = g.add_op("Add", {a, a}, OutputDef::make(DType::Float32, {2}));
  const std::string from[] = {"add_node"};
  g.set_origin(sum, "imported", from);
  g.add_output(sum);
  engine::ConstantFolder folder;
  REQUIRE(folder.run(g) == 1);
  const OpRef c = g.input(only(g, "Output"), 0);
  CHECK(g.made_by(c) == "fold");
  CHECK(g.made_from(c) == std::vector<std::string_view>{"add_node"});
}

TEST_CASE("the text format and the pictures carry provenance; rollback takes records back") {
  Graph g = chain();
  run_rules(g, this_file());
  const std::string text = to_text(g);
  CHECK(text.find(" by=\"imported\" from=[\"input\"]") != std::string::npos);
  CHECK(text.find(" from=[\"a\",\"b\",\"c\"]") != std::string::npos);
  const Graph back = from_text(text);
  CHECK(to_text(back) == text);
  // names with quotes and backslashes read back
  Graph q;
  const std::string odd[] = {"a\"b\\c"};
  q.set_origin(q.add_input(f32()), "imported", odd);
  CHECK(from_text(to_text(q)).made_from(OpRef{0}) == std::vector<std::string_view>{"a\"b\\c"});

  std::ostringstream dot;
  write_dot(dot, g);
  CHECK(dot.str().find("\\nfrom a +2") != std::string::npos);
  CHECK(dot.str().find("tooltip=\"by origins_test.cpp:") != std::string::npos);

  Graph r = chain();
  const auto cp = r.checkpoint();
  const OpRef made = r.add_op("Or_X", {OpRef{0}}, f32());
  r.set_origin(made, "some rule");
  r.rollback(cp);
  const OpRef again = r.add_op("Or_Y", {OpRef{0}}, f32());
  CHECK(again == made);
  CHECK(r.made_by(again) == "imported");
}

TEST_CASE("CSE keeps one of two equal ops, and it stands for both ops' sources") {
  Graph g;
  g.track_origins();
  const OpRef x = g.add_input(f32());
  const std::string n1[] = {"relu_1"}, n2[] = {"relu_2"};
  const OpRef a = g.add_op("Relu", {x}, f32());
  const OpRef b = g.add_op("Relu", {x}, f32());
  g.set_origin(a, "imported", n1);
  g.set_origin(b, "imported", n2);
  g.add_output(a);
  g.add_output(b);
  engine::Cse cse;
  REQUIRE(cse.run(g) == 1);
  const OpRef kept = g.alive(a) ? a : b;
  CHECK_FALSE(g.alive(kept == a ? b : a));
  CHECK(g.made_by(kept) == "imported");
  CHECK(g.made_from(kept) == std::vector<std::string_view>{"relu_1", "relu_2"});
}

TEST_CASE("a rule made by hand records itself and its root's sources; one that records more keeps its own") {
  const auto make = [](const char* name, const char* root, bool (*apply)(Rewriter&, const RuleInfo&, OpRef)) {
    RuleInfo r;
    r.name = name;
    r.file = "origins_test.cpp";
    r.pass_name = "EARLY";
    r.priority = 3050;
    r.root = intern_op_name(root);
    r.apply = apply;
    return r;
  };
  RuleSet set;
  // Or_Hand(x) becomes Or_HandMade(x), appended.
  set.add(make("hand", "Or_Hand", [](Rewriter& rw, const RuleInfo&, OpRef root) {
    Graph& g = rw.graph();
    rw.replace(root, g.add_op("Or_HandMade", {g.input(root, 0)}, g.output(root)));
    return true;
  }));
  // Or_Own(x) becomes Or_OwnMade(x), which the rule records itself, with "own" as its source.
  set.add(make("own", "Or_Own", [](Rewriter& rw, const RuleInfo& self, OpRef root) {
    Graph& g = rw.graph();
    const OpRef made = g.add_op("Or_OwnMade", {g.input(root, 0)}, g.output(root));
    const std::string from[] = {"own"};
    g.set_origin(made, self.name, from);
    rw.replace(root, made);
    return true;
  }));
  for (bool track : {true, false}) {
    Graph g;
    if (track) g.track_origins();
    const OpRef x = g.add_input(f32());
    const std::string n1[] = {"hand_node"}, n2[] = {"own_node"};
    const OpRef h = g.add_op("Or_Hand", {x}, f32());
    const OpRef o = g.add_op("Or_Own", {x}, f32());
    if (track) {
      g.set_origin(h, "imported", n1);
      g.set_origin(o, "imported", n2);
    }
    g.add_output(h);
    g.add_output(o);
    run_rules(g, set);
    const OpRef made = only(g, "Or_HandMade"), own = only(g, "Or_OwnMade");
    REQUIRE(made.valid());
    REQUIRE(own.valid());
    if (!track) {
      CHECK(g.origins().of(made.index) == Origins::none);
      continue;
    }
    CHECK(g.made_by(made) == "hand");
    CHECK(g.made_from(made) == std::vector<std::string_view>{"hand_node"});
    CHECK(g.made_by(own) == "own");
    CHECK(g.made_from(own) == std::vector<std::string_view>{"own"});
  }
}

TEST_CASE("the provenance table interns each name once, through its growth") {
  optgrammar::Origins o;
  CHECK(o.name_id("") == 0);
  std::vector<std::uint32_t> ids;
  for (int i = 0; i < 1000; ++i) ids.push_back(o.name_id("node_" + std::to_string(i)));
  for (int i = 0; i < 1000; ++i) {
    CHECK(ids[static_cast<std::size_t>(i)] == static_cast<std::uint32_t>(i + 1));  // dense, in order of first use
    CHECK(o.name_id("node_" + std::to_string(i)) == ids[static_cast<std::size_t>(i)]);
    CHECK(o.name(ids[static_cast<std::size_t>(i)]) == "node_" + std::to_string(i));
  }
  CHECK(o.name(0).empty());
  CHECK(o.name(1001).empty());
}
