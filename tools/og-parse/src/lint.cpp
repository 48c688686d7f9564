// Lint: tags bound but never used, duplicate rules, rules shadowed by an earlier, more general
// rule of the same pass and root op. The generality test is a sound approximation: when it says
// "shadowed", every graph the later rule matches (with its constraint true) is also matched by the
// earlier rule with its constraint true; it may miss shadowing that needs real reasoning.
#include "internal.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <optgrammar/dsl/str.hpp>

namespace og_parse::detail {
namespace {

constexpr std::size_t max_earlier = 256;  // earlier rules compared per rule (keeps lint linear)

void constraint_tags(const Node* n, std::vector<std::string_view>& out) {
  if (n->kind == NodeKind::string && n->type == ValueType::opref && n->text != "*") out.push_back(n->text);
  for (const Node* a : n->args) constraint_tags(a, out);
}

bool is_call(const Node* n, std::string_view name) { return n->kind == NodeKind::call && n->text == name; }

/// The identity of the node at a position of the later match: its tag, or "" (anonymous).
std::string_view key_of(const Node* b) {
  if (b->kind == NodeKind::string && b->type == ValueType::tag) return b->text;
  if (is_call(b, "LET")) return b->args[0]->text;
  return {};
}

using TagMap = std::vector<std::pair<std::string_view, std::string_view>>;

bool bind(TagMap& m, std::string_view tag, std::string_view key) {
  for (const auto& [t, k] : m)
    if (t == tag) return !key.empty() && k == key;  // a repeated tag needs the very same node
  m.emplace_back(tag, key);
  return true;
}

/// Does pattern `a` (earlier rule) match every node that pattern `b` (later rule) matches?
bool general(const Node* a, const Node* b, TagMap& m) {
  if (a->type == ValueType::wildcard) return true;
  if (a->kind == NodeKind::string) return bind(m, a->text, key_of(b));
  if (is_call(a, "LET")) {
    if (!bind(m, a->args[0]->text, key_of(b))) return false;
    a = a->args[1];
  }
  if (is_call(b, "LET")) b = b->args[1];
  if (b->kind != NodeKind::call) return false;  // b matches any operand, a needs an op
  if (a->args[0]->text != b->args[0]->text) return false;
  const std::size_t na = a->args.size(), nb = b->args.size();
  if (is_call(a, "Op")) {
    if (!is_call(b, "Op") || na != nb) return false;
  } else if (nb < na) {
    return false;
  }
  for (std::size_t i = 1; i < na; ++i)
    if (!general(a->args[i], b->args[i], m)) return false;
  return true;
}

/// Structural equality: the same canonical text.
bool same(const Node* a, const Node* b) {
  if (a == b) return true;
  if (a->kind != b->kind || a->type != b->type || a->args.size() != b->args.size() || a->ival != b->ival ||
      a->fval != b->fval || a->bval != b->bval || a->is_size != b->is_size || a->text != b->text)
    return false;
  for (std::size_t i = 0; i < a->args.size(); ++i)
    if (!same(a->args[i], b->args[i])) return false;
  return true;
}

}  // namespace

void lint_rules(Session& s) {
  auto& rules = s.mutable_rules();
  // Each rule's group (its pass, its root op), read here in one pass over the rules: their nodes
  // are far apart in memory, and reads that do not wait on each other overlap.
  std::vector<std::pair<int, std::string_view>> group(rules.size());
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& r = rules[i];
    if (!r.valid) continue;
    group[i] = {r.pass.priority, r.match->args[0]->text};
    for (const auto& t : r.tags)
      if (t.match_count == 1 && t.use_count == 0)
        s.diag(t.loc, Severity::warning, fmt::format("tag \"{}\" is bound by the match but never used", t.tag));
  }

  struct KeyHash {
    std::size_t operator()(const std::pair<int, std::string_view>& k) const noexcept {
      return std::hash<std::string_view>{}(k.second) * 31 + static_cast<std::size_t>(k.first);
    }
  };
  // The rules of a group (same pass, same root op) in the order below, as a list from the last one
  // back: the latest rule of each group, and each rule's predecessor in its group.
  constexpr std::size_t none = ~std::size_t{0};
  std::unordered_map<std::pair<int, std::string_view>, std::size_t, KeyHash> latest;
  latest.reserve(rules.size());
  std::vector<std::size_t> previous(rules.size(), none);
  TagMap m;                             // reused by every comparison
  std::vector<std::string_view> used;   // likewise
  // "Earlier" in the library's documented rule order: file base name, then file, then line.
  std::vector<std::size_t> order(rules.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto base = [&](const Rule& r) { return optgrammar::dsl::file_base_name(s.file_name(r.loc.file)); };
  auto earlier = [&](std::size_t a, std::size_t b) {
    const Rule& x = rules[a];
    const Rule& y = rules[b];
    if (x.loc.file == y.loc.file) return x.loc.offset < y.loc.offset;
    if (base(x) != base(y)) return base(x) < base(y);
    return s.file_name(x.loc.file) < s.file_name(y.loc.file);
  };
  // the rules come in that order already when their files do (one file, or files given in order)
  if (!std::is_sorted(order.begin(), order.end(), earlier)) std::stable_sort(order.begin(), order.end(), earlier);
  for (const std::size_t i : order) {
    const Rule& r = rules[i];
    if (!r.valid) continue;
    const auto slot = latest.try_emplace(group[i], none).first;
    std::size_t compared = 0;
    for (std::size_t e = slot->second; e != none && compared < max_earlier; e = previous[e], ++compared) {
      const Rule& q = rules[e];
      // structural comparisons stop at the first difference, which is usually near the top
      const bool same_constraint = same(q.constraint, r.constraint);
      if (same_constraint && same(q.match, r.match) && same(q.replacement, r.replacement)) {
        s.diag(r.loc, Severity::warning, fmt::format("duplicate rule: the same rule is at {}:{}", s.file_name(q.loc.file), q.line));
        break;
      }
      if (q.external_replace) continue;  // it may leave the op in place
      const bool always = q.constraint->kind == NodeKind::boolean && q.constraint->bval;
      if (!always && !same_constraint) continue;
      m.clear();
      if (!general(q.match, r.match, m)) continue;
      if (!always) {
        used.clear();
        constraint_tags(q.constraint, used);
        bool same = true;
        for (const auto& t : used) {
          bool mapped_to_itself = false;
          for (const auto& [tag, key] : m) mapped_to_itself = mapped_to_itself || (tag == t && key == t);
          same = same && mapped_to_itself;
        }
        if (!same) continue;
      }
      s.diag(r.loc, Severity::warning,
             fmt::format("rule can never fire: the earlier rule at {}:{} (same pass, same root op) has a match and "
                         "constraint at least as general",
                         s.file_name(q.loc.file), q.line));
      break;
    }
    previous[i] = slot->second;
    slot->second = i;
  }
}

}  // namespace og_parse::detail
