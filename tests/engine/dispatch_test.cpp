// The driver's merged dispatch (PassDispatch, engine/rule_set.hpp): rules rooted on one op are
// looked up by the name of the op in one input slot, then by the terms (a dimension, the rank, the
// dtype of a matched op) that several of them guard. Results, rule order, firing order and the
// fired counters must be exactly those of trying every rule of the root name in rule order.
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

// Many rules rooted on X_Root, guarded on slot 0 by different inner names, interleaved with rules
// that look at slot 1 only or at no inner op at all, some with constraints that fail.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", Op("X_B", "x"), "y"), EQ(DIM_OF("x", 3), 999), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", "x", LET("c", Op("$Const"))), EQ(DIM_OF("x", 3), 5), Op("X_K", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", LET("b", Op("X_B", "x")), "y"), EQ(DIM_OF("y", 3), 4),
                         Op("X_FromB", "b", "y"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", "x", "y"), EQ(DIM_OF("x", 3), 7), Op("X_Seven", "x", "y"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", Op("X_C", "x"), "y"), OK, Op("X_FromC", "x", "y"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", OpVarIn("X_D", "x"), "y"), OK, Op("X_FromD", "x", "y"))
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precision_flag, Op("X_Root", Op("X_E", "x"), "y"), OK,
                                    Op("X_FromE", "x", "y"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", "x"), OK, Op("X_One", "x"))
// A dimension guard under a LET, as a conjunct of AND.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", "x", LET("o", Op("X_Other", "z"))),
                         AND(GT(DIM_OF("x", 3), 4), EQ(DIM_OF("z", 2), 2U)), Op("X_Dim", "x", "o"))
// The products are rewritten again in a second step (new ops are dispatched too).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", Op("X_FromC", "x", "y"), "z"), OK, Op("X_CC", "x", "y", "z"))
// The dimension term of rules 1 and 3 (path 0, dimension 3) once more, with rule 1's value; and
// a second X_B rule on rule 0's term: in the X_B list the term of three rules decides, the other
// keeps its guard.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", "x", "y"), EQ(DIM_OF("x", 3), 5), Op("X_Five", "x", "y"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("X_Root", Op("X_B", "x"), "y"), EQ(DIM_OF("x", 3), 6), Op("X_BSix", "x", "y"))

// Rules that differ only in the value of one guarded dimension, as a large package's often do.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Y_Root", Op("Y_In", "x")), EQ(DIM_OF("x", 3), 3), Op("Y_Three", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Y_Root", Op("Y_In", "x")), EQ(DIM_OF("x", 3), 4), Op("Y_Four", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Y_Root", Op("Y_In", "x")), EQ(DIM_OF("x", 3), 100), Op("Y_Hundred", "x"))

// Rules guarded by an operand's dtype (IS_* expand to EQ(DTYPE_OF(...), DType::...)) or rank.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Z_Root", "x"), IS_FLOAT16("x"), Op("Z_Half", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Z_Root", "x"), EQ(RANK_OF("x"), 2), Op("Z_Rank2", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Z_Root", "x"), AND(IS_FLOAT32("x"), GT(RANK_OF("x"), 3)), Op("Z_Single", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Z_Root", "x"), AND(GT(DIM_OF("x", 0), 1), IS_QUINT8("x")), Op("Z_Quant", "x"))

// Rules with several term guards (every conjunct of AND that fits): their list splits by the term
// most of them guard (dimension 1 of x), and the list of value 2 once more by the dtype.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("W_Root", "x"), AND(IS_FLOAT32("x"), EQ(DIM_OF("x", 1), 2)), Op("W_F2", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("W_Root", "x"), AND(IS_FLOAT32("x"), EQ(DIM_OF("x", 1), 3)), Op("W_F3", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("W_Root", "x"), AND(EQ(DIM_OF("x", 1), 2), IS_QUINT8("x")), Op("W_Q2", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("W_Root", "x"), EQ(DIM_OF("x", 1), 3), Op("W_Any3", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("W_Root", "x"),
                         AND(IS_FLOAT32("x"), EQ(RANK_OF("x"), 2), GT(DIM_OF("x", 0), 0), EQ(DIM_OF("x", 1), 2)),
                         Op("W_F2Rank2", "x"))
