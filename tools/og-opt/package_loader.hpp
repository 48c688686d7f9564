// og-opt --package: loads op packages built with optgrammar_add_op_package (docs/packages.md).
#pragma once

#include <optgrammar/plugin/package_abi.hpp>

#include <dlfcn.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace og_opt {

/// One loaded package: what it registered while it loaded.
struct LoadedPackage {
  std::string path;
  std::string name;                                ///< as the package's entry point says
  std::vector<const optgrammar::RuleInfo*> rules;  ///< its rules, in the global registry
  std::size_t ops = 0;                             ///< its DEF_PACKAGE_OP* registrations
  double seconds = 0;                              ///< dlopen (static registration), the check, collecting
};

/// Loads the package at `path` (never unloaded: its rules point into it). Its static
/// registrations land in this program's registries; throws std::runtime_error with dlerror's
/// text when it cannot be loaded, or with the reason when it is not a package whose
/// registrations reached them, and RegistryBusy when graphs are being optimized meanwhile
/// (the registries are written while it loads: docs/engine.md, "Threads").
inline LoadedPackage load_package(const std::string& path) {
  using namespace optgrammar;
  const RegistryWrite loading;
  LoadedPackage p;
  p.path = path;
  auto& rules = RuleSet::global();
  std::unordered_set<const RuleInfo*> before(rules.rules().begin(), rules.rules().end());
  const std::size_t ops_before = OpRegistry::instance().entries().size();
  const auto t0 = std::chrono::steady_clock::now();
  // A path without '/' would make dlopen search the library path; a package is a file.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* h = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    throw std::runtime_error("cannot load the package " + path + ": " + (e ? e : "unknown error"));
  }
  using Entry = const plugin::PackageAbi* (*)();
  void* sym = ::dlsym(h, plugin::entry_symbol);
  if (!sym)
    throw std::runtime_error("cannot load the package " + path + ": it has no " + plugin::entry_symbol +
                             " (build it with optgrammar_add_op_package)");
  const plugin::PackageAbi* abi = reinterpret_cast<Entry>(sym)();
  const plugin::PackageAbi mine = plugin::module_abi("og-opt");
  if (abi->version != mine.version || abi->rule_info_size != mine.rule_info_size ||
      abi->op_impl_size != mine.op_impl_size)
    throw std::runtime_error("cannot load the package " + path +
                             ": it was built against another version of the optgrammar headers");
  if (!abi->same_registries(mine))
    throw std::runtime_error("cannot load the package " + path +
                             ": its registrations went to registries of its own (was it built with hidden "
                             "visibility or linked with its own copy of og-opt's code?)");
  p.name = abi->name;
  for (const RuleInfo* r : rules.rules())
    if (!before.count(r)) p.rules.push_back(r);
  p.ops = OpRegistry::instance().entries().size() - ops_before;
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

}  // namespace og_opt
