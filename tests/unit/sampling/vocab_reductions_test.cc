#include "sampling/vocab_reductions.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace strata::sampling {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(ExpNonPositiveTest, MatchesStdExpWithinThreeUlp) {
  for (float v = -87.0f; v <= 0.0f; v += 0.001237f) {
    const double want = std::exp(static_cast<double>(v));
    EXPECT_NEAR(ExpNonPositive(v), want, want * 3.6e-7) << v;
  }
  EXPECT_EQ(ExpNonPositive(0.0f),
            1.0f);  // the max token's weight is exactly 1 (min-p relies on it)
}

TEST(ExpNonPositiveTest, UnderflowMinusInfinityAndNanGiveZero) {
  EXPECT_EQ(ExpNonPositive(-88.0f), 0.0f);
  EXPECT_EQ(ExpNonPositive(-kInf), 0.0f);
  EXPECT_EQ(ExpNonPositive(std::numeric_limits<float>::quiet_NaN()), 0.0f);
}

TEST(SumExpShiftedTest, MatchesDoubleReferenceAndStoresTerms) {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> x(151936 + 5);  // a vocabulary that is not a multiple of the lanes
  for (float& v : x) v = normal(rng);
  x[17] = -kInf;
  float max = -kInf;
  for (float v : x) max = std::max(max, v);
  std::vector<float> terms(x.size());
  const double sum = SumExpShifted(x.data(), static_cast<int>(x.size()), max, terms.data());
  double want = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    want += std::exp(static_cast<double>(x[i]) - max);
    // Each term is exp of the float difference x - shift (rounded to half an ulp of it).
    const double term = std::exp(static_cast<double>(x[i] - max));
    ASSERT_NEAR(terms[i], term, term * 3.6e-7 + 1e-38) << i;
  }
  // Per-term errors (the float difference, then exp) are a few 1e-7 relative and of random
  // sign; the double sum adds nothing visible. 1e-6 relative keeps log-sum-exp within 1e-6.
  EXPECT_NEAR(sum, want, want * 1e-6);
  EXPECT_EQ(terms[17], 0.0f);
  EXPECT_EQ(SumExpShifted(x.data(), static_cast<int>(x.size()), max, nullptr), sum);
}

TEST(ArgMaxTest, LowestIdWinsTiesAndNanIsSkipped) {
  std::vector<float> x(100, 0.0f);
  x[40] = 5.0f;
  x[73] = 5.0f;
  x[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(ArgMax(x.data(), 100), 40);
  EXPECT_EQ(MaxValue(x.data(), 100), 5.0f);
  std::vector<float> masked(9, -kInf);
  EXPECT_EQ(ArgMax(masked.data(), 9), 0);
}

TEST(ArgMaxTest, FindsTheMaxInTheTailAfterTheLanes) {
  std::vector<float> x(8 * 10 + 3, -1.0f);
  x[82] = 2.0f;
  EXPECT_EQ(ArgMax(x.data(), static_cast<int>(x.size())), 82);
}

}  // namespace
}  // namespace strata::sampling
