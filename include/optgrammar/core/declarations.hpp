// Package declarations besides ops and rules: tensor properties of ops (DEF_TENSOR_PROPERTIES,
// whose macro and compile-time check are in package/tensor_properties.hpp), the order of an op's
// parameters (DEF_PACKAGE_PARAM_ORDER) and tensor classes' chunk sizes (LAYOUT_CHUNKSIZE). Each is
// recorded at static initialization in a registry that can be queried.
//
//   DEF_PACKAGE_PARAM_ORDER("Conv2d", "stride", true, nullptr, "pad", false, nullptr)
// (the macro is package/tensor_properties.hpp's, which checks its form).
#pragma once

#include "optgrammar/core/registry.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace optgrammar {

// ---- tensor properties ------------------------------------------------------------------------
/// One property of a DEF_TENSOR_PROPERTIES: `MainMemory("w", "b")`.
struct TensorProperty {
  std::string name;
  std::vector<std::string> operands;
};
/// One DEF_TENSOR_PROPERTIES declaration.
struct TensorProperties {
  std::string op;
  std::vector<std::string> operands;  ///< the Op(...)'s operand names, in order
  /// Outputs("a", "b") right after the Op: the names of its outputs, in order (empty: the output
  /// is only "*"). "*" still names every output.
  std::vector<std::string> outputs;
  std::vector<TensorProperty> properties;
  const char* file = "";
  int line = 0;
  /// The properties that name `operand` ("*" is the op's output).
  std::vector<std::string> of(std::string_view operand) const {
    std::vector<std::string> r;
    for (const auto& p : properties)
      for (const auto& o : p.operands)
        if (o == operand) r.push_back(p.name);
    return r;
  }
  bool has(std::string_view property, std::string_view operand) const {
    for (const auto& p : properties)
      if (p.name == property)
        for (const auto& o : p.operands)
          if (o == operand) return true;
    return false;
  }
  /// The name that stands for input `i` of an op: its operand name, or "..." (the last operand
  /// of Op(...), which stands for itself and every later input); "" when there is none.
  std::string_view input_name(std::size_t i) const {
    if (i < operands.size() && operands[i] != "...") return operands[i];
    if (!operands.empty() && operands.back() == "..." && i + 1 >= operands.size()) return operands.back();
    return {};
  }
  /// The properties of input `i` (through "..." for the inputs it covers). When the Op has no
  /// "...", a property naming "..." applies to the inputs that no other property singles out: a
  /// property singles out the inputs it names unless it names all of them. So with
  /// `Op("A", "q", "k")`, `Flat("*", "q", "k"), Tcm("*", "q"), MainMemory("...")`, q is Flat and
  /// Tcm, k is Flat and MainMemory.
  std::vector<std::string> of_input(std::size_t i) const {
    const std::string_view n = input_name(i);
    if (n.empty()) return {};
    std::vector<std::string> r = of(n);
    if (n == "..." || (!operands.empty() && operands.back() == "...")) return r;  // the Op's own "..."
    auto names = [](const TensorProperty& p, std::string_view o) {
      return std::ranges::find(p.operands, o) != p.operands.end();
    };
    const bool singled_out = std::ranges::any_of(properties, [&](const TensorProperty& p) {
      return names(p, n) && !names(p, "...") &&
             !std::ranges::all_of(operands, [&](const std::string& in) { return names(p, in); });
    });
    if (singled_out) return r;
    for (const auto& p : properties)
      if (names(p, "...") && std::ranges::find(r, p.name) == r.end()) r.push_back(p.name);
    return r;
  }
  /// The properties of output `i`: those naming "*" and those naming its Outputs(...) name.
  std::vector<std::string> of_output(std::size_t i) const {
    std::vector<std::string> r;
    for (const auto& p : properties)
      for (const auto& o : p.operands)
        if (o == "*" || (i < outputs.size() && o == outputs[i])) {
          r.push_back(p.name);
          break;
        }
    return r;
  }
};

