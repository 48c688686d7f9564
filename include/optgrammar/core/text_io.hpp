// The graph text format: line-based, round-trippable, for tests, tools and bug reports. The
// format, an example and its limits are described in docs/graph-text-format.md; the limits and
// their messages in docs/robustness.md. Bad text raises TextError with
// "file:line:col: error: message".
#pragma once

#include "optgrammar/core/element.hpp"
#include "optgrammar/core/graph.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace optgrammar {

class TextError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Live ops in an order where every op follows its inputs.
inline std::vector<OpRef> topological_order(const Graph& g) {
  std::vector<OpRef> order;
  order.reserve(g.live_count());
  std::vector<unsigned char> state(g.size(), 0);
  std::vector<std::pair<OpRef, std::uint32_t>> stack;
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    if (!g.alive(OpRef{i}) || state[i]) continue;
    stack.emplace_back(OpRef{i}, 0);
    state[i] = 1;
    while (!stack.empty()) {
      auto& [r, k] = stack.back();
      if (k < g.n_inputs(r)) {
        OpRef in = g.input(r, k++);
        if (g.alive(in) && !state[in.index]) {
          state[in.index] = 1;
          stack.emplace_back(in, 0);
        }
      } else {
        state[r.index] = 2;
        order.push_back(r);
        stack.pop_back();
      }
    }
  }
  return order;
}

namespace text_detail {
/// v as printf's "%.9g" writes it (std::to_chars in general format with precision 9 is
/// specified to give the same characters, several times faster: large constants are written
/// element by element).
inline std::string_view format_float(double v, char (&buf)[40]) {
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
  return {buf, static_cast<std::size_t>(r.ptr - buf)};
}
inline std::string format_float(double v) {
  char buf[40];
  return std::string(format_float(v, buf));
}
inline void write_type(std::ostream& os, const OutputDef& d) {
  os << dtype_short_name(d.dtype) << '[';
  for (std::uint32_t i = 0; i < d.rank; ++i) os << (i ? "," : "") << d.dims[i];
  os << ']';
  if (is_quantized(d.dtype) || d.zero_offset != 0 || d.stepsize != 1.0f)
    os << "{zero=" << d.zero_offset << ",step=" << format_float(d.stepsize) << '}';
}
/// A string in double quotes, `"` and `\` escaped with a backslash (provenance names).
inline void write_quoted(std::ostream& os, std::string_view v) {
  os << '"';
  for (char c : v) {
    if (c == '"' || c == '\\') os << '\\';
    os << c;
  }
  os << '"';
}
/// The elements are formatted into one buffer and written at once: per-element stream
/// insertions cost more than the formatting for constants of millions of elements.
inline void write_data(std::ostream& os, const OutputDef& d, std::span<const std::byte> bytes) {
  const std::size_t n = d.element_count(), es = element_size(d.dtype);
  std::string text = "data=[";
  text.reserve(text.size() + n * 12 + 1);
  char buf[40];
  for (std::size_t i = 0; i < n; ++i) {
    if (i) text += ',';
    switch (d.dtype) {
      case DType::Float32: text += format_float(element_value(d.dtype, bytes.data(), i), buf); break;
      case DType::Float64: {
        const auto r = std::to_chars(buf, buf + sizeof buf, element_value(d.dtype, bytes.data(), i),
                                     std::chars_format::general, 17);
        text.append(buf, r.ptr);
        break;
      }
      case DType::Float16:
      case DType::BFloat16: {  // the bits, so that every value (NaN payloads too) reads back
        std::uint16_t bits;
        std::memcpy(&bits, bytes.data() + i * es, 2);
        std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(bits));
        text += buf;
        break;
      }
      case DType::UInt64: {
        const auto r =
            std::to_chars(buf, buf + sizeof buf, static_cast<std::uint64_t>(element_int(d.dtype, bytes.data(), i)));
        text.append(buf, r.ptr);
        break;
      }
      default: {
        const auto r = std::to_chars(buf, buf + sizeof buf, element_int(d.dtype, bytes.data(), i));
        text.append(buf, r.ptr);
        break;
      }
    }
  }
  text += ']';
  os.write(text.data(), static_cast<std::streamsize>(text.size()));
}
}  // namespace text_detail

