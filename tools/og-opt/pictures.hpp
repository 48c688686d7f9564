// og-opt --svg: the input graph and the result drawn through Graphviz's dot; a graph of at most
// --svg-max-ops ops whole, a larger one by the region that changed (docs/og-opt.md).
#pragma once

#include "options.hpp"
#include "outputs.hpp"

#include <optgrammar/core/dot.hpp>

#include <fmt/format.h>

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

/// Writes `dot_text` as an SVG picture to `path` through Graphviz's dot.
inline bool render_svg(const std::string& dot_text, const std::string& path) {
  const std::string cmd = "dot -Tsvg -o '" + path + "'";
  std::FILE* p = ::popen(cmd.c_str(), "w");
  if (!p) return false;
  const bool wrote = std::fwrite(dot_text.data(), 1, dot_text.size(), p) == dot_text.size();
  return ::pclose(p) == 0 && wrote;
}

/// Draws `before` (the input graph) and `after` (the result) to the pictures of `out` and prints
/// where and what to `report`. False (with the message printed) when dot fails.
inline bool draw_pictures(const optgrammar::Graph& before, const optgrammar::Graph& after, const Options& o,
                          const Outputs& out, const std::string& stem, std::FILE* report, PictureCaptions& captions) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto changes = optgrammar::graph_changes(before, after);
  auto picture = [&](const optgrammar::Graph& pg, const std::vector<std::uint32_t>& changed, const std::string& title,
                     std::string& caption) {
    optgrammar::DotView view;
    if (o.svg_max_ops != 0 && pg.live_count() > o.svg_max_ops) {
      auto reg = optgrammar::region_around(pg, changed, o.svg_context, o.svg_max_ops);
      view.shown = std::move(reg.in);
      view.caption = fmt::format("changed region: {} of {} ops ({} changed, {} step{} of context", reg.ops,
                                 pg.live_count(), changed.size(), o.svg_context, o.svg_context == 1 ? "" : "s");
      if (reg.seeds_left_out != 0)
        view.caption += fmt::format("; {} changed ops beyond the cap of {} not shown", reg.seeds_left_out, o.svg_max_ops);
      view.caption += ')';
      caption = view.caption;
    } else
      caption = fmt::format("whole graph: {} ops", pg.live_count());
    std::ostringstream os;
    optgrammar::write_dot(os, pg, title, view);
    return os.str();
  };
  const std::string dot_before = picture(before, changes.removed, stem + " (before)", captions.before);
  const std::string dot_after = picture(after, changes.created, stem, captions.after);
  if (!render_svg(dot_before, out.before_svg) || !render_svg(dot_after, out.svg)) {
    std::cerr << "og-opt: --svg: Graphviz's dot could not draw the pictures (its own message, if it gave one, is above)\n";
    return false;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  fmt::print(report, "pictures: {} (before), {} (after) in {:.1f} ms\n", out.before_svg, out.svg, ms);
  fmt::print(report, "picture before: {}\npicture after: {}\n", captions.before, captions.after);
  return true;
}

}  // namespace og_opt
