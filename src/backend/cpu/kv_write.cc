// WriteKv: scatters new tokens' K and V rows into their paged-cache slots.
//
// Cache layout per layer: [num_blocks, num_kv_heads, block_size, head_dim], so one head's keys
// within a block are contiguous and attention streams them. f32 rows are copied; bf16 rows are
// rounded to nearest even (strata/half.h, as PyTorch does); f16 rows are rounded by F16C
// (round to nearest even), 8 lanes at a time with the same instruction for the tail.
#include <immintrin.h>

#include <cassert>
#include <cstring>

#include "backend/cpu/ops.h"
#include "strata/half.h"

namespace strata::cpu {
namespace {

void StoreBf16(const float* src, int n, uint16_t* dst) {
  for (int i = 0; i < n; ++i) dst[i] = F32ToBf16(src[i]);
}

void StoreF16(const float* src, int n, uint16_t* dst) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h =
        _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = F32ToF16(src[i]);
}

void StoreRow(const float* src, int n, DType dtype, void* base, int64_t at) {
  switch (dtype) {
    case DType::kF32:
      std::memcpy(static_cast<float*>(base) + at, src, static_cast<size_t>(n) * sizeof(float));
      break;
    case DType::kBF16:
      StoreBf16(src, n, static_cast<uint16_t*>(base) + at);
      break;
    case DType::kF16:
      StoreF16(src, n, static_cast<uint16_t*>(base) + at);
      break;
    default:
      assert(false && "KV cache dtype must be f32, bf16 or f16");
  }
}

}  // namespace

void WriteKv(const float* k, const float* v, int64_t token_stride, int tokens, const int32_t* slots,
             int num_kv_heads, int head_dim, int block_size, PagedKvLayer layer) {
  for (int t = 0; t < tokens; ++t) {
    const int64_t block = slots[t] / block_size;
    const int64_t offset = slots[t] % block_size;
    for (int h = 0; h < num_kv_heads; ++h) {
      const int64_t dst = ((block * num_kv_heads + h) * block_size + offset) * head_dim;
      const int64_t src = t * token_stride + static_cast<int64_t>(h) * head_dim;
      StoreRow(k + src, head_dim, layer.dtype, layer.k, dst);
      StoreRow(v + src, head_dim, layer.dtype, layer.v, dst);
    }
  }
}

}  // namespace strata::cpu
