// Graphs in parallel (docs/engine.md, "Threads"): different graphs optimized on different threads
// at once with the same packages give what they give one at a time, and the registries refuse a
// package load while a graph is being optimized. Built and run under ThreadSanitizer by the tsan
// preset (tools/test-all.sh), where a data race fails the test.
//
// The graphs: W1 (the built-in package's rules), an NCHW network of imported ONNX ops read from
// text and lowered by the htp_lowering package with constant folding, CSE and tiling, and a small
// graph read from text for the rules of a package loaded as a plugin. Each thread builds or reads
// its own graph (interning op names as it goes) and optimizes it; the result's text must be the
// single-threaded result's.
#include "package_loader.hpp"
#include "w1/w1_graph.hpp"

#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/ops/definition_verify.hpp>
#include <optgrammar/runtime.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace {
using namespace optgrammar;

// ---- the graphs ---------------------------------------------------------------------------------

OpRef i32s(Graph& g, const std::vector<std::int32_t>& v) {
  return g.add_const(OutputDef::make(DType::Int32, {v.size()}), std::span<const std::int32_t>(v));
}
OpRef f32s(Graph& g, const std::vector<float>& v, std::initializer_list<std::size_t> dims = {}) {
  const OutputDef d = dims.size() ? OutputDef::make(DType::Float32, dims) : OutputDef::make(DType::Float32, {v.size()});
  return g.add_const(d, std::span<const float>(v));
}
/// n values in [-1, 1), the same every time.
std::vector<float> values(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 37 + seed * 11) % 64) / 32.0f - 1.0f;
  return v;
}
OutputDef nchw(std::size_t c, std::size_t h, std::size_t w) { return OutputDef::make(DType::Float32, {1, c, h, w}); }

/// onnx.Conv (stride 1, pads k / 2) of x to m channels with a k x k window; with a bias or not.
OpRef conv(Graph& g, OpRef x, std::size_t m, std::int32_t k, bool bias, unsigned seed) {
  const OutputDef d = g.output(x);
  const std::size_t c = d.dims[1], h = d.dims[2], w = d.dims[3];
  const std::int32_t p = k / 2;
  OpRef wt = f32s(g, values(m * c * static_cast<std::size_t>(k * k), seed), {m, c, std::size_t(k), std::size_t(k)});
  OpRef b = bias ? f32s(g, values(m, seed + 1)) : f32s(g, {});
  return g.add_op(
      "onnx.Conv",
      {i32s(g, {0}), i32s(g, {1, 1}), i32s(g, {1}), i32s(g, {k, k}), i32s(g, {p, p, p, p}), i32s(g, {1, 1}), x, wt, b},
      nchw(m, h, w));
}

/// The network the lowering package lowers: Conv+BatchNormalization+Relu, a 1x1 Conv, hard-swish
/// spelled with Clip, an Add of the two branches; tiled where a convolution's output passes 512
/// elements.
std::string lowering_input() {
  Graph g;
  g.set_option("htp_tile_elements", std::uint64_t{512});
  const float inf = std::numeric_limits<float>::infinity();
  OpRef x = g.add_input(nchw(3, 12, 12));
  OpRef c1 = conv(g, x, 8, 3, true, 1);
  std::vector<float> var = values(8, 5);
  for (float& v : var) v = 0.5f + std::fabs(v);
  OpRef bn = g.add_op("onnx.BatchNormalization",
                      {f32s(g, {1e-5f}), f32s(g, {0.9f}), i32s(g, {0}), c1, f32s(g, values(8, 2)),
                       f32s(g, values(8, 3)), f32s(g, values(8, 4)), f32s(g, var)},
                      nchw(8, 12, 12));
  OpRef r = g.add_op("onnx.Relu", {bn}, nchw(8, 12, 12));
  OpRef c2 = conv(g, r, 8, 1, false, 6);
  OpRef sum = g.add_op("onnx.Add", {c2, f32s(g, {3.0f})}, nchw(8, 12, 12));
  OpRef clip =
      g.add_op("onnx.Clip", {f32s(g, {-inf}), f32s(g, {inf}), sum, f32s(g, {0.0f}), f32s(g, {6.0f})}, nchw(8, 12, 12));
  OpRef hs =
      g.add_op("onnx.Div", {g.add_op("onnx.Mul", {c2, clip}, nchw(8, 12, 12)), f32s(g, {6.0f})}, nchw(8, 12, 12));
  g.add_output(g.add_op("onnx.Add", {r, hs}, nchw(8, 12, 12)));
  return to_text(g);
}

