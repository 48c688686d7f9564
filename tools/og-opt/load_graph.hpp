// og-opt's input: a graph in the text format, an ONNX model, or the built-in W1 demo graph.
#pragma once

#include "huge_page_resource.hpp"
#include "onnx_import.hpp"
#include "options.hpp"
#include "w1/w1_graph.hpp"

#include <optgrammar/core/text_io.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace og_opt {

/// Whether the input's first bytes are text (the graph text format) rather than binary (an ONNX
/// model): no control character but tab, line feed, carriage return, form feed.
inline bool looks_like_text(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, 4096);
  return std::none_of(head.begin(), head.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 && u != '\t' && u != '\n' && u != '\r' && u != '\f';
  });
}

/// Whether `path` names something og-opt can read a graph or model from: a file, a pipe (a FIFO,
/// /dev/stdin on a pipe) or a terminal; prints why not (no such file, a folder, a socket, a
/// device such as /dev/zero, which would never end).
inline bool readable_input(const std::string& path, const char* what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  const auto terminal = [&path] {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_NONBLOCK);
    const bool tty = fd >= 0 && ::isatty(fd);
    if (fd >= 0) ::close(fd);
    return tty;
  };
  const char* why = !fs::exists(st)                              ? "no such file"
                    : fs::is_directory(st)                       ? "it is a directory"
                    : fs::is_regular_file(st) || fs::is_fifo(st) ? nullptr
                    : fs::is_character_file(st) ? (terminal() ? nullptr : "a device that is no terminal")
                                                : "not a file, a pipe or a terminal";
  if (why) std::cerr << "og-opt: cannot read the " << what << " " << path << ": " << why << "\n";
  return !why;
}

/// The record resource of the graphs og-opt reads or builds: with --huge-pages on (the default)
/// one that puts their op and input records on transparent huge pages (huge_page_resource.hpp),
/// which lives as long as the process, so it outlives every graph made from it and every copy of
/// one; with it off nullptr (operator new).
inline og_tools::HugePageResource& huge_page_resource() {
  static og_tools::HugePageResource huge;
  return huge;
}
inline optgrammar::RecordResource* huge_page_records(const Options& o) {
  return o.huge_pages == "on" ? &huge_page_resource() : nullptr;
}

/// What the graphs' records took (the report's "records:" line with --verbose): with
/// --huge-pages on the blocks mapped for them and what the kernel said to the advice.
inline std::string records_line(const Options& o) {
  if (o.huge_pages != "on") return "records: huge pages off: operator new";
  const auto& st = huge_page_resource().stats();
  return fmt::format(
      "records: huge pages on: {} block(s) mapped ({} advised to huge pages, {} refused), {} smaller "
      "block(s) from operator new",
      st.mapped, st.advised, st.refused, st.small);
}

struct InputGraph {
  optgrammar::Graph graph;
  std::string stem;           ///< the default outputs' name: the input's without its extension
  std::vector<int> op_lines;  ///< the line defining each op of an input file
  std::string description;    ///< what it is, as the report's "graph:" line says
};

/// Where the first byte that is no text lies in `bytes`, as "line L, column C".
inline std::string first_binary_byte(std::string_view bytes) {
  std::size_t line = 1, col = 1;
  for (const char c : bytes.substr(0, 4096)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && u != '\t' && u != '\n' && u != '\r' && u != '\f')
      return fmt::format("byte 0x{:02x} at line {}, column {}", u, line, col);
    if (c == '\n') ++line, col = 0;
    ++col;
  }
  return "no binary byte";
}

