// A rule as data at run time: its canonical text (RuleInfo::canonical, docs/canonical-form.md)
// read back into its nodes, in preorder, with each node's construct, values and type. What
// --why-not and --verify read of a rule's structure: the match pattern, the constraint's terms
// and the ops the replacement makes. Reading the text the rule registers costs a rule nothing at
// compile time, and works for every rule of a loaded package.
#pragma once

#include <optgrammar/dsl/node.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace og_opt {

using optgrammar::dsl::Kind;
using optgrammar::dsl::VType;

/// One node of a rule (dsl/node.hpp's construct kinds; the values as the canonical text writes them).
struct RuleNode {
  Kind kind = Kind::Tag;
  std::uint32_t n = 0;    ///< operand count
  std::uint32_t end = 0;  ///< the index after its subtree: operand 0 is at i + 1, each next at the previous one's end
  std::string str;        ///< op name, operand tag, option name, split tag, function or tensor-class name, MESSAGE text
  long long value = 0;    ///< Bool, Int, Size, DTypeConst
  double real = 0;        ///< Float
  VType type = VType::Bad;
  std::size_t text_begin = 0, text_end = 0;  ///< where it is in the canonical text
};

/// A rule read from its canonical text.
struct RuleTree {
  std::string canonical;
  std::string pass, flags;
  std::vector<RuleNode> nodes;
  std::uint32_t match = 0, constraint = 0, replacement = 0;  ///< the parts' roots

  const RuleNode& operator[](std::uint32_t i) const { return nodes[i]; }
  /// Operand k of node i.
  std::uint32_t kid(std::uint32_t i, std::uint32_t k) const {
    std::uint32_t c = i + 1;
    while (k-- > 0) c = nodes[c].end;
    return c;
  }
  /// Node i as the canonical text writes it.
  std::string_view text(std::uint32_t i) const {
    return std::string_view(canonical).substr(nodes[i].text_begin, nodes[i].text_end - nodes[i].text_begin);
  }
};

class RuleTextError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace rule_tree_detail {

/// The construct kind whose name (dsl::kind_name) is `name`, or Kind::Count_.
inline Kind kind_named(std::string_view name) {
  for (std::size_t k = optgrammar::dsl::first_construct_kind; k < static_cast<std::size_t>(Kind::Count_); ++k)
    if (optgrammar::dsl::kind_name(static_cast<Kind>(k)) == name) return static_cast<Kind>(k);
  return Kind::Count_;
}

/// Where a construct keeps a string operand as its value rather than as an operand node: the
/// position of that string among what the text writes (-1: last), or none.
inline int string_slot(Kind k) {
  using optgrammar::dsl::typing_of;
  switch (k) {
    case Kind::Op:
    case Kind::OpVarIn:
    case Kind::Let:
    case Kind::WrapOp:
    case Kind::WrapOpAlways:
    case Kind::LayoutChunksize: return 0;
    case Kind::IsOp:
    case Kind::ProducerFor:
    case Kind::IterInputOf: return -1;
    case Kind::AutosplitShapefnApply:
    case Kind::TypicalConvSlice: return 1;
    default: return typing_of(k).regular() && typing_of(k).names() > 0 ? 0 : -2;
  }
}

class Reader {
 public:
  explicit Reader(RuleTree& t) : t_(t), s_(t.canonical) {}

