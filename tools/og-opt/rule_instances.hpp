// One instance of each rule that fired, for the report: the ops the rule matched, as they were
// just before it fired, and the ops that replaced them, each with its neighbours, as a small
// picture (Graphviz DOT). Recorded during the run through the driver's RuleWatch: before each try
// of a rule that has not fired yet, the ops its match may bind are sketched; when the rule fires,
// the sketch is kept with one of what the rewrite made.
#pragma once

#include "rule_text.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/engine/driver.hpp>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace og_opt {

/// A small picture of some ops: nodes with their DOT attributes, edges between them.
struct Sketch {
  struct Node {
    std::uint32_t index;
    std::string attributes;  ///< write_dot_node_attributes' text
  };
  struct Edge {
    std::uint32_t from, to;
    std::string label;  ///< the input slot, when the reader has several inputs
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::unordered_set<std::uint32_t> has;

  void add(const optgrammar::Graph& g, optgrammar::OpRef r, const char* fill) {
    if (!has.insert(r.index).second) return;
    std::ostringstream os;
    optgrammar::write_dot_node_attributes(os, g, r, fill);
    nodes.push_back({r.index, os.str()});
  }
  void edge(const optgrammar::Graph& g, optgrammar::OpRef from, optgrammar::OpRef to, std::uint32_t slot) {
    edges.push_back({from.index, to.index, g.n_inputs(to) > 1 ? std::to_string(slot) : std::string()});
  }
  /// As a DOT cluster (`name`: its id, `label`: its title); node ids get `prefix`.
  void write_cluster(std::ostream& os, const std::string& name, const std::string& label,
                     const std::string& prefix) const {
    os << "  subgraph cluster_" << name << " {\n    label=\"" << optgrammar::dot_escape(label)
       << "\";\n    color=gray70;\n";
    for (const Node& n : nodes) os << "    " << prefix << n.index << " [" << n.attributes << "];\n";
    for (const Edge& e : edges)
      os << "    " << prefix << e.from << " -> " << prefix << e.to
         << (e.label.empty() ? std::string() : " [label=\"" + e.label + "\"]") << ";\n";
    os << "  }\n";
  }
};

/// One firing of a rule: before and after.
struct RuleInstance {
  const optgrammar::RuleInfo* rule = nullptr;
  std::uint32_t root = 0, result = 0;  ///< graph indices (the trace's numbers)
  std::size_t matched = 0, made = 0;   ///< ops the match bound, ops the rewrite made
  Sketch before, after;

  /// Both sides in one DOT graph, before on the left, after on the right.
  std::string dot() const {
    std::ostringstream os;
    os << "digraph \"" << optgrammar::dot_escape(rule->name) << "\" {\n  rankdir=TB;\n  newrank=true;\n"
       << "  node [shape=box, fontname=\"monospace\"];\n";
    before.write_cluster(os, "before", "before: matched (red) and their neighbours", "b");
    after.write_cluster(os, "after", "after: made (green) and their neighbours", "a");
    os << "}\n";
    return os.str();
  }
};

/// The RuleWatch that keeps the first instance of each rule that fires.
class InstanceRecorder : public optgrammar::RuleWatch {
 public:
  /// At most `max_made` ops of a rewrite's result are drawn (a tiling makes many).
  explicit InstanceRecorder(std::size_t max_made = 40) : max_made_(max_made) {}

  /// The instances, in the order the rules first fired.
  const std::vector<RuleInstance>& instances() const { return instances_; }

