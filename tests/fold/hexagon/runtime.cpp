// Runtime for the freestanding Hexagon test programs (see runtime.hpp).
//
// Linux system calls on Hexagon: number in r6, arguments in r0.., `trap0(#1)`, result in r0.
// The generic syscall table applies: write = 64, exit_group = 94.
// The compiler calls a few helpers that normally come from libc and compiler-rt (which Debian
// does not ship for Hexagon): mem* functions and integer division. They are defined here.
#include "runtime.hpp"

namespace {

long sys3(long nr, long a0, long a1, long a2) {
  register long r0 asm("r0") = a0;
  register long r1 asm("r1") = a1;
  register long r2 asm("r2") = a2;
  register long r6 asm("r6") = nr;
  asm volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r6) : "memory");
  return r0;
}

constexpr long sys_write = 64, sys_exit_group = 94;

template <class U>
U udiv(U n, U d, U* rem) {
  // Restoring division, one quotient bit per step; d == 0 gives all-ones like hardware would.
  U q = 0, r = 0;
  for (int i = int(sizeof(U) * 8) - 1; i >= 0; --i) {
    r = static_cast<U>((r << 1) | ((n >> i) & 1u));
    if (r >= d) {
      r = static_cast<U>(r - d);
      q = static_cast<U>(q | (U{1} << i));
    }
  }
  if (rem) *rem = r;
  return q;
}

template <class S, class U>
S sdiv(S n, S d, bool want_rem) {
  const bool nn = n < 0, dn = d < 0;
  const U un = nn ? static_cast<U>(U{0} - static_cast<U>(n)) : static_cast<U>(n);
  const U ud = dn ? static_cast<U>(U{0} - static_cast<U>(d)) : static_cast<U>(d);
  U r = 0;
  const U q = udiv<U>(un, ud, &r);
  if (want_rem) return nn ? static_cast<S>(U{0} - r) : static_cast<S>(r);  // sign of the dividend
  return nn != dn ? static_cast<S>(U{0} - q) : static_cast<S>(q);
}

}  // namespace

namespace hexrt {
void write_str(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  sys3(sys_write, 1, reinterpret_cast<long>(s), static_cast<long>(n));
}
void write_int(int64_t v) {
  char buf[24];
  int i = 23;
  buf[i] = 0;
  const bool neg = v < 0;
  uint64_t u = neg ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    uint64_t r = 0;
    u = udiv<uint64_t>(u, 10, &r);
    buf[--i] = static_cast<char>('0' + r);
  } while (u);
  if (neg) buf[--i] = '-';
  write_str(buf + i);
}
void exit(int code) {
  sys3(sys_exit_group, code, 0, 0);
  for (;;) {
  }
}
}  // namespace hexrt

extern "C" {
void* memcpy(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  while (n--) *d++ = *s++;
  return dst;
}
void* memmove(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (d < s) {
    while (n--) *d++ = *s++;
  } else {
    while (n--) d[n] = s[n];
  }
  return dst;
}
void* memset(void* dst, int c, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  while (n--) *d++ = static_cast<unsigned char>(c);
  return dst;
}
int memcmp(const void* a, const void* b, size_t n) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (size_t i = 0; i < n; ++i)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}
// The Hexagon backend's name for large aligned copies.
void* __hexagon_memcpy_likely_aligned_min32bytes_mult8bytes(void* dst, const void* src, size_t n) {
  return memcpy(dst, src, n);
}

uint32_t __hexagon_udivsi3(uint32_t n, uint32_t d) { return udiv<uint32_t>(n, d, nullptr); }
uint32_t __hexagon_umodsi3(uint32_t n, uint32_t d) {
  uint32_t r = 0;
  udiv<uint32_t>(n, d, &r);
  return r;
}
int32_t __hexagon_divsi3(int32_t n, int32_t d) { return sdiv<int32_t, uint32_t>(n, d, false); }
int32_t __hexagon_modsi3(int32_t n, int32_t d) { return sdiv<int32_t, uint32_t>(n, d, true); }
uint64_t __hexagon_udivdi3(uint64_t n, uint64_t d) { return udiv<uint64_t>(n, d, nullptr); }
uint64_t __hexagon_umoddi3(uint64_t n, uint64_t d) {
  uint64_t r = 0;
  udiv<uint64_t>(n, d, &r);
  return r;
}
int64_t __hexagon_divdi3(int64_t n, int64_t d) { return sdiv<int64_t, uint64_t>(n, d, false); }
int64_t __hexagon_moddi3(int64_t n, int64_t d) { return sdiv<int64_t, uint64_t>(n, d, true); }

// A pure virtual function was called: cannot happen in correct code; fail loudly.
void __cxa_pure_virtual() {
  hexrt::write_str("FAIL: pure virtual call\n");
  hexrt::exit(2);
}

// Constructors of globals are listed in .init_array (bounds provided by the linker).
extern void (*__init_array_start[])();
extern void (*__init_array_end[])();

[[noreturn]] void _start() {
  for (auto** f = __init_array_start; f != __init_array_end; ++f) (**f)();
  hexrt::exit(fold_main());
}
}
