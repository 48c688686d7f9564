// Runs and registrations exclude each other: the process-wide registries (the op registry, the op
// definitions, the tensor properties, the rules waiting for RuleSet::global()) are written at
// static initialization and when a package is loaded, and read by every run; any number of runs
// may read them at once, on any threads, but never while something adds to them.
//
//   RegistryRead  held by engine::run_rules for the length of a run (and by anyone else who reads
//                 the registries outside a run and wants the same guarantee);
//   RegistryWrite held around anything that adds to them after static initialization: loading a
//                 package (og-opt's loader holds it around dlopen), RuleSet::global() taking in
//                 rules registered since it was last called.
//
// A RegistryWrite while runs are in progress throws RegistryBusy (checked, not a data race); a
// run that starts while a RegistryWrite is held waits until it is released. Writers take turns
// (one lock, which the thread holding it may take again: global() inside a package load).
// The op names are not among these registries: OpNames is safe to use at any time.
#pragma once

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>

namespace optgrammar {

/// Thrown by RegistryWrite when runs are in progress.
class RegistryBusy : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
struct RegistryState {
  std::atomic<int> readers{0};   // runs in progress
  std::atomic<int> writing{0};   // 1 while a RegistryWrite is held
  std::recursive_mutex writers;  // one writer at a time
  int depth = 0;                 // nesting of the writer holding `writers`
  static RegistryState& instance() {
    static RegistryState s;
    return s;
  }
};
}  // namespace detail

/// Held while the registries are read (a run). Waits while a RegistryWrite is held.
class RegistryRead {
 public:
  RegistryRead() {
    auto& s = detail::RegistryState::instance();
    for (;;) {
      // With a writer's store to `writing` and load of `readers` (both sequentially consistent),
      // at least one of the two sees the other: never both proceed.
      s.readers.fetch_add(1);
      if (s.writing.load() == 0) return;
      s.readers.fetch_sub(1);
      s.writing.wait(1);
    }
  }
  ~RegistryRead() { detail::RegistryState::instance().readers.fetch_sub(1); }
  RegistryRead(const RegistryRead&) = delete;
  RegistryRead& operator=(const RegistryRead&) = delete;

  /// Runs in progress now (for messages and tests).
  static int active() noexcept { return detail::RegistryState::instance().readers.load(); }
};

/// Held while something adds to the registries. Throws RegistryBusy when runs are in progress.
class RegistryWrite {
 public:
  explicit RegistryWrite(const char* what = "a package cannot be loaded")
      : lock_(detail::RegistryState::instance().writers) {
    auto& s = detail::RegistryState::instance();
    if (s.depth++ > 0) return;
    s.writing.store(1);
    if (const int n = s.readers.load(); n != 0) {
      release();
      throw RegistryBusy(std::string(what) + " while graphs are being optimized (" + std::to_string(n) +
                         " run(s) in progress): load packages before threads start optimizing (docs/engine.md, "
                         "\"Threads\")");
    }
  }
  ~RegistryWrite() { release(); }
  RegistryWrite(const RegistryWrite&) = delete;
  RegistryWrite& operator=(const RegistryWrite&) = delete;

 private:
  void release() noexcept {
    auto& s = detail::RegistryState::instance();
    if (--s.depth > 0) return;
    s.writing.store(0);
    s.writing.notify_all();
  }
  std::unique_lock<std::recursive_mutex> lock_;
};

}  // namespace optgrammar
