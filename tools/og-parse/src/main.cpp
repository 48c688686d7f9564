// og-parse: command line front end. Exit status: 0 no errors (warnings allowed), 1 errors,
// 2 usage errors.
#include <og_parse/og_parse.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  CLI::App app{"og-parse: find, parse and check the optimization rules of op-package source files"};
  std::vector<std::string> files;
  bool json = false, canonical = false, strict = false, no_lint = false, no_op_check = false, basename = false,
       quiet = false;
  app.add_option("files", files, "op-package source files ('-' reads standard input)")->required();
  auto* jopt = app.add_flag("--json", json, "print every rule (and the other declarations) as JSON on stdout");
  app.add_flag("--canonical", canonical, "print every rule in canonical form, prefixed with file:line:")
      ->excludes(jopt);
  app.add_flag("--strict", strict, "make the 'should' restrictions that shipped packages break errors");
  app.add_flag("--no-lint", no_lint,
               "no lint warnings (shadowed and duplicate rules, unused tags, ops a match cannot find)");
  app.add_flag("--no-op-check", no_op_check,
               "no warnings of ops a match cannot find (unknown op, operand count): for rules written against "
               "other op definitions than this library's");
  app.add_flag("--basename", basename, "name files by their base name in diagnostics and output");
  app.add_flag("-q,--quiet", quiet, "do not print warnings");
  std::vector<std::string> include_dirs;
  app.add_option("-I,--include-dir", include_dirs,
                 "look for #include \"...\" files in this folder too, after the including file's (repeatable)")
      ->allow_extra_args(false);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  // As a compiler does, a folder that is not there is no error; it is worth a word, though: a
  // mistyped -I leaves the includes it was for unread.
  for (const auto& dir : include_dirs)
    if (std::error_code ec; !std::filesystem::is_directory(dir, ec) && !quiet)
      std::cerr << fmt::format("og-parse: warning: -I {}: no such folder\n", dir);
  // the rules' nodes are kept only for what prints them
  og_parse::Session s({.strict = strict,
                       .lint = !no_lint,
                       .check_ops = !no_lint && !no_op_check,
                       .include_dirs = include_dirs,
                       .keep_trees = json || canonical});
  bool io_error = false;
  const auto fail = [&io_error](const std::string& msg) {
    std::cerr << "og-parse: error: " << msg << "\n";
    io_error = true;
  };
  // A folder stands for the translation units under it (the headers are read where they are
  // included), in name order.
  std::vector<std::string> inputs;
  for (const auto& f : files) {
    std::error_code ec;
    if (f == "-" || !std::filesystem::is_directory(f, ec)) {
      inputs.push_back(f);
      continue;
    }
    std::vector<std::string> found;
    for (std::filesystem::recursive_directory_iterator it(f, ec), end; !ec && it != end; it.increment(ec)) {
      const auto ext = it->path().extension().string();
      if ((ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c") && it->is_regular_file(ec))
        found.push_back(it->path().string());
    }
    if (ec)
      fail(fmt::format("cannot read the folder '{}': {}", f, ec.message()));
    else if (found.empty())
      fail(fmt::format("no source file (.cpp, .cc, .cxx, .c) under the folder '{}'", f));
    std::sort(found.begin(), found.end());
    inputs.insert(inputs.end(), found.begin(), found.end());
  }
  constexpr std::size_t most = 0xFFFFFFFEu;  // source offsets are 32 bits
  for (const auto& f : inputs) {
    std::string text;
    std::ifstream file;
    std::string name = f == "-" ? std::string("<stdin>") : f;
    if (basename) name = std::filesystem::path(name).filename().string();
    if (f != "-") {
      std::error_code ec;
      const auto st = std::filesystem::status(f, ec);
      if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) && !std::filesystem::is_fifo(st)) {
        fail(fmt::format("'{}' is not a file (a device or a socket)", f));
        continue;
      }
      errno = 0;
      file.open(f, std::ios::binary);
      if (!file) {
        fail(fmt::format("cannot open '{}'{}", f, errno ? std::string(": ") + std::strerror(errno) : std::string()));
        continue;
      }
      // a regular file is read where it is (no copy of its text to fault in), when it can be
      if (std::filesystem::is_regular_file(st) && s.add_mapped_source(name, f)) continue;
    }
    std::istream& in = f == "-" ? std::cin : file;
    // Else a file of known size is read at once into a string of that size (no copies as it grows);
    // then, and for a pipe, in blocks, stopping at the most a source can hold (a pipe may never end).
    if (f != "-") {
      std::error_code ec;
      const auto size = std::filesystem::file_size(f, ec);
      if (!ec && size > 0 && size <= most) {
        text.resize(static_cast<std::size_t>(size));
        in.read(text.data(), static_cast<std::streamsize>(size));
        text.resize(static_cast<std::size_t>(in.gcount()));
      }
    }
    char block[1 << 16];
    while (in.read(block, sizeof block) || in.gcount() > 0) {
      text.append(block, static_cast<std::size_t>(in.gcount()));
      if (text.size() > most) break;
    }
    if (in.bad()) {
      fail(fmt::format("reading '{}' failed", f));
      continue;
    }
    if (text.size() > most) {
      fail(fmt::format("'{}' is larger than 4 GiB - 2 bytes, the most a source can be", f));
      continue;
    }
    s.add_source(std::move(name), std::move(text), f == "-" ? std::string("<stdin>") : f);
  }
  s.run();
  for (const auto& d : s.diagnostics())
    if (!quiet || d.severity == og_parse::Severity::error) std::cerr << s.format(d) << '\n';
  if (json) {
    std::cout << s.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else if (canonical) {
    std::string out;
    for (const auto& r : s.rules()) {
      if (!r.valid) continue;
      out += fmt::format("{}:{}: ", s.file_name(r.loc.file), r.line);
      out += s.canonical(r);
      out += '\n';
    }
    std::cout << out;
  }
  return (s.has_errors() || io_error) ? 1 : 0;
}