/// Parsing of the declaration's text (its macro arguments, stringified after expansion):
/// `Op("name", "a", ...), Prop("a", ...), ...`. Used at compile time to check the declaration
/// (package/tensor_properties.hpp) and at run time to record it.
namespace detail {
struct PropParser {
  std::string_view t;
  std::size_t i = 0;
  constexpr void skip() {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  }
  constexpr bool eat(char c) {
    skip();
    if (i < t.size() && t[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  constexpr bool ident(std::string_view& out) {
    skip();
    std::size_t b = i;
    while (i < t.size() && (t[i] == '_' || (t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
                            (i > b && t[i] >= '0' && t[i] <= '9')))
      ++i;
    out = t.substr(b, i - b);
    return i > b;
  }
  /// A string constant; adjacent ones are joined (only their first part is returned when joined,
  /// as tensor names never need it).
  constexpr bool string(std::string_view& out) {
    skip();
    if (i >= t.size() || t[i] != '"') return false;
    std::size_t b = ++i;
    while (i < t.size() && t[i] != '"') ++i;
    if (i >= t.size()) return false;
    out = t.substr(b, i - b);
    ++i;
    return !out.empty();
  }
  /// NAME("a", "b", ...) calling f(name, operand) for each operand; false on bad syntax.
  template <class F>
  constexpr bool call(std::string_view& name, F&& f) {
    if (!ident(name) || !eat('(')) return false;
    if (eat(')')) return true;
    do {
      std::string_view s;
      if (!string(s)) return false;
      f(s);
    } while (eat(','));
    return eat(')');
  }
};

inline TensorProperties parse_tensor_properties(std::string_view text) {
  TensorProperties tp;
  PropParser p{text};
  std::string_view name;
  bool first = true;
  p.call(name, [&](std::string_view s) {
    if (first)
      tp.op = std::string(s);
    else
      tp.operands.emplace_back(s);
    first = false;
  });
  while (p.eat(',')) {
    TensorProperty prop;
    p.call(name, [&](std::string_view s) { prop.operands.emplace_back(s); });
    prop.name = std::string(name);
    if (prop.name == "Outputs")
      tp.outputs = std::move(prop.operands);
    else
      tp.properties.push_back(std::move(prop));
  }
  return tp;
}
}  // namespace detail

class TensorPropertyRegistry {
 public:
  static TensorPropertyRegistry& instance() {
    static TensorPropertyRegistry r;
    return r;
  }
  void add(TensorProperties p) { entries_.push_back(std::move(p)); }
  /// The latest declaration for an op, or nullptr.
  const TensorProperties* find(std::string_view op) const {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
      if (it->op == op) return &*it;
    return nullptr;
  }
  const std::vector<TensorProperties>& entries() const noexcept { return entries_; }

 private:
  std::vector<TensorProperties> entries_;
};

// ---- parameter order ----------------------------------------------------------------------------
struct ParamSpec {
  std::string name;
  bool mandatory = false;
  std::string default_text;  ///< the default as written (usually "nullptr")
};
struct ParamOrder {
  std::string op;
  std::vector<ParamSpec> params;
  const char* file = "";
  int line = 0;
  /// Position of a parameter, or -1.
  int index_of(std::string_view p) const {
    for (std::size_t i = 0; i < params.size(); ++i)
      if (params[i].name == p) return static_cast<int>(i);
    return -1;
  }
};

class ParamOrderRegistry {
 public:
  static ParamOrderRegistry& instance() {
    static ParamOrderRegistry r;
    return r;
  }
  void add(ParamOrder p) { entries_.push_back(std::move(p)); }
  const ParamOrder* find(std::string_view op) const {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
      if (it->op == op) return &*it;
    return nullptr;
  }
  const std::vector<ParamOrder>& entries() const noexcept { return entries_; }

 private:
  std::vector<ParamOrder> entries_;
};

// ---- tensor classes (LAYOUT_CHUNKSIZE) ------------------------------------------------------
/// Chunk sizes (elements per storage chunk) of tensor classes. LAYOUT_CHUNKSIZE(Cls, n) is n
/// rounded up to a multiple of Cls's chunk size. Known from the start: Flat (1), Crouton (2048,
/// 8x8x32 bytes), Crouton16 (1024), WideCrouton (2048); packages add their own.
class TensorClasses {
 public:
  static TensorClasses& instance() {
    static TensorClasses r;
    return r;
  }
  void add(std::string name, std::size_t chunk) {
    for (auto& e : entries_)
      if (e.first == name) {
        e.second = chunk;
        return;
      }
    entries_.emplace_back(std::move(name), chunk);
  }
  std::optional<std::size_t> chunk(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.first == name) return e.second;
    return std::nullopt;
  }

 private:
  TensorClasses() {
    add("Flat", 1);
    add("Crouton", 2048);
    add("Crouton16", 1024);
    add("WideCrouton", 2048);
  }
  std::vector<std::pair<std::string, std::size_t>> entries_;
};

namespace detail {
struct TensorPropertiesRegistrar {
  TensorPropertiesRegistrar(const char* text, const char* file, int line) {
    TensorProperties p = parse_tensor_properties(text);
    p.file = file;
    p.line = line;
    TensorPropertyRegistry::instance().add(std::move(p));
  }
};

/// Splits "a, f(b, c), d" at top-level commas (strings and parentheses respected).
inline std::vector<std::string> split_args(std::string_view t) {
  std::vector<std::string> out;
  int depth = 0;
  bool str = false;
  std::string cur;
  for (std::size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (str) {
      cur += c;
      if (c == '\\' && i + 1 < t.size())
        cur += t[++i];
      else if (c == '"')
        str = false;
      continue;
    }
    if (c == '"') str = true;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  for (auto& s : out) {
    auto b = s.find_first_not_of(" \t\n\r");
    auto e = s.find_last_not_of(" \t\n\r");
    s = b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  }
  return out;
}

struct ParamOrderRegistrar {
  template <class... A>
  ParamOrderRegistrar(const char* op, const char* text, const char* file, int line, const A&... a) {
    ParamOrder po;
    po.op = op;
    po.file = file;
    po.line = line;
    std::vector<std::string> texts = split_args(text);
    std::size_t k = 0;
    (add(po, texts, k++, a), ...);
    ParamOrderRegistry::instance().add(std::move(po));
  }

 private:
  template <class T>
  static void add(ParamOrder& po, const std::vector<std::string>& texts, std::size_t k, const T& v) {
    if (k % 3 == 0) {
      if constexpr (!std::is_same_v<T, std::nullptr_t> && std::is_convertible_v<const T&, std::string_view>)
        po.params.push_back({std::string(std::string_view(v)), false, ""});
    } else if (k % 3 == 1) {
      if constexpr (std::is_arithmetic_v<T>) po.params.back().mandatory = v != T{};
    } else {
      po.params.back().default_text = k < texts.size() ? texts[k] : std::string();
    }
  }
};
}  // namespace detail
}  // namespace optgrammar

/// DEF_PACKAGE_PARAM_ORDER("Conv2d", "stride", true, nullptr, "pad", false, nullptr), without the
/// check of its form (package/tensor_properties.hpp's DEF_PACKAGE_PARAM_ORDER, which the headers for
/// packages use, checks it first).
#define OPTGRAMMAR_PARAM_ORDER_REGISTER_(NAME, OP, ...)                                                        \
  static const ::optgrammar::detail::ParamOrderRegistrar NAME{OP, OPTGRAMMAR_STRINGIFY(__VA_ARGS__), __FILE__, \
                                                              __LINE__, __VA_ARGS__};
