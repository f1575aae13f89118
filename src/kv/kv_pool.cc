#include "strata/kv_pool.h"

#include "absl/strings/str_cat.h"

namespace strata {

int64_t KvPool::BytesPerBlock(const ModelSpec& spec, int block_size) {
  return int64_t{2} * spec.num_layers * spec.KvDim() * block_size * sizeof(float);
}

absl::StatusOr<std::unique_ptr<KvPool>> KvPool::Create(const ModelSpec& spec, int block_size,
                                                       int num_blocks) {
  if (block_size <= 0 || num_blocks <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("KV pool needs a positive block size and block "
                                                   "count (got ", block_size, ", ", num_blocks, ")"));
  }
  auto pool = std::unique_ptr<KvPool>(new KvPool());
  const size_t per_tensor = static_cast<size_t>(num_blocks) * spec.KvDim() * block_size;
  pool->storage_.assign(per_tensor * 2 * spec.num_layers, 0.0f);
  pool->view_.block_size = block_size;
  pool->view_.num_blocks = num_blocks;
  for (int l = 0; l < spec.num_layers; ++l) {
    pool->view_.k.push_back(pool->storage_.data() + (2 * l) * per_tensor);
    pool->view_.v.push_back(pool->storage_.data() + (2 * l + 1) * per_tensor);
  }
  for (int b = num_blocks - 1; b >= 0; --b) pool->free_.push_back(b);
  return pool;
}

absl::StatusOr<int32_t> KvPool::Allocate() {
  if (free_.empty()) return absl::ResourceExhaustedError("KV cache pool has no free block");
  const int32_t block = free_.back();
  free_.pop_back();
  return block;
}

void KvPool::Free(int32_t block) { free_.push_back(block); }

absl::Status BlockTable::EnsureCapacity(KvPool& pool, int tokens) {
  const size_t needed = (tokens + pool.block_size() - 1) / pool.block_size();
  const size_t before = blocks_.size();
  while (blocks_.size() < needed) {
    auto block = pool.Allocate();
    if (!block.ok()) {
      while (blocks_.size() > before) {
        pool.Free(blocks_.back());
        blocks_.pop_back();
      }
      return block.status();
    }
    blocks_.push_back(*block);
  }
  return absl::OkStatus();
}

void BlockTable::Release(KvPool& pool) {
  for (int32_t b : blocks_) pool.Free(b);
  blocks_.clear();
}

}  // namespace strata
