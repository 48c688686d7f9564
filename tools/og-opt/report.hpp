// og-opt's report as data, written once and rendered as plain text (the terminal), Markdown or
// one self-contained HTML file (--report FILE.md / FILE.html).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace og_opt {

struct ReportTable {
  std::string heading;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::size_t code_column = static_cast<std::size_t>(-1);  ///< a column of source text (rendered as code)
  /// By row, when not empty: the code column's full text, which the cell shortens (HTML shows it
  /// on demand, Markdown lists it after the table).
  std::vector<std::string> code_full = {};
};

struct ReportPicture {
  std::string caption;  ///< e.g. "Before (changed region: 40 of 700 ops)"
  std::string link;     ///< the SVG file relative to the report (empty: none)
  std::string file;     ///< the SVG file as og-opt wrote it (read to embed it in HTML)
  std::string svg;      ///< the picture itself, when it has no file (embedded in HTML)
};

/// A section of pictures: the changed region, one instance of each rule.
struct ReportPictures {
  std::string heading;
  std::string note;  ///< a line under the heading
  std::vector<ReportPicture> pictures;
};

struct Report {
  std::string title;
  std::vector<std::string> facts;  ///< one line each: the graph, the rules, counts, fold, CSE
  std::vector<ReportTable> tables;
  std::vector<ReportPictures> picture_sections;
  std::vector<ReportTable> appendix;  ///< tables after the pictures (the nearest misses: long on a large package)
};

/// Plain text for the terminal: one table, a header line and a row per line, the first column
/// left-aligned, the others right-aligned to their widest cell, the code column last and unpadded
/// after two spaces. `min_first` widens the first column (so that tables line up across runs).
inline std::string text_table(const ReportTable& t, std::size_t min_first = 0) {
  std::vector<std::size_t> width(t.columns.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (std::size_t k = 0; k < row.size() && k < width.size(); ++k) width[k] = std::max(width[k], row[k].size());
  };
  widen(t.columns);
  for (const auto& row : t.rows) widen(row);
  if (!width.empty()) width[0] = std::max(width[0], min_first);
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k == t.code_column)
        fmt::format_to(std::back_inserter(out), "  {}", row[k]);
      else if (k == 0)
        fmt::format_to(std::back_inserter(out), "{:<{}}", row[k], width[k]);
      else
        fmt::format_to(std::back_inserter(out), " {:>{}}", row[k], width[k]);
    }
    out += '\n';
  };
  line(t.columns);
  for (const auto& row : t.rows) line(row);
  return out;
}

/// Markdown: the facts as a list, each table under a level-2 heading, the pictures linked.
inline void write_markdown(std::ostream& md, const Report& r) {
  auto cell = [](std::string_view t) {
    std::string o;
    for (char c : t) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
  };
  md << "# " << r.title << "\n\n";
  for (const auto& f : r.facts) md << "- " << f << "\n";
  auto table = [&](const ReportTable& t) {
    md << "\n## " << t.heading << "\n\n|";
    for (const auto& c : t.columns) md << " " << cell(c) << " |";
    md << "\n|";
    for (std::size_t k = 0; k < t.columns.size(); ++k) md << " --- |";
    md << "\n";
    for (const auto& row : t.rows) {
      md << "|";
      for (std::size_t k = 0; k < row.size(); ++k) {
        const char* quote = k == t.code_column ? "`" : "";
        md << " " << quote << cell(row[k]) << quote << " |";
      }
      md << "\n";
    }
    if (!t.code_full.empty()) {
      md << "\n" << cell(t.columns[t.code_column]) << " in full:\n\n";
      for (std::size_t k = 0; k < t.rows.size() && k < t.code_full.size(); ++k)
        md << "- " << t.rows[k][0] << ": `" << t.code_full[k] << "`\n";
    }
  };
  for (const auto& t : r.tables) table(t);
  for (const auto& section : r.picture_sections) {
    md << "\n## " << section.heading << "\n";
    if (!section.note.empty()) md << "\n" << section.note << "\n";
    for (const auto& p : section.pictures) {
      md << "\n" << p.caption << (p.link.empty() ? "" : ":") << "\n";
      if (!p.link.empty()) md << "\n![" << p.caption << "](" << p.link << ")\n";
    }
  }
  for (const auto& t : r.appendix) table(t);
}

