#include "sampling/logits_processors.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace strata::sampling {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(LogitBiasTest, AddsBiasAndIgnoresIdsOutsideTheVocabulary) {
  std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  ApplyLogitBias({{0, 0.5f}, {2, -3.0f}, {3, 100.0f}, {-1, 100.0f}}, logits.data(), 3);
  EXPECT_EQ(logits, (std::vector<float>{1.5f, 2.0f, 0.0f}));
}

TEST(MaskTokensTest, SetsListedIdsToMinusInfinity) {
  std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  MaskTokens({2, 0, 7}, logits.data(), 3);
  EXPECT_EQ(logits, (std::vector<float>{-kInf, 2.0f, -kInf}));
}

TEST(RepetitionPenaltyTest, DividesPositiveAndMultipliesNegativeLogitsOfSeenTokens) {
  // Prompt {0, 1}, output {3}; token 2 unseen. penalty 2:
  //   2.0 -> 1.0, -1.0 -> -2.0, 0.5 unchanged, 3.0 -> 1.5
  std::vector<float> logits = {2.0f, -1.0f, 0.5f, 3.0f};
  const std::vector<uint8_t> in_prompt = {1, 1, 0, 0};
  const absl::flat_hash_map<int32_t, int> output = {{3, 1}};
  ApplyRepetitionPenalty(2.0f, {0, 1}, in_prompt, output, logits.data(), 4);
  EXPECT_EQ(logits, (std::vector<float>{1.0f, -2.0f, 0.5f, 1.5f}));
}

TEST(RepetitionPenaltyTest, TokenInPromptAndOutputIsPenalizedOnce) {
  std::vector<float> logits = {2.0f, 4.0f};
  const std::vector<uint8_t> in_prompt = {1, 0};
  const absl::flat_hash_map<int32_t, int> output = {{0, 3}};
  ApplyRepetitionPenalty(2.0f, {0}, in_prompt, output, logits.data(), 2);
  EXPECT_EQ(logits, (std::vector<float>{1.0f, 4.0f}));
}

TEST(PresenceFrequencyPenaltyTest, SubtractsPresenceOnceAndFrequencyPerOccurrence) {
  // Token 0 generated twice, token 1 once, token 2 never; presence 0.5, frequency 0.25:
  //   2.0 - 0.5 - 2 * 0.25 = 1.0;  -1.0 - 0.5 - 0.25 = -1.75;  0.5 unchanged.
  std::vector<float> logits = {2.0f, -1.0f, 0.5f};
  const absl::flat_hash_map<int32_t, int> output = {{0, 2}, {1, 1}};
  ApplyPresenceFrequencyPenalties(0.5f, 0.25f, output, logits.data(), 3);
  EXPECT_EQ(logits, (std::vector<float>{1.0f, -1.75f, 0.5f}));
}

TEST(PresenceFrequencyPenaltyTest, NegativePenaltiesEncourageRepetition) {
  std::vector<float> logits = {0.0f, 0.0f};
  const absl::flat_hash_map<int32_t, int> output = {{1, 3}};
  ApplyPresenceFrequencyPenalties(-1.0f, -0.5f, output, logits.data(), 2);
  EXPECT_EQ(logits, (std::vector<float>{0.0f, 2.5f}));
}

}  // namespace
}  // namespace strata::sampling