// Two guards of one term that cannot both hold: in no value's list.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("W_Root", "x"), AND(EQ(DIM_OF("x", 1), 2), EQ(DIM_OF("x", 1), 3)),
                         Op("W_Never", "x"))

namespace {
using namespace optgrammar;

RuleSet this_file() {
  return RuleSet::global().select(
      [](const RuleInfo& r) { return r.file.find("dispatch_test.cpp") != std::string::npos; });
}
/// The same rules without their guards: every rule of the root's name is tried in rule order
/// (the reference behaviour).
RuleSet unguarded(const RuleSet& set) {
  RuleSet out;
  for (const RuleInfo* r : set.rules()) {
    RuleInfo c = *r;
    c.guards.clear();
    c.term_guards.clear();
    out.add(std::move(c));
  }
  return out;
}
std::string dump(const Graph& g) {
  std::ostringstream os;
  for (OpRef r : g.live_ops()) {
    os << r.index << " " << g.name(r) << " d3=" << g.output(r).dims[3];
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) os << " %" << g.input(r, k).index;
    os << "\n";
  }
  return os.str();
}
/// Runs `set` on `g` and `ref` on a copy; checks that both made the same rewrites (the same rules
/// fired on the same ops in the same order) and the same graph, and returns both reports.
std::pair<RunReport, RunReport> run_both(const Graph& g, const RuleSet& set, const RuleSet& ref) {
  Graph a = g, b = g;
  std::ostringstream ta, tb;
  DriverOptions oa, ob;
  oa.trace = &ta;
  ob.trace = &tb;
  RunReport ra = run_rules(a, set, oa), rb = run_rules(b, ref, ob);
  CHECK(ra.rewrites == rb.rewrites);
  CHECK(ta.str() == tb.str());
  CHECK(dump(a) == dump(b));
  return {std::move(ra), std::move(rb)};
}
/// A graph where X_Root ops read every kind of inner op in slot 0, with one or two inputs.
Graph sample(unsigned seed) {
  Graph g;
  g.set_option("relaxed_precision_flag", true);  // the X_E rule is flagged so
  const char* inner[] = {"X_B", "X_C", "X_D", "X_E", "X_Other", "X_Root"};
  OpRef x = g.add_input(OutputDef::make(DType::Float32, {1, 2, 2, 4}));
  OpRef h = x;
  for (unsigned i = 0; i < 60; ++i) {
    seed = seed * 1103515245u + 12345u;
    const unsigned pick = (seed >> 16) % 6, depth = 4 + (seed >> 20) % 4, form = (seed >> 24) % 3;
    const auto def = OutputDef::make(DType::Float32, {1, 2, 2, std::size_t{depth}});
    OpRef in = g.add_op(inner[pick], {h}, def);
    OpRef second =
        form == 0 ? g.add_const(OutputDef::make(DType::Float32, {1, 1, 1, 1}), {1.0f}) : g.add_op("X_Other", {h}, def);
    h = form == 2 ? g.add_op("X_Root", {in}, def) : g.add_op("X_Root", {in, second}, def);
  }
  g.add_output(h);
  return g;
}
}  // namespace

