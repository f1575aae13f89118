// RoPE: inverse frequencies (default, linear, llama3) and the rotation in both layouts.
#include <cmath>
#include <vector>

#include "backend/cpu/ops.h"
#include "backend/cpu/reference.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace strata::cpu {
namespace {

using testing::RandomVector;

ModelSpec Spec(int head_dim, float theta) {
  ModelSpec s;
  s.head_dim = head_dim;
  s.rope_theta = theta;
  return s;
}

// f32 steps vs exact formulas: pow and each division are within 1 ulp; 4 ulp covers the chain.
constexpr double kInvFreqRelTol = 4.0 / (1 << 23);

TEST(RopeInvFreqTest, DefaultMatchesFormula) {
  for (auto [dim, theta] : {std::pair{64, 10000.0f}, {128, 1000000.0f}, {128, 500000.0f}}) {
    const ModelSpec spec = Spec(dim, theta);
    std::vector<float> f(dim / 2);
    ComputeRopeInvFreq(spec, f.data());
    const auto ref = reference::RopeInvFreq(spec);
    EXPECT_EQ(f[0], 1.0f);
    for (int i = 0; i < dim / 2; ++i) EXPECT_NEAR(f[i], ref[i], ref[i] * kInvFreqRelTol) << i;
  }
}

TEST(RopeInvFreqTest, LinearDividesByFactor) {
  ModelSpec spec = Spec(64, 10000.0f);
  std::vector<float> plain(32), scaled(32);
  ComputeRopeInvFreq(spec, plain.data());
  spec.rope_scaling.kind = RopeScaling::Kind::kLinear;
  spec.rope_scaling.factor = 4.0f;
  ComputeRopeInvFreq(spec, scaled.data());
  for (int i = 0; i < 32; ++i) EXPECT_EQ(scaled[i], plain[i] / 4.0f);
}

// Llama 3.1's configuration: theta 500000, factor 8, low 1, high 4, original context 8192.
TEST(RopeInvFreqTest, Llama3MatchesHfFormula) {
  ModelSpec spec = Spec(128, 500000.0f);
  std::vector<float> plain(64), scaled(64);
  ComputeRopeInvFreq(spec, plain.data());
  spec.rope_scaling = {RopeScaling::Kind::kLlama3, 8.0f, 1.0f, 4.0f, 8192};
  ComputeRopeInvFreq(spec, scaled.data());
  const auto ref = reference::RopeInvFreq(spec);
  int high = 0, low = 0, medium = 0;
  for (int i = 0; i < 64; ++i) {
    // The smoothed band subtracts nearly equal terms; allow a few more ulp there.
    EXPECT_NEAR(scaled[i], ref[i], ref[i] * 16 * kInvFreqRelTol) << i;
    const double wavelen = 2 * M_PI / plain[i];
    if (wavelen < 2048) {
      EXPECT_EQ(scaled[i], plain[i]) << i;  // high frequencies untouched
      ++high;
    } else if (wavelen > 8192) {
      EXPECT_EQ(scaled[i], plain[i] / 8.0f) << i;  // low frequencies divided by factor
      ++low;
    } else {
      EXPECT_GT(scaled[i], plain[i] / 8.0f);
      EXPECT_LT(scaled[i], plain[i]);
      ++medium;
    }
  }
  EXPECT_GT(high, 0);
  EXPECT_GT(low, 0);
  EXPECT_GT(medium, 0);
}

class RopeTest : public ::testing::TestWithParam<std::tuple<int, RopeLayout>> {};

TEST_P(RopeTest, MatchesReference) {
  const auto [head_dim, layout] = GetParam();
  const int tokens = 5, heads = 3;
  const int64_t stride = heads * head_dim + 10;  // e.g. q inside a fused qkv row
  const int32_t positions[tokens] = {0, 1, 17, 4095, 32767};
  std::vector<float> inv_freq(head_dim / 2);
  ComputeRopeInvFreq(Spec(head_dim, 1000000.0f), inv_freq.data());
  auto x = RandomVector(tokens * stride, 3);
  auto ref = x;
  Rope(x.data(), tokens, heads, head_dim, stride, positions, inv_freq.data(), layout);
  reference::Rope(ref.data(), tokens, heads, head_dim, stride, positions, inv_freq.data(), layout);
  // Same f32 angle; cosf/sinf within 1 ulp, then two f32 products and a sum of values <= 1.
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], ref[i], 1e-6) << i;
  // Padding past the heads is untouched.
  const auto orig = RandomVector(tokens * stride, 3);
  for (int t = 0; t < tokens; ++t) {
    for (int i = heads * head_dim; i < stride; ++i)
      EXPECT_EQ(x[t * stride + i], orig[t * stride + i]);
  }
}

// kNormal on interleaved data equals kNeox on the de-interleaved permutation.
TEST(RopeLayoutTest, LayoutsArePermutationsOfEachOther) {
  for (int head_dim : {6, 64, 128}) {
    const int half = head_dim / 2;
    const int32_t pos = 1234;
    std::vector<float> inv_freq(half);
    ComputeRopeInvFreq(Spec(head_dim, 10000.0f), inv_freq.data());
    auto a = RandomVector(head_dim, 4);
    std::vector<float> b(head_dim);
    for (int i = 0; i < half; ++i) {
      b[i] = a[2 * i];
      b[half + i] = a[2 * i + 1];
    }
    Rope(a.data(), 1, 1, head_dim, head_dim, &pos, inv_freq.data(), RopeLayout::kNormal);
    Rope(b.data(), 1, 1, head_dim, head_dim, &pos, inv_freq.data(), RopeLayout::kNeox);
    for (int i = 0; i < half; ++i) {
      EXPECT_EQ(a[2 * i], b[i]);
      EXPECT_EQ(a[2 * i + 1], b[half + i]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, RopeTest,
                         ::testing::Combine(::testing::Values(6, 64, 80, 128),
                                            ::testing::Values(RopeLayout::kNeox,
                                                              RopeLayout::kNormal)));

}  // namespace
}  // namespace strata::cpu
