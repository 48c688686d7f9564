// The driver: passes in order, fixed point, cycles stopped with the rules named, determinism,
// transactional replacements, counters and trace.
#include "probe.hpp"

#include <optgrammar/core/text_io.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

// Two passes: EARLY turns A into B; EARLY + 1 turns B into C. A later pass sees the earlier one's work.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("D_B", "x"), OK, Op("D_C", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("D_A", "x"), OK, Op("D_B", "x"))
// A cycle: Ping ↔ Pong.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("D_Ping", "x"), OK, Op("D_Pong", "x"))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("D_Pong", "x"), OK, Op("D_Ping", "x"))
// Modifiers and constructions on a real graph.
DEF_PACKAGE_OPTIMIZATION(MIDDLE, Op("D_Quant", "x"), OK,
                         WITH_OUTPUT_TYPE(DType::QUInt8, 128, 0.5f, Op("D_Q8", "x", gen_ConstScalar_f32(2.0f))))
DEF_PACKAGE_OPTIMIZATION(MIDDLE, Op("D_Resize", "x"), OK, ResizeDim(1, 7, WITH_SIZE("x", Op("D_Resized", "x"))))
DEF_PACKAGE_OPTIMIZATION(MIDDLE, Op("D_Wrap", "x"), OK, WrapOp("D_Wrap2", WrapOp("D_Wrap2", Op("D_Inner", "x"))))
DEF_PACKAGE_OPTIMIZATION(MIDDLE, Op("D_Arr", "x"), OK,
                         Op("D_ArrUse", "x", gen_ConstArr_vals_i32(3, 1, 4), gen_Shape(1, 2, 3, 4)))
