// RmsNorm and AddRmsNorm against the double reference; row independence.
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/cpu/ops.h"
#include "backend/cpu/reference.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace strata::cpu {
namespace {

using testing::RandomVector;

TEST(RmsNormTest, MatchesReference) {
  for (int dim : {1, 7, 8, 33, 1024, 1031}) {
    const int rows = 5;
    const auto x = RandomVector(rows * dim, dim, -4.0f, 4.0f);
    const auto w = RandomVector(dim, dim + 1, 0.5f, 1.5f);
    std::vector<float> out(x.size()), ref(x.size());
    RmsNorm(x.data(), w.data(), rows, dim, 1e-6f, out.data());
    reference::RmsNorm(x.data(), w.data(), rows, dim, 1e-6f, ref.data());
    // Sum of squares: ~dim/8 + 3 roundings (relative, all terms positive); sqrt, divide and two
    // products add 4 more: (dim/8 + 8) eps relative to the output.
    const double rel = (dim / 8 + 8) * 1.2e-7;
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_NEAR(out[i], ref[i], std::fabs(ref[i]) * rel + 1e-30) << dim;
  }
}

TEST(RmsNormTest, InPlaceAndRowIndependent) {
  const int dim = 100, rows = 6;
  const auto x = RandomVector(rows * dim, 1);
  const auto w = RandomVector(dim, 2);
  std::vector<float> batch(x.size());
  RmsNorm(x.data(), w.data(), rows, dim, 1e-5f, batch.data());
  auto inplace = x;
  RmsNorm(inplace.data(), w.data(), rows, dim, 1e-5f, inplace.data());
  EXPECT_EQ(std::memcmp(inplace.data(), batch.data(), batch.size() * 4), 0);
  std::vector<float> one(dim);
  RmsNorm(x.data() + 4 * dim, w.data(), 1, dim, 1e-5f, one.data());
  EXPECT_EQ(std::memcmp(one.data(), batch.data() + 4 * dim, dim * 4), 0);
}

TEST(AddRmsNormTest, AddsResidualThenNormalizes) {
  const int dim = 77, rows = 3;
  auto x = RandomVector(rows * dim, 5);
  const auto res = RandomVector(rows * dim, 6);
  const auto w = RandomVector(dim, 7);
  std::vector<float> sum(x.size());
  for (size_t i = 0; i < x.size(); ++i) sum[i] = x[i] + res[i];
  std::vector<float> expected(x.size()), out(x.size());
  RmsNorm(sum.data(), w.data(), rows, dim, 1e-6f, expected.data());
  AddRmsNorm(x.data(), res.data(), w.data(), rows, dim, 1e-6f, out.data());
  EXPECT_EQ(std::memcmp(x.data(), sum.data(), sum.size() * 4), 0);  // x now holds x + residual
  EXPECT_EQ(std::memcmp(out.data(), expected.data(), out.size() * 4), 0);
}

}  // namespace
}  // namespace strata::cpu
