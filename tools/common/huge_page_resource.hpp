// A record resource for the tools' graphs: large blocks on transparent huge pages.
//
// A block of at least `threshold` bytes (2 MB by default) is mapped with mmap, 2 MB-aligned, and
// marked with madvise(MADV_HUGEPAGE), so that the kernel backs it with 2 MB pages where it can:
// a graph's record arrays (Graph(optgrammar::RecordResource*)) then fault in once per 2 MB
// instead of once per 4 KB. A kernel without transparent huge pages refuses the advice (counted);
// one whose setting is `never` takes it and still gives plain pages (a build's faults tell).
// Smaller blocks come from `small` (operator new by default). og-opt and w1_bench use it for the
// graphs they build (`--huge-pages on|off`; docs/embedding.md, "Where a graph's memory comes
// from").
#pragma once

#include <optgrammar/core/graph.hpp>

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace og_tools {

class HugePageResource final : public optgrammar::RecordResource {
 public:
  static constexpr std::size_t huge_page = std::size_t{2} << 20;

  /// What the resource did: blocks mapped, of them how many took the huge-page advice and how
  /// many the kernel refused it (plain pages), and the blocks passed to `small`.
  /// (Advised is not backed: the setting `never` takes the advice and gives plain pages.)
  struct Stats {
    std::size_t mapped = 0, advised = 0, refused = 0, small = 0;
  };

  explicit HugePageResource(std::size_t threshold = huge_page,
                            optgrammar::RecordResource* small = optgrammar::new_delete_records()) noexcept
      : threshold_(threshold), small_(small) {}
  HugePageResource(const HugePageResource&) = delete;
  HugePageResource& operator=(const HugePageResource&) = delete;

  const Stats& stats() const noexcept { return stats_; }

  void* allocate(std::size_t bytes, std::size_t align) override {
    if (!mapped(bytes, align)) {
      ++stats_.small;
      return small_->allocate(bytes, align);
    }
    const std::size_t len = round_up(bytes);
    if (len < bytes || len + huge_page < len) throw std::bad_alloc();
    // One huge page more than needed, then the unaligned head and the tail are unmapped.
    void* const raw = ::mmap(nullptr, len + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + huge_page - 1) & ~std::uintptr_t{huge_page - 1};
    if (aligned != start) ::munmap(raw, aligned - start);
    if (const std::size_t tail = start + len + huge_page - (aligned + len); tail != 0)
      ::munmap(reinterpret_cast<void*>(aligned + len), tail);
    void* const block = reinterpret_cast<void*>(aligned);
    ++stats_.mapped;
    if (::madvise(block, len, MADV_HUGEPAGE) == 0)
      ++stats_.advised;
    else
      ++stats_.refused;
    return block;
  }
  void deallocate(void* p, std::size_t bytes, std::size_t align) noexcept override {
    if (!mapped(bytes, align)) return small_->deallocate(p, bytes, align);
    ::munmap(p, round_up(bytes));
  }

 private:
  static std::size_t round_up(std::size_t n) noexcept { return (n + huge_page - 1) & ~(huge_page - 1); }
  bool mapped(std::size_t bytes, std::size_t align) const noexcept { return bytes >= threshold_ && align <= huge_page; }

  std::size_t threshold_;
  optgrammar::RecordResource* small_;
  Stats stats_;
};

}  // namespace og_tools
