// How a backend compiler embeds optgrammar (docs/embedding.md): its own IR in, a Graph built from
// it, the compiler's rules (and op registrations) registered by linking them in, options set, the
// passes run with constant folding and CSE, the result and the report read back into its IR.
// Run by the tests (embed.example); exit status 0 when the rewrite came out as expected.
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/runtime.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

// ---- the compiler's own IR (a stand-in: a list of nodes in topological order) -------------------
struct Node {
  std::string op;                  // "input", "const", "relu", "add", "output", ...
  std::vector<int> args;           // indices of earlier nodes
  std::vector<std::size_t> shape;  // NHWC
  std::vector<float> values;       // for "const"
};

// ---- the compiler's rules, in the rule language; linking this translation unit registers them ---
// Relu(Relu(x)) is Relu(x); x + 0 is x.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "x", OPCONST("c")),
                         AND(IS_SCALAR("c"), EQ(CONSTVAL_FLOAT("c", 0), 0.0f), SAME_SHAPE("x", "*")), "x")

namespace og = optgrammar;

og::OutputDef f32(const std::vector<std::size_t>& shape) {
  og::OutputDef d;
  d.dtype = og::DType::Float32;
  d.rank = static_cast<std::uint32_t>(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) d.dims[i] = shape[i];
  return d;
}

/// IR -> Graph: one op per node; the names the rules and op definitions use.
og::Graph to_graph(const std::vector<Node>& ir) {
  static const std::unordered_map<std::string, std::string> names = {{"relu", "Relu"}, {"add", "Add"}};
  og::Graph g;
  std::vector<og::OpRef> ref;
  for (const Node& n : ir) {
    std::vector<og::OpRef> in;
    for (int a : n.args) in.push_back(ref.at(static_cast<std::size_t>(a)));
    if (n.op == "input")
      ref.push_back(g.add_input(f32(n.shape)));
    else if (n.op == "const")
      ref.push_back(g.add_const(f32(n.shape), std::span<const float>(n.values)));
    else if (n.op == "output")
      ref.push_back(g.add_output(in.at(0)));
    else
      ref.push_back(g.add_op(og::intern_op_name(names.at(n.op)), std::span<const og::OpRef>(in), f32(n.shape)));
  }
  return g;
}

int main() {
  // x -> relu -> relu -> add(., 0) -> output
  const std::vector<Node> ir = {{"input", {}, {1, 4, 4, 8}, {}},   {"relu", {0}, {1, 4, 4, 8}, {}},
                                {"relu", {1}, {1, 4, 4, 8}, {}},   {"const", {}, {1, 1, 1, 1}, {0.0f}},
                                {"add", {2, 3}, {1, 4, 4, 8}, {}}, {"output", {4}, {1, 4, 4, 8}, {}}};
  og::Graph g = to_graph(ir);
  g.set_option("relaxed_precision_flag", false);  // options the rules read (docs/engine.md)

  // The input must be sound by the op definitions before rewriting.
  if (auto problems = og::verify(g); !problems.empty()) {
    std::cerr << "embed: the graph from the IR is not sound: " << problems.front() << "\n";
    return 1;
  }

  // The rules this program linked in: here every registered one (RuleSet::select picks a subset).
  const og::RuleSet& rules = og::RuleSet::global();
  og::engine::ConstantFolder folder;
  og::engine::Cse cse;
  og::DriverOptions opt;
  opt.visit = folder.visitor();
  opt.between_passes = cse.hook();
  opt.trace = &std::cout;  // one line per rewrite
  const og::RunReport rep = og::run_rules(g, rules, opt);

  // The report: ops before and after, rewrites, per-rule counters.
  std::printf("ops: %zu before, %zu after, %llu rewrites\n", rep.ops_before, rep.ops_after,
              static_cast<unsigned long long>(rep.rewrites));
  for (std::size_t i = 0; i < rep.rules.size(); ++i)
    std::printf("%s fired %llu\n", rep.rules[i]->name.c_str(), static_cast<unsigned long long>(rep.stats[i].fired));

  // The result back into the IR: walk the live ops in index order (inputs before users).
  std::vector<Node> out;
  std::unordered_map<std::uint32_t, int> index_of;
  for (og::OpRef r : g.live_ops()) {
    Node n;
    n.op = std::string(g.name(r));
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) n.args.push_back(index_of.at(g.input(r, k).index));
    index_of[r.index] = static_cast<int>(out.size());
    out.push_back(std::move(n));
  }
  for (const Node& n : out) std::printf("%s ", n.op.c_str());
  std::printf("\n");
  // Expected: Input -> one Relu -> Output (the second Relu and the Add of 0 are gone).
  const bool ok = out.size() == 3 && out[1].op == "Relu" && out[2].op == "Output" && og::verify(g).empty();
  return ok ? 0 : 1;
}