struct WriteOptions {
  /// Constants with more elements than this are written as `data=elided` (0: never elide).
  std::size_t elide_data_over = 0;
  /// Where `side_data_over` is not 0 and `side_data` is given: constants with more elements than
  /// that are written as `data=@OFFSET`, their bytes (as the graph holds them) to `side_data` at
  /// that offset, and the text names the side file `side_data_name` (a path relative to the text's
  /// folder) on a `data_file` line with its size and checksum (docs/graph-text-format.md).
  std::size_t side_data_over = 0;
  std::ostream* side_data = nullptr;
  std::string side_data_name;
  /// Label each op with its index in the graph (`%17`), the number the trace, the verifier and
  /// the DOT pictures use, instead of renumbering densely; the reader takes either.
  bool graph_numbers = false;
};

/// FNV-1a, 64 bits: the side data file's checksum.
inline std::uint64_t fnv1a(std::span<const std::byte> bytes, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (const std::byte b : bytes) h = (h ^ static_cast<std::uint64_t>(b)) * 0x100000001b3ull;
  return h;
}

/// Writes the live part of g. With default options, or with a side data file, read_graph_text
/// gives the graph back.
inline void write_graph_text(std::ostream& os, const Graph& g, const WriteOptions& opt = {}) {
  os << "# optgrammar graph\n";
  std::vector<std::string> names;
  for (const auto& [k, v] : g.options()) names.push_back(k);
  std::sort(names.begin(), names.end());
  for (const auto& k : names) {
    const OptionValue& v = g.options().at(k);
    os << "option " << k << ' ';
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::int64_t>)
            os << "int " << x;
          else if constexpr (std::is_same_v<X, std::uint64_t>)
            os << "uint " << x;
          else if constexpr (std::is_same_v<X, double>)
            os << "float " << text_detail::format_float(x);
          else if constexpr (std::is_same_v<X, bool>)
            os << "bool " << (x ? "true" : "false");
          else
            os << "string \"" << x << '"';
        },
        v);
    os << '\n';
  }
  auto order = topological_order(g);
  std::vector<std::uint32_t> number(g.size(), 0);
  for (std::uint32_t i = 0; i < order.size(); ++i) number[order[i].index] = i;
  // The side file's constants, in the order written: its size and checksum come first.
  const bool side = opt.side_data && opt.side_data_over != 0;
  auto beside = [&](OpRef r) {
    return side && g.is_const(r) && g.output(r).element_count() > opt.side_data_over &&
           !(opt.elide_data_over && g.output(r).element_count() > opt.elide_data_over);
  };
  std::uint64_t side_size = 0, side_sum = fnv1a({});
  for (OpRef r : order)
    if (beside(r)) {
      side_sum = fnv1a(g.payload(r), side_sum);
      side_size += g.payload(r).size();
    }
  if (side_size != 0) {
    char sum[24];
    std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(side_sum));
    os << "data_file \"" << opt.side_data_name << "\" size=" << side_size << " fnv1a=" << sum << '\n';
  }
  std::uint64_t side_at = 0;
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    OpRef r = order[i];
    os << '%' << (opt.graph_numbers ? r.index : i) << " = " << g.name(r) << '(';
    for (std::uint32_t k = 0; k < g.n_inputs(r); ++k) {
      const OpRef in = g.input(r, k);
      os << (k ? ", " : "") << '%' << (opt.graph_numbers ? in.index : number[in.index]);
    }
    os << ") : ";
    text_detail::write_type(os, g.output(r));
    os << " id=" << g.op_id(r);
    const auto& h = g.split_history(r);
    if (!h.empty()) {
      os << " split=[";
      for (std::size_t k = 0; k < h.size(); ++k) os << (k ? "," : "") << h[k];
      os << ']';
    }
    if (g.tracks_origins() && g.origins().of(r.index) != Origins::none) {
      os << " by=";
      text_detail::write_quoted(os, g.made_by(r));
      const auto from = g.made_from(r);
      if (!from.empty()) {
        os << " from=[";
        for (std::size_t k = 0; k < from.size(); ++k) {
          if (k) os << ',';
          text_detail::write_quoted(os, from[k]);
        }
        os << ']';
      }
    }
    if (g.is_const(r)) {
      os << ' ';
      if (opt.elide_data_over && g.output(r).element_count() > opt.elide_data_over)
        os << "data=elided";
      else if (beside(r)) {
        const auto bytes = g.payload(r);
        os << "data=@" << side_at;
        opt.side_data->write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        side_at += bytes.size();
      } else
        text_detail::write_data(os, g.output(r), g.payload(r));
    }
    os << '\n';
  }
}

