// KvCacheManager: prefix hits, sharing, eviction order, tenant isolation, stats, all-or-nothing
// allocation, sliding-window groups and storage. One behaviour per test, through the public API.
#include "strata/kv_cache_manager.h"

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata {
namespace {

constexpr int kBs = 16;
using V = std::vector<int32_t>;

ModelSpec Spec(int window = 0) {
  ModelSpec s;
  s.vocab_size = 1000;
  s.hidden_size = 32;
  s.num_layers = 2;
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.head_dim = 8;
  s.sliding_window = window;
  return s;
}

std::unique_ptr<KvCacheManager> Make(int num_blocks, int window = 0,
                                     std::vector<KvGroupSpec> groups = {}) {
  KvCacheManagerConfig config;
  config.block_size = kBs;
  config.num_blocks = num_blocks;
  config.groups = std::move(groups);
  config.fingerprint = {42, 7};
  auto m = KvCacheManager::Create(Spec(window), config);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

// `n` token ids determined by `seed`; different seeds share no block.
V Tokens(int n, int seed) {
  V v(n);
  for (int i = 0; i < n; ++i) v[i] = seed * 10000 + i;
  return v;
}

V Concat(V a, const V& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Runs a request's whole prompt as the engine would: look up, allocate the rest, and register
// its full blocks once computed. Returns the cached tokens, or -1 when allocation failed.
int Prefill(KvCacheManager& m, RequestId id, const V& tokens, const std::string& salt = "") {
  const PrefixMatch match = m.FindCachedPrefix(tokens, salt);
  if (!m.AllocateSlots(id, static_cast<int>(tokens.size()) - match.num_cached_tokens, &match)) {
    return -1;
  }
  m.CacheFullBlocks(id, tokens, static_cast<int>(tokens.size()), salt);
  return match.num_cached_tokens;
}

#define EXPECT_INVARIANTS(m)                      \
  do {                                            \
    const absl::Status s = (m).CheckInvariants(); \
    EXPECT_TRUE(s.ok()) << s;                     \
  } while (0)

TEST(KvCacheManagerTest, MissOnAnEmptyCache) {
  auto m = Make(8);
  const PrefixMatch match = m->FindCachedPrefix(Tokens(40, 1), "");
  EXPECT_EQ(match.num_cached_tokens, 0);
  EXPECT_EQ(match.hashes.size(), 2u);  // full prompt blocks
  ASSERT_EQ(match.blocks.size(), 1u);
  EXPECT_TRUE(match.blocks[0].empty());
}

TEST(KvCacheManagerTest, FullHitReusesEveryFullBlockButTheLastToken) {
  auto m = Make(16);
  const V prompt = Tokens(50, 1);  // 3 full blocks + 2 tokens
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);
  const PrefixMatch match = m->FindCachedPrefix(prompt, "");
  EXPECT_EQ(match.num_cached_tokens, 48);
  EXPECT_EQ(match.blocks[0], V(m->BlockTable(1).begin(), m->BlockTable(1).begin() + 3));
}

TEST(KvCacheManagerTest, AtLeastOneTokenIsLeftToCompute) {
  auto m = Make(16);
  const V prompt = Tokens(48, 1);  // exactly 3 blocks
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);
  EXPECT_EQ(m->FindCachedPrefix(prompt, "").num_cached_tokens, 32);
  EXPECT_EQ(m->FindCachedPrefix(V(prompt.begin(), prompt.begin() + 16), "").num_cached_tokens, 0);
  EXPECT_EQ(m->FindCachedPrefix(V(prompt.begin(), prompt.begin() + 17), "").num_cached_tokens, 16);
}

TEST(KvCacheManagerTest, PartialHitStopsAtTheFirstDifferingBlock) {
  auto m = Make(16);
  const V a = Tokens(64, 1);
  ASSERT_EQ(Prefill(*m, 1, a), 0);
  V b = a;
  b[40] = 5;  // block 2 differs
  EXPECT_EQ(m->FindCachedPrefix(b, "").num_cached_tokens, 32);
}

TEST(KvCacheManagerTest, DifferentPromptMisses) {
  auto m = Make(16);
  ASSERT_EQ(Prefill(*m, 1, Tokens(64, 1)), 0);
  EXPECT_EQ(m->FindCachedPrefix(Tokens(64, 2), "").num_cached_tokens, 0);
}

TEST(KvCacheManagerTest, TwoRequestsShareCachedBlocksWithRefcounts) {
  auto m = Make(16);
  const V a = Tokens(40, 1);
  ASSERT_EQ(Prefill(*m, 1, a), 0);
  ASSERT_EQ(Prefill(*m, 2, Concat(V(a.begin(), a.begin() + 32), Tokens(20, 2))), 32);
  const V& ta = m->BlockTable(1);
  const V& tb = m->BlockTable(2);
  ASSERT_EQ(tb.size(), 4u);  // 52 tokens
  EXPECT_EQ(tb[0], ta[0]);
  EXPECT_EQ(tb[1], ta[1]);
  EXPECT_NE(tb[2], ta[2]);
  EXPECT_EQ(m->num_free_blocks(), 16 - 3 - 2);
  EXPECT_INVARIANTS(*m);
  m->Free(1);  // the shared blocks stay held by request 2
  EXPECT_EQ(m->num_free_blocks(), 16 - 4);
  EXPECT_INVARIANTS(*m);
  m->Free(2);
  EXPECT_EQ(m->num_free_blocks(), 16);
  EXPECT_INVARIANTS(*m);
}

// Blocks never used go first, then freed blocks in the order they were freed (LRU), each
// request's blocks tail first.
TEST(KvCacheManagerTest, EvictionIsLruAndTailFirstWithinARequest) {
  auto m = Make(8);
  ASSERT_EQ(Prefill(*m, 1, Tokens(48, 1)), 0);
  ASSERT_EQ(Prefill(*m, 2, Tokens(48, 2)), 0);
  const V a = m->BlockTable(1), b = m->BlockTable(2);
  m->Free(1);
  m->Free(2);
  ASSERT_TRUE(m->AllocateSlots(3, 8 * kBs));  // takes every block, in eviction order
  EXPECT_EQ(m->BlockTable(3), (V{6, 7, a[2], a[1], a[0], b[2], b[1], b[0]}));
}

TEST(KvCacheManagerTest, EvictedBlocksLoseTheirHashes) {
  auto m = Make(6);
  const V a = Tokens(48, 1);
  ASSERT_EQ(Prefill(*m, 1, a), 0);
  m->Free(1);
  const V probe = Concat(a, {1});
  ASSERT_EQ(m->FindCachedPrefix(probe, "").num_cached_tokens, 48);
  ASSERT_TRUE(m->AllocateSlots(2, 4 * kBs));  // 3 never-used blocks, then a's tail block
  EXPECT_EQ(m->FindCachedPrefix(probe, "").num_cached_tokens, 32);
  ASSERT_TRUE(m->AllocateSlots(3, 2 * kBs));  // the rest
  EXPECT_EQ(m->FindCachedPrefix(probe, "").num_cached_tokens, 0);
  EXPECT_INVARIANTS(*m);
}

TEST(KvCacheManagerTest, RecentlyHitBlocksAreEvictedLast) {
  auto m = Make(4);
  const V a = Tokens(16, 1), b = Tokens(16, 2);
  ASSERT_EQ(Prefill(*m, 1, a), 0);
  ASSERT_EQ(Prefill(*m, 2, b), 0);
  m->Free(1);
  m->Free(2);
  // Reuse a's block: it leaves the queue and comes back at the tail, after b's.
  ASSERT_EQ(Prefill(*m, 3, Concat(a, {9})), 16);
  m->Free(3);
  ASSERT_TRUE(m->AllocateSlots(4, 3 * kBs));  // 2 never-used blocks and then b's
  EXPECT_EQ(m->FindCachedPrefix(Concat(b, {9}), "").num_cached_tokens, 0);
  EXPECT_EQ(m->FindCachedPrefix(Concat(a, {9}), "").num_cached_tokens, 16);
}

TEST(KvCacheManagerTest, SaltsIsolateTenants) {
  auto m = Make(16);
  const V prompt = Tokens(40, 1);
  ASSERT_EQ(Prefill(*m, 1, prompt, "tenant-a"), 0);
  EXPECT_EQ(m->FindCachedPrefix(prompt, "tenant-b").num_cached_tokens, 0);
  EXPECT_EQ(m->FindCachedPrefix(prompt, "").num_cached_tokens, 0);
  EXPECT_EQ(m->FindCachedPrefix(prompt, "tenant-a").num_cached_tokens, 32);
}

TEST(KvCacheManagerTest, StatsCountQueriedAndHitTokens) {
  auto m = Make(16);
  const V prompt = Tokens(40, 1);
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);    // 40 queried, 0 hit
  m->FindCachedPrefix(prompt, "");         // 40 queried, 32 hit
  m->FindCachedPrefix(Tokens(20, 3), "");  // 20 queried, 0 hit
  EXPECT_EQ(m->stats().queries, 100);
  EXPECT_EQ(m->stats().hits, 32);
}

TEST(KvCacheManagerTest, DisabledPrefixCachingNeverHitsOrCounts) {
  KvCacheManagerConfig config;
  config.num_blocks = 8;
  config.enable_prefix_caching = false;
  auto m = *KvCacheManager::Create(Spec(), config);
  const V prompt = Tokens(40, 1);
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);
  m->Free(1);
  EXPECT_EQ(m->FindCachedPrefix(prompt, "").num_cached_tokens, 0);
  EXPECT_EQ(m->stats().queries, 0);
  EXPECT_INVARIANTS(*m);
}