/// Reads the graph or model named on the command line (a file or standard input, in the text
/// format or as an ONNX model: a name ending in .onnx, or bytes that are no text; a model's first
/// byte is a protobuf field tag, 0x08), or builds the built-in W1 demo graph when none is named,
/// and prints what it is to `report`. Returns og-opt's exit status when it stops (with the message
/// printed): 1 when the input cannot be read, bad_arguments_status when --input-shape or
/// --input-value is given for a graph in the text format or does not fit the model; 0 when the
/// run goes on.
inline int load_graph(const Options& o, std::FILE* report, InputGraph& in) {
  const std::string& input = o.input;
  try {
    if (input.empty()) {
      in.graph = w1::build(o.blocks, huge_page_records(o));
      in.stem = "w1";
      in.description = fmt::format(
          "none given, so og-opt runs its built-in demo graph: W1, a redundant conv chain of {} blocks", o.blocks);
      fmt::print(report, "graph: {}\n", in.description);
      return 0;
    }
    const bool from_stdin = input == "-";
    if (!from_stdin && !readable_input(input, input.ends_with(".onnx") ? "model" : "graph")) return 1;
    std::ifstream file;
    if (!from_stdin) {
      file.open(input, std::ios::binary);
      if (!file) {
        std::cerr << "og-opt: cannot read the graph " << input << ": " << std::strerror(errno) << "\n";
        return 1;
      }
    }
    std::istream& is = from_stdin ? std::cin : file;
    const std::string name = from_stdin ? "<stdin>" : input;
    in.stem = from_stdin ? "stdin" : input.substr(0, input.rfind('.'));
    std::string bytes((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
    if (is.bad()) throw std::runtime_error("og-opt: cannot read " + name);
    const bool named_onnx = input.ends_with(".onnx");
    if (named_onnx || !looks_like_text(bytes)) {
      optgrammar::onnx_import::ImportOptions io;
      io.records = huge_page_records(o);
      for (const auto& s : o.input_shapes)
        if (!io.add_input_shape(s))
          throw std::runtime_error("og-opt: --input-shape wants NAME=D0,D1,... (dims: integers >= 0): " + s);
      for (const auto& s : o.input_values)
        if (!io.add_input_value(s))
          throw std::runtime_error("og-opt: --input-value wants NAME=V0,V1,... (numbers): " + s);
      try {
        auto m = from_stdin ? optgrammar::onnx_import::import_bytes(bytes, name, io)
                            : optgrammar::onnx_import::import_file_bytes(bytes, input, io);
        in.graph = std::move(m.graph);
        in.description = fmt::format("{} (ONNX, opset {}, {} nodes)", name, m.opset, m.nodes);
      } catch (const optgrammar::onnx_import::ImportError& e) {
        if (e.kind == optgrammar::onnx_import::ImportError::Kind::bad_option) {  // --input-shape or --input-value
          std::cerr << "og-opt: error: " << e.what() << "\n";
          return bad_arguments_status;
        }
        // Binary content under a name that does not say ONNX: a graph file that is no text.
        if (named_onnx || e.kind != optgrammar::onnx_import::ImportError::Kind::not_a_model) throw;
        const std::string_view why = e.what();
        const auto at = why.find("not an ONNX model");
        std::string model_why = at == std::string_view::npos ? std::string(why) : std::string(why.substr(at + 17));
        if (model_why.starts_with(": ")) model_why.erase(0, 2);
        throw std::runtime_error(
            fmt::format("{}:1:1: error: this file is neither the graph text format (it holds binary "
                        "content: {}) nor an ONNX model{}",
                        name, first_binary_byte(bytes), model_why.empty() ? "" : " (" + model_why + ")"));
      }
    } else {
      if (!o.input_shapes.empty() || !o.input_values.empty()) {
        std::cerr << "og-opt: error: --input-shape and --input-value apply to ONNX models; " << name
                  << " is a graph in the text format\n";
        return bad_arguments_status;
      }
      std::istringstream text(std::move(bytes));
      in.graph = optgrammar::read_graph_text(text, name, &in.op_lines, huge_page_records(o));
      in.description = name;
    }
    fmt::print(report, "graph: {}\n", in.description);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace og_opt
