// Lint: tags bound but never used, duplicate rules, rules shadowed by an earlier, more general
// rule of the same pass and root op. The generality test is a sound approximation: when it says
// "shadowed", every graph the later rule matches (with its constraint true) is also matched by the
// earlier rule with its constraint true; it may miss shadowing that needs real reasoning.
#include "internal.hpp"

#include <map>
#include <unordered_map>

#include <fmt/format.h>

namespace og_parse::detail {
namespace {

constexpr std::size_t max_earlier = 256;  // earlier rules compared per rule (keeps lint linear)

bool contains_call(const Node* n, std::string_view name) {
  if (n->kind == NodeKind::call && n->text == name) return true;
  for (const Node* a : n->args)
    if (contains_call(a, name)) return true;
  return false;
}

void constraint_tags(const Node* n, std::vector<std::string>& out) {
  if (n->kind == NodeKind::string && n->type == ValueType::opref && n->text != "*") out.push_back(n->text);
  for (const Node* a : n->args) constraint_tags(a, out);
}

bool is_call(const Node* n, std::string_view name) { return n->kind == NodeKind::call && n->text == name; }

/// The identity of the node at a position of the later match: its tag, or "" (anonymous).
std::string key_of(const Node* b) {
  if (b->kind == NodeKind::string && b->type == ValueType::tag) return b->text;
  if (is_call(b, "LET")) return b->args[0]->text;
  return {};
}

using TagMap = std::unordered_map<std::string, std::string>;

bool bind(TagMap& m, const std::string& tag, const std::string& key) {
  auto [it, fresh] = m.emplace(tag, key);
  if (fresh) return true;
  return !key.empty() && it->second == key;  // a repeated tag needs the very same node
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

}  // namespace

void lint_rules(Session& s) {
  auto& rules = s.mutable_rules();
  for (const auto& r : rules) {
    if (!r.valid) continue;
    for (const auto& t : r.tags)
      if (t.match_count == 1 && t.use_count == 0)
        s.diag(t.loc, Severity::warning, fmt::format("tag \"{}\" is bound by the match but never used", t.tag));
  }

  struct Facts {
    std::string match, constraint, replacement;
  };
  std::vector<Facts> facts(rules.size());
  std::map<std::pair<int, std::string>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& r = rules[i];
    if (!r.valid) continue;
    append_canonical(facts[i].match, r.match);
    append_canonical(facts[i].constraint, r.constraint);
    append_canonical(facts[i].replacement, r.replacement);
    auto& g = groups[{r.pass.priority, r.match->args[0]->text}];
    const std::size_t first = g.size() > max_earlier ? g.size() - max_earlier : 0;
    for (std::size_t gi = g.size(); gi-- > first;) {
      const std::size_t e = g[gi];
      const Rule& q = rules[e];
      const auto where = fmt::format("{}:{}", s.file_name(q.loc.file), q.line);
      if (facts[e].match == facts[i].match && facts[e].constraint == facts[i].constraint &&
          facts[e].replacement == facts[i].replacement) {
        s.diag(r.loc, Severity::warning, fmt::format("duplicate rule: the same rule is at {}", where));
        break;
      }
      if (contains_call(q.replacement, "EXTERNAL_REPLACE")) continue;  // it may leave the op in place
      const bool always = q.constraint->kind == NodeKind::boolean && q.constraint->bval;
      if (!always && facts[e].constraint != facts[i].constraint) continue;
      TagMap m;
      if (!general(q.match, r.match, m)) continue;
      if (!always) {
        std::vector<std::string> used;
        constraint_tags(q.constraint, used);
        bool same = true;
        for (const auto& t : used) {
          auto it = m.find(t);
          same = same && it != m.end() && it->second == t;
        }
        if (!same) continue;
      }
      s.diag(r.loc, Severity::warning,
             fmt::format("rule can never fire: the earlier rule at {} (same pass, same root op) has a match and "
                         "constraint at least as general",
                         where));
      break;
    }
    g.push_back(i);
  }
}

}  // namespace og_parse::detail
