#include "sampling/random.h"

#include <array>
#include <cstdint>

#include "gtest/gtest.h"

namespace strata::sampling {
namespace {

// Known answers from Random123's kat_vectors file (`philox4x32 10` lines).
TEST(PhiloxTest, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(Philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(
      Philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
      (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      Philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
      (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(UniformTest, IsAPureFunctionOfSeedAndStep) {
  EXPECT_EQ(Uniform(7, 3), Uniform(7, 3));
  EXPECT_NE(Uniform(7, 3), Uniform(7, 4));
  EXPECT_NE(Uniform(7, 3), Uniform(8, 3));
  // The high halves of seed and step matter too.
  EXPECT_NE(Uniform(7, 3), Uniform(7 + (1ull << 32), 3));
  EXPECT_NE(Uniform(7, 3), Uniform(7, 3 + (1ull << 32)));
}

TEST(UniformTest, StaysInHalfOpenUnitIntervalWithMeanOneHalf) {
  double sum = 0;
  constexpr int kDraws = 100000;
  for (int step = 0; step < kDraws; ++step) {
    const double u = Uniform(12345, step);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  // Standard error of the mean: sqrt(1/12 / 1e5) ~= 9.1e-4; 5 sigma.
  EXPECT_NEAR(sum / kDraws, 0.5, 5 * 9.2e-4);
}

}  // namespace
}  // namespace strata::sampling
