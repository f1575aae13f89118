#include "model/weight_convert.h"

#include <cmath>
#include <numeric>

#include "gtest/gtest.h"
#include "strata/half.h"

namespace strata {
namespace {

TEST(WeightConvertTest, PermuteMatchesConverterAndUnpermuteInvertsIt) {
  // convert_hf_to_gguf.py: w.reshape(n_head, 2, hd/2, ...).swapaxes(1, 2).reshape(w.shape)
  const int head_dim = 8, heads = 3, rows = head_dim * heads;
  std::vector<int32_t> hf(rows);
  std::iota(hf.begin(), hf.end(), 0);
  std::vector<int32_t> gguf(rows), back(rows);
  PermuteRowsHfToGguf(hf.data(), rows, sizeof(int32_t), head_dim, gguf.data());
  for (int h = 0; h < heads; ++h) {
    for (int j = 0; j < head_dim / 2; ++j) {
      for (int t = 0; t < 2; ++t) {
        EXPECT_EQ(gguf[h * head_dim + j * 2 + t], h * head_dim + t * (head_dim / 2) + j);
      }
    }
  }
  UnpermuteRowsGgufToHf(gguf.data(), rows, sizeof(int32_t), head_dim, back.data());
  EXPECT_EQ(back, hf);
}

TEST(WeightConvertTest, QuantizeQ8_0MatchesGgmlReference) {
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = std::sin(i * 0.7f) * (i < 32 ? 1.0f : 0.01f);
  x[40] = 0;
  std::vector<BlockQ8_0> q(2);
  QuantizeQ8_0(x.data(), 64, q.data());
  for (int b = 0; b < 2; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b * 32 + j]));
    const float d = amax / 127.0f;
    EXPECT_EQ(q[b].scale_f16, F32ToF16(d));
    for (int j = 0; j < 32; ++j) {
      EXPECT_EQ(q[b].q[j], static_cast<int8_t>(std::roundf(x[b * 32 + j] * (1.0f / d))));
    }
  }
  Tensor t{DType::kQ8_0, {64}, q.data()};
  std::vector<float> back = ToF32(t);
  for (int i = 0; i < 64; ++i) EXPECT_NEAR(back[i], x[i], 0.005f * (i < 32 ? 1 : 0.01f) + 1e-6f);
  std::vector<float> zeros(32, 0.0f);
  QuantizeQ8_0(zeros.data(), 32, q.data());
  EXPECT_EQ(q[0].scale_f16, 0);
  EXPECT_EQ(q[0].q[5], 0);
}

TEST(WeightConvertTest, HalfFormatsRoundTrip) {
  std::vector<float> x = {1.0f, -2.5f, 0.333251953125f, 65504.0f};
  std::vector<uint16_t> h(4);
  FromF32(x.data(), 4, DType::kF16, h.data());
  EXPECT_EQ(ToF32(Tensor{DType::kF16, {4}, h.data()}), x);
  std::vector<float> y = {1.0f, -2.5f, 3.0f, 0.5f};
  FromF32(y.data(), 4, DType::kBF16, h.data());
  EXPECT_EQ(ToF32(Tensor{DType::kBF16, {4}, h.data()}), y);
}

TEST(WeightConvertTest, Llama3RopeFactorsFollowTheConverter) {
  ModelSpec spec;
  spec.head_dim = 128;
  spec.rope_theta = 500000.0f;
  spec.rope_scaling.kind = RopeScaling::Kind::kLlama3;
  spec.rope_scaling.factor = 8.0f;
  spec.rope_scaling.original_max_position_embeddings = 8192;
  const std::vector<float> f = Llama3RopeFactors(spec);
  ASSERT_EQ(f.size(), 64u);
  EXPECT_EQ(f[0], 1.0f);   // high frequency: unchanged
  EXPECT_EQ(f[63], 8.0f);  // low frequency: divided by factor
  int smooth = 0;
  for (float v : f) {
    EXPECT_GE(v, 1.0f);
    EXPECT_LE(v, 8.0f);
    smooth += v > 1.0f && v < 8.0f;
  }
  EXPECT_GT(smooth, 0);
  for (size_t i = 1; i < f.size(); ++i) EXPECT_GE(f[i], f[i - 1]);
}

}  // namespace
}  // namespace strata
