// Embedding: row gather with conversion from every weight dtype.
#include <vector>

#include "backend/cpu/ops.h"
#include "backend/cpu/reference.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace strata::cpu {
namespace {

TEST(EmbeddingTest, GathersRowsOfEveryDType) {
  const int vocab = 11, dim = 96;  // dim: a multiple of 32 (q8_0) with no 8-lane tail issue
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0}) {
    const auto table =
        testing::MakeTensor(dtype, vocab, dim, testing::RandomVector(vocab * dim, 1));
    const auto expected = reference::Dequantize(table.tensor);
    const int32_t ids[] = {3, 0, 10, 3};
    std::vector<float> out(4 * dim);
    Embedding(table.tensor, ids, 4, out.data());
    for (int t = 0; t < 4; ++t) {
      for (int i = 0; i < dim; ++i)
        ASSERT_EQ(out[t * dim + i], expected[ids[t] * dim + i]) << DTypeName(dtype);
    }
  }
}

TEST(EmbeddingTest, OddDimHasScalarTail) {
  const int vocab = 4, dim = 13;
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    const auto table =
        testing::MakeTensor(dtype, vocab, dim, testing::RandomVector(vocab * dim, 2));
    const auto expected = reference::Dequantize(table.tensor);
    const int32_t id = 2;
    std::vector<float> out(dim);
    Embedding(table.tensor, &id, 1, out.data());
    for (int i = 0; i < dim; ++i) ASSERT_EQ(out[i], expected[2 * dim + i]);
  }
}

TEST(CpuFeaturesTest, KernelsSupportedHere) { EXPECT_TRUE(CpuSupportsKernels()); }

}  // namespace
}  // namespace strata::cpu
