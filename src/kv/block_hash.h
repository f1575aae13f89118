// Content addresses of full KV blocks: the hash chain that makes prefix caching safe.
//
// A chain starts at a seed, h_{-1} = XXH3_128("strata-kv-seed/v1" ‖ fingerprint ‖ cache_salt),
// where the fingerprint identifies the model (weights, KV dtype, block size, tokenizer) and the
// salt isolates a tenant (empty = the shared namespace). Block i of a token sequence then has
// h_i = XXH3_128(h_{i-1} ‖ token ids of block i), hashes and ids serialized little-endian
// (h as lo then hi, each 8 bytes; each id 4 bytes). So two sequences get equal h_i exactly when
// they agree on fingerprint, salt and every token up to the end of block i (up to 2^-128
// collisions), which is what makes block i's KV reusable. Only full blocks are hashed.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/kv_cache_manager.h"

namespace strata::kv {

// Hash functor for hash maps keyed by BlockHash (the value is already uniformly distributed).
struct BlockHashHasher {
  size_t operator()(const BlockHash& h) const { return static_cast<size_t>(h.lo ^ (h.hi >> 1)); }
};

// h_{-1}: the chain's start for a model fingerprint and a tenant's cache salt.
BlockHash ChainSeed(const BlockHash& fingerprint, const std::string& cache_salt);

// h_i from h_{i-1} (`parent`) and the `count` token ids of block i.
BlockHash HashBlock(const BlockHash& parent, const int32_t* tokens, int count);

// Extends `hashes` (the chain of `tokens` so far, starting from `seed`) with the hashes of every
// further full block within the first `num_tokens` tokens.
// REQUIRES: num_tokens <= tokens.size(); hashes holds the chain's first hashes.size() blocks.
void ExtendBlockHashes(const BlockHash& seed, const std::vector<int32_t>& tokens, int num_tokens,
                       int block_size, std::vector<BlockHash>& hashes);

}  // namespace strata::kv
