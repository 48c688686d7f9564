// og-opt's output files: written under a temporary name and renamed when complete.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>
#include <utility>

namespace og_opt {

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
      if (resolved.empty() || ec)
        direct_ = true;  // (a link to nothing yet: opening creates its file)
      else
        target = resolved.string();
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

/// Why a file cannot be written at `path` by another program (Graphviz's dot for --svg), or "".
inline std::string unwritable(const std::string& path) {
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

}  // namespace og_opt
