// KvCacheManager: vLLM v1's KVCacheManager + SingleTypeKVCacheManager over one BlockPool per
// KV group (see strata/kv_cache_manager.h for the contract).
//
// Per request the manager keeps one block table per group, the number of tokens it has slots
// for, the hash chain of its full blocks and how many of them are registered in the cache. All
// groups share block_size, so block i of a request has one hash for every group.
#include "strata/kv_cache_manager.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "kv/block_hash.h"
#include "kv/block_pool.h"

namespace strata {
namespace {

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

class KvCacheManager::Impl {
 public:
  struct Group {
    KvGroupSpec spec;
    kv::BlockPool pool;
    std::unique_ptr<void, FreeDeleter> storage;
    // Blocks needed in a row, ending at a hit's end, for the next query to see its whole
    // window: positions [L - W + 1, L) span ceil((W - 1) / block_size) blocks. 0 = full attention.
    int window_blocks = 0;
    Group(const KvGroupSpec& s, int num_blocks) : spec(s), pool(num_blocks) {}
  };

  struct Request {
    std::vector<std::vector<int32_t>> tables;  // [group][block] ids; -1 = freed (window)
    int num_tokens = 0;                        // tokens with slots
    int num_cached_blocks = 0;                 // leading full blocks already in the cache
    std::vector<BlockHash> hashes;             // chain of the full blocks hashed so far
  };

  explicit Impl(const KvCacheManagerConfig& config) : config_(config) {}

  KvCacheManagerConfig config_;
  std::vector<std::unique_ptr<Group>> groups_;
  KvCacheView view_;
  absl::flat_hash_map<RequestId, Request> requests_;
  PrefixCacheStats stats_;

  int bs() const { return config_.block_size; }

  // Longest hit, in blocks, of at most `max_blocks`, for a sliding-window group: the last
  // `window_blocks` blocks before the hit's end must be cached; earlier ones need not be. A run
  // shorter than that from block 0 is a hit too (the query's window reaches position 0).
  int LongestWindowHit(const Group& g, const std::vector<BlockHash>& hashes, int max_blocks) const {
    if (g.window_blocks == 0) return max_blocks;
    int run = 0;
    for (int i = max_blocks - 1; i >= 0; --i) {
      if (g.pool.Lookup(hashes[i]) >= 0) {
        if (++run >= g.window_blocks) return i + run;
      } else {
        run = 0;
      }
    }
    return run;  // the run that starts at block 0
  }

  int LongestPrefixHit(const Group& g, const std::vector<BlockHash>& hashes, int max_blocks) const {
    int n = 0;
    while (n < max_blocks && g.pool.Lookup(hashes[n]) >= 0) ++n;
    return n;
  }

  // Frees the blocks of a sliding-window group that lie wholly before the window of the token
  // at `num_computed`, latest first (vLLM's order).
  void RemoveSkipped(Request& r, int num_computed) {
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      Group& g = *groups_[gi];
      if (g.spec.sliding_window == 0) continue;
      std::vector<int32_t>& table = r.tables[gi];
      const int skipped = std::min<int>(SkippedBlocks(g, num_computed), table.size());
      for (int i = skipped - 1; i >= 0 && table[i] >= 0; --i) {
        g.pool.Free(table[i]);
        table[i] = -1;
      }
    }
  }

  int SkippedBlocks(const Group& g, int num_computed) const {
    if (g.spec.sliding_window == 0) return 0;
    return std::max(0, num_computed - g.spec.sliding_window + 1) / bs();
  }

