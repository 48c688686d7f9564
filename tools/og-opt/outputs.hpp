// og-opt's outputs: the result as text and DOT, the trace, the report file and the pictures.
// Every output file is opened (under its temporary name) before the run, so that a path that
// cannot be written is reported with the reason before any work. The temporary files of a run
// that fails are removed; the real names appear only when complete.
#pragma once

#include "graphviz.hpp"
#include "options.hpp"
#include "output_file.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/text_io.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

namespace og_opt {

/// Where the printed report goes: stdout, unless an output does (then stderr; the command line
/// lets at most one of them be '-').
inline std::FILE* report_stream(const Options& o) {
  return (o.out_text == "-" || o.out_dot == "-" || o.trace_file == "-") ? stderr : stdout;
}

struct Outputs {
  /// The paths of the options, the text and DOT outputs by default named after `stem`.
  Outputs(const Options& o, const std::string& stem)
      : text(o.out_text.empty() ? stem + ".opt.ogt" : o.out_text, "text output"),
        dot(o.out_dot.empty() ? stem + ".opt.dot" : o.out_dot, "DOT output"),
        trace(o.trace_file.empty() ? std::string("-") : o.trace_file, "trace"),
        report(o.report_file.empty() ? std::string("-") : o.report_file, "report"),
        side_data(text.path() + ".bin", "side data file"),
        data_mode(!o.data_mode.empty() ? o.data_mode
                  : text.to_stdout()   ? "inline"
                                       : "side"),
        data_inline_max(o.data_inline_max),
        has_trace(!o.trace_file.empty()),
        has_report(!o.report_file.empty()),
        report_html(o.report_file.ends_with(".html")),
        svg(o.svg_file),
        before_svg(o.svg_file.ends_with(".svg") ? o.svg_file.substr(0, o.svg_file.size() - 4) + ".before.svg"
                                                : o.svg_file + ".before.svg") {}

  /// Opens the files and checks that the pictures can be drawn and written; false (with the
  /// message printed) when one cannot.
  bool open() {
    if (!text.open() || !dot.open() || (has_trace && !trace.open()) || (has_report && !report.open()) ||
        (data_mode == "side" && !side_data.open()))
      return false;
    if (svg.empty()) return true;
    // Checked before the run, as the other outputs are: dot writes the pictures itself, after it.
    if (svg.find('\'') != std::string::npos) {
      std::cerr << "og-opt: --svg: a path with a quote is not supported\n";
      return false;
    }
    if (!graphviz_installed()) {
      std::cerr << "og-opt: --svg needs Graphviz's dot, which is not installed (apt-get install graphviz)\n";
      return false;
    }
    for (const std::string& pic : {before_svg, svg})
      if (const std::string why = unwritable(pic); !why.empty()) {
        std::cerr << "og-opt: cannot write the picture " << pic << ": " << why << "\n";
        return false;
      }
    return true;
  }

  /// Writes the result graph as text and DOT (under the temporary names); false (with the message
  /// printed) on failure.
  bool write_graph(const optgrammar::Graph& g, const std::string& stem) {
    try {
      // Ops keep their graph index as label: the numbers of the trace, the verifier and the pictures.
      optgrammar::WriteOptions wo;
      wo.graph_numbers = true;
      if (data_mode == "elided") wo.elide_data_over = std::max<std::size_t>(data_inline_max, 1);
      if (data_mode == "side") {
        wo.side_data_over = std::max<std::size_t>(data_inline_max, 1);
        wo.side_data = &side_data.stream();
        wo.side_data_name = std::filesystem::path(side_data.path()).filename().string();
      }
      optgrammar::write_graph_text(text.stream(), g, wo);
      side_used = data_mode == "side" && side_data.stream().tellp() > 0;
      optgrammar::write_dot(dot.stream(), g, stem);
    } catch (const std::exception& e) {
      std::cerr << "og-opt: writing the result failed: " << e.what() << "\n";
      return false;
    }
    return true;
  }

  /// Gives the side data, text, DOT and trace files their real names (the side data first: a text
  /// never names a side file that is not there).
  bool commit() {
    if (data_mode == "side" && !side_used) side_data.discard();  // no constant went there
    return (!side_used || side_data.commit()) && text.commit() && dot.commit() && (!has_trace || trace.commit());
  }

  /// What the text output holds, for the report's "wrote" line.
  std::string text_written() const {
    const std::string where = text.to_stdout() ? "stdout" : text.path();
    if (side_used)
      return fmt::format("{} (constants of more than {} elements in {})", where, data_inline_max, side_data.path());
    if (data_mode == "elided")
      return fmt::format("{} (constants of more than {} elements left out: it cannot be read back)", where,
                         data_inline_max);
    return where;
  }

  OutputFile text, dot, trace, report, side_data;
  std::string data_mode;  ///< side, inline or elided
  std::size_t data_inline_max;
  bool side_used = false;  ///< the text output names the side data file
  bool has_trace, has_report, report_html;
  std::string svg, before_svg;  ///< the pictures (--svg): none when svg is empty
};

}  // namespace og_opt
