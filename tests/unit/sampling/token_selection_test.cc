// Temperature, min-p, top-k and top-p through SequenceSampler, against an independent
// double-precision reference written the straightforward way (full sorts, explicit loops).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "sampling/sampler.h"

namespace strata {
namespace {

// The distribution vLLM samples from: softmax(logits / T), min-p, top-k (ties at the k-th
// logit kept), top-p over the renormalized rest (ties by lower id), renormalized. [vocab]
std::vector<double> ReferenceDistribution(const std::vector<float>& logits,
                                          const SamplingParams& params) {
  const int n = static_cast<int>(logits.size());
  std::vector<double> scaled(n);
  for (int i = 0; i < n; ++i) scaled[i] = static_cast<double>(logits[i]) / params.temperature;
  const double max = *std::max_element(scaled.begin(), scaled.end());
  std::vector<double> prob(n);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += prob[i] = std::exp(scaled[i] - max);
  for (double& p : prob) p /= sum;

  std::vector<bool> keep(n, true);
  if (params.min_p > 0) {
    const double pmax = *std::max_element(prob.begin(), prob.end());
    for (int i = 0; i < n; ++i) keep[i] = keep[i] && prob[i] >= params.min_p * pmax;
  }
  if (params.top_k > 0) {
    std::vector<double> kept;
    for (int i = 0; i < n; ++i) {
      if (keep[i]) kept.push_back(scaled[i]);
    }
    std::sort(kept.begin(), kept.end(), std::greater<>());
    if (params.top_k < static_cast<int>(kept.size())) {
      const double kth = kept[params.top_k - 1];
      for (int i = 0; i < n; ++i) keep[i] = keep[i] && scaled[i] >= kth;
    }
  }
  if (params.top_p < 1.0f) {
    std::vector<int> order;
    double mass = 0;
    for (int i = 0; i < n; ++i) {
      if (keep[i]) {
        order.push_back(i);
        mass += prob[i];
      }
    }
    std::sort(order.begin(), order.end(),
              [&](int a, int b) { return prob[a] != prob[b] ? prob[a] > prob[b] : a < b; });
    double before = 0;
    for (int id : order) {
      if (before / mass >= params.top_p) keep[id] = false;
      before += prob[id];
    }
  }
  double kept_mass = 0;
  for (int i = 0; i < n; ++i) kept_mass += keep[i] ? prob[i] : 0;
  for (int i = 0; i < n; ++i) prob[i] = keep[i] ? prob[i] / kept_mass : 0;
  return prob;
}

std::set<int32_t> Support(const std::vector<double>& dist) {
  std::set<int32_t> ids;
  for (int i = 0; i < static_cast<int>(dist.size()); ++i) {
    if (dist[i] > 0) ids.insert(i);
  }
  return ids;
}

// Every token any of `seeds` samplers draws in `steps` steps.
std::set<int32_t> SampledTokens(const std::vector<float>& logits, const SamplingParams& params,
                                int seeds, int steps) {
  std::set<int32_t> seen;
  for (int seed = 0; seed < seeds; ++seed) {
    SequenceSampler sampler(params, seed, {}, {});
    for (int step = 0; step < steps; ++step) {
      seen.insert(sampler.Sample(logits.data(), static_cast<int>(logits.size())).token);
    }
  }
  return seen;
}

std::vector<float> RandomLogits(int vocab, float stddev, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, stddev);
  std::vector<float> logits(vocab);
  for (float& v : logits) v = normal(rng);
  return logits;
}

// Draws 300 seeds x 50 steps; the reference support must be hit exactly. The test checks
// that every kept token is likely enough to appear (miss probability < e^-20).
void ExpectSupportMatchesReference(const std::vector<float>& logits, const SamplingParams& params) {
  constexpr int kSeeds = 300, kSteps = 50;
  const std::vector<double> dist = ReferenceDistribution(logits, params);
  const std::set<int32_t> want = Support(dist);
  for (int id : want) {
    ASSERT_GT(dist[id] * kSeeds * kSteps, 20.0) << "token " << id;
  }
  EXPECT_EQ(SampledTokens(logits, params, kSeeds, kSteps), want);
}

TEST(TokenSelectionTest, TopKKeepsTheReferenceSet) {
  SamplingParams params;
  params.top_k = 5;
  ExpectSupportMatchesReference(RandomLogits(40, 1.0f, 1), params);
}

TEST(TokenSelectionTest, TopKKeepsEveryTieOfTheKthLogitAsVllm) {
  SamplingParams params;
  params.top_k = 2;
  const std::vector<float> logits = {3.0f, 2.0f, 0.0f, 2.0f, 1.0f};
  EXPECT_EQ(SampledTokens(logits, params, 200, 20), (std::set<int32_t>{0, 1, 3}));
}

TEST(TokenSelectionTest, TopPKeepsTheReferenceSet) {
  SamplingParams params;
  params.temperature = 0.7f;
  params.top_p = 0.8f;
  ExpectSupportMatchesReference(RandomLogits(40, 1.5f, 2), params);
}

TEST(TokenSelectionTest, TopPOverALargeFlatVocabularyKeepsTheReferenceSet) {
  // Flat enough that top-p needs several rounds of the partial selection (64, 256, ...).
  SamplingParams params;
  params.top_p = 0.3f;
  const std::vector<float> logits = RandomLogits(600, 0.2f, 3);
  const std::set<int32_t> want = Support(ReferenceDistribution(logits, params));
  ASSERT_GT(want.size(), 64u + 16u);
  std::set<int32_t> seen = SampledTokens(logits, params, 500, 50);
  EXPECT_EQ(seen, want);
}

TEST(TokenSelectionTest, MinPKeepsTheReferenceSet) {
  SamplingParams params;
  params.temperature = 1.3f;
  params.min_p = 0.1f;
  ExpectSupportMatchesReference(RandomLogits(40, 1.5f, 4), params);
}

TEST(TokenSelectionTest, AllFiltersTogetherKeepTheReferenceSet) {
  SamplingParams params;
  params.temperature = 0.9f;
  params.top_k = 12;
  params.top_p = 0.9f;
  params.min_p = 0.05f;
  ExpectSupportMatchesReference(RandomLogits(64, 1.2f, 5), params);
}

// Draws seeds x 50 steps and compares with the reference support, for large kept sets.
void ExpectLargeSupportMatchesReference(const std::vector<float>& logits,
                                        const SamplingParams& params, int seeds) {
  const std::vector<double> dist = ReferenceDistribution(logits, params);
  const std::set<int32_t> want = Support(dist);
  for (int id : want) {
    ASSERT_GT(dist[id] * seeds * 50, 20.0) << "token " << id;
  }
  EXPECT_EQ(SampledTokens(logits, params, seeds, 50), want);
}

TEST(TokenSelectionTest, TopKAboveTheHeapSizeThenTopPKeepsTheReferenceSet) {
  // k = 2000: nth_element instead of the heap, then top-p ranks the top-k survivors directly.
  SamplingParams params;
  params.top_k = 2000;
  params.top_p = 0.05f;
  ExpectLargeSupportMatchesReference(RandomLogits(3000, 0.2f, 7), params, 200);
}

TEST(TokenSelectionTest, TopKAboveTheDirectSizeThenTopPKeepsTheReferenceSet) {
  // k = 5000: top-p over the top-k survivors goes through the histogram.
  SamplingParams params;
  params.top_k = 5000;
  params.top_p = 0.02f;
  ExpectLargeSupportMatchesReference(RandomLogits(6000, 0.2f, 8), params, 200);
}

TEST(TokenSelectionTest, MinPAppliesBeforeTopPAsVllm) {
  // p = {0.5, 0.3, 0.2}. min_p 0.5 drops token 2 (0.2 < 0.25); renormalized {0.625, 0.375},
  // so top_p 0.6 keeps token 0 alone. Top-p first would keep {0, 1} (0.5 < 0.6).
  SamplingParams params;
  params.min_p = 0.5f;
  params.top_p = 0.6f;
  const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.2f)};
  EXPECT_EQ(SampledTokens(logits, params, 100, 20), (std::set<int32_t>{0}));
}