TEST(KvCacheManagerTest, AllocateSlotsFailsWithoutChangesWhenShort) {
  auto m = Make(4);
  ASSERT_TRUE(m->AllocateSlots(1, 3 * kBs));
  EXPECT_FALSE(m->AllocateSlots(2, 2 * kBs));
  EXPECT_TRUE(m->BlockTable(2).empty());
  EXPECT_EQ(m->NumTokens(2), 0);
  EXPECT_FALSE(m->AllocateSlots(1, kBs + 1));  // a running request cannot grow past the pool
  EXPECT_EQ(m->BlockTable(1).size(), 3u);
  EXPECT_EQ(m->NumTokens(1), 3 * kBs);
  EXPECT_EQ(m->num_free_blocks(), 1);
  EXPECT_INVARIANTS(*m);
  EXPECT_TRUE(m->AllocateSlots(1, kBs));
}

// Reusing a free cached block takes it out of the free pool, so it counts against capacity.
TEST(KvCacheManagerTest, AllOrNothingCountsEvictableHitBlocks) {
  auto m = Make(4);
  const V a = Tokens(32, 1);
  ASSERT_EQ(Prefill(*m, 1, a), 0);
  m->Free(1);
  ASSERT_TRUE(m->AllocateSlots(2, 2 * kBs));  // the 2 never-used blocks; a's 2 stay free
  const V c = Concat(a, Tokens(20, 3));       // 4 blocks: 2 hits + 2 new, only 2 free
  const PrefixMatch match = m->FindCachedPrefix(c, "");
  ASSERT_EQ(match.num_cached_tokens, 32);
  EXPECT_FALSE(m->AllocateSlots(3, 20, &match));
  EXPECT_EQ(m->FindCachedPrefix(c, "").num_cached_tokens, 32);  // a's blocks not evicted
  EXPECT_EQ(m->num_free_blocks(), 2);
  EXPECT_INVARIANTS(*m);
}

