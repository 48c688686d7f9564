# Cross-compiles freestanding C++20 for Hexagon with 128-byte HVX using Debian's clang-14 and
# lld-14, producing static hexagon-linux ELF files that qemu-hexagon-static runs.
#
# There is no Hexagon C library or compiler-rt on this system: programs bring their own
# runtime (tests/fold/hexagon/runtime.cpp: _start, syscalls, mem*, integer division helpers)
# and may use only the compiler's own freestanding headers (<stdint.h>, <stddef.h>,
# <hexagon_types.h>, <hvx_hexagon_protos.h>); compile with -nostdinc++, else an installed
# libc++ shadows <stdint.h> with a wrapper that wants a C library (it is a compile-only flag,
# so it is not in CMAKE_CXX_FLAGS_INIT, which also reaches the link line). Pick the core per
# target with -mv67/-mv68 (compile and link options); HVX is on at 128 bytes for all of them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR hexagon)

find_program(HEXAGON_CLANGXX clang++-14 REQUIRED)
set(CMAKE_CXX_COMPILER ${HEXAGON_CLANGXX})
set(CMAKE_CXX_COMPILER_TARGET hexagon-unknown-linux-musl)

# -ffp-contract=off: no sffma contraction, so float code rounds as on the host.
set(CMAKE_CXX_FLAGS_INIT
  "-mhvx -mhvx-length=128b -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-asynchronous-unwind-tables -ffp-contract=off")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostdlib -static -fuse-ld=lld")

# The compiler check cannot link a program without our runtime: test-compile a library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