// A replacement that fails part-way: ResizeDim of a dimension past the rank (its name is
// driver_test.cpp:<the line below>).
static constexpr int d_bad_line = __LINE__ + 1;
DEF_PACKAGE_OPTIMIZATION(MIDDLE, Op("D_Bad", "x"), OK, Op("D_Outer", ResizeDim(9, 1, Op("D_Inner2", "x"))))
// The op that replaces a root gains the root's readers. In a pass with a rule that reads uses
// (OUTPUTS_OF), it is visited again; in a pass without, it is not (nothing there can change).
DEF_PACKAGE_OPTIMIZATION(LATE + 5, Op("D_Ident", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(LATE + 5, Op("D_Mark", "y"), EQ(OUTPUTS_OF("*"), 2U), Op("D_Marked", "y"))
DEF_PACKAGE_OPTIMIZATION(LATE + 6, Op("D_Ident2", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(LATE + 6, Op("D_Mark2", "y"), GT(RANK_OF("y"), 4), Op("D_Marked", "y"))

namespace {
using namespace optgrammar;
RuleSet this_file() {
  return RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("driver_test.cpp") != std::string::npos; });
}
OutputDef f32() { return OutputDef::make(DType::Float32, {1, 8, 8, 4}); }
}  // namespace

TEST_CASE("passes run in ascending priority to a fixed point") {
  Graph g;
  auto x = g.add_input(f32());
  g.add_output(g.add_op("D_A", {x}, f32()));
  auto rep = run_rules(g, this_file());
  REQUIRE(rep.passes.size() >= 3);
  CHECK(rep.passes[0].name == "EARLY");
  CHECK(rep.passes[1].name == "EARLY+1");
  bool has_c = false;
  for (auto r : g.live_ops()) has_c |= g.name(r) == "D_C";
  CHECK(has_c);
  CHECK(rep.ops_after == 3);
  CHECK(verify(g).empty());
}

TEST_CASE("a cycle stops the run with an error naming the rules") {
  Graph g;
  auto x = g.add_input(f32());
  g.add_output(g.add_op("D_Ping", {x}, f32()));
  try {
    run_rules(g, this_file());
    FAIL("no error");
  } catch (const CycleError& e) {
    REQUIRE(e.rules().size() == 2);
    std::string msg = e.what();
    CHECK(msg.find("driver_test.cpp:16") != std::string::npos);
    CHECK(msg.find("driver_test.cpp:17") != std::string::npos);
    CHECK(msg.find("pass LATE") != std::string::npos);
  }
}

TEST_CASE("rule order is by pass, then file, then line, not by registration") {
  auto set = this_file();
  const auto& rules = set.rules();
  for (std::size_t i = 1; i < rules.size(); ++i) CHECK(rule_order(rules[i - 1], rules[i]));
  CHECK(rules.front()->line == 14);  // EARLY before EARLY+1, though registered second
}

TEST_CASE("modifiers set the output definition of the constructed op") {
  Graph g;
  auto x = g.add_input(f32());
  g.add_output(g.add_op("D_Quant", {x}, f32()));
  g.add_output(g.add_op("D_Resize", {x}, OutputDef::make(DType::Float32, {2, 2})));
  run_rules(g, this_file());
  bool q = false, r = false;
  for (auto op : g.live_ops()) {
    if (g.name(op) == "D_Q8") {
      q = true;
      CHECK(g.output(op).dtype == DType::QUInt8);
      CHECK(g.output(op).zero_offset == 128);
      CHECK(g.output(op).stepsize == 0.5f);
      CHECK(g.output(op).same_shape(f32()));
      OpRef c = g.input(op, 1);
      CHECK(g.is_const(c));
      CHECK(g.output(c).element_count() == 1);
    }
    if (g.name(op) == "D_Resized") {
      r = true;
      CHECK(g.output(op).rank == 4);
      CHECK(g.output(op).dims[1] == 7);  // from x's shape, then dim 1 resized
      CHECK(g.output(op).dims[2] == 8);
    }
  }
  CHECK(q);
  CHECK(r);
}

TEST_CASE("WrapOp does not wrap an op that already is one, gen_ConstArr and gen_Shape") {
  Graph g;
  auto x = g.add_input(f32());
  g.add_output(g.add_op("D_Wrap", {x}, f32()));
  g.add_output(g.add_op("D_Arr", {x}, f32()));
  run_rules(g, this_file());
  int wraps = 0;
  for (auto op : g.live_ops()) {
    if (g.name(op) == "D_Wrap2") ++wraps;
    if (g.name(op) == "D_ArrUse") {
      OpRef c = g.input(op, 1), s = g.input(op, 2);
      CHECK(g.output(c).element_count() == 3);
      std::int32_t v[3];
      std::memcpy(v, g.payload(c).data(), 12);
      CHECK((v[0] == 3 && v[1] == 1 && v[2] == 4));
      CHECK(g.output(s).rank == 4);
      CHECK(g.output(s).dims[3] == 4);
    }
  }
  CHECK(wraps == 1);
}

TEST_CASE("a replacement that fails part-way leaves the graph exactly as it was") {
  Graph g;
  auto x = g.add_input(f32());
  g.add_output(g.add_op("D_Bad", {x}, f32()));
  std::string before = to_text(g);
  std::ostringstream trace;
  DriverOptions opt;
  opt.trace = &trace;
  auto rep = run_rules(g, this_file(), opt);
  CHECK(to_text(g) == before);
  CHECK(verify(g).empty());
  std::uint64_t failed = 0;
  for (auto& s : rep.stats) failed += s.failed;
  CHECK(failed == 1);
  // The trace says which rule failed on which op, and why (the rollback keeps the reason).
  const std::string t = trace.str();
  INFO(t);
  CHECK(t.find("driver_test.cpp:" + std::to_string(d_bad_line) + " %1(D_Bad) failed: ") != std::string::npos);
  CHECK(t.find("ResizeDim: dimension out of range") != std::string::npos);
}

TEST_CASE("results do not depend on visiting order, counters and trace") {
  auto build = [] {
    Graph g;
    auto x = g.add_input(f32());
    auto a = g.add_op("D_A", {x}, f32());
    auto b = g.add_op("D_A", {a}, f32());
    g.add_output(g.add_op("D_Wrap", {b}, f32()));
    return g;
  };
  Graph g1 = build(), g2 = build();
  std::ostringstream trace;
  DriverOptions fwd, rev;
  fwd.trace = &trace;
  rev.reverse_order = true;
  auto rep = run_rules(g1, this_file(), fwd);
  run_rules(g2, this_file(), rev);
  CHECK(to_text(g1) == to_text(g2));
  for (std::uint64_t seed : {1u, 7u, 12345u}) {
    Graph g3 = build();
    DriverOptions shuffled;
    shuffled.shuffle_seed = seed;
    run_rules(g3, this_file(), shuffled);
    CHECK(to_text(g3) == to_text(g1));
  }
  std::uint64_t fired = 0;
  for (auto& s : rep.stats) fired += s.fired;
  CHECK(fired == rep.rewrites);
  CHECK(fired == 5);  // 2 × A→B, 2 × B→C, 1 × Wrap
  std::size_t lines = 0;
  for (char c : trace.str()) lines += c == '\n';
  CHECK(lines == fired);
  CHECK(trace.str().find("driver_test.cpp:14 %") != std::string::npos);
}

TEST_CASE("the rule check catches a hand-written rule that lies about firing") {
  Graph g;
  auto x = g.add_input(f32());
  g.add_output(g.add_op("H_Liar", {x}, f32()));
  RuleSet set;
  RuleInfo r;
  r.name = "liar";
  r.file = "driver_test.cpp";
  r.pass_name = "EARLY";
  r.priority = 3050;
  r.root = intern_op_name("H_Liar");
  r.apply = [](Rewriter& rw, const RuleInfo&, OpRef root) {  // makes an op, then says it did nothing
    rw.graph().add_op("H_Junk", {root}, rw.graph().output(root));
    return false;
  };
  set.add(r);
  DriverOptions opt;
  opt.check_rules = true;
  CHECK_THROWS_WITH(run_rules(g, set, opt), Catch::Contains("rule liar did not fire but changed the graph"));
}

TEST_CASE("registrations wait in pending_rules() until RuleSet::global() takes them in, once each") {
  RuleSet& global = RuleSet::global();
  CHECK(engine::pending_rules().empty());  // the rules of this file were taken in by the first call
  const std::size_t before = global.size();
  auto made = [](int line) {
    RuleInfo r;
    r.file = "/pkg/late_rules.cpp";
    r.line = line;
    r.name = "late_rules.cpp:" + std::to_string(line);
    r.canonical = "DEF_PACKAGE_OPTIMIZATION(LATE,Op(\"Late\",\"x\"),OK,\"x\")";
    r.priority = 21050;
    r.root = intern_op_name("Late");
    return r;
  };
  // as a package loaded after start-up registers: its rules, one of them twice (a header's rule
  // reached from two translation units)
  engine::pending_rules().push_back(made(7));
  engine::pending_rules().push_back(made(7));
  engine::pending_rules().push_back(made(9));
  CHECK(global.size() == before);  // nothing taken in until global() is asked
  CHECK(&RuleSet::global() == &global);
  CHECK(engine::pending_rules().empty());
  CHECK(global.size() == before + 2);
  const auto& rules = global.rules();
  int late = 0;
  for (const RuleInfo* r : rules) late += r->file == "/pkg/late_rules.cpp";
  CHECK(late == 2);
}

TEST_CASE("ops whose name roots no rule of a pass are passed over: the same run as visiting them") {
  // Without a visit function the worklist skips ops no rule of the pass is rooted at; with one it
  // hands every op to it. The rewrites, their order (the trace), the counters and the graph must
  // not differ.
  auto build = [] {
    Graph g;
    OpRef h = g.add_input(f32());
    for (int i = 0; i < 20; ++i) {
      const std::vector<float> data(256, static_cast<float>(i));
      const OpRef c = g.add_const(f32(), std::span<const float>(data));
      h = g.add_op("D_Other", {h, c}, f32());
      h = g.add_op(i % 3 == 0 ? "D_A" : "D_Other2", {h}, f32());
      if (i % 4 == 0) h = g.add_op("D_Wrap", {h}, f32());
    }
    g.add_output(h);
    return g;
  };
  Graph skipped = build(), visited = build();
  std::ostringstream t1, t2;
  DriverOptions plain, with_visit;
  plain.trace = &t1;
  with_visit.trace = &t2;
  std::size_t seen = 0, seen_unrooted = 0;
  with_visit.visit = [&](Rewriter& rw, OpRef r) {
    ++seen;
    const std::string_view n = rw.graph().name(r);
    seen_unrooted += n == "D_Other" || n == "D_Other2" || n == "$Const";
    return false;
  };
  const RunReport a = run_rules(skipped, this_file(), plain);
  const RunReport b = run_rules(visited, this_file(), with_visit);
  CHECK(seen_unrooted > 0);  // the visit function did see ops that no rule is rooted at
  CHECK(seen > seen_unrooted);
  CHECK(a.rewrites == b.rewrites);
  CHECK(a.rewrites > 0);
  CHECK(t1.str() == t2.str());
  CHECK(to_text(skipped) == to_text(visited));
  REQUIRE(a.stats.size() == b.stats.size());
  for (std::size_t k = 0; k < a.stats.size(); ++k) {
    CHECK(a.stats[k].tried == b.stats[k].tried);
    CHECK(a.stats[k].matched == b.stats[k].matched);
    CHECK(a.stats[k].fired == b.stats[k].fired);
  }
}

namespace {
/// A hand-written rewrite: `root` becomes a new op named `name` over the root's input; returns it.
OpRef rewrite_to(Rewriter& rw, OpRef root, const char* name) {
  Graph& g = rw.graph();
  const std::size_t first = g.size();
  const OpRef n = g.add_op(name, {g.input(root, 0)}, g.output(root));
  rw.notify_inserted_since(first);
  rw.replace(root, n);
  return n;
}
/// The same as a rule's apply: it fired.
bool to(Rewriter& rw, OpRef root, const char* name) {
  rewrite_to(rw, root, name);
  return true;
}
/// A hand-written rule of pass EARLY (priority `priority`) rooted at ops named `root`.
RuleInfo hand_rule(const char* name, const char* root, int priority, bool (*apply)(Rewriter&, const RuleInfo&, OpRef)) {
  RuleInfo r;
  r.name = name;
  r.file = "driver_test.cpp";
  r.pass_name = "EARLY";
  r.priority = priority;
  r.root = intern_op_name(root);
  r.apply = apply;
  return r;
}
}  // namespace

TEST_CASE("an op pushed between passes is queued again when a later rewrite touches it") {
  // The hook before the first pass redirects S_X to read S_Q, which pushes S_X. The pass then
  // rewrites S_Q into S_N1 while the sweep has S_X still ahead (no push), visits S_X (no rule
  // fires yet), and rewrites S_N1 into S_N2 from the FIFO, which pushes S_X again: it must be
  // queued and visited, so that S_X(S_N2) becomes S_Done. A mark left from the hook's push would
  // have kept it out of the queue.
  Graph g;
  const OpRef x = g.add_input(f32());
  const OpRef p = g.add_op("S_P", {x}, f32());
  const OpRef q = g.add_op("S_Q", {x}, f32());
  g.add_output(g.add_op("S_X", {p}, f32()));
  g.add_output(q);  // (else S_Q, unread, would be removed as dead before the hook runs)
  RuleSet set;
  set.add(hand_rule("q_to_n1", "S_Q", 3060, [](Rewriter& rw, const RuleInfo&, OpRef r) { return to(rw, r, "S_N1"); }));
  set.add(
      hand_rule("n1_to_n2", "S_N1", 3060, [](Rewriter& rw, const RuleInfo&, OpRef r) { return to(rw, r, "S_N2"); }));
  set.add(hand_rule("x_done", "S_X", 3060, [](Rewriter& rw, const RuleInfo&, OpRef r) {
    const Graph& gr = rw.graph();
    if (gr.name(gr.input(r, 0)) != "S_N2") return false;
    return to(rw, r, "S_Done");
  }));
  DriverOptions opt;
  bool first_call = true;
  opt.between_passes = [&](Rewriter& rw) {
    if (first_call) rw.replace(p, q);
    first_call = false;
  };
  const RunReport rep = run_rules(g, set, opt);
  REQUIRE(rep.passes.size() == 1);
  CHECK(rep.passes[0].rewrites == 3);
  bool done = false;
  for (OpRef r : g.live_ops()) done = done || g.name(r) == "S_Done";
  CHECK(done);
}

TEST_CASE("the op that replaces a root is visited again only in a pass with a rule that reads uses") {
  // D_Mark's rule needs two $Out readers. D_Mark is visited first (one reader: no), then D_Ident
  // is bypassed, which gives D_Mark the second: the rule must see it.
  Graph g;
  const OpRef a = g.add_input(f32());
  const OpRef m = g.add_op("D_Mark", {a}, f32());
  g.add_output(g.add_op("$Out", {m}, f32()));
  const OpRef r = g.add_op("D_Ident", {m}, f32());
  g.add_output(g.add_op("$Out", {r}, f32()));
  // In the other pass, D_Mark2's rule never fires: it is tried once, when the sweep reaches it,
  // and not again when D_Ident2's bypass gives it D_Ident2's reader.
  const OpRef m2 = g.add_op("D_Mark2", {a}, f32());
  g.add_output(g.add_op("D_Ident2", {m2}, f32()));
  const RuleSet set = this_file();  // (the report points at its rules)
  const RunReport rep = run_rules(g, set);
  bool marked = false;
  for (OpRef o : g.live_ops()) marked = marked || g.name(o) == "D_Marked";
  CHECK(marked);
  std::size_t checked = 0;
  for (std::size_t k = 0; k < rep.rules.size(); ++k) {
    const OpNameId root = rep.rules[k]->root;
    if (root == intern_op_name("D_Mark")) {  // tried before and after the bypass
      CHECK(rep.stats[k].tried == 2);
      CHECK(rep.stats[k].fired == 1);
      ++checked;
    }
    if (root == intern_op_name("D_Mark2")) {
      CHECK(rep.stats[k].tried == 1);
      CHECK(rep.stats[k].fired == 0);
      ++checked;
    }
  }
  CHECK(checked == 2);
  CHECK(verify(g).empty());
}

TEST_CASE("the sweep's name filter covers a name that a rule gives an op ahead of it") {
  // The forward sweep reads its name filter by name without a range check, over the names the
  // graph's ops had when the pass began (Graph::name_bound). A rule that re-forms an op the sweep
  // has still to reach into an op of a name interned during the pass puts that op's name past
  // them: the filter must be widened before the sweep reads it (the filter asserts its range,
  // which the asan preset's build checks), the op is passed over (its name roots no rule), and the sweep goes on to the
  // ops after it.
  Graph g;
  const OpRef x = g.add_input(f32());
  const OpRef a = g.add_op("W_Root", {x}, f32());
  const OpRef b = g.add_op("W_Mid", {a}, f32());
  g.add_output(g.add_op("W_Tail", {b}, f32()));
  RuleSet set;
  set.add(hand_rule("w_root", "W_Root", 3070, [](Rewriter& rw, const RuleInfo&, OpRef root) {
    Graph& gr = rw.graph();
    const OpRef mid = gr.users(root).front();
    const OpRef in = gr.input(root, 0);
    const OpNameId fresh = intern_op_name("W_Named_During_The_Pass");
    REQUIRE(fresh >= gr.name_bound());
    gr.reform(mid, fresh, std::span<const OpRef>(&root, 1), gr.output_index(mid),
              static_cast<std::uint32_t>(gr.op_id(mid)));
    CHECK(gr.name_bound() == fresh + 1);
    rw.replace(root, in);
    return true;
  }));
  set.add(
      hand_rule("w_tail", "W_Tail", 3070, [](Rewriter& rw, const RuleInfo&, OpRef r) { return to(rw, r, "W_Done"); }));
  DriverOptions opt;
  opt.check_rules = false;  // the lean loop, which builds with assertions otherwise leave for the checked one
  const RunReport rep = run_rules(g, set, opt);
  CHECK(rep.rewrites == 2);
  std::vector<std::string> names;
  for (OpRef o : g.live_ops()) names.emplace_back(g.name(o));
  CHECK(names == std::vector<std::string>{"Input", "W_Named_During_The_Pass", "Output", "W_Done"});
  CHECK(verify(g).empty());
}

TEST_CASE("a pass whose sweep rewrites past the budget stops with the cycle error") {
  // The sweep's loop leaves the budget unchecked (a visit fires one rule, and a DSL rule rewrites
  // once); a hand-written rule may rewrite more, and the check after the sweep still stops the pass.
  Graph g;
  const OpRef x = g.add_input(f32());
  for (int i = 0; i < 600; ++i) g.add_output(g.add_op("W_Multi", {x}, f32()));
  RuleSet set;
  set.add(hand_rule("w_multi", "W_Multi", 3070, [](Rewriter& rw, const RuleInfo&, OpRef r) {
    // Four rewrites in one visit: W_Multi -> W_M1 -> W_M2 -> W_M3 -> W_M4.
    for (const char* name : {"W_M1", "W_M2", "W_M3", "W_M4"}) r = rewrite_to(rw, r, name);
    return true;
  }));
  DriverOptions opt;
  opt.check_rules = false;        // (as above)
  opt.rewrite_budget_per_op = 1;  // 1,201 live ops: a budget of 2,201 rewrites; the sweep makes 2,400
  CHECK_THROWS_AS(run_rules(g, set, opt), CycleError);
  Graph h;
  const OpRef y = h.add_input(f32());
  for (int i = 0; i < 100; ++i) h.add_output(h.add_op("W_Multi", {y}, f32()));
  CHECK(run_rules(h, set, opt).rewrites == 400);  // 201 live ops: a budget of 1,201
}
