// A minimal runtime for static hexagon-linux programs under qemu-user: no libc, no crt.
// The program defines fold_main(); runtime.cpp's _start runs static constructors, calls it and
// exits with its result.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace hexrt {
void write_str(const char* s);
void write_int(int64_t v);
[[noreturn]] void exit(int code);
}  // namespace hexrt

int fold_main();
