// WriteKv: scatters new tokens' K and V rows into their paged-cache slots.
//
// Cache layout per layer: [num_blocks, num_kv_heads, block_size, head_dim], so one head's keys
// within a block are contiguous and attention streams them.
#include <cstring>

#include "backend/cpu/ops.h"

namespace strata::cpu {

void WriteKv(const float* k, const float* v, int64_t token_stride, int tokens, const int32_t* slots,
             int num_kv_heads, int head_dim, int block_size, PagedKvLayer layer) {
  const size_t row_bytes = static_cast<size_t>(head_dim) * sizeof(float);
  for (int t = 0; t < tokens; ++t) {
    const int64_t block = slots[t] / block_size;
    const int64_t offset = slots[t] % block_size;
    for (int h = 0; h < num_kv_heads; ++h) {
      const int64_t dst = ((block * num_kv_heads + h) * block_size + offset) * head_dim;
      const int64_t src = t * token_stride + static_cast<int64_t>(h) * head_dim;
      std::memcpy(layer.k + dst, k + src, row_bytes);
      std::memcpy(layer.v + dst, v + src, row_bytes);
    }
  }
}

}  // namespace strata::cpu
