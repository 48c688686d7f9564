// A vector of trivially copyable records stored in fixed-size chunks: growing never moves or
// copies what is stored (no 2× peak while a large graph grows), and chunks are allocated but not
// touched until used, so a small graph costs little.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

namespace optgrammar {

template <class T, unsigned ChunkBits = 14>
class ChunkedVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  static constexpr std::size_t chunk = std::size_t{1} << ChunkBits;
  static constexpr std::size_t mask = chunk - 1;

 public:
  ChunkedVector() = default;
  ChunkedVector(const ChunkedVector& o) { *this = o; }
  ChunkedVector(ChunkedVector&& o) noexcept
      : chunks_(std::move(o.chunks_)), bias_(std::move(o.bias_)), size_(o.size_) {
    o.chunks_.clear();
    o.bias_.clear();
    o.size_ = 0;
  }
  ChunkedVector& operator=(const ChunkedVector& o) {
    if (this == &o) return *this;
    release();
    for (std::size_t c = 0; c * chunk < o.size_; ++c) {
      T* p = allocate();
      std::size_t n = o.size_ - c * chunk < chunk ? o.size_ - c * chunk : chunk;
      std::memcpy(static_cast<void*>(p), o.chunks_[c], n * sizeof(T));
      push_chunk(p);
    }
    size_ = o.size_;
    return *this;
  }
  ChunkedVector& operator=(ChunkedVector&& o) noexcept {
    if (this != &o) {
      release();
      chunks_ = std::move(o.chunks_);
      bias_ = std::move(o.bias_);
      size_ = o.size_;
      o.chunks_.clear();
      o.bias_.clear();
      o.size_ = 0;
    }
    return *this;
  }
  ~ChunkedVector() { release(); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // Element i lies at bias_[i >> ChunkBits] + i * sizeof(T): each chunk's address is stored less
  // the offset of its first element, which saves masking the index on every access.
  T& operator[](std::size_t i) noexcept { return *reinterpret_cast<T*>(bias_[i >> ChunkBits] + i * sizeof(T)); }
  const T& operator[](std::size_t i) const noexcept {
    return *reinterpret_cast<const T*>(bias_[i >> ChunkBits] + i * sizeof(T));
  }

  /// Allocates the chunks for n elements up front (their memory is touched only when used).
  void reserve(std::size_t n) {
    chunks_.reserve((n + mask) >> ChunkBits);
    bias_.reserve((n + mask) >> ChunkBits);
    while (chunks_.size() * chunk < n) push_chunk(allocate());
  }
  T& emplace_back() {
    if (size_ == chunks_.size() * chunk) [[unlikely]]
      add_chunk();
    T* p = &(*this)[size_++];
    return *::new (static_cast<void*>(p)) T();
  }
  void push_back(const T& v) { emplace_back() = v; }
  /// Shrinks to n elements (capacity stays).
  void truncate(std::size_t n) noexcept {
    if (n < size_) size_ = n;
  }

 private:
  [[gnu::noinline]] void add_chunk() { push_chunk(allocate()); }
  /// Takes ownership of chunk p, appended after the others (or frees it and throws).
  void push_chunk(T* p) {
    const std::uintptr_t bias = reinterpret_cast<std::uintptr_t>(p) - chunks_.size() * chunk * sizeof(T);
    try {
      chunks_.push_back(p);
    } catch (...) {
      std::allocator<T>().deallocate(p, chunk);
      throw;
    }
    try {
      bias_.push_back(bias);
    } catch (...) {
      chunks_.pop_back();
      std::allocator<T>().deallocate(p, chunk);
      throw;
    }
  }
  static T* allocate() { return std::allocator<T>().allocate(chunk); }
  void release() noexcept {
    for (T* p : chunks_) std::allocator<T>().deallocate(p, chunk);
    chunks_.clear();
    bias_.clear();
    size_ = 0;
  }
  std::vector<T*> chunks_;
  std::vector<std::uintptr_t> bias_;  // by chunk: its address less chunk index * chunk bytes
  std::size_t size_ = 0;
};

}  // namespace optgrammar