inline std::string to_text(const Graph& g, const WriteOptions& opt = {}) {
  std::ostringstream os;
  write_graph_text(os, g, opt);
  return os.str();
}

namespace text_detail {
/// A cursor over one line, with positions for messages.
struct Cursor {
  std::string_view file;
  int line;
  std::string_view text;
  std::size_t pos = 0;

  [[noreturn]] void fail(const std::string& msg, std::size_t at) const {
    throw TextError(std::string(file) + std::string(":").append(std::to_string(line)) +
                    std::string(":").append(std::to_string(at + 1)) + ": error: " + msg);
  }
  [[noreturn]] void fail(const std::string& msg) const { fail(msg, pos); }
  void skip_ws() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\r')) ++pos;
  }
  bool at_end() {
    skip_ws();
    return pos >= text.size() || text[pos] == '#';
  }
  bool accept(char c) {
    skip_ws();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void expect(char c, const char* what) {
    if (!accept(c))
      fail(std::string("expected '") + c + "' " + what +
           (pos < text.size() ? ", found '" + std::string(1, text[pos]) + "'" : ", found end of line"));
  }
  std::string_view word(const char* what) {
    skip_ws();
    std::size_t b = pos;
    while (pos < text.size()) {
      char c = text[pos];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == ':' || c == '-' ||
          c == '+')
        ++pos;
      else
        break;
    }
    if (b == pos) fail(std::string("expected ") + what);
    return text.substr(b, pos - b);
  }
  /// A string in double quotes (write_quoted's form).
  std::string quoted(const char* what) {
    expect('"', what);
    std::string v;
    while (pos < text.size() && text[pos] != '"') {
      if (text[pos] == '\\' && pos + 1 < text.size()) ++pos;
      v += text[pos++];
    }
    if (pos >= text.size()) fail("unterminated string");
    ++pos;
    return v;
  }
  template <class T>
  T number(const char* what) {
    skip_ws();
    std::size_t b = pos;
    std::string_view w = word(what);
    T v{};
    if constexpr (std::is_floating_point_v<T>) {
      std::string s(w);
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size() || s.empty()) fail(std::string("expected ") + what + ", found '" + s + "'", b);
      // A finite number too large for T (1e999, or 1e39 for a float) would silently become inf;
      // written infinities ("inf") are kept.
      // Values that round to the largest float are fine: the bound is max + half an ulp.
      const double limit = std::is_same_v<T, float> ? std::ldexp(1.0, 128) - std::ldexp(1.0, 103)
                                                    : std::numeric_limits<double>::infinity();
      const bool written_inf = s.find_first_of("iI") != std::string::npos;
      if ((std::isinf(d) && !written_inf) || (std::isfinite(d) && std::fabs(d) >= limit))
        fail(std::string("'") + s + "' is out of range for " + what, b);
      v = static_cast<T>(d);
    } else {
      int base = 10;
      if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
        base = 16;
        w.remove_prefix(2);
      }
      auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v, base);
      if (ec != std::errc() || p != w.data() + w.size())
        fail(std::string("expected ") + what + ", found '" + std::string(text.substr(b, pos - b)) + "'", b);
    }
    return v;
  }
};

inline void store(std::vector<std::byte>& out, DType t, Cursor& c) {
  auto put = [&](auto v) {
    std::byte b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    out.insert(out.end(), b, b + sizeof v);
  };
  auto ranged = [&](long long lo, long long hi) {
    std::size_t at = c.pos;
    auto v = c.number<long long>("an integer element");
    if (v < lo || v > hi)
      c.fail(
          std::string("element ").append(std::to_string(v)) + " out of range for " + std::string(dtype_short_name(t)),
          at);
    return v;
  };
  switch (t) {
    case DType::Float32: put(c.number<float>("a float element")); break;
    case DType::Float64: put(c.number<double>("a float element")); break;
    case DType::Float16:
    case DType::BFloat16: put(static_cast<std::uint16_t>(ranged(0, 0xFFFF))); break;
    case DType::UInt64: put(c.number<unsigned long long>("an integer element")); break;
    default: {
      const IntRange r = storage_range(t);
      const auto at = out.size();
      out.resize(at + element_size(t));
      store_int(t, out.data() + at, 0, ranged(r.lo, r.hi));
    }
  }
}