TEST(KvCacheManagerTest, FreeReturnsEveryBlock) {
  auto m = Make(16);
  ASSERT_EQ(Prefill(*m, 1, Tokens(70, 1)), 0);
  ASSERT_EQ(Prefill(*m, 2, Tokens(33, 2)), 0);
  ASSERT_TRUE(m->AllocateSlots(2, 40));
  EXPECT_GT(m->Usage(), 0.0);
  m->Free(1);
  m->Free(2);
  m->Free(3);  // unknown: no-op
  EXPECT_EQ(m->num_free_blocks(), 16);
  EXPECT_EQ(m->Usage(), 0.0);
  EXPECT_TRUE(m->BlockTable(1).empty());
  EXPECT_INVARIANTS(*m);
}

TEST(KvCacheManagerTest, UsageIsTheFractionOfHeldBlocks) {
  auto m = Make(8);
  ASSERT_TRUE(m->AllocateSlots(1, 2 * kBs + 1));  // 3 blocks
  EXPECT_DOUBLE_EQ(m->Usage(), 3.0 / 8.0);
}

TEST(KvCacheManagerTest, SlotsFollowTheBlockTable) {
  auto m = Make(8);
  ASSERT_TRUE(m->AllocateSlots(1, 20));
  ASSERT_TRUE(m->AllocateSlots(2, 20));
  ASSERT_TRUE(m->AllocateSlots(1, 20));
  const V& t = m->BlockTable(1);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(m->NumTokens(1), 40);
  EXPECT_EQ(m->Slot(1, 0), t[0] * kBs);
  EXPECT_EQ(m->Slot(1, 17), t[1] * kBs + 1);
  EXPECT_EQ(m->Slot(1, 39), t[2] * kBs + 7);
}

