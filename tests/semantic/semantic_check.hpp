// Random semantic checks of a rule package: a package-specific generator draws graphs made of
// motifs (small subgraphs on which the package's rules match, or nearly match), with random
// shapes, dtypes, constants and fan-out; the reference interpreter runs each graph on random
// inputs before and after og-opt's rewriting (the package's rules, constant folding, CSE) and the
// outputs must agree: bit for bit for integer and quantized dtypes, within a tolerance for
// floats. A graph that differs (or that the rewrite breaks) is shrunk, by removing motifs and
// halving dimensions while it still fails, and the smallest one is printed as graph text.
//
// Each package test (semantic_<package>.cpp) defines the package's generator and runs
// run_package(); the test binary takes --graphs N and --first-seed S (docs/robustness.md).
#pragma once

#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/ops/onnx_eval.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace semantic {

using namespace optgrammar;

/// One motif of a generated graph: everything its builder needs, so that a graph is a pure
/// function of its motifs (shrinking edits them and builds again).
struct Motif {
  int kind = 0;
  std::array<std::size_t, 4> dims{1, 1, 1, 1};  ///< the motif's own meaning; each >= 1
  int variant = 0;                              ///< dtype or near-miss choice, the motif's meaning
  std::uint64_t seed = 0;                       ///< constants' values and small choices
  bool share = false;                           ///< take its input from an earlier value when one fits
  bool fan_out = false;                         ///< also output an intermediate value
};

/// What a motif builder adds values through: inputs (or earlier values of the same definition,
/// which gives chains and fan-out across motifs) and graph outputs.
class Builder {
 public:
  explicit Builder(Graph& g) : g_(g) {}
  Graph& graph() { return g_; }
  /// An earlier value of definition d when `share` and one exists, else a new Input.
  OpRef value(const OutputDef& d, bool share, std::uint64_t pick) {
    if (share) {
      std::vector<OpRef> fit;
      for (OpRef r : pool_)
        if (g_.output(r) == d) fit.push_back(r);
      if (!fit.empty()) return fit[pick % fit.size()];
    }
    return g_.add_input(d);
  }
  /// Makes v a graph output and offers it to later motifs.
  void output(OpRef v) {
    g_.add_output(v);
    pool_.push_back(v);
  }

 private:
  Graph& g_;
  std::vector<OpRef> pool_;
};

/// A package under test: its rules, how to draw a motif and how to build one.
struct Package {
  std::string name;
  RuleSet rules;
  int kinds = 0;
  std::function<Motif(std::mt19937_64&, int kind)> draw;
  std::function<void(Builder&, const Motif&)> build;
  std::function<void(Graph&)> setup{};  ///< graph options (may be empty)
  double tolerance = 1e-5;              ///< relative, for float outputs
  double abs_tolerance = 1e-6;          ///< absolute, added to the relative one
  bool fold = true, cse = true;         ///< og-opt's defaults
};

/// The rules registered from files whose name contains `file_part` (every rule when empty).
inline RuleSet rules_from(std::string_view file_part) {
  return RuleSet::global().select(
      [file_part](const RuleInfo& r) { return r.file.find(file_part) != std::string::npos; });
}

inline Graph build_graph(const Package& p, const std::vector<Motif>& spec) {
  Graph g;
  if (p.setup) p.setup(g);
  Builder b(g);
  for (const Motif& m : spec) p.build(b, m);
  return g;
}

/// What the rewrite of one graph did, summed over a run.
struct Tally {
  std::uint64_t graphs = 0, graphs_rewritten = 0, rewrites = 0, ops = 0;
  std::map<const RuleInfo*, std::uint64_t> fired, failed;  ///< rewrites (failures) by rule
  std::map<const RuleInfo*, std::uint64_t> graphs_fired;   ///< graphs each rule fired on
};

/// Its arguments streamed into one string (floats with 9 significant digits).
template <class... A>
std::string str(const A&... a) {
  std::ostringstream os;
  os.precision(9);
  (os << ... << a);
  return os.str();
}

/// Compares one output; empty when it agrees.
inline std::string compare(const engine::Tensor& before, const engine::Tensor& after, double tol,
                           double abs_tol = 1e-6) {
  if (!(before.def == after.def)) return "its definition changed";
  const DType t = before.def.dtype;
  if (t != DType::Float32 && t != DType::Float16) {
    if (before.data == after.data) return {};
    for (std::size_t i = 0; i < before.def.element_count(); ++i) {
      const std::size_t w = element_size(t);
      if (std::memcmp(before.data.data() + i * w, after.data.data() + i * w, w) != 0)
        return str("element ", i, " is ", ops::onnx_eval::get(t, after.data.data(), i), " instead of ",
                   ops::onnx_eval::get(t, before.data.data(), i));
    }
    return {};
  }
  for (std::size_t i = 0; i < before.def.element_count(); ++i) {
    const double x = ops::onnx_eval::get(t, before.data.data(), i), y = ops::onnx_eval::get(t, after.data.data(), i);
    if ((std::isnan(x) && std::isnan(y)) || x == y) continue;  // (equal infinities too)
    if (!(std::fabs(x - y) <= tol * std::fabs(x) + abs_tol)) return str("element ", i, " is ", y, " instead of ", x);
  }
  return {};
}