// Pearson's chi-square of `draws` samples from one sampler (seed fixed, steps 0..draws-1)
// against `dist` over its support.
double ChiSquare(const std::vector<float>& logits, const SamplingParams& params,
                 const std::vector<double>& dist, int draws, uint64_t seed) {
  std::vector<int> counts(logits.size(), 0);
  SequenceSampler sampler(params, seed, {}, {});
  for (int i = 0; i < draws; ++i) {
    ++counts[sampler.Sample(logits.data(), static_cast<int>(logits.size())).token];
  }
  double chi2 = 0;
  for (size_t i = 0; i < dist.size(); ++i) {
    if (dist[i] == 0) {
      EXPECT_EQ(counts[i], 0) << "token " << i << " outside the support";
      continue;
    }
    const double expected = dist[i] * draws;
    chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
  }
  return chi2;
}

// Upper 1e-6 quantile of chi-square with `df` degrees of freedom (Wilson-Hilferty; for df >= 3
// it overstates the exact quantile by < 4%, e.g. 41.9 vs 40.5 at df = 7). A correct sampler
// with a random seed exceeds it once in a million; the seed is fixed, so the test is
// deterministic, and a wrong distribution (the power checks below) lands far above it.
double ChiSquareBound(int df) {
  constexpr double kZ = 4.7534;  // standard normal upper 1e-6 quantile
  const double a = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - a + kZ * std::sqrt(a), 3);
}

