// A rule's short pattern for the reports: what it matches and what it makes, read off its
// canonical form (docs/canonical-form.md), e.g.
//   DEF_PACKAGE_OPTIMIZATION(EARLY,Op("Relu",LET("r",Op("Relu","x"))),true,"r")
// is "Relu(Relu(x)) -> r". The constraint is left out; the full form stays in --list-rules,
// --verbose and the report files.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace og_opt {

/// One term of a canonical form: a call `head(args...)`, or a leaf (a string with its quotes, a
/// number, a name) when it has no argument list.
struct Term {
  std::string head;
  bool call = false;
  std::vector<Term> args;
};

/// Parses one term of canonical text at `pos` (moved past it). Strings keep their quotes and
/// escapes; the text is trusted to be canonical (the library printed it), and what does not parse
/// ends the term where it stops.
inline Term parse_term(std::string_view s, std::size_t& pos) {
  Term t;
  if (pos < s.size() && s[pos] == '"') {
    const std::size_t b = pos++;
    while (pos < s.size() && s[pos] != '"') pos += s[pos] == '\\' ? 2 : 1;
    pos = std::min(pos + 1, s.size());
    t.head = std::string(s.substr(b, pos - b));
    return t;
  }
  const std::size_t b = pos;
  while (pos < s.size() && s[pos] != '(' && s[pos] != ')' && s[pos] != ',') ++pos;
  t.head = std::string(s.substr(b, pos - b));
  if (pos < s.size() && s[pos] == '(') {
    t.call = true;
    ++pos;
    while (pos < s.size() && s[pos] != ')') {
      t.args.push_back(parse_term(s, pos));
      if (pos < s.size() && s[pos] == ',')
        ++pos;
      else if (pos < s.size() && s[pos] != ')')
        break;  // (not canonical)
    }
    if (pos < s.size() && s[pos] == ')') ++pos;
  }
  return t;
}

/// The term as a pattern: `Op("Name",a,b)` and `OpVarIn("Name",a)` as `Name(a,b)`, a `LET`
/// binding as the term it binds, an operand tag `"x"` as `x`, other constructs as written.
/// Calls nested deeper than `depth` are written `Name(…)`.
inline std::string pattern_text(const Term& t, int depth) {
  auto unquote = [](const std::string& h) {
    return h.size() >= 2 && h.front() == '"' && h.back() == '"' ? h.substr(1, h.size() - 2) : h;
  };
  if (!t.call) return unquote(t.head);
  if (t.head == "LET" && t.args.size() == 2) return pattern_text(t.args[1], depth);
  std::string head = t.head;
  std::size_t first = 0;
  if ((t.head == "Op" || t.head == "OpVarIn") && !t.args.empty()) {
    head = unquote(t.args[0].head);
    first = 1;
  }
  if (t.args.size() == first) return head;  // Op("$Const")
  if (depth <= 0) return head + "(…)";
  std::string out = head + "(";
  for (std::size_t k = first; k < t.args.size(); ++k)
    out += (k > first ? "," : "") + pattern_text(t.args[k], depth - 1);
  return out + ")";
}

/// How deep the calls of a term nest (a leaf: 0), as pattern_text counts them.
inline int depth_of(const Term& t) {
  if (!t.call) return 0;
  if (t.head == "LET" && t.args.size() == 2) return depth_of(t.args[1]);
  int d = 0;
  for (const Term& a : t.args) d = std::max(d, depth_of(a));
  return d + 1;
}

/// The parts of a canonical rule: pass, flags (empty without), match, constraint, replacement.
struct RuleParts {
  std::vector<Term> parts;
  bool ok = false;
  const Term& match() const { return parts[parts.size() - 3]; }
  const Term& replacement() const { return parts.back(); }
};

inline RuleParts rule_parts(std::string_view canonical) {
  std::size_t pos = 0;
  RuleParts r;
  Term whole = parse_term(canonical, pos);
  if (!whole.call || whole.args.size() < 4) return r;
  r.parts = std::move(whole.args);
  r.ok = true;
  return r;
}

/// The rule as `match -> replacement`, at most `width` characters (counting "…" as one): nested
/// calls are cut to `Name(…)` from the deepest level up, on the longer side first, until it fits,
/// and the text is cut at the end as a last resort. The canonical form itself when it does not parse as a rule.
inline std::string short_pattern(std::string_view canonical, std::size_t width = 100) {
  const RuleParts r = rule_parts(canonical);
  auto length = [](const std::string& s) {  // in characters: "…" is three bytes of UTF-8
    std::size_t n = 0;
    for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
  };
  auto cut = [&](std::string s) {
    if (length(s) <= width) return s;
    std::string out;
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const bool starts = (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
      if (starts && ++n == width) break;
      out += s[i];
    }
    return out + "…";
  };
  if (!r.ok) return cut(std::string(canonical));
  // The side that is longer loses a level first, so that a long match does not cut a short
  // replacement (or the other way round).
  int dm = 64, dr = 64;
  for (;;) {
    const std::string m = pattern_text(r.match(), dm), rep = pattern_text(r.replacement(), dr);
    const std::string text = m + " -> " + rep;
    if (length(text) <= width || (dm == 0 && dr == 0)) return cut(text);
    if ((length(m) >= length(rep) && dm > 0) || dr == 0)
      dm = std::min(dm, depth_of(r.match())) - 1;
    else
      dr = std::min(dr, depth_of(r.replacement())) - 1;
  }
}

}  // namespace og_opt
