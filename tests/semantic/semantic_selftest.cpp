// The semantic check itself: a package with a wrong rule (-|x| is not x) must be caught, and the
// graph it prints must be the smallest form: one motif, every dimension 1.
#include "motifs.hpp"
#include "semantic_options.hpp"

#include <optgrammar/rules.hpp>

#include <catch2/catch.hpp>

// Wrong on purpose: Neg(Abs(x)) differs from x wherever x > 0.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Abs", "x")), OK, "x")

using namespace semantic;

namespace {
Package wrong_package() {
  Package p;
  p.name = "wrong";
  p.rules = RuleSet::global().select([](const RuleInfo&) { return true; });
  p.kinds = 2;
  p.draw = [](std::mt19937_64& rng, int kind) {
    Motif m;
    m.kind = kind;
    m.dims = random_dims(rng, 6);
    return m;
  };
  p.build = [](Builder& b, const Motif& m) {
    const auto d = shape_of(DType::Float32, m, 4);
    Graph& g = b.graph();
    OpRef x = b.value(d, m.share, m.seed);
    if (m.kind == 0)
      b.output(g.add_op("Neg", {g.add_op("Abs", {x}, d)}, d));
    else
      b.output(g.add_op("Relu", {x}, d));  // a motif no rule matches
  };
  return p;
}
}  // namespace

TEST_CASE("the semantic check finds a wrong rule and prints the smallest graph") {
  const Package p = wrong_package();
  const Outcome o = run_package(p, 200, 1);
  REQUIRE(o.failure);
  const std::string& f = *o.failure;
  INFO(f);
  CHECK(f.find("output ") != std::string::npos);
  CHECK(f.find(" instead of ") != std::string::npos);
  // The smallest graph: one motif (Input, Abs, Neg, Output) of one element.
  const std::string graph = f.substr(f.find("# optgrammar graph"));
  CHECK(graph.find("Neg(") != std::string::npos);
  CHECK(graph.find("Relu(") == std::string::npos);
  std::size_t ops = 0;
  for (std::size_t at = 0; (at = graph.find("\n%", at)) != std::string::npos; ++at) ++ops;
  CHECK(ops == 4);
  CHECK(graph.find("Input() : f32[1,1,1,1]") != std::string::npos);
}

TEST_CASE("the semantic check compares integers bit for bit and floats within the tolerance") {
  auto t = [](DType dt, std::initializer_list<float> f) {
    engine::Tensor x{OutputDef::make(dt, {f.size()}), std::vector<std::byte>(4 * f.size())};
    std::size_t k = 0;
    for (float v : f) {
      const auto i = static_cast<std::int32_t>(v);
      if (dt == DType::Int32)
        std::memcpy(x.data.data() + 4 * k++, &i, 4);
      else
        std::memcpy(x.data.data() + 4 * k++, &v, 4);
    }
    return x;
  };
  CHECK(compare(t(DType::Float32, {1.0f, 2.0f}), t(DType::Float32, {1.0f, 2.0f + 1e-6f}), 1e-5).empty());
  CHECK(!compare(t(DType::Float32, {1.0f, 2.0f}), t(DType::Float32, {1.0f, 2.001f}), 1e-5).empty());
  CHECK(!compare(t(DType::Int32, {1, 2}), t(DType::Int32, {1, 3}), 1e-5).empty());
  CHECK(!compare(t(DType::Int32, {1, 2}), t(DType::Float32, {1, 2}), 1e-5).empty());
}
