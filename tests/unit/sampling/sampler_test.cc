// SequenceSampler end to end: greedy choice, raw logprobs, logit bias, min_tokens, penalties,
// stop detection and the seeded stream.
#include "sampling/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace strata {
namespace {

SamplingParams Greedy() {
  SamplingParams params;
  params.temperature = 0.0f;
  return params;
}

std::vector<float> RandomLogits(int vocab, float stddev, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, stddev);
  std::vector<float> logits(vocab);
  for (float& v : logits) v = normal(rng);
  return logits;
}

int32_t SampleOnce(const SamplingParams& params, const std::vector<float>& logits,
                   std::vector<int32_t> prompt = {}, std::vector<int32_t> eos = {}) {
  SequenceSampler sampler(params, 0, prompt, std::move(eos));
  return sampler.Sample(logits.data(), static_cast<int>(logits.size())).token;
}

TEST(SamplerGreedyTest, PicksTheArgmaxLowestIdOnTies) {
  EXPECT_EQ(SampleOnce(Greedy(), {1.0f, 5.0f, 5.0f, 2.0f}), 1);
  const std::vector<float> logits = RandomLogits(151936, 3.0f, 1);
  EXPECT_EQ(SampleOnce(Greedy(), logits),
            std::max_element(logits.begin(), logits.end()) - logits.begin());
}

TEST(SamplerGreedyTest, TemperatureBelowVllmEpsilonIsGreedy) {
  SamplingParams params;
  params.temperature = 0.9e-5f;
  params.top_k = 1000;  // ignored on the greedy path
  const std::vector<float> logits = RandomLogits(1000, 1.0f, 2);
  const int32_t argmax = std::max_element(logits.begin(), logits.end()) - logits.begin();
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SequenceSampler sampler(params, seed, {}, {});
    EXPECT_EQ(sampler.Sample(logits.data(), 1000).token, argmax);
  }
}

TEST(SamplerLogprobsTest, MatchDoubleLogSoftmaxAndListBestFirst) {
  SamplingParams params = Greedy();
  params.logprobs = 20;
  const int vocab = 5000;
  const std::vector<float> logits = RandomLogits(vocab, 2.0f, 3);
  double max = -INFINITY, sum = 0;
  for (float v : logits) max = std::max(max, static_cast<double>(v));
  for (float v : logits) sum += std::exp(v - max);
  auto reference = [&](int id) { return logits[id] - max - std::log(sum); };
  std::vector<int> order(vocab);
  for (int i = 0; i < vocab; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits[a] > logits[b]; });

  SequenceSampler sampler(params, 0, {}, {});
  const SequenceSampler::Result result = sampler.Sample(logits.data(), vocab);
  // 1e-6 plus float's own rounding of the value (half an ulp is 4.8e-7 at |x| in [8, 16)).
  auto tolerance = [](double want) { return 1e-6 + std::abs(want) * 6e-8; };
  EXPECT_EQ(result.logprob.token, result.token);
  EXPECT_NEAR(result.logprob.logprob, reference(result.token), tolerance(reference(result.token)));
  ASSERT_EQ(result.logprob.top.size(), 20u);
  for (int rank = 0; rank < 20; ++rank) {
    EXPECT_EQ(result.logprob.top[rank].first, order[rank]) << rank;
    EXPECT_NEAR(result.logprob.top[rank].second, reference(order[rank]),
                tolerance(reference(order[rank])));
  }
}

TEST(SamplerLogprobsTest, TopListBreaksTiesByLowerId) {
  SamplingParams params = Greedy();
  params.logprobs = 3;
  std::vector<float> logits(100, 0.0f);
  logits[70] = 2.0f;
  logits[20] = 2.0f;
  logits[50] = 1.0f;
  logits[10] = 1.0f;
  SequenceSampler sampler(params, 0, {}, {});
  const auto result = sampler.Sample(logits.data(), 100);
  ASSERT_EQ(result.logprob.top.size(), 3u);
  EXPECT_EQ(result.logprob.top[0].first, 20);
  EXPECT_EQ(result.logprob.top[1].first, 70);
  EXPECT_EQ(result.logprob.top[2].first, 10);
}