TEST(KvCacheManagerTest, CacheFullBlocksRegistersOnlyComputedFullBlocks) {
  auto m = Make(8);
  const V prompt = Tokens(50, 1);
  ASSERT_TRUE(m->AllocateSlots(1, 20));
  m->CacheFullBlocks(1, prompt, 20, "");  // first chunk: 1 full block
  EXPECT_EQ(m->FindCachedPrefix(prompt, "").num_cached_tokens, 16);
  ASSERT_TRUE(m->AllocateSlots(1, 30));
  m->CacheFullBlocks(1, prompt, 50, "");
  EXPECT_EQ(m->FindCachedPrefix(prompt, "").num_cached_tokens, 48);
  EXPECT_INVARIANTS(*m);
}

TEST(KvCacheManagerTest, DecodedTokensExtendTheCachedChain) {
  auto m = Make(8);
  V seq = Tokens(30, 1);
  ASSERT_EQ(Prefill(*m, 1, seq), 0);
  for (int i = 0; i < 5; ++i) {  // decode 5 tokens, registering blocks as they fill
    ASSERT_TRUE(m->AllocateSlots(1, 1));
    seq.push_back(900 + i);
    m->CacheFullBlocks(1, seq, static_cast<int>(seq.size()), "");
  }
  EXPECT_EQ(m->FindCachedPrefix(Concat(seq, {1}), "").num_cached_tokens, 32);
}

TEST(KvCacheManagerTest, ResetPrefixCacheRefusedWhileBlocksAreHeld) {
  auto m = Make(8);
  const V prompt = Tokens(40, 1);
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);
  EXPECT_FALSE(m->ResetPrefixCache());
  EXPECT_EQ(m->FindCachedPrefix(prompt, "").num_cached_tokens, 32);
}

TEST(KvCacheManagerTest, ResetPrefixCacheForgetsEveryBlock) {
  auto m = Make(8);
  const V prompt = Tokens(40, 1);
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);
  m->Free(1);
  EXPECT_TRUE(m->ResetPrefixCache());
  EXPECT_EQ(m->FindCachedPrefix(prompt, "").num_cached_tokens, 0);
  EXPECT_INVARIANTS(*m);
}

