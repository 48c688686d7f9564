// A separate project using the installed library.
#include <optgrammar/runtime.hpp>

#include <cstdio>

DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")

int main() {
  using namespace optgrammar;
  Graph g;
  auto x = g.add_input(OutputDef::make(DType::Float32, {1, 8}));
  auto a = g.add_op("Relu", {x}, g.output(x));
  auto b = g.add_op("Relu", {a}, g.output(x));
  auto c = g.add_op("Relu", {b}, g.output(x));
  g.add_output(c);
  auto before = g.live_count();
  run_rules(g, RuleSet::global());
  std::printf("ops: %zu -> %zu\n", before, g.live_count());
  return g.live_count() == 3 ? 0 : 1;
}
