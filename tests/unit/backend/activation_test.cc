// SiluMul and LogSoftmax against the double reference.
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/ops.h"
#include "backend/cpu/reference.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace strata::cpu {
namespace {

using testing::RandomVector;

TEST(SiluMulTest, MatchesReference) {
  const int rows = 3, inter = 1003;  // tail of 3 x 1003 % 8
  auto gate = RandomVector(rows * inter, 1, -20.0f, 20.0f);
  gate[0] = -100.0f;  // e^100 overflows a naive implementation
  gate[1] = 100.0f;
  gate[2] = 0.0f;
  const auto up = RandomVector(rows * inter, 2, -2.0f, 2.0f);
  std::vector<float> out(gate.size()), ref(gate.size());
  SiluMul(gate.data(), up.data(), rows, inter, out.data());
  reference::SiluMul(gate.data(), up.data(), rows, inter, ref.data());
  // e^-g within ~2 ulp, then an add, a divide and a product: ~5 ulp relative; silu(-100) is
  // ~-4e-42 (denormal territory) so allow a tiny absolute floor.
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_NEAR(out[i], ref[i], std::fabs(ref[i]) * 6e-7 + 1e-30) << i;
  // In place (out aliases gate).
  SiluMul(gate.data(), up.data(), rows, inter, gate.data());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(gate[i], out[i]);
}

TEST(LogSoftmaxTest, MatchesReference) {
  for (int vocab : {1, 5, 8, 1000, 151936}) {
    auto logits = RandomVector(vocab, vocab, -30.0f, 30.0f);
    if (vocab > 10) logits[3] = -std::numeric_limits<float>::infinity();  // a masked token
    std::vector<float> out(vocab), ref(vocab);
    LogSoftmax(logits.data(), vocab, out.data());
    reference::LogSoftmax(logits.data(), vocab, ref.data());
    // log(sum) is off by the relative error of the f32 sum (~vocab/8 roundings of <= 1 terms,
    // ~2 ulp per exp): absolute error of out is that plus the rounding of x - shift (|x| <= 60).
    const double tol = (vocab / 8.0 + 8) * 1.2e-7 + 60 * 1.2e-7;
    for (int i = 0; i < vocab; ++i) {
      if (std::isinf(ref[i])) {
        EXPECT_TRUE(std::isinf(out[i]) && out[i] < 0);
      } else {
        ASSERT_NEAR(out[i], ref[i], tol) << vocab << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace strata::cpu