// Sliding window 20, block 16: the token at position p reads positions [p - 19, p].

TEST(KvCacheManagerSlidingWindowTest, RemoveSkippedBlocksFreesBlocksOutsideTheWindow) {
  auto m = Make(8, /*window=*/20);
  ASSERT_TRUE(m->AllocateSlots(1, 64));
  const V before = m->BlockTable(1);
  m->RemoveSkippedBlocks(1, 64);  // next token 64 reads [45, 64]: blocks 0 and 1 are done
  EXPECT_EQ(m->BlockTable(1), (V{-1, -1, before[2], before[3]}));
  EXPECT_EQ(m->num_free_blocks(), 6);
  EXPECT_INVARIANTS(*m);
}

TEST(KvCacheManagerSlidingWindowTest, DecodeFreesBlocksAsTheWindowMoves) {
  auto m = Make(8, /*window=*/20);
  ASSERT_TRUE(m->AllocateSlots(1, 36));  // next token 36 reads [17, 36]: block 0 is done
  ASSERT_TRUE(m->AllocateSlots(1, 1));
  EXPECT_EQ(m->BlockTable(1)[0], -1);
  EXPECT_EQ(m->num_free_blocks(), 8 - 2);
  EXPECT_INVARIANTS(*m);
  m->Free(1);
  EXPECT_EQ(m->num_free_blocks(), 8);
}

TEST(KvCacheManagerSlidingWindowTest, FullAttentionNeverFreesBlocksEarly) {
  auto m = Make(8);
  ASSERT_TRUE(m->AllocateSlots(1, 64));
  m->RemoveSkippedBlocks(1, 64);
  for (int32_t b : m->BlockTable(1)) EXPECT_GE(b, 0);
}

// Blocks 1 and 2 of a cached 80-token prefix were evicted; the next token (80) reads [61, 80],
// so blocks 3 and 4 suffice for a window group, and the table omits the rest as -1.
TEST(KvCacheManagerSlidingWindowTest, HitNeedsOnlyTheBlocksInTheWindow) {
  auto m = Make(8, /*window=*/20);
  const V prompt = Tokens(80, 1);
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);
  const V table = m->BlockTable(1);
  m->RemoveSkippedBlocks(1, 80);              // frees blocks 2, 1, 0 (in that order)
  m->Free(1);                                 // then 4, 3
  ASSERT_TRUE(m->AllocateSlots(2, 5 * kBs));  // 3 never-used blocks, then blocks 2 and 1
  const PrefixMatch match = m->FindCachedPrefix(Concat(prompt, {7}), "");
  EXPECT_EQ(match.num_cached_tokens, 80);
  EXPECT_EQ(match.blocks[0], (V{-1, -1, -1, table[3], table[4]}));
  ASSERT_TRUE(m->AllocateSlots(3, 1, &match));
  EXPECT_EQ(m->NumTokens(3), 81);
  EXPECT_EQ(m->BlockTable(3).size(), 6u);
  EXPECT_INVARIANTS(*m);
}

TEST(KvCacheManagerSlidingWindowTest, HitStopsBeforeAMissingWindowBlock) {
  auto m = Make(8, /*window=*/20);
  const V prompt = Tokens(80, 1);
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);
  m->Free(1);  // tail first: the block of positions 64..79 is evicted first
  ASSERT_TRUE(m->AllocateSlots(2, 4 * kBs));  // 3 never-used blocks + that one
  // Hit of 64 tokens: the next token (64) reads [45, 64], blocks 2 and 3.
  EXPECT_EQ(m->FindCachedPrefix(Concat(prompt, {7}), "").num_cached_tokens, 64);
}

