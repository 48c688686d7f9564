// Lint: tags bound but never used, duplicate rules, rules shadowed by an earlier, more general
// rule of the same pass and root op. The generality test is a sound approximation: when it says
// "shadowed", every graph the later rule matches (with its constraint true) is also matched by the
// earlier rule with its constraint true; it may miss shadowing that needs real reasoning. Lint
// reads each rule's Rule::LintFacts (its match, its constraint's tags, a hash of each part), not
// its nodes, which a run need not keep.
#include "internal.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <optgrammar/dsl/str.hpp>

namespace og_parse::detail {
namespace {

constexpr std::size_t max_earlier = 256;  // earlier rules compared per rule (keeps lint linear)

using optgrammar::dsl::Kind;
using MatchNode = Rule::LintFacts::MatchNode;

/// The operands of match node i, in order.
struct Operands {
  const MatchNode* nodes;
  std::uint32_t i;
  std::uint32_t operator[](std::uint32_t j) const { return optgrammar::dsl::operand_at(nodes, i, j); }
};

/// The identity of the node at a position of the later match: its tag, or "" (anonymous).
std::string_view key_of(const MatchNode& b) {
  if ((b.kind == Kind::Tag && !b.wildcard) || b.kind == Kind::Let) return b.str();
  return {};
}

using TagMap = std::vector<std::pair<std::string_view, std::string_view>>;

bool bind(TagMap& m, std::string_view tag, std::string_view key) {
  for (const auto& [t, k] : m)
    if (t == tag) return !key.empty() && k == key;  // a repeated tag needs the very same node
  m.emplace_back(tag, key);
  return true;
}

/// Does pattern node a of the earlier rule's match `an` match every node that pattern node b of
/// the later rule's match `bn` matches?
bool general(const MatchNode* an, std::uint32_t a, const MatchNode* bn, std::uint32_t b, TagMap& m) {
  if (an[a].wildcard) return true;
  if (an[a].kind == Kind::Tag) return bind(m, an[a].str(), key_of(bn[b]));
  if (an[a].kind == Kind::Let) {
    if (!bind(m, an[a].str(), key_of(bn[b]))) return false;
    ++a;
  }
  if (bn[b].kind == Kind::Let) ++b;
  if (bn[b].kind != Kind::Op && bn[b].kind != Kind::OpVarIn) return false;  // b matches any operand, a needs an op
  if (an[a].str() != bn[b].str()) return false;
  const std::uint32_t na = an[a].n, nb = bn[b].n;
  if (an[a].kind == Kind::Op) {
    if (bn[b].kind != Kind::Op || na != nb) return false;
  } else if (nb < na) {
    return false;
  }
  const Operands ka{an, a}, kb{bn, b};
  for (std::uint32_t i = 0; i < na; ++i)
    if (!general(an, ka[i], bn, kb[i], m)) return false;
  return true;
}

}  // namespace

void lint_rules(Session& s) {
  auto& rules = s.mutable_rules();
  for (const Rule& r : rules) {
    if (!r.valid) continue;
    for (const auto& t : r.tags)
      if (t.match_count == 1 && t.use_count == 0)
        s.diag(t.loc, Severity::warning, fmt::format("tag \"{}\" is bound by the match but never used", t.tag));
  }

  // "Earlier" in the library's documented rule order: file base name, then file, then line.
  std::vector<std::uint32_t> order(rules.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  auto base = [&](const Rule& r) { return optgrammar::dsl::file_base_name(s.file_name(r.loc.file)); };
  auto earlier = [&](std::uint32_t a, std::uint32_t b) {
    const Rule& x = rules[a];
    const Rule& y = rules[b];
    if (x.loc.file == y.loc.file) return x.loc.offset < y.loc.offset;
    if (base(x) != base(y)) return base(x) < base(y);
    return s.file_name(x.loc.file) < s.file_name(y.loc.file);
  };
  // the rules come in that order already when their files do (one file, or files given in order)
  if (!std::is_sorted(order.begin(), order.end(), earlier)) std::stable_sort(order.begin(), order.end(), earlier);
  // The rules of a group (same pass, same root op) in that order, as a list from the last one back:
  // each rule's predecessor in its group. The valid rules sorted by group, in that order within
  // each (a stable sort), give it with 4 bytes a rule and no table of the groups.
  constexpr std::uint32_t none = ~std::uint32_t{0};
  std::vector<std::uint32_t> previous(rules.size(), none);
  {
    const auto group = [&](std::uint32_t i) {
      return std::pair<int, std::string_view>(rules[i].pass.priority, rules[i].lint.match[0].str());
    };
    std::vector<std::uint32_t> by_group;
    by_group.reserve(rules.size());
    for (const std::uint32_t i : order)
      if (rules[i].valid) by_group.push_back(i);
    std::stable_sort(by_group.begin(), by_group.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return group(a) < group(b); });
    for (std::size_t k = 1; k < by_group.size(); ++k)
      if (group(by_group[k]) == group(by_group[k - 1])) previous[by_group[k]] = by_group[k - 1];
  }
  TagMap m;  // reused by every comparison
  for (const std::uint32_t i : order) {
    const Rule& r = rules[i];
    if (!r.valid) continue;
    std::size_t compared = 0;
    for (std::uint32_t e = previous[i]; e != none && compared < max_earlier; e = previous[e], ++compared) {
      const Rule& q = rules[e];
      const Rule::LintFacts& qf = q.lint;
      const Rule::LintFacts& rf = r.lint;
      // equal hashes of the parts' nodes stand for equal parts (Rule::LintFacts)
      const bool same_constraint = qf.constraint_hash == rf.constraint_hash;
      if (same_constraint && qf.match_hash == rf.match_hash && qf.replacement_hash == rf.replacement_hash) {
        s.diag(r.loc, Severity::warning,
               fmt::format("duplicate rule: the same rule is at {}:{}", s.file_name(q.loc.file), q.line));
        break;
      }
      if (q.external_replace) continue;  // it may leave the op in place
      if (!qf.always && !same_constraint) continue;
      m.clear();
      if (!general(qf.match.data(), 0, rf.match.data(), 0, m)) continue;
      if (!qf.always) {
        bool same = true;
        for (const auto& t : qf.constraint_tags) {
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
  }
}

}  // namespace og_parse::detail