/// Negs and Relus in pairs for package "parallel a".
constexpr const char* plugin_input = R"(%0 = Input() : f32[1,4]
%1 = Neg(%0) : f32[1,4]
%2 = Neg(%1) : f32[1,4]
%3 = Relu(%2) : f32[1,4]
%4 = Relu(%3) : f32[1,4]
%5 = Abs(%4) : f32[1,4]
%6 = Abs(%5) : f32[1,4]
%7 = Output(%6) : f32[1,4]
)";

// ---- the packages -------------------------------------------------------------------------------

/// The rules of the program's own packages whose source file is in folder `dir`.
RuleSet package_in(std::string_view dir) {
  return RuleSet::global().select(
      [dir](const RuleInfo& r) { return std::filesystem::path(r.file).parent_path().filename() == dir; });
}

/// What the jobs share, set up once before any thread starts: package "parallel a" loaded (its
/// registrations land in the registries) and the lowering's input text.
struct Packages {
  og_opt::LoadedPackage plugin = og_opt::load_package(OG_PARALLEL_PKG_A);
  std::string lowering_text = lowering_input();
};
const Packages& packages() {
  static const Packages p;
  return p;
}

/// The rule sets the jobs run, selected from the global set. A fresh one has built neither its
/// order nor its dispatch tables: the first run of each builds them, whichever thread it is on.
struct RuleSets {
  const Packages& loaded = packages();  // first: loading changes the global set that select() walks
  RuleSet w1 = package_in("w1");
  RuleSet lowering = package_in("htp_lowering");
  RuleSet plugin = RuleSet::global().select([](const RuleInfo& r) {
    const auto& mine = packages().plugin.rules;  // (loaded already)
    return std::find(mine.begin(), mine.end(), &r) != mine.end();
  });
};

// ---- the jobs -----------------------------------------------------------------------------------

/// W1 with 200 blocks: its result, checked against the spec.
std::string w1_job(const RuleSets& rs) {
  Graph g = w1::build(200);
  run_rules(g, rs.w1);
  const std::string problem = w1::check(g, 200);
  return problem.empty() ? to_text(g) : "W1: " + problem;
}

/// The network read from text, lowered with constant folding and CSE as og-opt does; the result
/// must verify against the op definitions and hold no onnx.Conv.
std::string lowering_job(const RuleSets& rs) {
  Graph g = from_text(packages().lowering_text, "lowering");
  engine::ConstantFolder folder;
  engine::Cse cse;
  DriverOptions opt;
  opt.visit = folder.visitor();
  opt.between_passes = cse.hook();
  run_rules(g, rs.lowering, opt);
  if (auto problems = ops::verify_ops(g); !problems.empty()) return "lowering: " + problems.front();
  for (OpRef r : g.live_ops())
    if (g.name(r) == "onnx.Conv") return "lowering: an onnx.Conv is left";
  return to_text(g);
}

std::string plugin_job(const RuleSets& rs) {
  Graph g = from_text(plugin_input, "plugin");
  run_rules(g, rs.plugin);
  return to_text(g);
}

struct Job {
  const char* name;
  std::string (*run)(const RuleSets&);
};
constexpr Job jobs[] = {{"W1", w1_job}, {"lowering", lowering_job}, {"plugin", plugin_job}};

}  // namespace

TEST_CASE("the jobs' single-threaded results are what the packages make", "[parallel]") {
  const RuleSets rs;
  REQUIRE(packages().plugin.rules.size() == 2);
  REQUIRE(rs.plugin.size() == 2);
  REQUIRE(rs.w1.size() > 0);
  REQUIRE(rs.lowering.size() > 0);
  const std::string w1 = w1_job(rs), low = lowering_job(rs), plug = plugin_job(rs);
  CHECK(w1.find("ConvBiasRelu") != std::string::npos);
  CHECK(low.find("ConvLayer") != std::string::npos);
  CHECK(low.find("Concat") != std::string::npos);  // tiled
  // Package "parallel a" removes the Negs and one Relu; the Abs pair is package "parallel b"'s.
  CHECK(plug.find("Neg") == std::string::npos);
  CHECK(plug.find("Relu(%0)") != std::string::npos);
  CHECK(plug.find("Relu(%1)") == std::string::npos);
}