  // Blocks RemoveSkipped would return to the free queue.
  int Reclaimable(const Group& g, const std::vector<int32_t>& table, int num_computed) const {
    const int skipped = std::min<int>(SkippedBlocks(g, num_computed), table.size());
    int n = 0;
    for (int i = skipped - 1; i >= 0 && table[i] >= 0; --i) n += g.pool.ref_count(table[i]) == 1;
    return n;
  }
};

int64_t KvCacheManager::BytesPerBlock(const ModelSpec& spec, int block_size, DType dtype) {
  return int64_t{2} * spec.num_layers * spec.KvDim() * block_size *
         static_cast<int64_t>(DTypeBytes(dtype, 1));
}

absl::StatusOr<std::unique_ptr<KvCacheManager>> KvCacheManager::Create(
    const ModelSpec& spec, const KvCacheManagerConfig& config) {
  if (config.block_size <= 0 || config.num_blocks <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("KV cache needs a positive block size and block count (got ",
                     config.block_size, ", ", config.num_blocks, ")"));
  }
  if (config.kv_dtype != DType::kF32 && config.kv_dtype != DType::kBF16 &&
      config.kv_dtype != DType::kF16) {
    return absl::InvalidArgumentError(absl::StrCat("KV cache dtype must be f32, bf16 or f16, not ",
                                                   std::string(DTypeName(config.kv_dtype))));
  }
  if (spec.num_layers <= 0 || spec.KvDim() <= 0) {
    return absl::InvalidArgumentError("KV cache needs a model with layers and KV heads");
  }
  std::vector<KvGroupSpec> groups = config.groups;
  if (groups.empty()) {
    KvGroupSpec all;
    all.sliding_window = spec.sliding_window;
    for (int l = 0; l < spec.num_layers; ++l) all.layers.push_back(l);
    groups.push_back(std::move(all));
  }
  std::vector<int> group_of(spec.num_layers, -1);
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].sliding_window < 0 || groups[g].layers.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("KV group ", g, " needs layers and a window >= 0"));
    }
    for (int l : groups[g].layers) {
      if (l < 0 || l >= spec.num_layers || group_of[l] != -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("KV group ", g, ": layer ", l, " is out of range or in two groups"));
      }
      group_of[l] = static_cast<int>(g);
    }
  }
  for (int l = 0; l < spec.num_layers; ++l) {
    if (group_of[l] == -1) {
      return absl::InvalidArgumentError(absl::StrCat("layer ", l, " is in no KV group"));
    }
  }

  auto impl = std::make_unique<Impl>(config);
  impl->config_.groups = groups;
  const size_t per_tensor = static_cast<size_t>(config.num_blocks) * spec.KvDim() *
                            config.block_size * DTypeBytes(config.kv_dtype, 1);
  impl->view_.block_size = config.block_size;
  impl->view_.num_blocks = config.num_blocks;
  impl->view_.dtype = config.kv_dtype;
  impl->view_.k.assign(spec.num_layers, nullptr);
  impl->view_.v.assign(spec.num_layers, nullptr);
  for (const KvGroupSpec& gs : groups) {
    auto group = std::make_unique<Impl::Group>(gs, config.num_blocks);
    if (gs.sliding_window > 0) {
      group->window_blocks = CeilDiv(gs.sliding_window - 1, config.block_size);
    }
    // Per group: [layer in group][k|v][num_blocks, kv_heads, block_size, head_dim], 64-byte
    // aligned, zeroed so an unwritten slot never holds NaN bits.
    constexpr size_t kAlign = 64;
    size_t bytes = per_tensor * 2 * gs.layers.size();
    bytes = (bytes + kAlign - 1) / kAlign * kAlign;
    void* mem = std::aligned_alloc(kAlign, bytes);
    if (mem == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate ", bytes, " bytes for the KV cache"));
    }
    std::memset(mem, 0, bytes);
    group->storage.reset(mem);
    auto* base = static_cast<unsigned char*>(mem);
    for (size_t j = 0; j < gs.layers.size(); ++j) {
      impl->view_.k[gs.layers[j]] = base + (2 * j) * per_tensor;
      impl->view_.v[gs.layers[j]] = base + (2 * j + 1) * per_tensor;
    }
    impl->groups_.push_back(std::move(group));
  }
  return std::unique_ptr<KvCacheManager>(new KvCacheManager(std::move(impl)));
}

KvCacheManager::KvCacheManager(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KvCacheManager::~KvCacheManager() = default;

PrefixMatch KvCacheManager::FindCachedPrefix(const std::vector<int32_t>& tokens,
                                             const std::string& cache_salt) {
  Impl& m = *impl_;
  PrefixMatch match;
  match.blocks.resize(m.groups_.size());
  if (!m.config_.enable_prefix_caching) return match;
  const int bs = m.bs();
  kv::ExtendBlockHashes(kv::ChainSeed(m.config_.fingerprint, cache_salt), tokens,
                        static_cast<int>(tokens.size()), bs, match.hashes);
  // At least one token is left to compute: its logits are what the request needs next.
  int n = tokens.empty() ? 0 : (static_cast<int>(tokens.size()) - 1) / bs;
  for (const auto& g : m.groups_) {
    if (g->spec.sliding_window == 0) n = m.LongestPrefixHit(*g, match.hashes, n);
  }
  // A window group's hit at a shorter length may need blocks it did not need at a longer one,
  // so shrink until every window group accepts the same length (n only decreases).
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& g : m.groups_) {
      if (g->spec.sliding_window == 0) continue;
      const int hit = m.LongestWindowHit(*g, match.hashes, n);
      if (hit < n) {
        n = hit;
        changed = true;
      }
    }
  }
  for (size_t gi = 0; gi < m.groups_.size(); ++gi) {
    const Impl::Group& g = *m.groups_[gi];
    const int first = g.spec.sliding_window == 0 ? 0 : std::max(0, n - g.window_blocks);
    std::vector<int32_t>& blocks = match.blocks[gi];
    blocks.assign(n, -1);
    for (int i = first; i < n; ++i) blocks[i] = g.pool.Lookup(match.hashes[i]);
  }
  match.num_cached_tokens = n * bs;
  m.stats_.queries += static_cast<int64_t>(tokens.size());
  m.stats_.hits += match.num_cached_tokens;
  return match;
}

