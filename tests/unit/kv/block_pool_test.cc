// BlockPool: the free queue's eviction order, reference counts and the hash index.
#include "kv/block_pool.h"

#include <vector>

#include "gtest/gtest.h"

namespace strata::kv {
namespace {

using V = std::vector<int32_t>;

TEST(KvBlockPoolTest, NewPoolQueuesBlocksInIdOrder) {
  BlockPool pool(4);
  EXPECT_EQ(pool.FreeQueue(), (V{0, 1, 2, 3}));
  EXPECT_EQ(pool.num_free_blocks(), 4);
}

TEST(KvBlockPoolTest, AllocateTakesHeadAndFreeAppendsToTail) {
  BlockPool pool(4);
  V got;
  pool.Allocate(2, got);
  EXPECT_EQ(got, (V{0, 1}));
  pool.Free(1);
  pool.Free(0);
  EXPECT_EQ(pool.FreeQueue(), (V{2, 3, 1, 0}));
  EXPECT_TRUE(pool.CheckInvariants({0, 0, 0, 0}).ok());
}

TEST(KvBlockPoolTest, TouchTakesAFreeBlockOutOfTheMiddle) {
  BlockPool pool(4);
  pool.Touch(2);
  pool.Touch(2);
  EXPECT_EQ(pool.ref_count(2), 2);
  EXPECT_EQ(pool.FreeQueue(), (V{0, 1, 3}));
  pool.Free(2);
  EXPECT_EQ(pool.FreeQueue(), (V{0, 1, 3}));  // still held once
  pool.Free(2);
  EXPECT_EQ(pool.FreeQueue(), (V{0, 1, 3, 2}));
  EXPECT_TRUE(pool.CheckInvariants({0, 0, 0, 0}).ok());
}

TEST(KvBlockPoolTest, FreedBlockKeepsHashUntilAllocated) {
  BlockPool pool(2);
  V got;
  pool.Allocate(1, got);
  ASSERT_TRUE(pool.Cache(0, {5, 6}));
  pool.Free(0);
  EXPECT_EQ(pool.Lookup({5, 6}), 0);
  got.clear();
  pool.Allocate(2, got);  // block 1 first, then block 0 (evicted)
  EXPECT_EQ(got, (V{1, 0}));
  EXPECT_EQ(pool.Lookup({5, 6}), -1);
  EXPECT_FALSE(pool.has_hash(0));
}

TEST(KvBlockPoolTest, CacheRefusesASecondBlockForTheSameHash) {
  BlockPool pool(2);
  V got;
  pool.Allocate(2, got);
  EXPECT_TRUE(pool.Cache(0, {1, 1}));
  EXPECT_FALSE(pool.Cache(1, {1, 1}));
  EXPECT_FALSE(pool.Cache(0, {2, 2}));  // already has a hash
  EXPECT_EQ(pool.Lookup({1, 1}), 0);
  EXPECT_EQ(pool.Lookup({2, 2}), -1);
  EXPECT_TRUE(pool.CheckInvariants({1, 1}).ok());
}

TEST(KvBlockPoolTest, ResetDropsHashesOnlyWhenNothingIsHeld) {
  BlockPool pool(2);
  V got;
  pool.Allocate(1, got);
  pool.Cache(0, {3, 4});
  EXPECT_FALSE(pool.ResetPrefixCache());
  EXPECT_EQ(pool.Lookup({3, 4}), 0);
  pool.Free(0);
  EXPECT_TRUE(pool.ResetPrefixCache());
  EXPECT_EQ(pool.Lookup({3, 4}), -1);
  EXPECT_TRUE(pool.CheckInvariants({0, 0}).ok());
}

TEST(KvBlockPoolTest, CheckInvariantsCatchesARefcountMismatch) {
  BlockPool pool(3);
  V got;
  pool.Allocate(1, got);
  EXPECT_FALSE(pool.CheckInvariants({0, 0, 0}).ok());
  EXPECT_TRUE(pool.CheckInvariants({1, 0, 0}).ok());
}

}  // namespace
}  // namespace strata::kv
