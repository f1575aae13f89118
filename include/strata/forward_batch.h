// ForwardBatch: one flat, unpadded batch for a forward pass, and the paged KV cache it runs on.
//
// All scheduled tokens of all sequences sit in one array; each sequence owns a contiguous run of
// rows. A batch may mix prompt chunks of one sequence with decode tokens of others. The batch
// and the cache are plain data built by the caller (the engine or the CLI); only kv/ decides
// which slots a sequence owns.
#pragma once

#include <cstdint>
#include <vector>

#include "strata/tensor.h"

namespace strata {

// Paged KV storage for every layer. Per layer, K and V are each
// [num_blocks, num_kv_heads, block_size, head_dim] of `dtype` (f32, bf16 or f16), so one head of
// one block is contiguous. Layers of different KV groups (see KvCacheManager) have separate
// block id spaces; `num_blocks` is per group.
struct KvCacheView {
  int block_size = 16;
  int num_blocks = 0;
  DType dtype = DType::kF32;
  std::vector<void*> k;  // [num_layers] element type given by dtype
  std::vector<void*> v;  // [num_layers]
};

// LIMITATION: one block table per sequence, used by every layer, so a forward pass supports
// models whose layers form a single KV group (all current architectures: all layers
// full-attention, or all sliding-window). Hybrid models need a table per group here.
struct BatchSequence {
  int query_start = 0;  // first row of this sequence in ForwardBatch::tokens
  int query_len = 0;    // rows (new tokens) this pass computes for the sequence
  int context_len = 0;  // tokens in the cache once these rows are written; rows are its tail
  // [ceil(context_len / block_size)] block ids; entries before the sliding window of the first
  // row may be -1 (blocks freed by the KV manager), and are never read.
  const int32_t* block_table = nullptr;
};

struct ForwardBatch {
  std::vector<int32_t> tokens;     // [num_tokens]
  std::vector<int32_t> positions;  // [num_tokens]
  std::vector<int32_t> slots;      // [num_tokens] block * block_size + offset for each row's K/V
  std::vector<BatchSequence> sequences;
  std::vector<int32_t> logit_rows;  // rows whose next-token logits are wanted, in output order

  int num_tokens() const { return static_cast<int>(tokens.size()); }
};

}  // namespace strata