// A model whose layers form a full-attention group and a window group: a hit must satisfy both.
TEST(KvCacheManagerSlidingWindowTest, HybridGroupsAgreeOnOneHitLength) {
  auto m = Make(8, 0, {{0, {0}}, {20, {1}}});
  ASSERT_EQ(m->num_groups(), 2);
  const V prompt = Tokens(80, 1);
  ASSERT_EQ(Prefill(*m, 1, prompt), 0);
  EXPECT_EQ(m->BlockTable(1, 0).size(), 5u);
  EXPECT_EQ(m->BlockTable(1, 1).size(), 5u);
  const PrefixMatch match = m->FindCachedPrefix(Concat(prompt, {7}), "");
  EXPECT_EQ(match.num_cached_tokens, 80);
  EXPECT_EQ(match.blocks[0].size(), 5u);
  EXPECT_EQ(match.blocks[1], (V{-1, -1, -1, m->BlockTable(1, 1)[3], m->BlockTable(1, 1)[4]}));
  m->Free(1);
  EXPECT_EQ(m->num_free_blocks(), 8);
  EXPECT_INVARIANTS(*m);
}

TEST(KvCacheManagerStorageTest, ViewHasOneKAndVPerLayerOfTheConfiguredDtype) {
  KvCacheManagerConfig config;
  config.block_size = 4;
  config.num_blocks = 3;
  config.kv_dtype = DType::kBF16;
  auto m = KvCacheManager::Create(Spec(), config);
  ASSERT_TRUE(m.ok()) << m.status();
  const KvCacheView& view = (*m)->view();
  EXPECT_EQ(view.dtype, DType::kBF16);
  EXPECT_EQ(view.block_size, 4);
  EXPECT_EQ(view.num_blocks, 3);
  ASSERT_EQ(view.k.size(), 2u);
  ASSERT_EQ(view.v.size(), 2u);
  const size_t tensor_bytes = 3 * 2 * 4 * 8 * 2;  // blocks * kv_heads * block_size * dim * 2 B
  std::set<const char*> starts;
  for (int l = 0; l < 2; ++l) {
    starts.insert(static_cast<const char*>(view.k[l]));
    starts.insert(static_cast<const char*>(view.v[l]));
    std::memset(view.k[l], 0xff, tensor_bytes);  // whole tensor is writable
    std::memset(view.v[l], 0xff, tensor_bytes);
  }
  EXPECT_EQ(starts.size(), 4u);
  for (auto it = starts.begin(); std::next(it) != starts.end(); ++it) {
    EXPECT_GE(static_cast<size_t>(*std::next(it) - *it), tensor_bytes);
  }
  EXPECT_EQ(KvCacheManager::BytesPerBlock(Spec(), 4, DType::kBF16),
            2 * 2 * 16 * 4 * 2);  // k+v * layers * kv_dim * block_size * bytes
  EXPECT_EQ(KvCacheManager::BytesPerBlock(Spec(), 4, DType::kF32), 2 * 2 * 16 * 4 * 4);
}

TEST(KvCacheManagerStorageTest, CreateRejectsBadConfigs) {
  KvCacheManagerConfig config;
  config.num_blocks = 0;
  EXPECT_FALSE(KvCacheManager::Create(Spec(), config).ok());
  config.num_blocks = 4;
  config.kv_dtype = DType::kQ8_0;
  EXPECT_FALSE(KvCacheManager::Create(Spec(), config).ok());
  config.kv_dtype = DType::kF16;
  config.groups = {{0, {0}}};  // layer 1 in no group
  EXPECT_FALSE(KvCacheManager::Create(Spec(), config).ok());
  config.groups = {{0, {0, 1}}, {8, {1}}};  // layer 1 twice
  EXPECT_FALSE(KvCacheManager::Create(Spec(), config).ok());
  config.groups = {{0, {0}}, {8, {1}}};
  EXPECT_TRUE(KvCacheManager::Create(Spec(), config).ok());
}

}  // namespace
}  // namespace strata
