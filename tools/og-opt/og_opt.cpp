// og-opt: the main job. Loads a graph (text format) or builds the built-in default, applies the
// rule package linked into it or the packages given with --package, prints a report, writes the
// result as text and as Graphviz DOT.
#include "w1/w1_graph.hpp"
#include "onnx_import.hpp"
#include "package_loader.hpp"
#include "report.hpp"
#include "result_check.hpp"

#include <optgrammar/core/dot.hpp>
#include <optgrammar/core/text_io.hpp>
#include <optgrammar/core/verify.hpp>
#include <optgrammar/engine/cse.hpp>
#include <optgrammar/engine/driver.hpp>
#include <optgrammar/engine/fold_step.hpp>
#include <optgrammar/ops/verify.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

/// An output file, or stdout ("-"). A plain file (or a path where nothing is yet) is written under
/// a temporary name next to it and renamed when complete, so that an error or a crash never leaves
/// an empty or partial file under the real name; the file replaced keeps its permission bits, and a
/// symbolic link stays while the file it points to is replaced. Anything else that exists there (a
/// device such as /dev/null, a FIFO, a socket, a link that points nowhere yet) is opened and
/// written where it is: renaming a file over it would put a plain file in its place. So is any path
/// under /dev or /proc (/dev/stdout, /dev/fd/N): they name a file the shell opened, which a rename
/// would unlink from under it.
class OutputFile {
 public:
  OutputFile(std::string path, const char* what) : path_(std::move(path)), what_(what) {}
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() { discard(); }

  bool to_stdout() const { return path_ == "-"; }
  const std::string& path() const { return path_; }
  /// Opens the temporary file, or the path itself where it is no plain file; on failure prints
  /// the path and the reason.
  bool open() {
    namespace fs = std::filesystem;
    if (to_stdout()) return true;
    std::error_code ec;
    const fs::file_status st = fs::status(path_, ec);  // follows symbolic links
    if (fs::is_directory(st)) {
      std::cerr << "og-opt: cannot write the " << what_ << " " << path_ << ": it is a directory\n";
      return false;
    }
    std::string target = path_;
    if ((fs::exists(st) && !fs::is_regular_file(st)) || under_dev_or_proc()) {
      direct_ = true;
    } else if (fs::is_symlink(fs::symlink_status(path_, ec))) {
      const fs::path resolved = fs::exists(st) ? fs::canonical(path_, ec) : fs::path();
      if (resolved.empty() || ec) direct_ = true;  // (a link to nothing yet: opening creates its file)
      else target = resolved.string();
    }
    if (direct_) return open_stream(path_);
    tmp_ = target + ".tmp." + std::to_string(::getpid());
    if (!open_stream(tmp_)) {
      tmp_.clear();
      return false;
    }
    target_ = target;
    if (fs::is_regular_file(st)) fs::permissions(tmp_, st.permissions(), ec);  // (best effort)
    return true;
  }
  std::ostream& stream() { return to_stdout() ? std::cout : static_cast<std::ostream&>(file_); }
  /// Flushes, and renames the temporary file to the real name; false (with a message) on failure.
  bool commit() {
    if (to_stdout()) {
      std::cout.flush();
      if (!std::cout) {
        std::cerr << "og-opt: writing the " << what_ << " to stdout failed\n";
        return false;
      }
      return true;
    }
    file_.close();
    if (file_.fail()) {
      std::cerr << "og-opt: writing " << path_ << " failed (disk full?)\n";
      discard();
      return false;
    }
    if (direct_) return true;
    std::error_code ec;
    std::filesystem::rename(tmp_, target_, ec);
    if (ec) {
      std::cerr << "og-opt: cannot rename " << tmp_ << " to " << target_ << ": " << ec.message() << "\n";
      discard();
      return false;
    }
    tmp_.clear();
    return true;
  }
  /// Removes the temporary file (nothing is left under either name). What was written straight
  /// to a device or a pipe cannot be taken back.
  void discard() {
    if (tmp_.empty()) return;
    file_.close();
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
    tmp_.clear();
  }

