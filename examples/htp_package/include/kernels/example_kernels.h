// Stand-ins for the kernel library's own types that the example package's kernels use (the part
// of a vendor SDK this library does not provide): just enough for the kernels to compile. A real
// package includes its SDK's headers here instead.
#pragma once

#include <cstddef>
#include <cstdint>

enum GraphStatus { Success = 0, ErrorFatal = 1 };

/// A tensor of float values laid out as [b, h, w, d].
struct Tensor {
  float* data = nullptr;
  std::size_t dims[4] = {1, 1, 1, 1};
  std::size_t size() const { return dims[0] * dims[1] * dims[2] * dims[3]; }
};
/// The same tensor kept in fp16 on the device; the kernels here read it as float.
struct PlainFloat16Tensor : Tensor {};
/// An int32 parameter tensor (pads, window sizes).
struct Int32Tensor {
  const std::int32_t* data = nullptr;
  std::size_t n = 0;
};
/// What a cost function is given: the op it prices.
struct Op;