TEST_CASE("input guards are read from the rule's structure") {
  RuleSet set = this_file();
  REQUIRE(set.size() == 25);
  const auto& rules = set.rules();
  auto guards = [&](std::size_t k) {
    std::ostringstream os;
    for (InputGuard gd : rules[k]->guards) os << gd.slot << ":" << op_name_of(gd.name) << " ";
    return os.str();
  };
  CHECK(guards(0) == "0:X_B ");
  CHECK(guards(1) == "1:$Const ");
  CHECK(guards(2) == "0:X_B ");
  CHECK(guards(3).empty());
  CHECK(guards(4) == "0:X_C ");
  CHECK(guards(5) == "0:X_D ");
  CHECK(guards(6) == "0:X_E ");
  CHECK(guards(7).empty());
  CHECK(guards(8) == "1:X_Other ");
  CHECK(guards(9) == "0:X_FromC ");
  // A hand-made rule has none unless it sets them.
  RuleInfo hand;
  CHECK(hand.guards.empty());
  CHECK(hand.term_guards.empty());
  // Term guards: EQ(DIM_OF(tag, N), K), EQ(RANK_OF(tag), K), EQ(DTYPE_OF(tag), K) with the tag's
  // path in the match.
  auto dims = [&](std::size_t k) {
    if (rules[k]->term_guards.empty()) return std::string("-");
    std::ostringstream os;
    for (const TermGuard& d : rules[k]->term_guards) {
      if (&d != &rules[k]->term_guards.front()) os << "; ";
      CHECK(d.active);
      os << "path";
      for (std::uint32_t i = 0; i < d.depth; ++i) os << " " << d.path[i];
      if (d.of == TermGuard::Of::dim)
        os << " dim " << d.dim;
      else
        os << (d.of == TermGuard::Of::rank ? " rank" : " dtype");
      os << " = " << d.value;
    }
    return os.str();
  };
  CHECK(dims(0) == "path 0 0 dim 3 = 999");
  CHECK(dims(1) == "path 0 dim 3 = 5");
  CHECK(dims(2) == "path 1 dim 3 = 4");
  CHECK(dims(3) == "path 0 dim 3 = 7");
  CHECK(dims(4) == "-");
  CHECK(dims(8) == "path 1 0 dim 2 = 2");
  CHECK(dims(9) == "-");
  CHECK(dims(10) == "path 0 dim 3 = 5");
  CHECK(dims(11) == "path 0 0 dim 3 = 6");
  CHECK(dims(14) == "path 0 0 dim 3 = 100");
  CHECK(dims(15) == "path 0 dtype = " + std::to_string(static_cast<int>(DType::Float16)));
  CHECK(dims(16) == "path 0 rank = 2");
  CHECK(dims(17) == "path 0 dtype = " + std::to_string(static_cast<int>(DType::Float32)));
  CHECK(dims(18) == "path 0 dtype = " + std::to_string(static_cast<int>(DType::QUInt8)));  // the conjunct that fits
  const std::string f32 = std::to_string(static_cast<int>(DType::Float32));
  CHECK(dims(19) == "path 0 dtype = " + f32 + "; path 0 dim 1 = 2");
  CHECK(dims(21) == "path 0 dim 1 = 2; path 0 dtype = " + std::to_string(static_cast<int>(DType::QUInt8)));
  CHECK(dims(22) == "path 0 dim 1 = 3");
  CHECK(dims(23) == "path 0 dtype = " + f32 + "; path 0 rank = 2; path 0 dim 1 = 2");  // GT is no guard
  CHECK(dims(24) == "path 0 dim 1 = 2; path 0 dim 1 = 3");
}

