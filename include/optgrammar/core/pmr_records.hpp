// A graph's records from a std::pmr::memory_resource: PmrRecords adapts one to the graph's
// RecordResource (core/graph.hpp), so that a program whose arenas are pmr resources gives one to
// a graph in one line:
//
//   optgrammar::PmrRecords records(arena);  // outlives every graph made from it
//   optgrammar::Graph g(&records);
//
// rules.hpp and runtime.hpp leave it out: <memory_resource> is dear to compile.
#pragma once

#include "optgrammar/core/graph.hpp"

#include <cstddef>
#include <memory_resource>

namespace optgrammar {

class PmrRecords final : public RecordResource {
 public:
  /// nullptr: std::pmr::new_delete_resource().
  explicit PmrRecords(std::pmr::memory_resource* upstream) noexcept
      : upstream_(upstream ? upstream : std::pmr::new_delete_resource()) {}

  void* allocate(std::size_t bytes, std::size_t align) override { return upstream_->allocate(bytes, align); }
  void deallocate(void* p, std::size_t bytes, std::size_t align) noexcept override {
    upstream_->deallocate(p, bytes, align);
  }
  /// The resource the records come from.
  std::pmr::memory_resource* upstream() const noexcept { return upstream_; }

 private:
  std::pmr::memory_resource* upstream_;
};

}  // namespace optgrammar