 private:
  bool under_dev_or_proc() const {
    std::error_code ec;  // (no current folder: the path is taken as given)
    std::filesystem::path p = std::filesystem::absolute(path_, ec);
    p = (ec ? std::filesystem::path(path_) : p).lexically_normal();
    auto it = p.begin();
    if (it == p.end() || ++it == p.end()) return false;  // past the root
    return *it == "dev" || *it == "proc";
  }
  bool open_stream(const std::string& name) {
    errno = 0;
    file_.open(name, std::ios::binary | std::ios::trunc);
    if (!file_) {
      std::cerr << "og-opt: cannot write the " << what_ << " " << path_ << ": "
                << (errno ? std::strerror(errno) : "cannot open") << "\n";
      return false;
    }
    return true;
  }

  std::string path_, tmp_, target_;  // target_: the plain file the temporary one is renamed onto
  const char* what_;
  bool direct_ = false;  // written at path_ itself (no plain file there)
  std::ofstream file_;
};

/// Whether the input's first bytes are text (the graph text format) rather than binary (an ONNX
/// model): no control character but tab, line feed, carriage return, form feed.
bool looks_like_text(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, 4096);
  return std::none_of(head.begin(), head.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 && u != '\t' && u != '\n' && u != '\r' && u != '\f';
  });
}

/// Whether `path` names something og-opt can read a graph or model from: a file, a pipe (a FIFO,
/// /dev/stdin on a pipe) or a terminal; prints why not (no such file, a folder, a socket, a
/// device such as /dev/zero, which would never end).
bool readable_input(const std::string& path, const char* what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  const auto terminal = [&path] {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_NONBLOCK);
    const bool tty = fd >= 0 && ::isatty(fd);
    if (fd >= 0) ::close(fd);
    return tty;
  };
  const char* why = !fs::exists(st)                             ? "no such file"
                    : fs::is_directory(st)                      ? "it is a directory"
                    : fs::is_regular_file(st) || fs::is_fifo(st) ? nullptr
                    : fs::is_character_file(st)                 ? (terminal() ? nullptr : "a device that is no terminal")
                                                                : "not a file, a pipe or a terminal";
  if (why) std::cerr << "og-opt: cannot read the " << what << " " << path << ": " << why << "\n";
  return !why;
}

/// Why a file cannot be written at `path` by another program (Graphviz's dot for --svg), or "".
std::string unwritable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return "it is a directory";
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) return "there is no folder " + dir.string();
  if (::access(dir.c_str(), W_OK) == 0) return {};
  const int why = errno;  // (the checks below may set errno too)
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) == 0) return {};
  return std::strerror(why);
}