/// Builds, interprets, rewrites and interprets again one graph. Returns the problem, if any.
inline std::optional<std::string> check(const Package& p, const std::vector<Motif>& spec, std::uint64_t seed,
                                        Tally* tally = nullptr) {
  Graph g;
  try {
    g = build_graph(p, spec);
  } catch (const std::exception& e) {
    return ops::cat("the generator built no graph: ", e.what());
  }
  if (auto v = verify(g); !v.empty()) return "the generated graph is not sound: " + v.front();
  std::vector<engine::Tensor> inputs, before;
  try {
    inputs = engine::random_inputs(g, seed);
    before = engine::interpret(g, inputs);
  } catch (const std::exception& e) {
    return ops::cat("the generated graph cannot be interpreted: ", e.what());
  }
  engine::ConstantFolder folder({.max_elements = 4096});
  engine::Cse cse({.merge_constants = false});
  DriverOptions opt;
  opt.check_rules = true;
  if (p.fold) opt.visit = folder.visitor();
  if (p.cse) opt.between_passes = cse.hook();
  RunReport rep;
  try {
    rep = run_rules(g, p.rules, opt);
  } catch (const std::exception& e) {
    return ops::cat("rewriting threw: ", e.what());
  }
  if (auto v = verify(g); !v.empty()) return "the rewritten graph is not sound: " + v.front();
  std::vector<engine::Tensor> after;
  try {
    after = engine::interpret(g, inputs);
  } catch (const std::exception& e) {
    return ops::cat("the rewritten graph cannot be interpreted: ", e.what());
  }
  if (after.size() != before.size()) return "the number of outputs changed";
  for (std::size_t k = 0; k < before.size(); ++k)
    if (auto d = compare(before[k], after[k], p.tolerance, p.abs_tolerance); !d.empty())
      return ops::cat("output ", k, ": ", d);
  if (tally) {
    ++tally->graphs;
    tally->ops += rep.ops_before;
    std::uint64_t fired = 0;
    for (std::size_t i = 0; i < rep.rules.size(); ++i) {
      fired += rep.stats[i].fired;
      tally->fired[rep.rules[i]] += rep.stats[i].fired;
      tally->graphs_fired[rep.rules[i]] += rep.stats[i].fired > 0;
      if (rep.stats[i].failed) tally->failed[rep.rules[i]] += rep.stats[i].failed;
    }
    tally->rewrites += fired;
    tally->graphs_rewritten += fired > 0;
  }
  return std::nullopt;
}

/// A failing graph and the input seed it fails with.
struct Failing {
  std::vector<Motif> spec;
  std::uint64_t input_seed = 0;
};

/// Smaller forms of a failing graph, tried in turn until none fails: without one motif, then
/// with one dimension of one motif made 1, halved or one less. A form fails when it fails on
/// one of four input seeds (fewer elements take other values from the same seed).
inline Failing shrink(const Package& p, Failing f) {
  auto fails = [&](const std::vector<Motif>& spec) -> std::optional<std::uint64_t> {
    for (std::uint64_t s = f.input_seed; s < f.input_seed + 4; ++s)
      if (check(p, spec, s)) return s;
    return std::nullopt;
  };
  auto& spec = f.spec;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t i = 0; i < spec.size() && spec.size() > 1; ++i) {
      auto smaller = spec;
      smaller.erase(smaller.begin() + static_cast<std::ptrdiff_t>(i));
      if (auto s = fails(smaller)) {
        spec = std::move(smaller);
        f.input_seed = *s;
        progress = true;
        --i;
      }
    }
    for (std::size_t i = 0; i < spec.size(); ++i)
      for (std::size_t d = 0; d < spec[i].dims.size(); ++d)
        for (bool less = true; less && spec[i].dims[d] > 1;) {
          less = false;
          for (std::size_t to : {std::size_t{1}, spec[i].dims[d] / 2, spec[i].dims[d] - 1}) {
            auto smaller = spec;
            smaller[i].dims[d] = to;
            if (to >= spec[i].dims[d]) continue;
            if (auto s = fails(smaller)) {
              spec = std::move(smaller);
              f.input_seed = *s;
              progress = less = true;
              break;
            }
          }
        }
  }
  return f;
}