/// Room the graph text ahead in `is` needs, read ahead when the stream can go back (a file or a
/// string; not a pipe): at most one op per line and one input per '%'. Returns false, reading
/// nothing, when the stream cannot seek.
inline bool count_ahead(std::istream& is, std::size_t& lines, std::size_t& refs) {
  const std::istream::pos_type start = is.tellg();
  if (start == std::istream::pos_type(-1)) return false;
  lines = 1;
  refs = 0;
  char buf[1 << 16];
  while (is.read(buf, sizeof buf) || is.gcount() > 0) {
    const std::streamsize n = is.gcount();
    lines += static_cast<std::size_t>(std::count(buf, buf + n, '\n'));
    refs += static_cast<std::size_t>(std::count(buf, buf + n, '%'));
  }
  is.clear();
  if (!is.seekg(start)) throw TextError("the graph text's stream cannot go back to where it started");
  return true;
}

/// The side data file a `data_file "NAME" size=N fnv1a=H` line names, read whole and checked.
struct SideData {
  std::vector<std::byte> bytes;
  bool loaded = false;
};
}  // namespace text_detail

/// Reads a graph written by write_graph_text (or by hand). `file` names the source in messages,
/// and its folder is where a side data file the text names (`data_file`) is looked for.
/// A stream that can seek (a file, a string) is read twice: first to count its lines, which
/// sizes the graph (Graph::reserve: its records do not move while it is read; the room is
/// address space until written, the lines being only a bound), then to parse it.
/// When `op_lines` is given, it receives the line defining each op (by op index), so that
/// problems found later can point at "file:line:1". The graph's op and input records come from
/// `records` (Graph(RecordResource*); nullptr: operator new).
inline Graph read_graph_text(std::istream& is, std::string_view file = "<input>", std::vector<int>* op_lines = nullptr,
                             RecordResource* records = nullptr) {
  using text_detail::Cursor;
  Graph g(records);
  if (std::size_t lines = 0, refs = 0; text_detail::count_ahead(is, lines, refs)) g.reserve(lines, refs);
  std::unordered_map<std::string, OpRef> ids;
  text_detail::SideData side;
  std::string line;
  int lineno = 0;
  while (std::getline(is, line)) {
    ++lineno;
    // A UTF-8 byte order mark, which some editors put at the start of a file, is no text.
    if (lineno == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    Cursor c{file, lineno, line};
    if (c.at_end()) continue;
    std::size_t start = c.pos;
    if (line.compare(c.pos, 7, "option ") == 0) {
      c.pos += 7;
      std::string name(c.word("an option name"));
      c.skip_ws();
      std::size_t tpos = c.pos;
      std::string_view type = c.word("an option type (int, uint, float, bool, string)");
      if (type == "int")
        g.set_option(name, c.number<std::int64_t>("an int value"));
      else if (type == "uint")
        g.set_option(name, c.number<std::uint64_t>("a uint value"));
      else if (type == "float")
        g.set_option(name, c.number<double>("a float value"));
      else if (type == "bool") {
        std::size_t at = c.pos;
        auto w = c.word("true or false");
        if (w != "true" && w != "false") c.fail("expected true or false, found '" + std::string(w) + "'", at);
        g.set_option(name, w == "true");
      } else if (type == "string") {
        c.expect('"', "to open the string");
        auto end = line.find('"', c.pos);
        if (end == std::string::npos) c.fail("unterminated string");
        g.set_option(name, line.substr(c.pos, end - c.pos));
        c.pos = end + 1;
      } else
        c.fail("unknown option type '" + std::string(type) + "' (int, uint, float, bool, string)", tpos);
      if (!c.at_end()) c.fail("unexpected text after the option");
      continue;
    }
    if (line.compare(c.pos, 10, "data_file ") == 0) {
      c.pos += 10;
      if (side.loaded) c.fail("a second data_file line (a graph has one side data file)", start);
      c.expect('"', "to open the side data file's name");
      const auto end = line.find('"', c.pos);
      if (end == std::string::npos) c.fail("unterminated file name");
      const std::string name = line.substr(c.pos, end - c.pos);
      c.pos = end + 1;
      std::uint64_t size = 0, sum = 0;
      bool has_size = false, has_sum = false;
      while (!c.at_end()) {
        const std::size_t at = c.pos;
        const auto key = c.word("size= or fnv1a=");
        c.expect('=', "after the key");
        if (key == "size")
          size = c.number<std::uint64_t>("a size in bytes"), has_size = true;
        else if (key == "fnv1a") {
          c.skip_ws();
          const std::size_t b = c.pos;
          const auto hex = c.word("a checksum");
          if (std::from_chars(hex.data(), hex.data() + hex.size(), sum, 16).ptr != hex.data() + hex.size())
            c.fail("expected a checksum in hexadecimal, found '" + std::string(hex) + "'", b);
          has_sum = true;
        } else
          c.fail("unknown key '" + std::string(key) + "' (size, fnv1a)", at);
      }
      if (!has_size || !has_sum) c.fail("a data_file line needs size= and fnv1a=");
      // Relative to the folder of the text (the file it came from; the current folder otherwise).
      std::string path = name;
      if (!name.starts_with('/')) {
        const auto slash = file.rfind('/');
        if (slash != std::string_view::npos) path = std::string(file.substr(0, slash + 1)) + name;
      }
      std::ifstream data(path, std::ios::binary | std::ios::ate);
      if (!data) c.fail("cannot read the side data file " + path, start);
      const std::streamoff actual = data.tellg();
      if (actual < 0 || static_cast<std::uint64_t>(actual) != size)
        c.fail("the side data file " + path + " has " + std::to_string(actual) + " bytes, not the " +
                   std::to_string(size) + " this text was written with",
               start);
      side.bytes.resize(static_cast<std::size_t>(size));
      data.seekg(0);
      if (!data.read(reinterpret_cast<char*>(side.bytes.data()), static_cast<std::streamsize>(size)))
        c.fail("cannot read the side data file " + path, start);
      if (fnv1a(side.bytes) != sum)
        c.fail("the side data file " + path + " is not the one this text was written with (its checksum differs)",
               start);
      side.loaded = true;
      continue;
    }
    c.expect('%', "to start an op definition '%N = Name(...)'");
    std::string id(c.word("an op number after '%'"));
    if (ids.count(id)) c.fail("op %" + id + " is defined twice", start);
    c.expect('=', "after the op number");
    std::size_t name_at = (c.skip_ws(), c.pos);
    std::string name(c.word("an op name"));
    (void)name_at;
    c.expect('(', "after the op name");
    std::vector<OpRef> inputs;
    if (!c.accept(')')) {
      do {
        c.expect('%', "before an input");
        std::size_t at = c.pos;
        if (inputs.size() == 0xFFFF) c.fail("an op may have at most 65535 inputs", at - 1);
        std::string in(c.word("an input op number"));
        auto it = ids.find(in);
        if (it == ids.end()) c.fail("input %" + in + " is not defined before this line", at - 1);
        inputs.push_back(it->second);
      } while (c.accept(','));
      c.expect(')', "to close the input list");
    }
    c.expect(':', "before the output type");
    std::size_t type_at = (c.skip_ws(), c.pos);
    std::size_t b = c.pos;
    while (c.pos < line.size() && std::isalnum(static_cast<unsigned char>(line[c.pos]))) ++c.pos;
    auto dt = parse_dtype(std::string_view(line).substr(b, c.pos - b));
    if (!dt) {
      std::string known;
      for (const DTypeInfo& t : dtype_infos) known.append(known.empty() ? "" : " ").append(t.short_name);
      c.fail("unknown dtype '" + line.substr(b, c.pos - b) + "' (" + known + ")", type_at);
    }
    OutputDef d;
    d.dtype = *dt;
    c.expect('[', "to open the shape");
    if (!c.accept(']')) {
      do {
        if (d.rank == max_rank) c.fail("more than 8 dimensions");
        c.skip_ws();
        std::size_t at = c.pos;
        const std::size_t dim = c.number<std::size_t>("a dimension");
        if (dim > max_dim) c.fail("dimension " + std::to_string(dim) + " exceeds 2147483647", at);
        d.dims[d.rank++] = dim;
      } while (c.accept(','));
      c.expect(']', "to close the shape");
    }
    if (const char* why = d.unrepresentable()) c.fail(std::string("shape cannot be represented: ") + why, type_at);
    if (c.accept('{')) {
      do {
        std::size_t at = c.pos;
        auto key = c.word("zero= or step=");
        c.expect('=', "after the key");
        if (key == "zero")
          d.zero_offset = c.number<std::int32_t>("a zero offset");
        else if (key == "step")
          d.stepsize = c.number<float>("a step size");
        else
          c.fail("unknown quantization key '" + std::string(key) + "' (zero, step)", at);
      } while (c.accept(','));
      c.expect('}', "to close the quantization");
    }
    std::uint64_t op_id = 0;
    std::vector<int> split;
    bool has_data = false, elided = false, has_origin = false;
    std::string by;
    std::vector<std::string> from;
    std::vector<std::byte> data;
    std::uint64_t side_at = 0;
    std::size_t side_col = 0;
    bool from_side = false;
    while (!c.at_end()) {
      std::size_t at = c.pos;
      auto key = c.word("id=, split=, by=, from= or data=");
      c.expect('=', "after the attribute name");
      if (key == "id") {
        c.skip_ws();
        std::size_t id_at = c.pos;
        op_id = c.number<std::uint64_t>("an op id");
        if (op_id > 0xFFFFFFFFu) c.fail("op id " + std::to_string(op_id) + " does not fit in 32 bits", id_at);
      } else if (key == "split") {
        c.expect('[', "to open the split history");
        if (!c.accept(']')) {
          do split.push_back(c.number<int>("a split index"));
          while (c.accept(','));
          c.expect(']', "to close the split history");
        }
      } else if (key == "by") {
        has_origin = true;
        by = c.quoted("to open the name of what made the op");
      } else if (key == "from") {
        has_origin = true;
        c.expect('[', "to open the list of sources");
        if (!c.accept(']')) {
          do from.push_back(c.quoted("to open a source name"));
          while (c.accept(','));
          c.expect(']', "to close the list of sources");
        }
      } else if (key == "data") {
        has_data = true;
        c.skip_ws();
        if (line.compare(c.pos, 6, "elided") == 0) {
          elided = true;
          c.pos += 6;
        } else if (c.accept('@')) {
          side_col = c.pos;
          side_at = c.number<std::uint64_t>("an offset into the side data file");
          from_side = true;
        } else {
          c.expect('[', "to open the data");
          if (!c.accept(']')) {
            do text_detail::store(data, d.dtype, c);
            while (c.accept(','));
            c.expect(']', "to close the data");
          }
        }
      } else
        c.fail("unknown attribute '" + std::string(key) + "' (id, split, by, from, data)", at);
    }
    if (g.size() >= no_index - 1) c.fail("too many ops (a graph holds fewer than 2^32 - 1)", start);
    OpNameId nid = intern_op_name(name);
    OpRef r;
    try {
      if (nid == op_names::const_op) {
        if (!has_data) c.fail("constant %" + id + " has no data=[...]", start);
        if (elided) c.fail("constant %" + id + " has elided data; this text cannot be loaded", start);
        if (from_side) {
          if (!side.loaded) c.fail("data=@... needs a data_file line before it", side_col - 1);
          if (side_at > side.bytes.size() || d.byte_size() > side.bytes.size() - side_at)
            c.fail("constant %" + id + "'s " + std::to_string(d.byte_size()) + " bytes at " + std::to_string(side_at) +
                       " run past the end of the side data file (" + std::to_string(side.bytes.size()) + " bytes)",
                   side_col);
          const auto first = side.bytes.begin() + static_cast<std::ptrdiff_t>(side_at);
          data.assign(first, first + static_cast<std::ptrdiff_t>(d.byte_size()));
        }
        if (data.size() != d.byte_size())
          c.fail("constant %" + id + std::string(" has ").append(std::to_string(data.size() / element_size(d.dtype))) +
                     std::string(" elements, its shape needs ").append(std::to_string(d.element_count())),
                 start);
        r = g.add_const(d, data);
      } else {
        if (has_data) c.fail("only $Const ops carry data", start);
        r = g.add_op(nid, inputs, d);
      }
      if (op_id) g.set_op_id(r, op_id);
      if (!split.empty()) g.set_split_history(r, split);
      if (has_origin) g.set_origin(r, by.empty() ? std::string_view("imported") : std::string_view(by), from);
    } catch (const GraphError& e) {
      c.fail(e.what(), start);  // a limit of the graph's records, at the op's line
    }
    ids.emplace(id, r);
    if (op_lines) {
      op_lines->resize(g.size(), 0);
      (*op_lines)[r.index] = lineno;
    }
  }
  return g;
}

inline Graph from_text(std::string_view text, std::string_view file = "<input>", std::vector<int>* op_lines = nullptr,
                       RecordResource* records = nullptr) {
  std::istringstream is{std::string(text)};
  return read_graph_text(is, file, op_lines, records);
}

}  // namespace optgrammar
