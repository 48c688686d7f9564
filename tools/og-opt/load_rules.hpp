// og-opt's rules: the op packages given with --package, or the built-in package chosen with --rules.
#pragma once

#include "options.hpp"
#include "package_loader.hpp"

#include <optgrammar/engine/rule_op_warnings.hpp>
#include <optgrammar/engine/rule_set.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <unordered_set>
#include <vector>

namespace og_opt {

struct LoadedRules {
  std::vector<LoadedPackage> packages;
  optgrammar::RuleSet rules;
};

/// Warns, on standard error, of each rule whose match names an op nothing knows or gives an op an
/// operand count its definition does not allow (engine/rule_op_warnings.hpp), on the rule's line.
inline void warn_rule_ops(const optgrammar::RuleSet& rules) {
  for (const auto& w : optgrammar::engine::check_rule_ops(rules.rules()))
    std::cerr << w.rule->file << ':' << w.rule->line << ": warning: " << w.text << '\n';
}

/// Loads the packages and selects the rules that run: with --package, the packages' rules (in
/// rule order, ties in the order given); without, the built-in package chosen with --rules. Op
/// registrations of the packages apply either way. False (with the message printed) when a package
/// cannot be loaded, is given twice, or no built-in package has that name. Warns of rules that cannot
/// match (warn_rule_ops).
inline bool load_rules(const Options& o, LoadedRules& out) {
  auto& packages = out.packages;
  for (const auto& path : o.package_paths) try {
      packages.push_back(load_package(path));
      const auto& p = packages.back();
      // The same package twice (or a copy of it: the dynamic loader takes a library whose name
      // it has loaded for that one) registers nothing the second time.
      const auto same =
          std::find_if(packages.begin(), packages.end() - 1, [&p](const auto& q) { return q.name == p.name; });
      if (same != packages.end() - 1 && p.rules.empty() && p.ops == 0) {
        std::cerr << "og-opt: error: the package " << path << " (" << p.name << ") is loaded already, from "
                  << same->path << ": give each package once\n";
        return false;
      }
      if (p.rules.empty())
        std::cerr << "og-opt: warning: the package " << path << " (" << p.name << ") registers no rule\n";
    } catch (const std::exception& e) {
      std::cerr << "og-opt: error: " << e.what() << "\n";
      return false;
    }
  if (!packages.empty()) {
    std::unordered_set<const optgrammar::RuleInfo*> chosen;
    for (const auto& p : packages) chosen.insert(p.rules.begin(), p.rules.end());
    out.rules =
        optgrammar::RuleSet::global().select([&](const optgrammar::RuleInfo& r) { return chosen.count(&r) > 0; });
    warn_rule_ops(out.rules);
    return true;
  }
  out.rules = optgrammar::RuleSet::global().select([&](const optgrammar::RuleInfo& r) {
    return std::filesystem::path(r.file).parent_path().filename() == o.builtin_rules;
  });
  if (out.rules.size() != 0) {
    warn_rule_ops(out.rules);
    return true;
  }
  std::cerr << "og-opt: no rules in a built-in package named '" << o.builtin_rules
            << "'\n";  // (the command line checks)
  return false;
}

/// The report's line for each package loaded, or for the built-in package that runs.
inline std::vector<std::string> package_lines(const Options& o, const LoadedRules& loaded) {
  std::vector<std::string> lines;
  if (loaded.packages.empty())
    lines.push_back(fmt::format("package: built-in {}: {} rules", o.builtin_rules, loaded.rules.size()));
  for (const auto& p : loaded.packages)
    lines.push_back(fmt::format("package: {} ({}): {} rules, {} ops registered, loaded in {:.3f} ms", p.path, p.name,
                                p.rules.size(), p.ops, p.seconds * 1e3));
  return lines;
}

}  // namespace og_opt
