// Rules that cannot match, caught when they are loaded: a rule's match checked against what the
// program knows of the ops it names. An op name that no definition, package registration or
// rule's replacement knows (a misspelling: "onnx.relu") and an operand count that the op's
// definition does not allow (`Op("onnx.Conv", "x", "w", "b")` for an op of 9 operands) are
// warnings, never errors: unknown ops are legal in graphs (docs/packages.md, "Op names").
//
// One check for both tools: og-opt runs it on each loaded rule's flat form (RuleInfo::flat) with
// the program's op definitions (engine/rule_op_warnings.hpp), og-parse on each rule it checked with the
// built-in definitions' table and the ops its sources register (tools/og-parse/src/op_check.cpp).
// Not included by rule files: plain runtime code on the standard library.
#pragma once

#include "optgrammar/dsl/flat.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar::dsl {

/// The number of one-character edits (a character changed, added or dropped, two neighbours
/// swapped) that turn `a` into `b` (the optimal string alignment distance).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> r0(b.size() + 1), r1(b.size() + 1), r2(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) r1[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    r2[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      r2[j] = std::min({r1[j] + 1, r2[j - 1] + 1, r1[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) r2[j] = std::min(r2[j], r0[j - 2] + 1);
    }
    std::swap(r0, r1);
    std::swap(r1, r2);
  }
  return r1[b.size()];
}

/// The names of `candidates` nearest to `name`, at most `limit` of them, all at the same (least)
/// distance, which is below `bound` edits; none when no name is that close. Of names at the same
/// distance, those that differ from `name` in fewer letters other than by case come first
/// ("onnx.relu": "onnx.Relu" before "onnx.Selu").
template <class Names>
std::vector<std::string_view> nearest_names(std::string_view name, const Names& candidates, std::size_t bound,
                                            std::size_t limit = 3) {
  const auto folded = [](std::string_view s) {
    std::string f(s);
    for (char& c : f)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return f;
  };
  const std::string name_f = folded(name);
  std::vector<std::string_view> best;
  std::size_t best_d = bound, best_f = bound;  // the distances of the names in `best`
  for (const auto& c : candidates) {
    const std::string_view s = c;
    const std::size_t apart = s.size() > name.size() ? s.size() - name.size() : name.size() - s.size();
    if (apart >= bound || apart > best_d) continue;  // the lengths alone are too far apart
    const std::size_t d = edit_distance(name, s);
    if (d >= bound || d > best_d) continue;
    const std::size_t f = edit_distance(name_f, folded(s));
    if (d == best_d && f > best_f) continue;
    if (d < best_d || f < best_f) best.clear();
    best_d = d;
    best_f = f;
    if (best.size() < limit) best.push_back(s);
  }
  return best;
}

/// What the rule check knows of the ops of a program (or of og-parse's sources).
class OpCatalogue {
 public:
  static constexpr std::size_t any = static_cast<std::size_t>(-1);
  struct Entry {
    bool counted = false;  ///< the operand counts below are known
    std::size_t min = 0, max = any;
    std::string allows;  ///< what the definition allows, in words: "9 operands (...)"
  };
  /// A name with its definition's operand counts (a later call for the name replaces them).
  void define(std::string_view name, std::size_t min, std::size_t max, std::string allows) {
    entries_[std::string(name)] = Entry{true, min, max, std::move(allows)};
  }
  /// A name known without operand counts (a package's op, an op a replacement makes); a
  /// definition of the name given before or after is kept.
  void know(std::string_view name) { entries_.try_emplace(std::string(name)); }
  /// Forgets the operand counts of a name (a package took the name over) but keeps it known.
  void uncount(std::string_view name) { entries_[std::string(name)] = Entry{}; }
  const Entry* find(std::string_view name) const {
    const auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  /// The known names nearest to `name`: one edit away for names of up to 5 characters, two for
  /// longer ones, three from 12 characters.
  std::vector<std::string_view> nearest(std::string_view name) const {
    std::vector<std::string_view> names;
    names.reserve(entries_.size());
    for (const auto& [n, e] : entries_) names.push_back(n);
    const std::size_t bound = name.size() < 6 ? 2 : name.size() < 12 ? 3 : 4;
    return nearest_names(name, names, bound);
  }

 private:
  std::map<std::string, Entry, std::less<>> entries_;
};

/// Adds the op names the replacement (its nodes [from, to)) makes: ops too, known to the check.
inline void know_replacement_ops(const FlatNode* nodes, std::uint32_t from, std::uint32_t to, OpCatalogue& ops) {
  for (std::uint32_t i = from; i < to; ++i)
    if (nodes[i].kind == Kind::Op || nodes[i].kind == Kind::WrapOp || nodes[i].kind == Kind::WrapOpAlways)
      ops.know(nodes[i].str.view());
}

/// One warning of the check: the node it is about (an Op or OpVarIn of the match) and its text.
struct OpCheckWarning {
  std::uint32_t node = 0;
  std::string text;
};

/// The check: every Op and OpVarIn of the match (nodes [match, match_end)) against `ops`.
inline std::vector<OpCheckWarning> check_match_ops(const FlatNode* nodes, std::uint32_t match, std::uint32_t match_end,
                                                   const OpCatalogue& ops) {
  std::vector<OpCheckWarning> out;
  for (std::uint32_t i = match; i < match_end; ++i) {
    const FlatNode& n = nodes[i];
    if (n.kind != Kind::Op && n.kind != Kind::OpVarIn) continue;
    const std::string_view name = n.str.view();
    const OpCatalogue::Entry* e = ops.find(name);
    if (e == nullptr) {
      std::string t = "the match names op \"";
      t.append(name).append("\", which no op definition, package op or rule's replacement knows");
      const auto near = ops.nearest(name);
      for (std::size_t k = 0; k < near.size(); ++k)
        t.append(k ? ", \"" : " (did you mean \"").append(near[k]).append("\"");
      if (!near.empty()) t += "?)";
      out.push_back({i, std::move(t)});
      continue;
    }
    if (!e->counted) continue;
    const bool variadic = n.kind == Kind::OpVarIn;
    const bool bad = variadic ? n.n > e->max : n.n < e->min || n.n > e->max;
    if (!bad) continue;
    std::string t = variadic ? "OpVarIn(\"" : "Op(\"";
    t.append(name).append("\", ...) gives it ").append(variadic ? "at least " : "").append(std::to_string(n.n));
    t.append(n.n == 1 && !variadic ? " operand" : " operands").append(", its definition allows ").append(e->allows);
    t.append(": the match never succeeds");
    out.push_back({i, std::move(t)});
  }
  return out;
}

}  // namespace optgrammar::dsl