TEST(TokenSelectionTest, FrequenciesMatchTheTemperedDistribution) {
  SamplingParams params;
  params.temperature = 0.8f;
  const std::vector<float> logits = {1.0f, 0.2f, -0.5f, 2.0f, 0.0f, 1.5f, -1.0f, 0.7f};
  constexpr int kDraws = 200000;
  const std::vector<double> dist = ReferenceDistribution(logits, params);
  const double bound = ChiSquareBound(static_cast<int>(logits.size()) - 1);
  EXPECT_LT(ChiSquare(logits, params, dist, kDraws, 2024), bound);
  // Power: the untempered distribution (T = 1) is rejected.
  SamplingParams untempered = params;
  untempered.temperature = 1.0f;
  EXPECT_GT(ChiSquare(logits, params, ReferenceDistribution(logits, untempered), kDraws, 2024),
            10 * bound);
}

TEST(TokenSelectionTest, FrequenciesMatchTheRenormalizedTruncatedDistribution) {
  SamplingParams params;
  params.temperature = 0.7f;
  params.top_k = 6;
  params.top_p = 0.9f;
  const std::vector<float> logits = RandomLogits(12, 0.8f, 6);
  constexpr int kDraws = 200000;
  const std::vector<double> dist = ReferenceDistribution(logits, params);
  const int support = static_cast<int>(Support(dist).size());
  ASSERT_GE(support, 3);
  for (double p : dist) {
    if (p > 0) {
      ASSERT_GT(p * kDraws, 50.0);
    }
  }
  const double bound = ChiSquareBound(support - 1);
  EXPECT_LT(ChiSquare(logits, params, dist, kDraws, 7), bound);
  // Power: the same support weighted as at T = 1 is rejected.
  SamplingParams other = params;
  other.temperature = 1.0f;
  other.top_k = 0;
  other.top_p = 1.0f;
  std::vector<double> wrong = ReferenceDistribution(logits, other);
  double kept = 0;
  for (size_t i = 0; i < wrong.size(); ++i) kept += dist[i] > 0 ? wrong[i] : 0;
  for (size_t i = 0; i < wrong.size(); ++i) wrong[i] = dist[i] > 0 ? wrong[i] / kept : 0;
  EXPECT_GT(ChiSquare(logits, params, wrong, kDraws, 7), 10 * bound);
}

}  // namespace
}  // namespace strata
