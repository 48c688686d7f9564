// ChunkedVector: elements keep their index and address across chunks, copies and moves; what was
// reserved first (or copied) lies in one block.
#include <optgrammar/core/chunked_vector.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>

using optgrammar::ChunkedVector;

namespace {
struct Rec {
  std::uint32_t a = 0, b = 0;
};
// Small chunks (8 elements), so that a few dozen elements span several.
using Small = ChunkedVector<Rec, 3>;

void fill(Small& v, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) v.push_back(Rec{i, 3 * i + 1});
}
bool holds(const Small& v, std::uint32_t n) {
  if (v.size() != n) return false;
  for (std::uint32_t i = 0; i < n; ++i)
    if (v[i].a != i || v[i].b != 3 * i + 1) return false;
  return true;
}
}  // namespace

TEST_CASE("ChunkedVector: indexing across chunks, growing and reserved", "[core][storage]") {
  Small v;
  CHECK(v.empty());
  fill(v, 45);  // six chunks, the last one part full
  CHECK(holds(v, 45));
  // Growing never moves what is stored: an element's address stays.
  const Rec* first = &v[0];
  const Rec* ninth = &v[8];
  fill(v, 0);
  for (std::uint32_t i = 45; i < 100; ++i) v.push_back(Rec{i, 3 * i + 1});
  CHECK(holds(v, 100));
  CHECK(&v[0] == first);
  CHECK(&v[8] == ninth);
  // Nothing reserved: the head block is one chunk. Elements of one chunk lie one after the
  // other; the next chunk is elsewhere in general.
  CHECK(v.head_capacity() == 8);
  CHECK(v.capacity() == 104);
  for (std::uint32_t i = 0; i < 8; ++i) CHECK(&v[16 + i] == &v[16] + i);

  // The first reserve makes one head block of that size, wider than a chunk.
  Small r;
  r.reserve(30);
  CHECK(r.head_capacity() == 30);
  CHECK(r.capacity() == 30);
  fill(r, 30);
  CHECK(holds(r, 30));
  for (std::uint32_t i = 0; i < 30; ++i) CHECK(&r[i] == &r[0] + i);
  const Rec* last = &r[29];
  fill(r, 0);
  r.push_back(Rec{30, 91});  // past what was reserved: a chunk after the head
  CHECK(holds(r, 31));
  CHECK(r.capacity() == 38);
  CHECK(&r[29] == last);
  for (std::uint32_t i = 31; i < 38; ++i) r.push_back(Rec{i, 3 * i + 1});
  CHECK(holds(r, 38));
  for (std::uint32_t i = 0; i < 8; ++i) CHECK(&r[30 + i] == &r[30] + i);
  // A later reserve adds chunks; the head and what is stored stay where they are.
  r.reserve(50);
  CHECK(r.head_capacity() == 30);
  CHECK(r.capacity() == 54);
  CHECK(&r[29] == last);
  for (std::uint32_t i = 38; i < 54; ++i) r.push_back(Rec{i, 3 * i + 1});
  CHECK(holds(r, 54));
  r.truncate(12);
  CHECK(r.capacity() == 54);
  CHECK(holds(r, 12));
  r.push_back(Rec{12, 37});
  CHECK(holds(r, 13));
}

TEST_CASE("ChunkedVector: copies and moves", "[core][storage]") {
  Small v;
  fill(v, 27);
  Small c(v);
  CHECK(holds(c, 27));
  // A copy holds everything in its head block.
  CHECK(c.head_capacity() == 27);
  for (std::uint32_t i = 0; i < 27; ++i) CHECK(&c[i] == &c[0] + i);
  const Rec* moved = &c[20];
  c[3].b = 0;  // a copy owns its elements
  CHECK(v[3].b == 10);
  Small m(std::move(c));
  CHECK(m.size() == 27);
  CHECK(m[3].b == 0);
  CHECK(&m[20] == moved);  // a move takes the blocks
  CHECK(c.empty());        // a moved-from vector is empty and can be used again
  CHECK(c.capacity() == 0);
  fill(c, 9);
  CHECK(holds(c, 9));
  Small a;
  a = v;
  CHECK(holds(a, 27));
  Small none;
  a = none;  // copying an empty vector leaves no block
  CHECK(a.empty());
  CHECK(a.capacity() == 0);
  a = v;
  a = std::move(c);
  CHECK(holds(a, 9));
  const Small& same = a;
  a = same;  // assignment to itself keeps the elements
  CHECK(holds(a, 9));
  a.push_back(Rec{9, 28});
  CHECK(holds(a, 10));
}
