// BlockPool: the blocks of one KV group — reference counts, the free queue in eviction order,
// and the prefix-cache index (block hash → block).
//
// A block is held (ref_count > 0) by the requests whose block tables contain it, or free
// (ref_count == 0) and then in the free queue. A free block keeps its hash: its KV stays
// reusable until the block is taken from the queue's head for new data, which evicts the hash.
// Freed blocks join at the tail, so the head is the least recently freed block (LRU); callers
// free a request's blocks tail first so its tail is evicted before its head. The queue is
// intrusive and doubly linked (vLLM v1's FreeKVCacheBlockQueue): a prefix hit takes a block out
// of the middle in O(1). At most one block holds a given hash. Thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "kv/block_hash.h"
#include "strata/kv_cache_manager.h"

namespace strata::kv {

class BlockPool {
 public:
  // All blocks start free, queued in id order, with no hash.
  explicit BlockPool(int num_blocks);

  int num_blocks() const { return static_cast<int>(ref_.size()); }
  int num_free_blocks() const { return num_free_; }
  int ref_count(int32_t block) const { return ref_[block]; }
  bool has_hash(int32_t block) const { return has_hash_[block]; }
  const BlockHash& hash(int32_t block) const { return hash_[block]; }
  int num_cached_blocks() const { return static_cast<int>(index_.size()); }

  // The block holding `hash`, held or free; -1 when none.
  int32_t Lookup(const BlockHash& hash) const;

  // Adds a reference; a free block leaves the free queue (a prefix hit reuses it).
  void Touch(int32_t block);

  // Appends to `out` `n` blocks taken from the head of the free queue, evicting their hashes;
  // each gets one reference. REQUIRES: n <= num_free_blocks().
  void Allocate(int n, std::vector<int32_t>& out);

  // Drops a reference; at zero the block joins the tail of the free queue, keeping its hash.
  // REQUIRES: ref_count(block) > 0.
  void Free(int32_t block);

  // Registers held `block` as holding `hash`. Returns false, changing nothing, when the block
  // already has a hash or another block holds `hash` (the same content computed twice).
  bool Cache(int32_t block, const BlockHash& hash);

  // Drops every hash. Returns false, changing nothing, when any block is held.
  bool ResetPrefixCache();

  // Free blocks from the head (evicted first) to the tail.
  std::vector<int32_t> FreeQueue() const;

  // Checks the free queue's links and count, refcounts against `expected_refs` (the number of
  // block-table entries naming each block), and the hash index against the blocks' hashes.
  absl::Status CheckInvariants(const std::vector<int>& expected_refs) const;

 private:
  void Unlink(int32_t block);
  void PushBack(int32_t block);
  void DropHash(int32_t block);

  std::vector<int> ref_;         // [num_blocks]
  std::vector<char> has_hash_;   // [num_blocks]
  std::vector<BlockHash> hash_;  // [num_blocks] valid where has_hash_
  // Free queue: circular doubly linked list over block ids with a sentinel at num_blocks.
  std::vector<int32_t> next_;  // [num_blocks + 1]
  std::vector<int32_t> prev_;  // [num_blocks + 1]
  int num_free_ = 0;
  absl::flat_hash_map<BlockHash, int32_t, BlockHashHasher> index_;
};

}  // namespace strata::kv
