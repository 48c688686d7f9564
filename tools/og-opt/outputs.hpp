// og-opt's outputs: the result as text and DOT, the trace, the report file and the pictures.
// Every output file is opened (under its temporary name) before the run, so that a path that
// cannot be written is reported with the reason before any work. The temporary files of a run
// that fails are removed; the real names appear only when complete.
#pragma once

#include "options.hpp"
#include "output_file.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/text_io.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

namespace og_opt {

/// Where the printed report goes: stdout, unless an output does (then stderr); nullptr (with the
/// message printed) when more than one output is given as '-'.
inline std::FILE* report_stream(const Options& o) {
  const bool text_stdout = o.out_text == "-", dot_stdout = o.out_dot == "-", trace_stdout = o.trace_file == "-";
  if (text_stdout + dot_stdout + trace_stdout > 1) {
    std::cerr << "og-opt: at most one of -o, --dot and --trace can be '-' (stdout)\n";
    return nullptr;
  }
  return (text_stdout || dot_stdout || trace_stdout) ? stderr : stdout;
}

struct Outputs {
  /// The paths of the options, the text and DOT outputs by default named after `stem`.
  Outputs(const Options& o, const std::string& stem)
      : text(o.out_text.empty() ? stem + ".opt.ogt" : o.out_text, "text output"),
        dot(o.out_dot.empty() ? stem + ".opt.dot" : o.out_dot, "DOT output"),
        trace(o.trace_file.empty() ? std::string("-") : o.trace_file, "trace"),
        report(o.report_file.empty() ? std::string("-") : o.report_file, "report"),
        has_trace(!o.trace_file.empty()),
        has_report(!o.report_file.empty()),
        report_html(o.report_file.ends_with(".html")),
        svg(o.svg_file),
        before_svg(o.svg_file.ends_with(".svg") ? o.svg_file.substr(0, o.svg_file.size() - 4) + ".before.svg"
                                                : o.svg_file + ".before.svg") {}

  /// Opens the files and checks that the pictures can be drawn and written; false (with the
  /// message printed) when one cannot.
  bool open() {
    if (has_report && !report.path().ends_with(".md") && !report_html) {
      std::cerr << "og-opt: --report: give a FILE ending in .md (Markdown) or .html\n";
      return false;
    }
    if (!text.open() || !dot.open() || (has_trace && !trace.open()) || (has_report && !report.open())) return false;
    if (svg.empty()) return true;
    // Checked before the run, as the other outputs are: dot writes the pictures itself, after it.
    if (svg.find('\'') != std::string::npos) {
      std::cerr << "og-opt: --svg: a path with a quote is not supported\n";
      return false;
    }
    if (std::system("command -v dot >/dev/null 2>&1") != 0) {
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
      optgrammar::write_graph_text(text.stream(), g, wo);
      optgrammar::write_dot(dot.stream(), g, stem);
    } catch (const std::exception& e) {
      std::cerr << "og-opt: writing the result failed: " << e.what() << "\n";
      return false;
    }
    return true;
  }

  /// Gives the text, DOT and trace files their real names.
  bool commit() { return text.commit() && dot.commit() && (!has_trace || trace.commit()); }

  OutputFile text, dot, trace, report;
  bool has_trace, has_report, report_html;
  std::string svg, before_svg;  ///< the pictures (--svg): none when svg is empty
};

}  // namespace og_opt