TEST_CASE("rules with several term guards are picked by one term after another") {
  RuleSet set = this_file();
  const PassDispatch& pass = set.dispatch()[0];
  Graph g;
  auto root = [&](DType t, std::initializer_list<std::size_t> dims) {
    const OutputDef def = OutputDef::make(t, dims);
    const OpRef r = g.add_op("W_Root", {g.add_input(def)}, def);
    g.add_output(r);
    return r;
  };
  // What the driver is handed: the rules left after each term read, with the guards left to check.
  auto handed = [&](OpRef r) {
    const PassDispatch::Candidates c = pass.candidates(g, r, g.name_id(r));
    std::string s;
    for (std::size_t k = 0; k < c.size; ++k) {
      const std::string& text = c.rules[k].rule->canonical;  // the name of the op it makes
      const std::size_t at = text.rfind("Op(\"W_") + 4;
      s += text.substr(at, text.find('"', at) - at);
      std::size_t n = 0;
      if (c.rules[k].guard)
        for (const TermGuard* t = c.rules[k].guard; t->active; ++t) ++n;
      s += n ? " +" + std::to_string(n) + ";" : ";";
    }
    return s;
  };
  CHECK(handed(root(DType::Float32, {4, 2})) == "W_F2;W_F2Rank2 +1;");
  CHECK(handed(root(DType::QUInt8, {4, 2})) == "W_Q2;");
  CHECK(handed(root(DType::Float16, {4, 2})).empty());
  CHECK(handed(root(DType::Float32, {4, 3})) == "W_F3 +1;W_Any3;");
  CHECK(handed(root(DType::Float16, {4, 3, 1})) == "W_F3 +1;W_Any3;");
  CHECK(handed(root(DType::Float32, {4, 4})).empty());
  RuleSet ref = unguarded(set);
  const auto [ra, rb] = run_both(g, set, ref);
  std::uint64_t tried_a = 0, tried_b = 0;
  for (std::size_t k = 0; k < ra.rules.size(); ++k) {
    CHECK(ra.stats[k].fired == rb.stats[k].fired);
    tried_a += ra.stats[k].tried;
    tried_b += rb.stats[k].tried;
  }
  CHECK(ra.rewrites == 4);  // W_F2, W_Q2, W_F3 and W_Any3 (float16 of dimension 3)
  CHECK(tried_a == 4);      // each called once: W_F2Rank2 comes after W_F2, which fired
  CHECK(tried_b > tried_a);
}

TEST_CASE("rules guarded by an operand's dtype or rank give the results of trying every rule") {
  RuleSet set = this_file();
  RuleSet ref = unguarded(set);
  auto sample_z = [] {
    Graph g;
    const DType types[] = {DType::Float16, DType::Float32, DType::QUInt8, DType::Int32};
    for (unsigned i = 0; i < 48; ++i) {
      const DType t = types[i % 4];
      const std::size_t d = 1 + i % 3;
      const OutputDef def = (i / 4) % 4 == 0   ? OutputDef::make(t, {d})
                            : (i / 4) % 4 == 1 ? OutputDef::make(t, {d, d})
                            : (i / 4) % 4 == 2 ? OutputDef::make(t, {d, d, d})
                                               : OutputDef::make(t, {d, d, d, d});
      OpRef x = g.add_input(def);
      g.add_output(g.add_op("Z_Root", {x}, def));
    }
    return g;
  };
  const auto [ra, rb] = run_both(sample_z(), set, ref);
  CHECK(ra.rewrites >= 12);
  std::uint64_t tried_a = 0, tried_b = 0;
  for (std::size_t k = 0; k < ra.rules.size(); ++k) {
    CHECK(ra.stats[k].fired == rb.stats[k].fired);
    tried_a += ra.stats[k].tried;
    tried_b += rb.stats[k].tried;
  }
  CHECK(tried_a < tried_b);
  // Each rule fired somewhere, so each value its guard names was met.
  for (std::size_t k = 0; k < ra.rules.size(); ++k)
    if (ra.rules[k]->canonical.find("Z_") != std::string::npos) CHECK(ra.stats[k].fired > 0);
}