TEST(SamplerLogprobsTest, AreOfTheRawLogitsNotTheProcessedOnes) {
  // The bias makes token 2 the choice; its logprob is still log_softmax of the raw logits.
  SamplingParams params = Greedy();
  params.logprobs = 1;
  params.logit_bias = {{2, 10.0f}};
  const std::vector<float> logits = {2.0f, 1.0f, 0.0f};
  SequenceSampler sampler(params, 0, {}, {});
  const auto result = sampler.Sample(logits.data(), 3);
  const double lse = std::log(std::exp(2.0) + std::exp(1.0) + std::exp(0.0));
  EXPECT_EQ(result.token, 2);
  EXPECT_NEAR(result.logprob.logprob, 0.0 - lse, 1e-6);
  ASSERT_EQ(result.logprob.top.size(), 1u);
  EXPECT_EQ(result.logprob.top[0].first, 0);
  EXPECT_NEAR(result.logprob.top[0].second, 2.0 - lse, 1e-6);
}

TEST(SamplerLogprobsTest, ZeroMeansSampledTokenOnlyAndMinusOneMeansNone) {
  SamplingParams params = Greedy();
  params.logprobs = 0;
  const std::vector<float> logits = {0.0f, 0.0f};
  SequenceSampler with(params, 0, {}, {});
  const auto result = with.Sample(logits.data(), 2);
  EXPECT_TRUE(result.logprob.top.empty());
  EXPECT_NEAR(result.logprob.logprob, std::log(0.5), 1e-6);
  SequenceSampler without(Greedy(), 0, {}, {});
  EXPECT_EQ(without.Sample(logits.data(), 2).logprob.logprob, 0.0f);
}

TEST(SamplerLogitBiasTest, BiasFlipsTheArgmax) {
  SamplingParams params = Greedy();
  const std::vector<float> logits = {2.0f, 1.0f, 0.0f};
  EXPECT_EQ(SampleOnce(params, logits), 0);
  params.logit_bias = {{2, 2.5f}};
  EXPECT_EQ(SampleOnce(params, logits), 2);
  params.logit_bias = {{0, -1.5f}};
  EXPECT_EQ(SampleOnce(params, logits), 1);
}

TEST(SamplerMinTokensTest, MasksEosAndStopIdsUntilReached) {
  SamplingParams params = Greedy();
  params.min_tokens = 2;
  params.stop_token_ids = {2};
  // EOS (3) is the argmax, the stop id 2 second, token 1 third.
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f, 3.0f};
  SequenceSampler sampler(params, 0, {}, {3});
  auto first = sampler.Sample(logits.data(), 4);
  auto second = sampler.Sample(logits.data(), 4);
  auto third = sampler.Sample(logits.data(), 4);
  EXPECT_EQ(first.token, 1);
  EXPECT_FALSE(first.is_stop);
  EXPECT_EQ(second.token, 1);
  EXPECT_EQ(third.token, 3);
  EXPECT_TRUE(third.is_stop);
  EXPECT_EQ(sampler.num_generated(), 3);
}

TEST(SamplerMinTokensTest, MasksEosEvenWithIgnoreEosAsVllm) {
  SamplingParams params = Greedy();
  params.min_tokens = 1;
  params.ignore_eos = true;
  const std::vector<float> logits = {0.0f, 3.0f};
  SequenceSampler sampler(params, 0, {}, {1});
  EXPECT_EQ(sampler.Sample(logits.data(), 2).token, 0);
  const auto after = sampler.Sample(logits.data(), 2);
  EXPECT_EQ(after.token, 1);
  EXPECT_FALSE(after.is_stop);  // ignore_eos: EOS does not stop
}

TEST(SamplerStopTest, StopIdsAlwaysStopAndEosUnlessIgnored) {
  SamplingParams params = Greedy();
  params.stop_token_ids = {0};
  const std::vector<float> stop_first = {1.0f, 0.0f};
  EXPECT_TRUE(SequenceSampler(params, 0, {}, {1}).Sample(stop_first.data(), 2).is_stop);
  const std::vector<float> eos_first = {0.0f, 1.0f};
  EXPECT_TRUE(SequenceSampler(params, 0, {}, {1}).Sample(eos_first.data(), 2).is_stop);
  params.ignore_eos = true;
  EXPECT_FALSE(SequenceSampler(params, 0, {}, {1}).Sample(eos_first.data(), 2).is_stop);
  EXPECT_TRUE(SequenceSampler(params, 0, {}, {1}).Sample(stop_first.data(), 2).is_stop);
}

