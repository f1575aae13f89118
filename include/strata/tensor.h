// Tensor: a typed, shaped, non-owning view of weight or activation memory.
//
// Weights are memory-mapped from safetensors/GGUF files; a Tensor points into the mapping and
// never owns it (the WeightStore that produced it does). Shapes are listed outermost first, as
// PyTorch does: a linear weight is [out_features, in_features]. Quantized types (Q8_0) are
// blocked along the innermost dimension. Immutable after creation; safe to share across threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace strata {

enum class DType : uint8_t { kF32, kF16, kBF16, kQ8_0, kI32 };

// Q8_0: blocks of 32 weights, each an fp16 scale followed by 32 int8 values (GGML's layout).
inline constexpr int kQ8BlockSize = 32;
struct BlockQ8_0 {
  uint16_t scale_f16;
  int8_t q[kQ8BlockSize];
};
static_assert(sizeof(BlockQ8_0) == 34);

std::string_view DTypeName(DType dtype);
absl::StatusOr<DType> ParseDType(std::string_view name);  // "f32", "bf16", "q8_0", ...

// Bytes needed to store `elements` values of `dtype` (elements must be a multiple of the block
// size for blocked types).
size_t DTypeBytes(DType dtype, int64_t elements);

struct Tensor {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;  // outermost first
  const void* data = nullptr;  // not owned

  int64_t NumElements() const;
  size_t NumBytes() const { return DTypeBytes(dtype, NumElements()); }
  int64_t Dim(int i) const { return shape[i]; }
  std::string ShapeString() const;  // "[1024, 3072]"
};

}  // namespace strata
