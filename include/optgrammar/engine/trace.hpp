// Where the rewriting trace goes: a sink that writes to any stream with a write(const char*, n)
// member (std::ostream and its kin, or a class of the embedding compiler's own), without the
// engine headers needing <ostream>.
#pragma once

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace optgrammar::engine {

class TraceSink {
 public:
  TraceSink() = default;
  TraceSink(std::nullptr_t) noexcept {}  // NOLINT: "no trace", as for a stream pointer
  /// Writes to `*stream` (nullptr: no trace). Implicit, so that `opt.trace = &std::cerr` works.
  template <class Stream>
    requires requires(Stream& s, const char* p) { s.write(p, 1); }
  TraceSink(Stream* stream) noexcept  // NOLINT
      : ctx_(stream), write_(stream ? &write_to<Stream> : nullptr) {}

  explicit operator bool() const noexcept { return write_ != nullptr; }

  TraceSink& operator<<(std::string_view t) {
    write_(ctx_, t.data(), t.size());
    return *this;
  }
  TraceSink& operator<<(const char* t) { return *this << std::string_view(t); }
  TraceSink& operator<<(const std::string& t) { return *this << std::string_view(t); }
  TraceSink& operator<<(char c) { return *this << std::string_view(&c, 1); }
  TraceSink& operator<<(bool b) { return *this << (b ? '1' : '0'); }
  /// Numbers in their shortest form that reads back to the same value.
  template <class T>
  requires std::is_arithmetic_v<T> TraceSink& operator<<(T v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return *this << std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
  }

 private:
  template <class Stream>
  static void write_to(void* ctx, const char* p, std::size_t n) {
    static_cast<Stream*>(ctx)->write(p, static_cast<std::make_signed_t<std::size_t>>(n));
  }
  void* ctx_ = nullptr;
  void (*write_)(void*, const char*, std::size_t) = nullptr;
};

}  // namespace optgrammar::engine

// The names programs and rule authors use, from the engine's namespace.
namespace optgrammar {
using engine::TraceSink;
}  // namespace optgrammar
