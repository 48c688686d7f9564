// og-opt's checks of a graph: its structure and its ops against their definitions, before the run
// (the input, with the graph options set) and after it (the result).
#pragma once

#include "options.hpp"

#include <optgrammar/core/graph_verify.hpp>
#include <optgrammar/ops/definition_verify.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace og_opt {

/// Prints graph problems in the GCC form, at the line that defined the op when the graph came
/// from a file; at most 20, then how many more.
inline void print_problems(const std::vector<std::string>& problems, const std::vector<optgrammar::OpRef>& where,
                           const std::string& file, const std::vector<int>& lines, const char* what) {
  constexpr std::size_t shown = 20;
  for (std::size_t i = 0; i < problems.size() && i < shown; ++i) {
    const std::uint32_t op = i < where.size() ? where[i].index : optgrammar::no_index;
    if (!file.empty() && op < lines.size() && lines[op] > 0)
      std::cerr << file << ":" << lines[op] << ":1: error: " << what << ": " << problems[i] << "\n";
    else
      std::cerr << "og-opt: error: " << what << ": " << problems[i] << "\n";
  }
  if (problems.size() > shown) std::cerr << "og-opt: " << problems.size() - shown << " more problems\n";
}

/// Checks the structure of `g` and, unless --no-verify, its ops against their definitions;
/// prints the problems (`what`: the graph's role) at the lines of `file` when there is one.
inline bool graph_is_valid(const optgrammar::Graph& g, const Options& o, const std::string& file,
                           const std::vector<int>& lines, const char* what) {
  std::vector<optgrammar::OpRef> where;
  auto problems = optgrammar::verify(g, &where);
  if (problems.empty() && !o.no_verify) problems = optgrammar::ops::verify_ops(g, {}, &where);
  if (problems.empty()) return true;
  print_problems(problems, where, file, lines, what);
  return false;
}

/// The input graph before the run: checked, and warned about when it is empty or has no Output op
/// (run() gives it the graph options of --option). False (with the message printed) on a problem.
inline bool prepare_graph(optgrammar::Graph& g, const Options& o, const std::vector<int>& op_lines) {
  if (!graph_is_valid(g, o, o.input, op_lines, "the input graph is invalid")) return false;
  if (g.live_count() == 0)
    std::cerr << "og-opt: warning: the graph is empty\n";
  else {
    bool has_output = false;
    for (auto r : g.live_ops())
      if (g.name_id(r) == optgrammar::op_names::output) {
        has_output = true;
        break;
      }
    if (!has_output)
      std::cerr
          << "og-opt: warning: the graph has no Output op: its ops other than inputs are dead and will be removed\n";
  }
  return true;
}

}  // namespace og_opt
