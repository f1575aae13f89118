// KvCacheManager: the paged KV cache of one model — block storage, per-request block tables,
// reference-counted sharing, and content-addressed prefix caching with LRU eviction.
//
// Only kv/ knows how blocks are laid out and reused; the scheduler sees opaque results (a
// PrefixMatch, a yes/no from AllocateSlots) as vLLM's KVCacheManager hands out KVCacheBlocks.
// A full block is addressed by h_i = H(h_{i-1}, tokens of block i) with H a 128-bit hash, the
// chain seeded by the model fingerprint and the request's cache_salt, so equal hashes mean
// reusable KV. Freed blocks keep their hash and stay reusable until evicted (least recently
// used first; a request's tail blocks before its head). Layers with different attention windows
// form groups with separate block tables; a sliding-window group frees blocks that fell out of
// the window. Thread-compatible: owned and called by the engine thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "strata/forward_batch.h"
#include "strata/model_spec.h"
#include "strata/tensor.h"

namespace strata {

using RequestId = uint64_t;

struct BlockHash {
  uint64_t lo = 0;
  uint64_t hi = 0;
  friend bool operator==(const BlockHash& a, const BlockHash& b) {
    return a.lo == b.lo && a.hi == b.hi;
  }
};

struct KvGroupSpec {
  int sliding_window = 0;   // 0 = full attention
  std::vector<int> layers;  // model layers in this group
};

struct KvCacheManagerConfig {
  int block_size = 16;
  int num_blocks = 0;  // per group
  DType kv_dtype = DType::kF32;
  bool enable_prefix_caching = true;
  std::vector<KvGroupSpec> groups;  // empty = derived from the ModelSpec
  BlockHash fingerprint;            // model identity (weights, dtype, block size, tokenizer)
};

// The longest cached prefix found for a request; valid until the next call that changes the cache.
struct PrefixMatch {
  int num_cached_tokens = 0;  // a multiple of block_size, < the request's token count
  std::vector<std::vector<int32_t>> blocks;  // [group][block] cached blocks to reuse
  std::vector<BlockHash> hashes;             // hashes of the request's full prompt blocks
};

struct PrefixCacheStats {
  int64_t queries = 0;  // tokens looked up
  int64_t hits = 0;     // tokens found
};

class KvCacheManager {
 public:
  // Bytes one block takes across all layers (K and V) at `dtype`.
  static int64_t BytesPerBlock(const ModelSpec& spec, int block_size, DType dtype);
  static absl::StatusOr<std::unique_ptr<KvCacheManager>> Create(const ModelSpec& spec,
                                                                const KvCacheManagerConfig& config);
  ~KvCacheManager();

  // Looks up the longest cached prefix of `tokens` (full blocks only, leaving at least one token
  // to compute). Counts the lookup in stats(). Does not change the cache.
  PrefixMatch FindCachedPrefix(const std::vector<int32_t>& tokens, const std::string& cache_salt);

  // Makes room for `num_new_tokens` more tokens of `request` after its computed ones (every
  // token of an earlier successful call counts as computed); the first call for a request may
  // pass the PrefixMatch to take over its cached blocks, which then count as computed. Before
  // allocating, drops the request's blocks that fell out of every sliding window (as
  // RemoveSkippedBlocks). Returns false, changing nothing, when the free blocks do not suffice
  // (the caller may then preempt). REQUIRES: `match`, if given, came from FindCachedPrefix with
  // no cache-changing call since.
  bool AllocateSlots(RequestId request, int num_new_tokens, const PrefixMatch* match = nullptr);

  // Registers as cached the request's blocks that are full once its first `num_tokens` tokens
  // (`tokens`, prompt then output) are computed. REQUIRES: slots for them were allocated.
  void CacheFullBlocks(RequestId request, const std::vector<int32_t>& tokens, int num_tokens,
                       const std::string& cache_salt);

  // Frees blocks that fell out of every sliding window of `request` given `num_computed_tokens`.
  void RemoveSkippedBlocks(RequestId request, int num_computed_tokens);

  // Releases all of a request's blocks (tail first into the eviction order).
  void Free(RequestId request);

  // The request's block ids in position order for `group`; freed window blocks read as -1.
  // An unknown request has an empty table.
  const std::vector<int32_t>& BlockTable(RequestId request, int group = 0) const;
  // block * block_size + offset of `position`. REQUIRES: the position has a live block.
  int32_t Slot(RequestId request, int position, int group = 0) const;
  // Tokens of `request` that have slots (cached prefix + all allocated tokens); 0 if unknown.
  int NumTokens(RequestId request) const;

  // The KV memory of every layer. Blocks of different groups are separate (block ids are per
  // group); Model::Forward takes one block table per sequence, so it supports one group only.
  const KvCacheView& view() const;
  int block_size() const;
  int num_blocks() const;  // per group
  int num_groups() const;
  int num_free_blocks() const;     // free or evictable (the smallest over groups)
  double Usage() const;            // fraction of blocks held by requests
  PrefixCacheStats stats() const;  // cumulative since Create
  // Empties the prefix cache. Returns false, changing nothing, if any block is held.
  bool ResetPrefixCache();

  // Checks refcounts, free lists, hash index and tables against each other (tests, debug).
  absl::Status CheckInvariants() const;

 private:
  class Impl;
  explicit KvCacheManager(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata
