// A vector of trivially copyable records that never moves what it stores: growing neither copies
// (no 2× peak while it grows) nor invalidates an element's address; the price is a compare on
// every access. The rewriter's worklist FIFO uses it (engine/rewriter.hpp); the graph's records
// live in plain vectors, where that compare cost more than it saved (docs/engine.md). The
// records live in one contiguous head block, sized by the first reserve() (or one chunk when
// nothing was reserved), then in fixed-size chunks. Blocks are allocated but not touched until
// used, so reserving a large capacity costs address space, not memory.
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

 public:
  ChunkedVector() = default;
  ChunkedVector(const ChunkedVector& o) { *this = o; }
  ChunkedVector(ChunkedVector&& o) noexcept { take(o); }
  /// A copy holds all of o's elements in its head block.
  ChunkedVector& operator=(const ChunkedVector& o) {
    if (this == &o) return *this;
    release();
    if (o.size_ == 0) return *this;
    head_ = allocate(o.size_);
    head_cap_ = cap_ = o.size_;
    std::size_t at = 0;
    o.for_each_block([&](const T* p, std::size_t n) {
      std::memcpy(static_cast<void*>(head_ + at), p, n * sizeof(T));
      at += n;
    });
    size_ = o.size_;
    return *this;
  }
  ChunkedVector& operator=(ChunkedVector&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~ChunkedVector() { release(); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return cap_; }
  /// Elements [0, head_capacity()) lie one after the other.
  std::size_t head_capacity() const noexcept { return head_cap_; }

  // An element of the head is one add away; past it, element i lies at
  // bias_[(i - head_cap_) >> ChunkBits] + i * sizeof(T) (each chunk's address is stored less the
  // offset of its first element, which saves masking the index).
  [[gnu::always_inline]] T& operator[](std::size_t i) noexcept { return *at(i); }
  [[gnu::always_inline]] const T& operator[](std::size_t i) const noexcept { return *at(i); }

  /// Room for n elements. The first call on a vector that holds no block yet makes the head block
  /// that size; a later call adds chunks. Memory is touched only when used.
  void reserve(std::size_t n) {
    if (n <= capacity()) return;
    if (head_ == nullptr) {
      head_ = allocate(n);
      head_cap_ = cap_ = n;
      return;
    }
    chunks_.reserve(chunks_.size() + (n - capacity() + chunk - 1) / chunk);
    bias_.reserve(chunks_.capacity());
    while (capacity() < n) add_chunk();
  }
  T& emplace_back() {
    if (size_ == capacity()) [[unlikely]]
      grow();
    T* p = &(*this)[size_++];
    return *::new (static_cast<void*>(p)) T();
  }
  void push_back(const T& v) { emplace_back() = v; }
  /// Shrinks to n elements (capacity stays).
  void truncate(std::size_t n) noexcept {
    if (n < size_) size_ = n;
  }

 private:
  [[gnu::always_inline]] T* at(std::size_t i) const noexcept {
    if (i < head_cap_) [[likely]]
      return head_ + i;
    return reinterpret_cast<T*>(bias_[(i - head_cap_) >> ChunkBits] + i * sizeof(T));
  }
  [[gnu::noinline]] void grow() {
    if (head_ == nullptr) {
      head_ = allocate(chunk);
      head_cap_ = cap_ = chunk;
    } else {
      add_chunk();
    }
  }
  /// Appends one chunk after the others (or leaves everything as it was and throws).
  void add_chunk() {
    T* p = allocate(chunk);
    const std::uintptr_t bias = reinterpret_cast<std::uintptr_t>(p) - capacity() * sizeof(T);
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
    cap_ += chunk;
  }
  /// Calls f(first, count) for each block's used elements, in index order.
  template <class F>
  void for_each_block(F&& f) const {
    std::size_t left = size_;
    const std::size_t in_head = left < head_cap_ ? left : head_cap_;
    if (in_head != 0) f(head_, in_head);
    left -= in_head;
    for (std::size_t c = 0; left != 0; ++c) {
      const std::size_t n = left < chunk ? left : chunk;
      f(chunks_[c], n);
      left -= n;
    }
  }
  static T* allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
  void take(ChunkedVector& o) noexcept {
    head_ = o.head_;
    head_cap_ = o.head_cap_;
    cap_ = o.cap_;
    chunks_ = std::move(o.chunks_);
    bias_ = std::move(o.bias_);
    size_ = o.size_;
    o.head_ = nullptr;
    o.head_cap_ = o.cap_ = 0;
    o.chunks_.clear();
    o.bias_.clear();
    o.size_ = 0;
  }
  void release() noexcept {
    if (head_ != nullptr) std::allocator<T>().deallocate(head_, head_cap_);
    for (T* p : chunks_) std::allocator<T>().deallocate(p, chunk);
    head_ = nullptr;
    head_cap_ = cap_ = 0;
    chunks_.clear();
    bias_.clear();
    size_ = 0;
  }
  T* head_ = nullptr;
  std::size_t head_cap_ = 0;
  std::size_t cap_ = 0;               // head_cap_ + chunks_.size() * chunk
  std::vector<T*> chunks_;            // the chunks after the head, in index order
  std::vector<std::uintptr_t> bias_;  // by chunk: its address less its first element's offset
  std::size_t size_ = 0;
};

}  // namespace optgrammar