TEST_CASE("random term guards: each op is handed exactly the rules whose guards all hold, in order") {
  // 240 hand-made rules on one root, each guarding a random subset of three terms of its operand
  // (dimension 0, dtype, rank) in random order, some twice. Deep splits would copy the many
  // rules without a term into every value's list; the split budget stops them.
  static std::vector<std::pair<std::uint32_t, int>> calls;  // (op, rule line), as called
  std::mt19937 rng(2026);
  RuleSet set;
  const DType types[] = {DType::Float32, DType::Float16, DType::QUInt8};
  for (int k = 0; k < 240; ++k) {
    RuleInfo r;
    r.file = "random_guards.cpp";
    r.line = k + 1;
    r.name = "random_guards.cpp:" + std::to_string(k + 1);
    r.pass_name = "EARLY";
    r.root = intern_op_name("V_Root");
    r.apply = [](Rewriter& rw, const RuleInfo& self, OpRef root) {
      ++rw.stats(self).tried;
      calls.emplace_back(root.index, self.line);
      return false;
    };
    std::vector<TermGuard> gs;
    auto guard = [&](TermGuard::Of of, std::size_t value) {
      TermGuard& t = gs.emplace_back();
      t.active = true;
      t.depth = 1;
      t.of = of;
      t.value = value;
    };
    if (rng() % 2) guard(TermGuard::Of::dim, 1 + rng() % 24);
    if (rng() % 2) guard(TermGuard::Of::dtype, static_cast<std::size_t>(types[rng() % 3]));
    if (rng() % 3) guard(TermGuard::Of::rank, 1 + rng() % 4);
    if (!gs.empty() && rng() % 8 == 0) gs.push_back(gs[rng() % gs.size()]);  // a term guarded twice
    if (!gs.empty() && rng() % 16 == 0) {  // twice, with two values: the rule never holds
      gs.push_back(gs.front());
      gs.back().value += 1;
    }
    std::shuffle(gs.begin(), gs.end(), rng);
    r.term_guards = gs;
    set.add(std::move(r));
  }
  Graph g;
  for (int i = 0; i < 400; ++i) {
    OutputDef def = OutputDef::make(types[rng() % 3], {1 + rng() % 26, 2, 2, 2});
    def.rank = 1 + static_cast<std::uint32_t>(rng() % 4);
    for (std::uint32_t d = def.rank; d < 4; ++d) def.dims[d] = 0;  // past the rank, dims are 0
    g.add_output(g.add_op(intern_op_name("V_Root"), {g.add_input(def)}, def));
  }
  const PassDispatch& pass = set.dispatch()[0];
  CHECK(pass.term_decisions() > 30);                          // split by several terms in turn
  CHECK(pass.stored_candidates() > pass.split_budget());      // and the budget was reached:
  CHECK(pass.stored_candidates() < 2 * pass.split_budget());  // 9,203 entries; 34,191 without it
  std::vector<std::pair<std::uint32_t, int>> expected;
  for (OpRef op : g.live_ops())
    if (g.name(op) == "V_Root")
      for (const RuleInfo* r : set.rules())
        if (std::all_of(r->term_guards.begin(), r->term_guards.end(),
                        [&](const TermGuard& t) { return t.admits(g, op); }))
          expected.emplace_back(op.index, r->line);
  calls.clear();
  const RunReport rep = run_rules(g, set);
  CHECK(rep.rewrites == 0);
  std::stable_sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  CHECK(calls.size() == expected.size());
  CHECK(calls == expected);
  CHECK(expected.size() < 400 * 240 / 4);  // the guards skipped most rules
}

TEST_CASE("a hand-made term guard whose path is longer than a guard holds is not checked") {
  RuleSet set;
  RuleInfo r;
  r.name = "hand:1";
  r.file = "hand.cpp";
  r.line = 1;
  r.pass_name = "EARLY";
  r.root = intern_op_name("H_Root");
  TermGuard& t = r.term_guards.emplace_back();
  t.active = true;
  t.depth = TermGuard::max_depth + 5;  // no path of the driver's is this long
  t.value = 12345;
  static int calls = 0;
  r.apply = [](Rewriter& rw, const RuleInfo& self, OpRef) {
    ++rw.stats(self).tried;
    ++calls;
    return false;
  };
  set.add(std::move(r));
  Graph g;
  const OutputDef def = OutputDef::make(DType::Float32, {1, 2});
  const OpRef root = g.add_op("H_Root", {g.add_input(def)}, def);
  g.add_output(root);
  // The driver is handed the rule without a guard to check (reading a path that long would
  // leave the guard's array).
  const PassDispatch::Candidates c = set.dispatch()[0].candidates(g, root, g.name_id(root));
  REQUIRE(c.size == 1);
  CHECK(c.rules[0].guard == nullptr);
  calls = 0;
  const RunReport rep = run_rules(g, set);
  CHECK(calls == 1);
  CHECK(rep.stats[0].tried == 1);
}

