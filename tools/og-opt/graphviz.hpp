// Graphviz's dot, run as a program: og-opt's pictures (--svg, the report's rule instances).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace og_opt {

/// Whether Graphviz's dot is on the PATH.
inline bool graphviz_installed() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

/// Writes `dot_text` as an SVG picture to `path` (no quote in it) through dot.
inline bool render_svg(const std::string& dot_text, const std::string& path) {
  const std::string cmd = "dot -Tsvg -o '" + path + "'";
  std::FILE* p = ::popen(cmd.c_str(), "w");
  if (!p) return false;
  const bool wrote = std::fwrite(dot_text.data(), 1, dot_text.size(), p) == dot_text.size();
  return ::pclose(p) == 0 && wrote;
}

/// `dot_text` drawn as SVG text by dot (through a temporary file); empty when dot fails.
inline std::string svg_of(const std::string& dot_text) {
  char name[] = "/tmp/og-opt-XXXXXX";
  const int fd = ::mkstemp(name);
  if (fd < 0) return {};
  const bool wrote = ::write(fd, dot_text.data(), dot_text.size()) == static_cast<ssize_t>(dot_text.size());
  ::close(fd);
  std::string svg;
  if (wrote) {
    const std::string cmd = std::string("dot -Tsvg '") + name + "'";
    if (std::FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[1 << 14];
      for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) svg.append(buf, n);
      if (::pclose(p) != 0) svg.clear();
    }
  }
  ::unlink(name);
  return svg;
}

}  // namespace og_opt