/// Prints graph problems in the GCC form, at the line that defined the op when the graph came
/// from a file; at most 20, then how many more.
void print_problems(const std::vector<std::string>& problems, const std::vector<optgrammar::OpRef>& where,
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"og-opt: apply a package of optgrammar rules to a graph until nothing changes"};
  std::string input, out_text, out_dot, trace_file;
  std::size_t blocks = 4;
  bool list_rules = false, verify_each = false, no_fold = false, no_cse = false, cse_constants = false, verify_ops = false,
       no_verify = false, relaxed_precision = false, in_place = false, verify_splits = false;
  std::uint64_t budget = 16;
  std::size_t fold_max = optgrammar::engine::FoldOptions{}.max_elements;
  app.add_option("graph", input,
                 "Graph in the optgrammar text format ('-': standard input), or an ONNX model (a name ending in .onnx, "
                 "or binary content) (default: the built-in W1 graph)");
  std::size_t check_n = 0;
  double check_tolerance = 1e-4, check_atol = 1e-5;
  // Unsigned options get a range: CLI11 would take "-1" as 2^64 - 1 and a number too large for the
  // type as its largest value, and run with that.
  app.add_option("--check", check_n, "Interpret the graph on N random inputs before and after rewriting and compare the outputs")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}));
  const CLI::Validator non_negative(
      [](std::string& v) -> std::string {
        double d = 0;
        const char* end = v.data() + v.size();
        if (std::from_chars(v.data(), end, d).ptr != end || !std::isfinite(d) || d < 0)
          return "Value " + v + " is not a finite number >= 0";
        return {};
      },
      "NUMBER >= 0");
  app.add_option("--check-tolerance", check_tolerance, "Relative tolerance of --check")->check(non_negative)
      ->capture_default_str();
  app.add_option("--check-atol", check_atol, "Absolute tolerance of --check (added to the relative one; a quantized model's: its output's step)")
      ->check(non_negative)
      ->capture_default_str();
  std::vector<std::string> input_shapes;
  app.add_option("--input-shape", input_shapes, "Shape of an ONNX input with symbolic dims: NAME=D0,D1,... (repeatable)");
  std::vector<std::string> input_values;
  app.add_option("--input-value", input_values,
                 "An ONNX input imported as a constant of these values, e.g. a sample rate the model branches on: NAME=V0,V1,... (repeatable)");
  app.add_option("--blocks", blocks, "Blocks of the built-in W1 graph")->check(CLI::Range(1, 10000000))->capture_default_str();
  app.add_option("-o,--output", out_text, "Write the optimized graph as text here ('-' for stdout; default: <name>.opt.ogt)");
  app.add_option("--dot", out_dot, "Write the optimized graph as Graphviz DOT here ('-' for stdout; default: <name>.opt.dot)");
  app.add_option("--trace", trace_file, "Write one line per rewrite (rule, ops) to this file ('-' for stdout)");
  app.add_option("--rewrite-budget", budget, "Rewrites per op before a pass is declared cyclic")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->capture_default_str();
  app.add_flag("--verify-each", verify_each, "Verify the graph after every rewrite");
  app.add_flag("--verify-splits", verify_splits,
               "Check every AUTOSPLIT with indexing maps when it is built; a wrong split is rolled back and counted "
               "as failed (on by default in builds without NDEBUG)");
  app.add_flag("--in-place", in_place,
               "Let a rewrite whose result is one new op over matched ops, and each constant fold, put it in its "
               "root's slot (less fresh memory)");
  app.add_flag("--no-fold", no_fold, "Do not fold constants in the rewrite loop");
  app.add_option("--fold-max-elements", fold_max, "Largest fold (output elements); larger ones are skipped and counted")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40))
      ->capture_default_str();
  app.add_flag("--no-cse", no_cse, "Do not merge common subexpressions between passes");
  app.add_flag("--cse-constants", cse_constants,
               "Let CSE merge constants with equal payloads too (off by default: W1 keeps each block's constants)");
  app.add_flag("--verify-ops", verify_ops, "Check the ops against their definitions (the default; kept for old scripts)");
  app.add_flag("--no-verify", no_verify,
               "Do not check the input and result graphs against the op definitions (structure is always checked)");
  app.add_flag("--relaxed-precision", relaxed_precision,
               "Set the graph option relaxed_precision_flag: rules flagged relaxed_precision_flag may run (fp32 ops computed in fp16)");
  app.add_flag("--list-rules", list_rules, "Print the package's rules in rule order (canonical form) and exit");
  std::vector<std::string> package_paths;
  app.add_option("--package", package_paths,
                 "Load this op package (a shared library built with optgrammar_add_op_package) and run its rules "
                 "instead of the built-in ones (repeatable)")
      ->allow_extra_args(false);
  // Built-in rule packages and graph options (docs/htp_lowering.md).
  std::string builtin_rules = "w1";
  std::vector<std::string> graph_options;
  app.add_option("--rules", builtin_rules,
                 "The built-in rule package to run when no --package is given: the rules whose source lies in a "
                 "folder of this name (w1, htp_lowering)")
      ->capture_default_str();
  app.add_option("--option", graph_options, "Set a graph option the rules read: NAME=UNSIGNED (repeatable), e.g. htp_tile_elements=65536");
  std::string svg_file;
  app.add_option("--svg", svg_file, "Pictures through Graphviz's dot: the result to FILE, the input graph to FILE with .before before .svg");
  std::size_t svg_max_ops = 150;
  unsigned svg_context = 1;
  app.add_option("--svg-max-ops", svg_max_ops,
                 "A graph with more ops than N is pictured by its changed region only (the ops the rewriting "
                 "removed or created and their neighbours), at most N ops; 0: always the whole graph")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}))
      ->capture_default_str();
  app.add_option("--svg-context", svg_context, "Producer/consumer steps around the changed ops in a region picture")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str();
  std::string report_file;
  app.add_option("--report", report_file,
                 "Write the report to FILE.md (Markdown) or FILE.html (one self-contained HTML file, pictures "
                 "inline): counts, the pass and rule tables, fold/CSE, --check's differences, the --svg pictures");
  CLI11_PARSE(app, argc, argv);
  if ((!input_shapes.empty() || !input_values.empty()) && input.empty())
    std::cerr << "og-opt: warning: --input-shape and --input-value apply to ONNX models only; ignored\n";

  // With --package, the packages' rules run (in rule order, ties in the order given); without,
  // the built-in package chosen with --rules. Op registrations of the packages apply either way.
  std::vector<og_opt::LoadedPackage> packages;
  for (const auto& path : package_paths) try {
      packages.push_back(og_opt::load_package(path));
      const auto& p = packages.back();
      // The same package twice (or a copy of it: the dynamic loader takes a library whose name
      // it has loaded for that one) registers nothing the second time.
      const auto same = std::find_if(packages.begin(), packages.end() - 1, [&p](const auto& q) { return q.name == p.name; });
      if (same != packages.end() - 1 && p.rules.empty() && p.ops == 0) {
        std::cerr << "og-opt: error: the package " << path << " (" << p.name << ") is loaded already, from "
                  << same->path << ": give each package once\n";
        return 1;
      }
      if (p.rules.empty())
        std::cerr << "og-opt: warning: the package " << path << " (" << p.name << ") registers no rule\n";
    } catch (const std::exception& e) {
      std::cerr << "og-opt: error: " << e.what() << "\n";
      return 1;
    }
  optgrammar::RuleSet rules;
  if (!packages.empty()) {
    std::unordered_set<const optgrammar::RuleInfo*> chosen;
    for (const auto& p : packages) chosen.insert(p.rules.begin(), p.rules.end());
    rules = optgrammar::RuleSet::global().select([&](const optgrammar::RuleInfo& r) { return chosen.count(&r) > 0; });
  } else {
    rules = optgrammar::RuleSet::global().select([&](const optgrammar::RuleInfo& r) {
      return std::filesystem::path(r.file).parent_path().filename() == builtin_rules;
    });
    if (rules.size() == 0) {
      std::set<std::string> names;  // the folders the linked-in rules come from
      for (const optgrammar::RuleInfo* r : optgrammar::RuleSet::global().rules())
        names.insert(std::filesystem::path(r->file).parent_path().filename().string());
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      std::cerr << "og-opt: no rules in a built-in package named '" << builtin_rules << "' (built in: " << known << ")\n";
      return 1;
    }
  }
  if (list_rules) {
    for (const auto* r : rules.rules()) fmt::print("{}: {}\n", r->name, r->canonical);
    return 0;
  }
  (void)verify_ops;  // checking against the op definitions is the default now
  // Where the report goes: stdout, unless an output does (then the report goes to stderr).
  const bool text_stdout = out_text == "-", dot_stdout = out_dot == "-", trace_stdout = trace_file == "-";
  if (text_stdout + dot_stdout + trace_stdout > 1) {
    std::cerr << "og-opt: at most one of -o, --dot and --trace can be '-' (stdout)\n";
    return 1;
  }
  std::FILE* report = (text_stdout || dot_stdout || trace_stdout) ? stderr : stdout;
  for (const auto& p : packages)
    fmt::print(report, "package: {} ({}): {} rules, {} ops registered, loaded in {:.3f} ms\n", p.path, p.name,
               p.rules.size(), p.ops, p.seconds * 1e3);

  optgrammar::Graph g;
  std::string stem;
  std::vector<int> op_lines;  // the line defining each op of an input file
  try {
    if (input.empty()) {
      g = w1::build(blocks);
      stem = "w1";
      fmt::print(report, "graph: built-in W1 redundant conv chain, {} blocks\n", blocks);
    } else {
      // A file or standard input, in the text format or as an ONNX model: a name ending in
      // .onnx, or bytes that are no text (a model's first byte is a protobuf field tag, 0x08).
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
      stem = from_stdin ? "stdin" : input.substr(0, input.rfind('.'));
      std::string bytes((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
      if (is.bad()) throw std::runtime_error("og-opt: cannot read " + name);
      if (input.ends_with(".onnx") || !looks_like_text(bytes)) {
        optgrammar::onnx_import::ImportOptions io;
        for (const auto& s : input_shapes)
          if (!io.add_input_shape(s))
            throw std::runtime_error("og-opt: --input-shape wants NAME=D0,D1,... (dims: integers >= 0): " + s);
        for (const auto& s : input_values)
          if (!io.add_input_value(s)) throw std::runtime_error("og-opt: --input-value wants NAME=V0,V1,... (numbers): " + s);
        auto m = from_stdin ? optgrammar::onnx_import::import_bytes(bytes, name, io)
                            : optgrammar::onnx_import::import_file_bytes(bytes, input, io);
        g = std::move(m.graph);
        fmt::print(report, "graph: {} (ONNX, opset {}, {} nodes)\n", name, m.opset, m.nodes);
      } else {
        if (!input_shapes.empty() || !input_values.empty())
          std::cerr << "og-opt: warning: --input-shape and --input-value apply to ONNX models only; ignored\n";
        std::istringstream text(std::move(bytes));
        g = optgrammar::read_graph_text(text, name, &op_lines);
        fmt::print(report, "graph: {}\n", name);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  {
    std::vector<optgrammar::OpRef> where;
    auto problems = optgrammar::verify(g, &where);
    if (problems.empty() && !no_verify) problems = optgrammar::ops::verify_ops(g, {}, &where);
    if (!problems.empty()) {
      print_problems(problems, where, input, op_lines, "the input graph is invalid");
      return 1;
    }
  }
  for (const auto& o : graph_options) {  // NAME=UNSIGNED
    const auto eq = o.find('=');
    std::uint64_t v = 0;
    const char* end = o.data() + o.size();
    if (eq == std::string::npos || eq == 0 || std::from_chars(o.data() + eq + 1, end, v).ptr != end || eq + 1 == o.size()) {
      std::cerr << "og-opt: --option wants NAME=UNSIGNED: " << o << "\n";
      return 1;
    }
    g.set_option(o.substr(0, eq), v);
  }
  if (g.live_count() == 0) std::cerr << "og-opt: warning: the graph is empty\n";
  else {
    bool has_output = false;
    for (auto r : g.live_ops())
      if (g.name_id(r) == optgrammar::op_names::output) {
        has_output = true;
        break;
      }
    if (!has_output) std::cerr << "og-opt: warning: the graph has no Output op: its ops other than inputs are dead and will be removed\n";
  }
  if (out_text.empty()) out_text = stem + ".opt.ogt";
  if (out_dot.empty()) out_dot = stem + ".opt.dot";

  // Every output file is opened (under its temporary name) before the run, so that a path that
  // cannot be written is reported with the reason before any work. The temporary files of a run
  // that fails are removed; the real names appear only when complete.
  OutputFile text_out(out_text, "text output"), dot_out(out_dot, "DOT output"),
      trace_out(trace_file.empty() ? std::string("-") : trace_file, "trace");
  const bool report_html = report_file.ends_with(".html");
  if (!report_file.empty() && !report_file.ends_with(".md") && !report_html) {
    std::cerr << "og-opt: --report: give a FILE ending in .md (Markdown) or .html\n";
    return 1;
  }
  OutputFile report_out(report_file.empty() ? std::string("-") : report_file, "report");
  if (!text_out.open() || !dot_out.open() || (!trace_file.empty() && !trace_out.open()) ||
      (!report_file.empty() && !report_out.open()))
    return 1;

  // --svg: a copy of the input graph now, both pictures drawn after the run (a large graph's
  // pictures show only the region that changed, which needs both states).
  optgrammar::Graph before_graph;
  auto render_svg = [](const std::string& dot_text, const std::string& path) {
    const std::string cmd = "dot -Tsvg -o '" + path + "'";
    std::FILE* p = ::popen(cmd.c_str(), "w");
    if (!p) return false;
    const bool wrote = std::fwrite(dot_text.data(), 1, dot_text.size(), p) == dot_text.size();
    return ::pclose(p) == 0 && wrote;
  };
  const std::string before_svg = svg_file.ends_with(".svg") ? svg_file.substr(0, svg_file.size() - 4) + ".before.svg"
                                                            : svg_file + ".before.svg";
  if (!svg_file.empty()) {
    // Checked before the run, as the other outputs are: dot writes the pictures itself, after it.
    if (svg_file.find('\'') != std::string::npos) {
      std::cerr << "og-opt: --svg: a path with a quote is not supported\n";
      return 1;
    }
    if (std::system("command -v dot >/dev/null 2>&1") != 0) {
      std::cerr << "og-opt: --svg needs Graphviz's dot, which is not installed (apt-get install graphviz)\n";
      return 1;
    }
    for (const std::string& pic : {before_svg, svg_file})
      if (const std::string why = unwritable(pic); !why.empty()) {
        std::cerr << "og-opt: cannot write the picture " << pic << ": " << why << "\n";
        return 1;
      }
    before_graph = g;
  }
  og_opt::CheckRun check;
  if (check_n > 0) try {
      check = og_opt::check_before(g, check_n);
    } catch (const std::exception& e) {
      std::cerr << "og-opt: --check: the interpreter cannot run the input graph: " << e.what() << "\n";
      // Random values suit data, not indices, axes or sizes: say which inputs may be such.
      std::string ints;
      for (optgrammar::OpRef r : g.live_ops())
        if (g.name_id(r) == optgrammar::op_names::input &&
            (optgrammar::dtype_info(g.output(r).dtype).kind == optgrammar::DTypeKind::integer ||
             g.output(r).dtype == optgrammar::DType::QInt32))
          ints += (ints.empty() ? "%" : ", %") + std::to_string(r.index);
      if (!ints.empty())
        std::cerr << "og-opt: note: --check fills the graph inputs with random values; the integer input(s) " << ints
                  << " may hold indices, axes or sizes, which random values put out of range\n";
      return 1;
    }
  if (relaxed_precision) g.set_option("relaxed_precision_flag", true);
  if (verify_splits) optgrammar::set_autosplit_verify(true);
  optgrammar::DriverOptions opt;
  opt.rewrite_budget_per_op = budget;
  opt.verify_each_rewrite = verify_each;
  opt.rewrite_in_place = in_place;
  if (!trace_file.empty()) opt.trace = &trace_out.stream();
  optgrammar::engine::ConstantFolder folder({.max_elements = fold_max});
  optgrammar::engine::Cse cse({.merge_constants = cse_constants});
  if (!no_fold) opt.visit = folder.visitor();
  if (!no_cse) opt.between_passes = cse.hook();
  optgrammar::RunReport rep;
  try {
    rep = optgrammar::run_rules(g, rules, opt);
  } catch (const optgrammar::CycleError& e) {
    std::cerr << "og-opt: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "og-opt: rewriting failed: " << e.what() << "\n";
    return 3;
  }
  // The report, built once: printed here, and written by --report as Markdown or HTML below.
  og_opt::Report summary;
  summary.title = "og-opt report: " + stem;
  summary.facts.push_back(fmt::format("rules: {} in {} pass(es)", rep.rules.size(), rep.passes.size()));
  summary.facts.push_back(fmt::format("ops: {} before, {} after ({} rewrites, {} dead ops removed) in {:.3f} ms",
                                      rep.ops_before, rep.ops_after, rep.rewrites, rep.dead_removed, rep.seconds * 1e3));
  if (no_fold) summary.facts.push_back("fold: off");
  else {
    const auto& f = folder.stats();
    summary.facts.push_back(fmt::format("fold: {} folded, {} skipped as too large (> {} elements), {} without kernel, {} "
                                        "inhibited by flags, {} breaking their definition",
                                        f.folded, f.skipped_too_large, fold_max, f.no_kernel, f.inhibited, f.invalid));
  }
  if (no_cse) summary.facts.push_back("cse: off");
  else {
    const auto& c = cse.stats();
    summary.facts.push_back(fmt::format("cse: {} ops and {} constants merged in {} sweeps (constants {})", c.merged_ops,
                                        c.merged_constants, c.runs, cse_constants ? "merged" : "kept"));
  }
  auto& passes = summary.tables.emplace_back();
  passes.heading = "Passes";
  passes.columns = {"pass", "priority", "rewrites", "time (ms)"};
  for (const auto& p : rep.passes)
    passes.rows.push_back({p.name, std::to_string(p.priority), std::to_string(p.rewrites), fmt::format("{:.3f}", p.seconds * 1e3)});
  // failed: the replacement failed part-way and was rolled back (--trace gives each reason).
  auto& rules_table = summary.tables.emplace_back();
  rules_table.heading = "Rules";
  rules_table.columns = {"rule", "tried", "matched", "fired", "failed", "canonical form"};
  rules_table.code_column = 5;
  for (std::size_t i = 0; i < rep.rules.size(); ++i) {
    const auto& st = rep.stats[i];
    rules_table.rows.push_back({rep.rules[i]->name, std::to_string(st.tried), std::to_string(st.matched),
                                std::to_string(st.fired), std::to_string(st.failed), rep.rules[i]->canonical});
  }
  for (const auto& f : summary.facts) fmt::print(report, "{}\n", f);
  fmt::print(report, "\n{}\n{}", og_opt::text_table(summary.tables[0], 8), og_opt::text_table(summary.tables[1], 24));
  {
    std::vector<optgrammar::OpRef> where;
    auto problems = optgrammar::verify(g, &where);
    if (problems.empty() && !no_verify) problems = optgrammar::ops::verify_ops(g, {}, &where);
    if (!problems.empty()) {
      print_problems(problems, where, "", {}, "the result graph is invalid");
      return 1;
    }
  }
  try {
    // Ops keep their graph index as label: the numbers of the trace, the verifier and the pictures.
    optgrammar::WriteOptions wo;
    wo.graph_numbers = true;
    optgrammar::write_graph_text(text_out.stream(), g, wo);
    optgrammar::write_dot(dot_out.stream(), g, stem);
  } catch (const std::exception& e) {
    std::cerr << "og-opt: writing the result failed: " << e.what() << "\n";
    return 1;
  }
  std::vector<og_opt::OutputDiff> diffs;
  if (check_n > 0) {
    try {
      diffs = og_opt::check_after(g, check, check_tolerance, check_atol);
    } catch (const std::exception& e) {
      std::cerr << "og-opt: --check: the interpreter cannot run the result graph: " << e.what() << "\n";
      return 1;
    }
    bool ok = true;
    for (std::size_t k = 0; k < diffs.size(); ++k) {
      fmt::print(report, "check: output {}: max abs diff {:.3g}, max rel diff {:.3g} over {} inputs{}\n", k,
                 diffs[k].max_abs, diffs[k].max_rel, check_n, diffs[k].ok ? "" : " (beyond tolerance)");
      if (!diffs[k].ok) {
        std::cerr << "og-opt: --check: output " << k << " changed beyond the tolerance " << check_tolerance;
        if (!diffs[k].problem.empty()) std::cerr << ": " << diffs[k].problem;
        std::cerr << "\n";
        ok = false;
      }
    }
    if (!ok) return 4;
  }
  if (!text_out.commit() || !dot_out.commit() || (!trace_file.empty() && !trace_out.commit())) return 1;
  fmt::print(report, "\nwrote {} and {}\n", text_stdout ? "stdout" : out_text, dot_stdout ? "stdout" : out_dot);
  // The pictures: a graph of at most --svg-max-ops ops whole; a larger one by the region that
  // changed (docs/og-opt.md). Each caption says what is shown.
  std::string before_caption, after_caption;
  if (!svg_file.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto changes = optgrammar::graph_changes(before_graph, g);
    auto picture = [&](const optgrammar::Graph& pg, const std::vector<std::uint32_t>& changed, const std::string& title,
                       std::string& caption) {
      optgrammar::DotView view;
      if (svg_max_ops != 0 && pg.live_count() > svg_max_ops) {
        auto reg = optgrammar::region_around(pg, changed, svg_context, svg_max_ops);
        view.shown = std::move(reg.in);
        view.caption = fmt::format("changed region: {} of {} ops ({} changed, {} step{} of context", reg.ops,
                                   pg.live_count(), changed.size(), svg_context, svg_context == 1 ? "" : "s");
        if (reg.seeds_left_out != 0)
          view.caption += fmt::format("; {} changed ops beyond the cap of {} not shown", reg.seeds_left_out, svg_max_ops);
        view.caption += ')';
        caption = view.caption;
      } else
        caption = fmt::format("whole graph: {} ops", pg.live_count());
      std::ostringstream os;
      optgrammar::write_dot(os, pg, title, view);
      return os.str();
    };
    const std::string dot_before = picture(before_graph, changes.removed, stem + " (before)", before_caption);
    const std::string dot_after = picture(g, changes.created, stem, after_caption);
    if (!render_svg(dot_before, before_svg) || !render_svg(dot_after, svg_file)) {
      std::cerr << "og-opt: --svg: Graphviz's dot could not draw the pictures (its own message, if it gave one, is above)\n";
      return 1;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    fmt::print(report, "pictures: {} (before), {} (after) in {:.1f} ms\n", before_svg, svg_file, ms);
    fmt::print(report, "picture before: {}\npicture after: {}\n", before_caption, after_caption);
  }
  if (!report_file.empty()) {
    // The same facts as the printed report, built once and rendered as Markdown or HTML.
    const auto rel = [&](const std::string& path) {
      return std::filesystem::absolute(path)
          .lexically_relative(std::filesystem::absolute(report_file).parent_path())
          .string();
    };
    og_opt::Report& r = summary;
    if (check_n > 0) {
      auto& ct = r.tables.emplace_back();
      ct.heading = fmt::format("Check ({} random inputs, tolerance {})", check_n, check_tolerance);
      ct.columns = {"output", "max abs diff", "max rel diff"};
      for (std::size_t k = 0; k < diffs.size(); ++k)
        ct.rows.push_back({std::to_string(k), fmt::format("{:.3g}", diffs[k].max_abs), fmt::format("{:.3g}", diffs[k].max_rel)});
    }
    if (!svg_file.empty()) {
      r.pictures.push_back({"Before (" + before_caption + ")", rel(before_svg), before_svg});
      r.pictures.push_back({"After (" + after_caption + ")", rel(svg_file), svg_file});
    }
    if (report_html) og_opt::write_html(report_out.stream(), r);
    else og_opt::write_markdown(report_out.stream(), r);
    if (!report_out.commit()) return 1;
    fmt::print(report, "report: {}\n", report_file);
  }
  return 0;
}