bool KvCacheManager::AllocateSlots(RequestId request, int num_new_tokens,
                                   const PrefixMatch* match) {
  Impl& m = *impl_;
  assert(num_new_tokens >= 0);
  auto [it, inserted] = m.requests_.try_emplace(request);
  Impl::Request& r = it->second;
  if (inserted) r.tables.resize(m.groups_.size());
  // A match is taken over only by a request that holds no tokens yet.
  const bool use_match = match != nullptr && r.num_tokens == 0 && match->num_cached_tokens > 0;
  const int computed = use_match ? match->num_cached_tokens : r.num_tokens;
  const int needed = CeilDiv(computed + num_new_tokens, m.bs());

  for (size_t gi = 0; gi < m.groups_.size(); ++gi) {
    const Impl::Group& g = *m.groups_[gi];
    const std::vector<int32_t>& table = use_match ? match->blocks[gi] : r.tables[gi];
    int evictable_hits = 0;
    if (use_match) {
      for (int32_t b : table) evictable_hits += b >= 0 && g.pool.ref_count(b) == 0;
    }
    const int fresh = std::max(0, needed - static_cast<int>(table.size()));
    const int available = g.pool.num_free_blocks() + m.Reclaimable(g, table, computed);
    if (fresh + evictable_hits > available) {
      if (inserted) m.requests_.erase(it);
      return false;
    }
  }

  if (use_match) {
    for (size_t gi = 0; gi < m.groups_.size(); ++gi) {
      r.tables[gi] = match->blocks[gi];
      for (size_t i = 0; i < r.tables[gi].size(); ++i) {
        const int32_t b = r.tables[gi][i];
        if (b < 0) continue;
        // REQUIRES of the contract: the match is not stale.
        assert(m.groups_[gi]->pool.has_hash(b) && m.groups_[gi]->pool.hash(b) == match->hashes[i]);
        m.groups_[gi]->pool.Touch(b);
      }
    }
    r.num_tokens = match->num_cached_tokens;
    r.num_cached_blocks = match->num_cached_tokens / m.bs();
    r.hashes = match->hashes;
  }
  m.RemoveSkipped(r, r.num_tokens);
  for (size_t gi = 0; gi < m.groups_.size(); ++gi) {
    const int fresh = needed - static_cast<int>(r.tables[gi].size());
    if (fresh > 0) m.groups_[gi]->pool.Allocate(fresh, r.tables[gi]);
  }
  r.num_tokens += num_new_tokens;
  return true;
}

void KvCacheManager::CacheFullBlocks(RequestId request, const std::vector<int32_t>& tokens,
                                     int num_tokens, const std::string& cache_salt) {
  Impl& m = *impl_;
  if (!m.config_.enable_prefix_caching) return;
  auto it = m.requests_.find(request);
  if (it == m.requests_.end()) return;
  Impl::Request& r = it->second;
  assert(num_tokens <= r.num_tokens && num_tokens <= static_cast<int>(tokens.size()));
  const int full = std::min(num_tokens, r.num_tokens) / m.bs();
  if (full <= r.num_cached_blocks) return;
  kv::ExtendBlockHashes(kv::ChainSeed(m.config_.fingerprint, cache_salt), tokens, full * m.bs(),
                        m.bs(), r.hashes);
  for (int i = r.num_cached_blocks; i < full; ++i) {
    for (size_t gi = 0; gi < m.groups_.size(); ++gi) {
      const int32_t b = r.tables[gi][i];
      if (b >= 0) m.groups_[gi]->pool.Cache(b, r.hashes[i]);
    }
  }
  r.num_cached_blocks = full;
}

void KvCacheManager::RemoveSkippedBlocks(RequestId request, int num_computed_tokens) {
  auto it = impl_->requests_.find(request);
  if (it != impl_->requests_.end()) impl_->RemoveSkipped(it->second, num_computed_tokens);
}

