#include "kv/block_pool.h"

#include <cassert>

#include "absl/strings/str_cat.h"

namespace strata::kv {

BlockPool::BlockPool(int num_blocks)
    : ref_(num_blocks, 0),
      has_hash_(num_blocks, 0),
      hash_(num_blocks),
      next_(num_blocks + 1),
      prev_(num_blocks + 1) {
  const int32_t sentinel = num_blocks;
  next_[sentinel] = prev_[sentinel] = sentinel;
  for (int32_t b = 0; b < num_blocks; ++b) PushBack(b);
}

int32_t BlockPool::Lookup(const BlockHash& hash) const {
  auto it = index_.find(hash);
  return it == index_.end() ? -1 : it->second;
}

void BlockPool::Unlink(int32_t block) {
  next_[prev_[block]] = next_[block];
  prev_[next_[block]] = prev_[block];
  next_[block] = prev_[block] = -1;
  --num_free_;
}

void BlockPool::PushBack(int32_t block) {
  const int32_t sentinel = num_blocks();
  const int32_t last = prev_[sentinel];
  next_[last] = block;
  prev_[block] = last;
  next_[block] = sentinel;
  prev_[sentinel] = block;
  ++num_free_;
}

void BlockPool::DropHash(int32_t block) {
  if (!has_hash_[block]) return;
  auto it = index_.find(hash_[block]);
  if (it != index_.end() && it->second == block) index_.erase(it);
  has_hash_[block] = 0;
}

void BlockPool::Touch(int32_t block) {
  if (ref_[block]++ == 0) Unlink(block);
}

void BlockPool::Allocate(int n, std::vector<int32_t>& out) {
  assert(n <= num_free_);
  const int32_t sentinel = num_blocks();
  for (int i = 0; i < n; ++i) {
    const int32_t block = next_[sentinel];
    Unlink(block);
    DropHash(block);
    ref_[block] = 1;
    out.push_back(block);
  }
}

void BlockPool::Free(int32_t block) {
  assert(ref_[block] > 0);
  if (--ref_[block] == 0) PushBack(block);
}

bool BlockPool::Cache(int32_t block, const BlockHash& hash) {
  if (has_hash_[block]) return false;
  if (!index_.emplace(hash, block).second) return false;
  hash_[block] = hash;
  has_hash_[block] = 1;
  return true;
}

bool BlockPool::ResetPrefixCache() {
  if (num_free_ != num_blocks()) return false;
  index_.clear();
  for (auto& h : has_hash_) h = 0;
  return true;
}

std::vector<int32_t> BlockPool::FreeQueue() const {
  std::vector<int32_t> out;
  const int32_t sentinel = num_blocks();
  for (int32_t b = next_[sentinel]; b != sentinel; b = next_[b]) out.push_back(b);
  return out;
}

absl::Status BlockPool::CheckInvariants(const std::vector<int>& expected_refs) const {
  const int n = num_blocks();
  if (static_cast<int>(expected_refs.size()) != n) {
    return absl::InternalError("expected_refs has the wrong size");
  }
  std::vector<char> queued(n, 0);
  int count = 0;
  const int32_t sentinel = n;
  for (int32_t b = next_[sentinel], prev = sentinel; b != sentinel; prev = b, b = next_[b]) {
    if (b < 0 || b >= n) return absl::InternalError(absl::StrCat("free queue links to ", b));
    if (prev_[b] != prev) return absl::InternalError(absl::StrCat("bad prev link at block ", b));
    if (queued[b]) return absl::InternalError(absl::StrCat("block ", b, " queued twice"));
    queued[b] = 1;
    if (++count > n) return absl::InternalError("free queue has a cycle");
  }
  if (count != num_free_) {
    return absl::InternalError(
        absl::StrCat("free queue holds ", count, " blocks, count says ", num_free_));
  }
  for (int32_t b = 0; b < n; ++b) {
    if (ref_[b] != expected_refs[b]) {
      return absl::InternalError(absl::StrCat("block ", b, " has ref_count ", ref_[b], " but ",
                                              expected_refs[b], " table entries"));
    }
    if ((ref_[b] == 0) != static_cast<bool>(queued[b])) {
      return absl::InternalError(absl::StrCat("block ", b, " with ref_count ", ref_[b],
                                              queued[b] ? " is" : " is not", " in the free queue"));
    }
    if (has_hash_[b]) {
      auto it = index_.find(hash_[b]);
      if (it == index_.end() || it->second != b) {
        return absl::InternalError(absl::StrCat("block ", b, " has a hash the index lacks"));
      }
    }
  }
  for (const auto& [hash, block] : index_) {
    if (block < 0 || block >= n || !has_hash_[block] || !(hash_[block] == hash)) {
      return absl::InternalError(absl::StrCat("index entry for block ", block, " is stale"));
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::kv
