#include "kv/block_hash.h"

#include <xxhash.h>

#include <cassert>

namespace strata::kv {
namespace {

constexpr char kSeedTag[] = "strata-kv-seed/v1";

void AppendU64(uint64_t x, std::vector<unsigned char>& out) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(x >> (8 * i)));
}

BlockHash FromXxh(const XXH128_hash_t& h) { return BlockHash{h.low64, h.high64}; }

}  // namespace

BlockHash ChainSeed(const BlockHash& fingerprint, const std::string& cache_salt) {
  std::vector<unsigned char> buf(kSeedTag, kSeedTag + sizeof(kSeedTag) - 1);
  AppendU64(fingerprint.lo, buf);
  AppendU64(fingerprint.hi, buf);
  buf.insert(buf.end(), cache_salt.begin(), cache_salt.end());
  return FromXxh(XXH3_128bits(buf.data(), buf.size()));
}

BlockHash HashBlock(const BlockHash& parent, const int32_t* tokens, int count) {
  std::vector<unsigned char> buf;
  buf.reserve(16 + 4 * static_cast<size_t>(count));
  AppendU64(parent.lo, buf);
  AppendU64(parent.hi, buf);
  for (int i = 0; i < count; ++i) {
    const uint32_t t = static_cast<uint32_t>(tokens[i]);
    for (int b = 0; b < 4; ++b) buf.push_back(static_cast<unsigned char>(t >> (8 * b)));
  }
  return FromXxh(XXH3_128bits(buf.data(), buf.size()));
}

void ExtendBlockHashes(const BlockHash& seed, const std::vector<int32_t>& tokens, int num_tokens,
                       int block_size, std::vector<BlockHash>& hashes) {
  assert(num_tokens <= static_cast<int>(tokens.size()));
  const size_t full = static_cast<size_t>(num_tokens / block_size);
  while (hashes.size() < full) {
    const BlockHash& parent = hashes.empty() ? seed : hashes.back();
    const int32_t* block = tokens.data() + hashes.size() * block_size;
    hashes.push_back(HashBlock(parent, block, block_size));
  }
}

}  // namespace strata::kv
