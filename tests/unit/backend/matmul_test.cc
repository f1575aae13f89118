// MatMul: accuracy against the scalar reference for every weight dtype and ISA, odd shapes,
// and bitwise batch/thread invariance.
#include <cmath>
#include <cstring>
#include <tuple>

#include "backend/cpu/ops.h"
#include "backend/cpu/reference.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace strata::cpu {
namespace {

using testing::MakeTensor;
using testing::RandomVector;
using testing::ScopedIsa;

constexpr float kEps = 1.0f / (1 << 23);  // f32 machine epsilon

struct Shape {
  int m, n, k;
};

class MatMulTest : public ::testing::TestWithParam<std::tuple<Isa, DType>> {
 protected:
  Isa isa() const { return std::get<0>(GetParam()); }
  DType dtype() const { return std::get<1>(GetParam()); }
  bool quantized() const { return dtype() == DType::kQ8_0; }
};

std::vector<Shape> ShapesFor(DType dtype) {
  std::vector<Shape> shapes;
  const std::vector<int> ks = dtype == DType::kQ8_0
                                  ? std::vector<int>{32, 64, 96, 288, 1024}
                                  : std::vector<int>{1, 7, 8, 9, 31, 64, 100, 257};
  for (int m : {1, 2, 5, 33}) {
    for (int n : {1, 3, 17, 50}) {
      for (int k : ks) shapes.push_back({m, n, k});
    }
  }
  shapes.push_back({4, 97, 1024});
  shapes.push_back({9, 200, dtype == DType::kQ8_0 ? 320 : 333});
  return shapes;
}

TEST_P(MatMulTest, MatchesReference) {
  ScopedIsa scoped(isa());
  ThreadPool pool(2);
  uint32_t seed = 1;
  for (const Shape& s : ShapesFor(dtype())) {
    SCOPED_TRACE(::testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k);
    const auto x = RandomVector(size_t(s.m) * s.k, seed++);
    const auto wf = RandomVector(size_t(s.n) * s.k, seed++);
    const auto bias = RandomVector(s.n, seed++);
    const auto w = MakeTensor(dtype(), s.n, s.k, wf);
    const std::vector<float> wdq = reference::Dequantize(w.tensor);
    const bool with_bias = (s.n % 2) == 1;
    std::vector<float> y(size_t(s.m) * s.n), ref(y.size()), ref_q(y.size());
    MatMul(pool, x.data(), s.m, w.tensor, with_bias ? bias.data() : nullptr, y.data());
    reference::MatMul(x.data(), s.m, s.k, wdq.data(), s.n, with_bias ? bias.data() : nullptr,
                      ref.data());
    if (quantized()) {
      reference::MatMulQ8_0(x.data(), s.m, w.tensor, with_bias ? bias.data() : nullptr,
                            ref_q.data());
    }
    for (int r = 0; r < s.m; ++r) {
      for (int j = 0; j < s.n; ++j) {
        // Scale of the sum: sum |x_i w_i| (+ |bias|) bounds every partial sum.
        double mag = with_bias ? std::fabs(bias[j]) : 0.0;
        for (int i = 0; i < s.k; ++i)
          mag += std::fabs(double(x[size_t(r) * s.k + i]) * wdq[size_t(j) * s.k + i]);
        const size_t at = size_t(r) * s.n + j;
        if (!quantized()) {
          // f32 accumulation in 8 lanes: each lane sums ~k/8 products, then 3 reduction adds,
          // the k % 8 tail and the bias: at most (k/8 + 12) roundings of a partial sum <= mag.
          const double tol = (s.k / 8 + 12) * kEps * mag;
          ASSERT_NEAR(y[at], ref[at], tol) << "r=" << r << " j=" << j;
        } else {
          // Same integers as the reference; only f32 rounding differs: per block one product of
          // scales and one FMA, then the 3 reduction adds and bias: (k/32 + 12) roundings.
          const double tol = (s.k / 32 + 12) * kEps * mag * 1.01;
          ASSERT_NEAR(y[at], ref_q[at], tol) << "r=" << r << " j=" << j;
          // Against exact f32 activations: x is quantized to q*d16 with |error| <= d/2 from
          // rounding plus 127 * d * 2^-11 from storing d in f16 (d = amax/127 per block).
          double qtol = 0;
          for (int b = 0; b < s.k / 32; ++b) {
            double amax = 0, wsum = 0;
            for (int i = 0; i < 32; ++i) {
              amax = std::max(amax, double(std::fabs(x[size_t(r) * s.k + b * 32 + i])));
              wsum += std::fabs(wdq[size_t(j) * s.k + b * 32 + i]);
            }
            qtol += amax / 127 * (0.5 + 127.0 / 2048) * wsum;
          }
          ASSERT_NEAR(y[at], ref[at], qtol + (s.k / 32 + 12) * kEps * mag * 1.01)
              << "r=" << r << " j=" << j;
        }
      }
    }
  }
}

// Row r of y must be bitwise identical whether it is computed alone, at any position of a
// batch of 7 or 64 rows, with 1 or 2 threads.
TEST_P(MatMulTest, BatchAndThreadInvariant) {
  ScopedIsa scoped(isa());
  ThreadPool pool1(1), pool2(2);
  const int n = 1001, k = quantized() ? 1024 : 1027, rows = 64;
  const auto x = RandomVector(size_t(rows) * k, 11);
  const auto w = MakeTensor(dtype(), n, k, RandomVector(size_t(n) * k, 12));
  const auto bias = RandomVector(n, 13);
  std::vector<float> full(size_t(rows) * n);
  MatMul(pool2, x.data(), rows, w.tensor, bias.data(), full.data());
  std::vector<float> y(size_t(rows) * n);
  for (ThreadPool* pool : {&pool1, &pool2}) {
    for (int r : {0, 3, 5, 30, 63}) {
      SCOPED_TRACE(::testing::Message() << "row " << r << " threads " << pool->num_threads());
      MatMul(*pool, x.data() + size_t(r) * k, 1, w.tensor, bias.data(), y.data());
      EXPECT_EQ(std::memcmp(y.data(), full.data() + size_t(r) * n, n * sizeof(float)), 0) << "m=1";
      // A batch of 7 starting at r - (r % 7): r sits at a different tile offset than in `full`.
      const int start = std::min(rows - 7, r - r % 7 + (r % 3));
      MatMul(*pool, x.data() + size_t(start) * k, 7, w.tensor, bias.data(), y.data());
      if (r >= start && r < start + 7) {
        EXPECT_EQ(std::memcmp(y.data() + size_t(r - start) * n, full.data() + size_t(r) * n,
                              n * sizeof(float)),
                  0)
            << "m=7";
      }
      MatMul(*pool, x.data(), rows, w.tensor, bias.data(), y.data());
      EXPECT_EQ(
          std::memcmp(y.data() + size_t(r) * n, full.data() + size_t(r) * n, n * sizeof(float)), 0)
          << "m=64";
    }
    // Every row of odd batch sizes, including rows whose tiles are partial.
    for (int m : {2, 3, 5, 9}) {
      MatMul(*pool, x.data() + k, m, w.tensor, bias.data(), y.data());
      EXPECT_EQ(std::memcmp(y.data(), full.data() + n, size_t(m) * n * sizeof(float)), 0)
          << "m=" << m;
    }
  }
}

std::vector<std::tuple<Isa, DType>> AllParams() {
  std::vector<std::tuple<Isa, DType>> out;
  for (Isa isa : testing::SupportedIsas()) {
    for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0}) out.emplace_back(isa, d);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, MatMulTest, ::testing::ValuesIn(AllParams()),
                         [](const auto& info) {
                           return std::string(IsaName(std::get<0>(info.param))) + "_" +
                                  testing::DTypeLabel(std::get<1>(info.param));
                         });