void KvCacheManager::Free(RequestId request) {
  Impl& m = *impl_;
  auto it = m.requests_.find(request);
  if (it == m.requests_.end()) return;
  for (size_t gi = 0; gi < m.groups_.size(); ++gi) {
    const std::vector<int32_t>& table = it->second.tables[gi];
    for (auto b = table.rbegin(); b != table.rend(); ++b) {
      if (*b >= 0) m.groups_[gi]->pool.Free(*b);
    }
  }
  m.requests_.erase(it);
}

const std::vector<int32_t>& KvCacheManager::BlockTable(RequestId request, int group) const {
  static const std::vector<int32_t> kEmpty;
  auto it = impl_->requests_.find(request);
  return it == impl_->requests_.end() ? kEmpty : it->second.tables[group];
}

int32_t KvCacheManager::Slot(RequestId request, int position, int group) const {
  const std::vector<int32_t>& table = BlockTable(request, group);
  const int bs = impl_->bs();
  assert(position / bs < static_cast<int>(table.size()) && table[position / bs] >= 0);
  return table[position / bs] * bs + position % bs;
}

int KvCacheManager::NumTokens(RequestId request) const {
  auto it = impl_->requests_.find(request);
  return it == impl_->requests_.end() ? 0 : it->second.num_tokens;
}

const KvCacheView& KvCacheManager::view() const { return impl_->view_; }
int KvCacheManager::block_size() const { return impl_->bs(); }
int KvCacheManager::num_blocks() const { return impl_->config_.num_blocks; }
int KvCacheManager::num_groups() const { return static_cast<int>(impl_->groups_.size()); }

int KvCacheManager::num_free_blocks() const {
  int free = impl_->config_.num_blocks;
  for (const auto& g : impl_->groups_) free = std::min(free, g->pool.num_free_blocks());
  return free;
}

double KvCacheManager::Usage() const {
  int64_t total = 0, free = 0;
  for (const auto& g : impl_->groups_) {
    total += g->pool.num_blocks();
    free += g->pool.num_free_blocks();
  }
  return total == 0 ? 0.0 : 1.0 - static_cast<double>(free) / static_cast<double>(total);
}

PrefixCacheStats KvCacheManager::stats() const { return impl_->stats_; }

bool KvCacheManager::ResetPrefixCache() {
  for (const auto& g : impl_->groups_) {
    if (g->pool.num_free_blocks() != g->pool.num_blocks()) return false;
  }
  for (auto& g : impl_->groups_) g->pool.ResetPrefixCache();
  // Requests holding no blocks must not count blocks as already cached.
  for (auto& [id, r] : impl_->requests_) r.num_cached_blocks = 0;
  return true;
}

absl::Status KvCacheManager::CheckInvariants() const {
  const Impl& m = *impl_;
  const int bs = m.bs();
  for (size_t gi = 0; gi < m.groups_.size(); ++gi) {
    const Impl::Group& g = *m.groups_[gi];
    std::vector<int> refs(g.pool.num_blocks(), 0);
    for (const auto& [id, r] : m.requests_) {
      const std::vector<int32_t>& table = r.tables[gi];
      if (static_cast<int>(table.size()) != CeilDiv(r.num_tokens, bs)) {
        return absl::InternalError(absl::StrCat("request ", id, " group ", gi, " has ",
                                                table.size(), " blocks for ", r.num_tokens,
                                                " tokens"));
      }
      if (r.num_cached_blocks * bs > r.num_tokens ||
          static_cast<int>(r.hashes.size()) < r.num_cached_blocks) {
        return absl::InternalError(absl::StrCat("request ", id, " caches ", r.num_cached_blocks,
                                                " blocks of ", r.num_tokens, " tokens with ",
                                                r.hashes.size(), " hashes"));
      }
      for (size_t i = 0; i < table.size(); ++i) {
        const int32_t b = table[i];
        if (b < 0) {
          // Only a window group frees blocks, and only those wholly before its window.
          if (static_cast<int>(i) >= m.SkippedBlocks(g, r.num_tokens)) {
            return absl::InternalError(
                absl::StrCat("request ", id, " group ", gi, " lost block ", i));
          }
          continue;
        }
        if (b >= g.pool.num_blocks()) {
          return absl::InternalError(absl::StrCat("request ", id, " names block ", b));
        }
        ++refs[b];
        if (static_cast<int>(i) < r.num_cached_blocks && g.pool.has_hash(b) &&
            !(g.pool.hash(b) == r.hashes[i])) {
          return absl::InternalError(
              absl::StrCat("request ", id, " block ", i, " holds another prefix's hash"));
        }
      }
    }
    absl::Status s = g.pool.CheckInvariants(refs);
    if (!s.ok()) return absl::InternalError(absl::StrCat("group ", gi, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace strata