  void trying(const optgrammar::Rewriter& rw, const optgrammar::RuleInfo& rule, optgrammar::OpRef root) override {
    if (done_.count(&rule)) return;
    const optgrammar::Graph& g = rw.graph();
    pending_ = RuleInstance{};
    pending_.rule = &rule;
    pending_.root = root.index;
    size_before_ = g.size();
    consumers_.clear();
    // The ops the match may bind, walked with the match: Op(name, a, b, ...) binds the op and
    // reads its inputs in order; an operand tag or another construct stands for an input that is
    // no matched op (drawn as a neighbour).
    auto it = terms_.find(&rule);
    if (it == terms_.end()) it = terms_.emplace(&rule, rule_parts(rule.canonical)).first;
    std::vector<optgrammar::OpRef> matched;
    if (it->second.ok) bind(g, it->second.match(), root, matched);
    if (matched.empty()) matched.push_back(root);
    pending_.matched = matched.size();
    for (optgrammar::OpRef m : matched) pending_.before.add(g, m, optgrammar::dot_removed_fill);
    for (optgrammar::OpRef m : matched)
      for (std::uint32_t k = 0; k < g.n_inputs(m); ++k) {
        pending_.before.add(g, g.input(m, k), nullptr);
        pending_.before.edge(g, g.input(m, k), m, k);
      }
    g.for_each_use(root, [&](optgrammar::OpRef u, std::uint32_t slot) {
      consumers_.push_back({u, slot});
      pending_.before.add(g, u, nullptr);
      pending_.before.edge(g, root, u, slot);
    });
  }

  void fired(const optgrammar::Rewriter& rw, const optgrammar::RuleInfo& rule, optgrammar::OpRef root) override {
    if (done_.count(&rule) || pending_.rule != &rule || pending_.root != root.index) return;
    const optgrammar::Graph& g = rw.graph();
    // The result: what the root's readers read now (the root itself when rewritten in place).
    optgrammar::OpRef result = g.alive(root) ? root : optgrammar::OpRef{};
    for (const auto& [reader, slot] : consumers_)
      if (g.alive(reader) && slot < g.n_inputs(reader)) {
        result = g.input(reader, slot);
        break;
      }
    if (!result.valid()) return;  // (a root nothing read: nothing to draw)
    pending_.result = result.index;
    auto made = [&](optgrammar::OpRef r) { return r.index >= size_before_ || r == root; };
    Sketch& after = pending_.after;
    std::vector<optgrammar::OpRef> todo{result};
    after.add(g, result, optgrammar::dot_created_fill);
    while (!todo.empty()) {
      const optgrammar::OpRef r = todo.back();
      todo.pop_back();
      if (!made(r)) continue;
      ++pending_.made;
      for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) {
        const optgrammar::OpRef in = g.input(r, k);
        const bool fresh = !after.has.count(in.index);
        if (fresh && made(in) && pending_.made + todo.size() >= max_made_) continue;
        after.add(g, in, made(in) ? optgrammar::dot_created_fill : nullptr);
        after.edge(g, in, r, k);
        if (fresh) todo.push_back(in);
      }
    }
    for (const auto& [reader, slot] : consumers_)
      if (g.alive(reader) && slot < g.n_inputs(reader) && g.input(reader, slot) == result) {
        after.add(g, reader, nullptr);
        after.edge(g, result, reader, slot);
      }
    done_.insert(&rule);
    instances_.push_back(std::move(pending_));
    pending_ = RuleInstance{};
  }

 private:
  void bind(const optgrammar::Graph& g, const Term& t, optgrammar::OpRef r, std::vector<optgrammar::OpRef>& out) {
    const Term* term = &t;
    while (term->call && term->head == "LET" && term->args.size() == 2) term = &term->args[1];
    if (!term->call || term->head != "Op" || term->args.empty()) return;
    for (optgrammar::OpRef m : out)
      if (m == r) return;
    out.push_back(r);
    for (std::size_t k = 1; k < term->args.size() && k - 1 < g.n_inputs(r); ++k)
      bind(g, term->args[k], g.input(r, static_cast<std::uint32_t>(k - 1)), out);
  }

  std::size_t max_made_;
  std::unordered_map<const optgrammar::RuleInfo*, RuleParts> terms_;
  std::unordered_set<const optgrammar::RuleInfo*> done_;
  std::vector<RuleInstance> instances_;
  RuleInstance pending_;
  std::size_t size_before_ = 0;
  std::vector<std::pair<optgrammar::OpRef, std::uint32_t>> consumers_;
};

}  // namespace og_opt