TEST_CASE("rules guarding one dimension are picked by its value read once") {
  RuleSet set = this_file();
  REQUIRE(set.dispatch().size() == 1);
  const PassDispatch& pass = set.dispatch()[0];
  // Guards left to check and a rule waiting for a graph option: the driver's full loop.
  CHECK_FALSE(pass.plain());
  // X_Root: the lists of X_B and of the other names each split by (path 0, dimension 3); Y_Root:
  // one list split by (path 0 0, dimension 3).
  CHECK(pass.term_decisions() >= 3);
  Graph g;
  std::vector<OpRef> roots;
  for (std::size_t d : {3, 4, 5, 4}) {
    const OutputDef def = OutputDef::make(DType::Float32, {1, 2, 2, d});
    OpRef x = g.add_input(def);
    roots.push_back(g.add_op("Y_Root", {g.add_op("Y_In", {x}, def)}, def));
    g.add_output(roots.back());
  }
  // What the driver is handed for each root: only the rule of that value, its guard checked.
  auto made_by = [&](OpRef root) {
    const PassDispatch::Candidates c = pass.candidates(g, root, g.name_id(root));
    std::string s;
    for (std::size_t k = 0; k < c.size; ++k)
      s += c.rules[k].rule->canonical.substr(c.rules[k].rule->canonical.rfind("Op(\"Y_")) +
           (c.rules[k].guard ? " guarded;" : ";");
    return s;
  };
  CHECK(made_by(roots[0]) == "Op(\"Y_Three\",\"x\"));");
  CHECK(made_by(roots[1]) == "Op(\"Y_Four\",\"x\"));");
  CHECK(made_by(roots[2]).empty());
  RunReport rep = run_rules(g, set);
  auto stats = [&](std::string_view made) {
    for (std::size_t k = 0; k < rep.rules.size(); ++k)
      if (rep.rules[k]->canonical.find(made) != std::string::npos) return rep.stats[k];
    FAIL("no rule makes " << made);
    return RuleStats{};
  };
  CHECK(rep.rewrites == 3);
  CHECK(stats("Y_Three").tried == 1);
  CHECK(stats("Y_Three").fired == 1);
  CHECK(stats("Y_Four").tried == 2);
  CHECK(stats("Y_Four").fired == 2);
  CHECK(stats("Y_Hundred").tried == 0);  // no op has the value: never called
  std::size_t made = 0;
  for (OpRef r : g.live_ops()) made += g.name(r) == "Y_Three" || g.name(r) == "Y_Four";
  CHECK(made == 3);
}

TEST_CASE("the merged dispatch gives the results, order and counters of trying every rule") {
  RuleSet set = this_file();
  RuleSet ref = unguarded(set);
  for (unsigned seed : {1u, 7u, 42u, 1234u, 99991u}) {
    INFO("seed " << seed);
    const auto [ra, rb] = run_both(sample(seed), set, ref);
    CHECK(ra.rewrites > 0);
    REQUIRE(ra.rules.size() == rb.rules.size());
    std::uint64_t tried_a = 0, tried_b = 0;
    for (std::size_t k = 0; k < ra.rules.size(); ++k) {
      CHECK(ra.rules[k]->name == rb.rules[k]->name);
      // A rule skipped by its term guard is not called, so not counted as matched either.
      if (!ra.rules[k]->term_guards.empty())
        CHECK(ra.stats[k].matched <= rb.stats[k].matched);
      else
        CHECK(ra.stats[k].matched == rb.stats[k].matched);
      CHECK(ra.stats[k].fired == rb.stats[k].fired);
      CHECK(ra.stats[k].tried <= rb.stats[k].tried);
      tried_a += ra.stats[k].tried;
      tried_b += rb.stats[k].tried;
    }
    CHECK(tried_a < tried_b);  // the dispatch skipped rules that could not match
  }
}