/// Text with &, <, >, " and ' escaped for HTML (and XML) text and attribute values.
inline std::string html_escape(std::string_view t) {
  std::string o;
  o.reserve(t.size());
  for (char c : t) switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  return o;
}

/// One HTML file, well-formed as XML too (every element closed), with its style inline and no
/// script. Tables fit the page (long code wraps; a shortened cell opens to its full text);
/// pictures are embedded as inline SVG (the <svg> element Graphviz wrote, without its XML prolog),
/// scaled down to the page's width, or linked when the file cannot be read.
inline void write_html(std::ostream& h, const Report& r) {
  h << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta "
       "charset=\"utf-8\"/>\n<title>"
    << html_escape(r.title) << "</title>\n<style>\n"
    << "body { font-family: sans-serif; margin: 2em; max-width: 110em; }\n"
    << "table { border-collapse: collapse; margin-bottom: 1em; max-width: 100%; }\n"
    << "th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }\n"
    << "td.num { text-align: right; }\n"
    << "td code { white-space: pre-wrap; overflow-wrap: anywhere; }\n"
    << "details > code { display: block; margin-top: 0.3em; color: #444; }\n"
    << "figure { margin: 1em 0; overflow: auto; border: 1px solid #ddd; max-height: 60em; }\n"
    << "figure svg { max-width: 100%; height: auto; }\n"
    << "figcaption { font-weight: bold; margin: 0.3em; }\n"
    << "</style>\n</head>\n<body>\n<h1>" << html_escape(r.title) << "</h1>\n<ul>\n";
  for (const auto& f : r.facts) h << "<li>" << html_escape(f) << "</li>\n";
  h << "</ul>\n";
  auto numeric = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789.-+e") == std::string_view::npos;
  };
  auto table = [&](const ReportTable& t) {
    h << "<h2>" << html_escape(t.heading) << "</h2>\n<table>\n<thead><tr>";
    for (const auto& c : t.columns) h << "<th>" << html_escape(c) << "</th>";
    h << "</tr></thead>\n<tbody>\n";
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& row = t.rows[i];
      h << "<tr>";
      for (std::size_t k = 0; k < row.size(); ++k) {
        if (k == t.code_column && i < t.code_full.size())
          h << "<td><details><summary><code>" << html_escape(row[k]) << "</code></summary><code>"
            << html_escape(t.code_full[i]) << "</code></details></td>";
        else if (k == t.code_column)
          h << "<td><code>" << html_escape(row[k]) << "</code></td>";
        else
          h << (numeric(row[k]) ? "<td class=\"num\">" : "<td>") << html_escape(row[k]) << "</td>";
      }
      h << "</tr>\n";
    }
    h << "</tbody>\n</table>\n";
  };
  for (const auto& t : r.tables) table(t);
  for (const auto& section : r.picture_sections) {
    h << "<h2>" << html_escape(section.heading) << "</h2>\n";
    if (!section.note.empty()) h << "<p>" << html_escape(section.note) << "</p>\n";
    for (const auto& p : section.pictures) {
      h << "<figure>\n<figcaption>" << html_escape(p.caption);
      if (!p.link.empty()) h << " (<a href=\"" << html_escape(p.link) << "\">" << html_escape(p.link) << "</a>)";
      h << "</figcaption>\n";
      std::string svg = p.svg;
      if (svg.empty() && !p.file.empty()) {
        std::ifstream in(p.file, std::ios::binary);
        svg.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      const auto start = svg.find("<svg");
      if (start != std::string::npos) h << std::string_view(svg).substr(start);
      h << "</figure>\n";
    }
  }
  for (const auto& t : r.appendix) table(t);
  h << "</body>\n</html>\n";
}

}  // namespace og_opt