TEST_CASE("graphs optimized on several threads at once give the single-threaded results", "[parallel]") {
  std::vector<std::string> want;
  {
    const RuleSets alone;
    for (const Job& j : jobs) want.push_back(j.run(alone));
  }
  // Two of each job, each on a thread of its own, three times; each time with fresh rule sets.
  constexpr std::size_t copies = 2, rounds = 3;
  const std::size_t n = copies * std::size(jobs);
  for (std::size_t round = 0; round < rounds; ++round) {
    const RuleSets shared;
    std::vector<std::string> got(n);
    std::vector<std::thread> threads;
    std::atomic<std::size_t> ready{0};
    for (std::size_t t = 0; t < n; ++t)
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < n) std::this_thread::yield();  // all start together
        got[t] = jobs[t % std::size(jobs)].run(shared);
      });
    for (auto& th : threads) th.join();
    for (std::size_t t = 0; t < n; ++t) {
      INFO("round " << round << ", thread " << t << ": " << jobs[t % std::size(jobs)].name);
      CHECK(got[t] == want[t % std::size(jobs)]);
    }
  }
}

TEST_CASE("op names interned on several threads at once get one id each", "[parallel]") {
  // More names than the table starts with: it grows while the other threads look names up.
  constexpr std::size_t threads = 4, names = 3000;
  const OpNameId conv = intern_op_name("Conv2d");
  const std::size_t before = OpNames::instance().size();
  std::vector<std::vector<OpNameId>> ids(threads, std::vector<OpNameId>(names));
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t k = 0; k < names; ++k) {
        const std::size_t i = t % 2 ? names - 1 - k : k;  // half the threads from the other end
        const std::string name = "parallel.name" + std::to_string(i);
        ids[t][i] = intern_op_name(name);
        if (op_name_of(ids[t][i]) != name) ids[t][i] = ~OpNameId{0};     // named back wrongly: caught below
        if (intern_op_name("Conv2d") != conv) ids[t][i] = ~OpNameId{0};  // a name every thread finds
      }
    });
  for (auto& th : pool) th.join();
  std::unordered_set<OpNameId> distinct;
  for (std::size_t i = 0; i < names; ++i) {
    for (std::size_t t = 1; t < threads; ++t) REQUIRE(ids[t][i] == ids[0][i]);
    REQUIRE(op_name_of(ids[0][i]) == "parallel.name" + std::to_string(i));
    distinct.insert(ids[0][i]);
  }
  CHECK(distinct.size() == names);
  CHECK(OpNames::instance().size() == before + names);
}

TEST_CASE("a package cannot be loaded while a graph is being optimized, and a run waits for a load", "[parallel]") {
  const RuleSets p;
  p.w1.dispatch();
  // A run held in its visit function until released.
  std::atomic<bool> in_run{false}, release{false};
  std::thread running([&] {
    Graph g = w1::build(2);
    DriverOptions opt;
    opt.visit = [&](Rewriter&, OpRef) {
      in_run.store(true);
      while (!release.load()) std::this_thread::yield();
      return false;
    };
    run_rules(g, p.w1, opt);
  });
  while (!in_run.load()) std::this_thread::yield();
  CHECK(RegistryRead::active() == 1);
  CHECK_THROWS_AS(og_opt::load_package(OG_PARALLEL_PKG_B), RegistryBusy);
  CHECK_THROWS_WITH(og_opt::load_package(OG_PARALLEL_PKG_B),
                    Catch::Contains("while graphs are being optimized (1 run(s) in progress)"));
  release.store(true);
  running.join();
  CHECK(RegistryRead::active() == 0);

  // Between runs it loads; a run that starts during a load waits for it to end.
  std::atomic<bool> done{false};
  auto loading = std::make_unique<RegistryWrite>();
  std::thread waiting([&] {
    Graph g = w1::build(2);
    run_rules(g, p.w1);
    done.store(true);
  });
  const og_opt::LoadedPackage b = og_opt::load_package(OG_PARALLEL_PKG_B);  // nested in `loading`
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(done.load());
  loading.reset();
  waiting.join();
  CHECK(done.load());
  CHECK(b.rules.size() == 1);
  CHECK(b.ops == 1);
}
