// og-opt --svg: the input graph and the result drawn through Graphviz's dot; a graph of at most
// --svg-max-ops ops whole, a larger one by the region that changed (docs/og-opt.md); the ops
// that changed are filled (red before, green after).
#pragma once

#include "graphviz.hpp"
#include "options.hpp"
#include "outputs.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/text_io.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace og_opt {

/// What each picture shows, e.g. "whole graph: 30 ops".
struct PictureCaptions {
  std::string before, after;
};

/// Draws `before` (the input graph) and `after` (the result) to the pictures of `out` and prints
/// where and what to `report`. False (with the message printed) when dot fails.
inline bool draw_pictures(const optgrammar::Graph& before, const optgrammar::Graph& after, const Options& o,
                          const Outputs& out, const std::string& stem, std::FILE* report, PictureCaptions& captions) {
  const auto t0 = std::chrono::steady_clock::now();
  auto changes = optgrammar::graph_changes(before, after);
  // The region grows from the first changed op: the one nearest the graph's inputs (ops made by
  // the run are appended, so index order is not the graph's order after it).
  auto in_graph_order = [](const optgrammar::Graph& g, std::vector<std::uint32_t>& ops) {
    std::vector<std::uint32_t> position(g.size(), 0);
    const auto order = optgrammar::topological_order(g);
    for (std::uint32_t k = 0; k < order.size(); ++k) position[order[k].index] = k;
    std::stable_sort(ops.begin(), ops.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return position[a] < position[b]; });
  };
  in_graph_order(before, changes.removed);
  in_graph_order(after, changes.created);
  auto picture = [&](const optgrammar::Graph& pg, const std::vector<std::uint32_t>& changed, const std::string& title,
                     const char* fill, std::string& caption) {
    optgrammar::DotView view;
    view.marked.assign(pg.size(), 0);
    for (std::uint32_t i : changed) view.marked[i] = 1;
    view.mark_fill = fill;
    view.inline_constants = true;  // a model's weights and attributes are lines of their readers' boxes
    std::size_t constants = 0;
    for (optgrammar::OpRef r : pg.live_ops()) constants += pg.is_const(r) ? 1 : 0;
    if (o.svg_max_ops != 0 && pg.live_count() - constants > o.svg_max_ops) {
      auto reg = optgrammar::region_around(pg, changed, o.svg_context, o.svg_max_ops, true);
      view.shown = std::move(reg.in);
      view.caption = fmt::format("changed region: {} of {} ops{} ({} changed, {} step{} of context", reg.ops,
                                 pg.live_count() - constants,
                                 reg.constants ? fmt::format(", with the {} constants they read", reg.constants) : "",
                                 changed.size(), o.svg_context, o.svg_context == 1 ? "" : "s");
      if (reg.seeds_left_out != 0)
        view.caption +=
            fmt::format("; {} changed ops beyond the cap of {} not shown", reg.seeds_left_out, o.svg_max_ops);
      view.caption += ')';
      caption = view.caption;
    } else
      caption = fmt::format("whole graph: {} ops", pg.live_count());
    std::ostringstream os;
    optgrammar::write_dot(os, pg, title, view);
    return os.str();
  };
  const std::string dot_before =
      picture(before, changes.removed, stem + " (before)", optgrammar::dot_removed_fill, captions.before);
  const std::string dot_after = picture(after, changes.created, stem, optgrammar::dot_created_fill, captions.after);
  if (!render_svg(dot_before, out.before_svg) || !render_svg(dot_after, out.svg)) {
    std::cerr
        << "og-opt: --svg: Graphviz's dot could not draw the pictures (its own message, if it gave one, is above)\n";
    return false;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  fmt::print(report, "pictures: {} (before), {} (after) in {:.1f} ms\n", out.before_svg, out.svg, ms);
  fmt::print(report, "picture before: {}\npicture after: {}\n", captions.before, captions.after);
  return true;
}

}  // namespace og_opt
