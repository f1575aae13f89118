// The block hash chain: equal prefixes give equal hashes; salt, fingerprint and any token change
// the hashes from their block on.
#include "kv/block_hash.h"

#include <vector>

#include "gtest/gtest.h"

namespace strata::kv {
namespace {

constexpr int kBlock = 4;

std::vector<BlockHash> Chain(const std::vector<int32_t>& tokens, const std::string& salt = "",
                             BlockHash fingerprint = {1, 2}) {
  std::vector<BlockHash> hashes;
  ExtendBlockHashes(ChainSeed(fingerprint, salt), tokens, static_cast<int>(tokens.size()), kBlock,
                    hashes);
  return hashes;
}

std::vector<int32_t> Iota(int n, int32_t first = 0) {
  std::vector<int32_t> v(n);
  for (int i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

TEST(KvBlockHashTest, EqualPrefixesGiveEqualHashes) {
  auto a = Iota(12);
  auto b = a;
  b[9] = 777;  // third block differs
  const auto ha = Chain(a), hb = Chain(b);
  ASSERT_EQ(ha.size(), 3u);
  EXPECT_EQ(ha[0], hb[0]);
  EXPECT_EQ(ha[1], hb[1]);
  EXPECT_FALSE(ha[2] == hb[2]);
}

TEST(KvBlockHashTest, DifferingTokenChangesThatBlockAndAllAfter) {
  const auto a = Iota(20);
  auto b = a;
  b[5] = 999;  // block 1
  const auto ha = Chain(a), hb = Chain(b);
  ASSERT_EQ(ha.size(), 5u);
  EXPECT_EQ(ha[0], hb[0]);
  for (size_t i = 1; i < ha.size(); ++i) EXPECT_FALSE(ha[i] == hb[i]) << "block " << i;
}

TEST(KvBlockHashTest, SaltChangesEveryHash) {
  const auto a = Iota(16);
  const auto plain = Chain(a), salted = Chain(a, "tenant-1"), other = Chain(a, "tenant-2");
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_FALSE(plain[i] == salted[i]) << "block " << i;
    EXPECT_FALSE(salted[i] == other[i]) << "block " << i;
  }
  EXPECT_EQ(Chain(a, "tenant-1")[3], salted[3]);  // deterministic
}

TEST(KvBlockHashTest, FingerprintChangesEveryHash) {
  const auto a = Iota(8);
  const auto x = Chain(a, "", {1, 2}), y = Chain(a, "", {1, 3});
  for (size_t i = 0; i < x.size(); ++i) EXPECT_FALSE(x[i] == y[i]);
}

TEST(KvBlockHashTest, OnlyFullBlocksAreHashed) {
  EXPECT_EQ(Chain(Iota(11)).size(), 2u);
  EXPECT_EQ(Chain(Iota(3)).size(), 0u);
}

TEST(KvBlockHashTest, ExtendingContinuesTheSameChain) {
  const auto a = Iota(16);
  std::vector<BlockHash> step;
  const BlockHash seed = ChainSeed({1, 2}, "");
  ExtendBlockHashes(seed, a, 6, kBlock, step);  // one full block
  ASSERT_EQ(step.size(), 1u);
  ExtendBlockHashes(seed, a, 16, kBlock, step);
  EXPECT_EQ(step.size(), 4u);
  const auto whole = Chain(a);
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(step[i], whole[i]);
  EXPECT_EQ(whole[1], HashBlock(whole[0], a.data() + kBlock, kBlock));
}

}  // namespace
}  // namespace strata::kv
