// Stand-ins for the kernel library's own types that op-package sources use (the part of the
// framework's SDK this library does not provide): just enough to compile the kernels.
#pragma once

#include <cstddef>

enum GraphStatus { Success = 0, ErrorFatal = 1 };

struct Tensor {
  float* data = nullptr;
  std::size_t n = 0;
};
struct PlainFloatTensor : Tensor {};
struct Op;