  void rule() {
    std::string_view head = name();
    const bool flagged = head == "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS";
    if (!flagged && head != "DEF_PACKAGE_OPTIMIZATION") fail("a rule starts with DEF_PACKAGE_OPTIMIZATION");
    expect('(');
    t_.pass = std::string(until_comma());
    expect(',');
    if (flagged) {
      t_.flags = std::string(until_comma());
      expect(',');
    }
    t_.match = term();
    expect(',');
    t_.constraint = term();
    expect(',');
    t_.replacement = term();
    expect(')');
    if (p_ != s_.size()) fail("text after the rule");
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw RuleTextError("canonical text, at " + std::to_string(p_) + ": " + why + ": " + std::string(s_));
  }
  void expect(char c) {
    if (p_ >= s_.size() || s_[p_] != c) fail(std::string("expected '") + c + "'");
    ++p_;
  }
  static bool name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  }
  std::string_view name() {
    const std::size_t b = p_;
    while (p_ < s_.size() && name_char(s_[p_])) ++p_;
    return s_.substr(b, p_ - b);
  }
  std::string_view until_comma() {
    const std::size_t b = p_;
    while (p_ < s_.size() && s_[p_] != ',') ++p_;
    return s_.substr(b, p_ - b);
  }
  /// A string constant: op names and tags are written as they are, MESSAGE's text with escapes.
  std::string quoted() {
    expect('"');
    std::string v;
    while (p_ < s_.size() && s_[p_] != '"') {
      char c = s_[p_++];
      if (c == '\\' && p_ < s_.size()) {
        const char e = s_[p_++];
        if (e == 'n') c = '\n';
        else if (e == 't') c = '\t';
        else if (e == 'x' && p_ + 2 <= s_.size()) {
          c = static_cast<char>(std::strtol(std::string(s_.substr(p_, 2)).c_str(), nullptr, 16));
          p_ += 2;
        } else c = e;
      }
      v += c;
    }
    expect('"');
    return v;
  }
  std::uint32_t add(Kind k, std::size_t begin) {
    t_.nodes.push_back(RuleNode{});
    t_.nodes.back().kind = k;
    t_.nodes.back().text_begin = begin;
    return static_cast<std::uint32_t>(t_.nodes.size() - 1);
  }
  void finish(std::uint32_t i, std::size_t end) {
    RuleNode& n = t_.nodes[i];
    n.end = static_cast<std::uint32_t>(t_.nodes.size());
    n.text_end = end;
    VType kids[64];
    std::uint32_t c = i + 1;
    for (std::uint32_t k = 0; k < n.n && k < 64; ++k, c = t_.nodes[c].end) {
      kids[k] = t_.nodes[c].type;
      // An external function's name stands for its result, which the text does not say: what its
      // construct takes (a constraint's value is read as a bool, a shape function gives a shape).
      if (t_.nodes[c].kind == Kind::FnName) kids[k] = n.kind == Kind::ExternalConstraint ? VType::Bool : VType::Shape;
    }
    n.type = optgrammar::dsl::detail::type_of(n.kind, kids, n.n < 64 ? n.n : 64);
  }
  /// One term: a constant, a string, a function name or a construct with its operands.
  std::uint32_t term() {
    const std::size_t b = p_;
    if (p_ >= s_.size()) fail("expected a term");
    const char c = s_[p_];
    if (c == '"') {
      const std::uint32_t i = add(Kind::Tag, b);
      t_.nodes[i].str = quoted();
      finish(i, p_);
      return i;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(b);
    const std::string_view w = name();
    if (w.empty()) fail("expected a term");
    if (w == "true" || w == "false") {
      const std::uint32_t i = add(Kind::Bool, b);
      t_.nodes[i].value = w == "true";
      finish(i, p_);
      return i;
    }
    if (w == "INF" || w == "NEG_INF" || w == "nanf") {
      const std::uint32_t i = add(Kind::Float, b);
      t_.nodes[i].real = w == "INF" ? HUGE_VAL : w == "NEG_INF" ? -HUGE_VAL : std::nan("");
      finish(i, p_);
      return i;
    }
    if (w == "DType" && s_.substr(p_, 2) == "::") {
      p_ += 2;
      const auto d = optgrammar::parse_dtype(name());
      if (!d) fail("unknown DType");
      const std::uint32_t i = add(Kind::DTypeConst, b);
      t_.nodes[i].value = static_cast<long long>(*d);
      finish(i, p_);
      return i;
    }
    if (p_ >= s_.size() || s_[p_] != '(') {  // an external function's name
      const std::uint32_t i = add(Kind::FnName, b);
      t_.nodes[i].str = std::string(w);
      finish(i, p_);
      return i;
    }
    const Kind k = kind_named(w);
    if (k == Kind::Count_) fail("unknown construct " + std::string(w));
    const std::uint32_t i = add(k, b);
    expect('(');
    const int slot = string_slot(k);
    std::vector<std::string> strings;
    int written = 0;
    while (p_ < s_.size() && s_[p_] != ')') {
      if (written > 0) expect(',');
      const bool is_string_slot =
          (slot >= 0 && written == slot) || (slot == -1 && p_ < s_.size() && last_operand_ahead());
      if (is_string_slot) {
        t_.nodes[i].str = k == Kind::LayoutChunksize ? std::string(name()) : quoted();
      } else {
        term();
        ++t_.nodes[i].n;
      }
      ++written;
    }
    expect(')');
    finish(i, p_);
    if (k == Kind::Message && t_.nodes[i].n > 0) t_.nodes[i + 1].kind = Kind::MessageText;  // its text is no tag
    return i;
  }
  /// Whether the operand that starts here is the last one of its construct.
  bool last_operand_ahead() const {
    int depth = 0;
    bool in_string = false;
    for (std::size_t q = p_; q < s_.size(); ++q) {
      const char c = s_[q];
      if (in_string) {
        if (c == '\\') ++q;
        else if (c == '"') in_string = false;
      } else if (c == '"') in_string = true;
      else if (c == '(') ++depth;
      else if (c == ')') {
        if (depth-- == 0) return true;
      } else if (c == ',' && depth == 0) return false;
    }
    return true;
  }
  std::uint32_t number(std::size_t b) {
    std::size_t e = p_;
    if (s_[e] == '-') ++e;
    while (e < s_.size() && (name_char(s_[e]) || s_[e] == '.' || ((s_[e] == '-' || s_[e] == '+') && (s_[e - 1] == 'e' || s_[e - 1] == 'E'))))
      ++e;
    const std::string text(s_.substr(p_, e - p_));
    p_ = e;
    if (text.back() == 'f' && text.find_first_of(".en") != std::string::npos) {
      const std::uint32_t i = add(Kind::Float, b);
      t_.nodes[i].real = std::strtod(text.c_str(), nullptr);
      finish(i, p_);
      return i;
    }
    const bool size = text.back() == 'U';
    const std::uint32_t i = add(size ? Kind::Size : Kind::Int, b);
    t_.nodes[i].value = size ? static_cast<long long>(std::strtoull(text.c_str(), nullptr, 10)) : std::strtoll(text.c_str(), nullptr, 10);
    finish(i, p_);
    return i;
  }

  RuleTree& t_;
  std::string_view s_;
  std::size_t p_ = 0;
};

}  // namespace rule_tree_detail

/// Reads a rule's canonical text (RuleInfo::canonical, without the "file:line: " prefix). Throws
/// RuleTextError when it is not one.
inline RuleTree read_rule(std::string_view canonical) {
  RuleTree t;
  t.canonical = std::string(canonical);
  rule_tree_detail::Reader(t).rule();
  return t;
}

}  // namespace og_opt
