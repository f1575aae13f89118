// KvPool: the paged KV cache memory of one model, as fixed-size blocks shared by all layers,
// and BlockTable, one sequence's list of blocks.
//
// Only kv/ knows the block layout; the model sees it through KvCacheView. Block ids are handed
// out and taken back through Allocate/Free. Thread-compatible (owned by the engine thread).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "strata/forward_batch.h"
#include "strata/model_spec.h"

namespace strata {

class KvPool {
 public:
  // Bytes one block takes across all layers (K and V, f32).
  static int64_t BytesPerBlock(const ModelSpec& spec, int block_size);
  static absl::StatusOr<std::unique_ptr<KvPool>> Create(const ModelSpec& spec, int block_size,
                                                        int num_blocks);

  const KvCacheView& view() const { return view_; }
  int block_size() const { return view_.block_size; }
  int num_blocks() const { return view_.num_blocks; }
  int num_free_blocks() const { return static_cast<int>(free_.size()); }

  // Returns a free block id, or ResourceExhausted when none is left.
  absl::StatusOr<int32_t> Allocate();
  // REQUIRES: `block` came from Allocate and was not freed since.
  void Free(int32_t block);

 private:
  KvPool() = default;
  std::vector<float> storage_;  // [num_layers][k|v][num_blocks, kv_heads, block_size, head_dim]
  std::vector<int32_t> free_;   // LIFO free list
  KvCacheView view_;
};

// The blocks of one sequence in position order.
class BlockTable {
 public:
  // Allocates blocks until `tokens` positions fit; on failure nothing new is kept.
  absl::Status EnsureCapacity(KvPool& pool, int tokens);
  // Cache slot (block * block_size + offset) of position `pos`. REQUIRES: pos fits.
  int32_t Slot(int pos, int block_size) const {
    return blocks_[pos / block_size] * block_size + pos % block_size;
  }
  const std::vector<int32_t>& blocks() const { return blocks_; }
  void Release(KvPool& pool);

 private:
  std::vector<int32_t> blocks_;
};

}  // namespace strata