// Integer dot products are exact and the f32 accumulation has the same 8-lane structure on
// both ISAs, so Q8_0 results must not depend on the ISA at all.
TEST(MatMulQ8_0Test, IsasAgreeBitwise) {
  if (!CpuSupportsAvx512()) GTEST_SKIP() << "no AVX-512";
  ThreadPool pool(2);
  const int m = 13, n = 77, k = 512;
  const auto x = RandomVector(size_t(m) * k, 21);
  const auto w = MakeTensor(DType::kQ8_0, n, k, RandomVector(size_t(n) * k, 22));
  std::vector<float> a(size_t(m) * n), b(a.size());
  {
    ScopedIsa s(Isa::kAvx2);
    MatMul(pool, x.data(), m, w.tensor, nullptr, a.data());
  }
  {
    ScopedIsa s(Isa::kAvx512);
    MatMul(pool, x.data(), m, w.tensor, nullptr, b.data());
  }
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

TEST(QuantizeTest, MatchesScalarQ8_0) {
  const int k = 256;
  auto x = RandomVector(k, 31, -3.0f, 3.0f);
  for (int i = 32; i < 64; ++i) x[i] = 0.0f;  // an all-zero block must give scale 0, q 0
  std::vector<BlockQ8_0> blocks(k / 32);
  QuantizeRowQ8_0(x.data(), k, blocks.data());
  std::vector<float> back(k);
  DequantizeRowQ8_0(blocks.data(), k, back.data());
  for (int b = 0; b < k / 32; ++b) {
    float amax = 0;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[b * 32 + i]));
    EXPECT_EQ(blocks[b].scale_f16, F32ToF16(amax / 127.0f));
    const float id = amax != 0 ? 127.0f / amax : 0.0f;
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(blocks[b].q[i], int(std::nearbyint(x[b * 32 + i] * id)));
      EXPECT_EQ(back[b * 32 + i], F16ToF32(blocks[b].scale_f16) * blocks[b].q[i]);
    }
  }
}

}  // namespace
}  // namespace strata::cpu