TEST(SamplerPenaltyTest, RepetitionPenaltyOnPromptTokensFlipsTheArgmax) {
  // 3.0 / 1.2 = 2.5 < 2.9.
  SamplingParams params = Greedy();
  const std::vector<float> logits = {3.0f, 2.9f};
  EXPECT_EQ(SampleOnce(params, logits, {0, 0}), 0);
  params.repetition_penalty = 1.2f;
  EXPECT_EQ(SampleOnce(params, logits, {0, 0}), 1);
  // Negative logits are multiplied: -1.0 * 2 = -2.0 < -1.5.
  params.repetition_penalty = 2.0f;
  EXPECT_EQ(SampleOnce(params, {-1.0f, -1.5f}, {0}), 1);
}

TEST(SamplerPenaltyTest, RepetitionPenaltyCoversGeneratedTokens) {
  // Step 0 picks 0 (2.0 > 1.9); then 0 is an output token: 2.0 / 1.5 = 1.33 < 1.9.
  SamplingParams params = Greedy();
  params.repetition_penalty = 1.5f;
  const std::vector<float> logits = {2.0f, 1.9f};
  SequenceSampler sampler(params, 0, {}, {});
  EXPECT_EQ(sampler.Sample(logits.data(), 2).token, 0);
  EXPECT_EQ(sampler.Sample(logits.data(), 2).token, 1);
}

TEST(SamplerPenaltyTest, PresencePenaltyCountsOutputTokensOnce) {
  // presence 0.5: step 1: {0.5, 0.9} -> 1; step 2: {0.5, 0.4} -> 0; step 3: same -> 0.
  SamplingParams params = Greedy();
  params.presence_penalty = 0.5f;
  const std::vector<float> logits = {1.0f, 0.9f};
  SequenceSampler sampler(params, 0, {0, 0, 0}, {});  // the prompt does not count
  std::vector<int32_t> tokens;
  for (int i = 0; i < 4; ++i) tokens.push_back(sampler.Sample(logits.data(), 2).token);
  EXPECT_EQ(tokens, (std::vector<int32_t>{0, 1, 0, 0}));
}

TEST(SamplerPenaltyTest, FrequencyPenaltyGrowsWithEachOccurrence) {
  // frequency 0.3 against a gap of 1.0 between tokens 0 and 1: 0 wins while 1 - 0.3 * c > 0,
  // i.e. for c = 0..3, then 1 at c = 4 (1 - 1.2 < 0).
  SamplingParams params = Greedy();
  params.frequency_penalty = 0.3f;
  const std::vector<float> logits = {1.0f, 0.0f};
  SequenceSampler sampler(params, 0, {}, {});
  std::vector<int32_t> tokens;
  for (int i = 0; i < 5; ++i) tokens.push_back(sampler.Sample(logits.data(), 2).token);
  EXPECT_EQ(tokens, (std::vector<int32_t>{0, 0, 0, 0, 1}));
}

std::vector<int32_t> Stream(uint64_t seed, const std::vector<float>& logits, int steps) {
  SamplingParams params;
  params.temperature = 1.0f;
  SequenceSampler sampler(params, seed, {}, {});
  std::vector<int32_t> tokens;
  for (int i = 0; i < steps; ++i) {
    tokens.push_back(sampler.Sample(logits.data(), static_cast<int>(logits.size())).token);
  }
  return tokens;
}

TEST(SamplerSeedTest, SameSeedSameTokensDifferentSeedDifferentStream) {
  const std::vector<float> logits = RandomLogits(64, 0.5f, 4);
  const std::vector<int32_t> a = Stream(42, logits, 100);
  EXPECT_EQ(a, Stream(42, logits, 100));
  const std::vector<int32_t> b = Stream(43, logits, 100);
  int differing = 0;
  for (int i = 0; i < 100; ++i) differing += a[i] != b[i];
  // Two independent streams agree on a step with probability sum p_i^2 ~ 1/50 here.
  EXPECT_GT(differing, 80);
}

TEST(SamplerSeedTest, DrawAtAStepDoesNotDependOnEarlierSteps) {
  // Counter-based: whatever happened at step 0 (other logits, other token), step 1 draws the
  // same number, so identical logits at step 1 give the same token.
  SamplingParams params;
  const std::vector<float> flat = RandomLogits(64, 0.5f, 5);
  std::vector<float> peaked(64, 0.0f);
  peaked[7] = 30.0f;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    SequenceSampler a(params, seed, {}, {});
    SequenceSampler b(params, seed, {}, {});
    a.Sample(flat.data(), 64);
    b.Sample(peaked.data(), 64);
    EXPECT_EQ(a.Sample(flat.data(), 64).token, b.Sample(flat.data(), 64).token) << seed;
  }
}

}  // namespace
}  // namespace strata
