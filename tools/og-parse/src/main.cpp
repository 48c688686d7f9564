// og-parse: command line front end. Exit status: 0 no errors (warnings allowed), 1 errors,
// 2 usage errors.
#include <og_parse/og_parse.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  CLI::App app{"og-parse: find, parse and check the optimization rules of op-package source files"};
  std::vector<std::string> files;
  bool json = false, canonical = false, strict = false, no_lint = false, basename = false, quiet = false;
  app.add_option("files", files, "op-package source files ('-' reads standard input)")->required();
  auto* jopt = app.add_flag("--json", json, "print every rule (and the other declarations) as JSON on stdout");
  app.add_flag("--canonical", canonical, "print every rule in canonical form, prefixed with file:line:")->excludes(jopt);
  app.add_flag("--strict", strict, "make the 'should' restrictions that shipped packages break errors");
  app.add_flag("--no-lint", no_lint, "no lint warnings (shadowed and duplicate rules, unused tags)");
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

  og_parse::Session s({.strict = strict, .lint = !no_lint, .include_dirs = include_dirs});
  bool io_error = false;
  for (const auto& f : files) {
    std::string text;
    if (f == "-") {
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      std::ifstream in(f, std::ios::binary);
      if (!in) {
        std::cerr << fmt::format("og-parse: error: cannot open '{}'\n", f);
        io_error = true;
        continue;
      }
      std::ostringstream ss;
      ss << in.rdbuf();
      text = std::move(ss).str();
    }
    if (text.size() > 0xFFFFFFFEu) {  // source offsets are 32 bits
      std::cerr << fmt::format("og-parse: error: '{}' is larger than 4 GiB - 2 bytes, the most a source can be\n", f);
      io_error = true;
      continue;
    }
    std::string name = f == "-" ? std::string("<stdin>") : f;
    if (basename) name = std::filesystem::path(name).filename().string();
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