/// A random graph of 1 to max_motifs motifs.
inline std::vector<Motif> draw_graph(const Package& p, std::uint64_t seed, int max_motifs = 6) {
  std::mt19937_64 rng(seed);
  std::vector<Motif> spec(1 + rng() % static_cast<std::uint64_t>(max_motifs));
  for (Motif& m : spec) {
    m = p.draw(rng, static_cast<int>(rng() % static_cast<std::uint64_t>(p.kinds)));
    m.seed = rng();
    m.share = rng() % 2 == 0;
    m.fan_out = rng() % 4 == 0;
  }
  return spec;
}

/// The result of checking n graphs: the tally and, on the first failure, the report with the
/// smallest failing graph.
struct Outcome {
  Tally tally;
  std::optional<std::string> failure;
};

inline Outcome run_package(const Package& p, std::uint64_t n, std::uint64_t first_seed) {
  Outcome out;
  for (std::uint64_t s = first_seed; s < first_seed + n; ++s) {
    const auto spec = draw_graph(p, s);
    if (auto problem = check(p, spec, s, &out.tally)) {
      const Failing small = shrink(p, Failing{spec, s});
      std::ostringstream os;
      os << p.name << ": graph seed " << s << ": " << *problem << "\nsmallest failing graph (input seed "
         << small.input_seed << ": " << *check(p, small.spec, small.input_seed) << "):\n";
      try {
        write_graph_text(os, build_graph(p, small.spec));
      } catch (const std::exception& e) {
        os << "(cannot be written: " << e.what() << ")\n";
      }
      out.failure = os.str();
      return out;
    }
  }
  return out;
}

/// Whether rule r is named by `text`: a part of its canonical text (docs/canonical-form.md), such
/// as `Op("onnx.ReduceMin","axes"` or `WITH_SIZE("b",Op("Add","a","b"))`. Unlike the file and line,
/// that stays when the rule moves, and it names a rule alike whichever compiler built it (a rule
/// spread over several lines is named by its first line with g++ and a later one with clang).
inline bool named(const RuleInfo* r, std::string_view text) { return r->canonical.find(text) != std::string::npos; }

/// Rules the firing check does not hold to the minimum (every rule of the package that
/// `named(r, rule)`), with the reason.
struct Exempt {
  std::string rule;  ///< a part of the rules' canonical text
  std::string reason;
};

/// A rule's name in the tables: "file.cpp:line", followed by "#k" (k from 1) when several rules
/// of the package share the line (rules a macro defines).
inline std::string label(const Package& p, const RuleInfo* r) {
  std::size_t same = 0, k = 0;
  for (const RuleInfo* q : p.rules.rules())
    if (q->name == r->name) {
      ++same;
      if (q == r) k = same;
    }
  return same > 1 ? str(r->name, "#", k) : r->name;
}

/// The run's counts and one line per rule of the package: on how many graphs it fired, how many
/// rewrites it made and how often it failed (rolled back).
inline std::string summary(const Package& p, const Tally& t) {
  std::ostringstream os;
  os << p.name << ": " << t.graphs << " graphs (" << t.ops << " ops), " << t.graphs_rewritten << " rewritten, "
     << t.rewrites << " rule rewrites, 0 differences\n  rule: graphs fired on / rewrites / failed\n";
  auto count = [](const auto& m, const auto& k) {
    auto it = m.find(k);
    return it == m.end() ? std::uint64_t{0} : it->second;
  };
  for (const RuleInfo* r : p.rules.rules())
    os << "  " << label(p, r) << " (" << r->pass_name << "): " << count(t.graphs_fired, r) << " / " << count(t.fired, r)
       << " / " << count(t.failed, r) << "\n";
  return os.str();
}

/// The rules of the package that fired on fewer than `min` graphs and are not exempt, one line
/// each; an exemption that names no rule of the package is a problem too (the list went stale).
inline std::vector<std::string> rarely_fired(const Package& p, const Tally& t, std::uint64_t min,
                                             const std::vector<Exempt>& exempt) {
  std::vector<std::string> out;
  for (const Exempt& e : exempt) {
    bool known = false;
    for (const RuleInfo* r : p.rules.rules()) known = known || named(r, e.rule);
    if (!known) out.push_back(str("exemption for ", e.rule, " names no rule of ", p.name));
  }
  for (const RuleInfo* r : p.rules.rules()) {
    bool exempted = false;
    for (const Exempt& e : exempt) exempted = exempted || named(r, e.rule);
    auto it = t.graphs_fired.find(r);
    const std::uint64_t n = it == t.graphs_fired.end() ? 0 : it->second;
    if (!exempted && n < min) out.push_back(str(label(p, r), " fired on ", n, " graphs, fewer than ", min));
  }
  return out;
}

}  // namespace semantic
