// Batch invariance of Model::Forward: a sequence's logits are bitwise identical whether it runs
// alone or with other sequences, whole or in chunks, on 1 or 2 threads.
#include <cstring>

#include "gtest/gtest.h"
#include "forward_harness.h"

namespace strata::testing {
namespace {

struct Case {
  Architecture arch;
  DType hf_dtype;
  DType gguf_dtype;
  bool use_gguf;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(ArchitectureName(info.param.arch)) + "_" +
         std::string(DTypeName(info.param.use_gguf ? info.param.gguf_dtype : info.param.hf_dtype)) +
         (info.param.use_gguf ? "_gguf" : "_hf");
}

class BatchInvarianceTest : public ::testing::TestWithParam<Case> {
 protected:
  std::unique_ptr<Model> Load(int threads) {
    const Case& c = GetParam();
    const MakeModelOptions options = TinyModel(c.arch, c.hf_dtype, c.gguf_dtype);
    ModelOptions model_options;
    model_options.threads = threads;
    auto model = Model::Load(c.use_gguf ? RandomModelGgufPath(options) : RandomModelHfDir(options),
                             model_options);
    EXPECT_TRUE(model.ok()) << model.status();
    return model.ok() ? std::move(*model) : nullptr;
  }
};

void ExpectBitwiseEqual(const std::vector<std::vector<float>>& a,
                        const std::vector<std::vector<float>>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t pos = 0; pos < a.size(); ++pos) {
    ASSERT_EQ(a[pos].size(), b[pos].size());
    ASSERT_EQ(0, std::memcmp(a[pos].data(), b[pos].data(), a[pos].size() * sizeof(float)))
        << what << ": logits differ at position " << pos;
  }
}

// Three prompts; the sliding-window model (window 32) needs contexts past the window.
std::vector<std::vector<int32_t>> Prompts(int vocab) {
  return {RandomPrompt(75, vocab, 1), RandomPrompt(9, vocab, 2), RandomPrompt(40, vocab, 3)};
}

TEST_P(BatchInvarianceTest, AloneEqualsBatchedWithOthers) {
  auto model = Load(2);
  ASSERT_NE(model, nullptr);
  const auto prompts = Prompts(model->spec().vocab_size);
  const auto alone = RunSchedule(*model, {prompts[0]}, {{{0, 75}}});
  // Prompt 0 shares passes with prefills and single-token steps of the others, in the middle.
  const auto mixed = RunSchedule(*model, prompts,
                                 {{{1, 8}, {2, 20}}, {{2, 19}, {0, 75}, {1, 1}}, {{2, 1}}});
  ExpectBitwiseEqual(alone[0], mixed[0], "alone vs batched");
}

TEST_P(BatchInvarianceTest, WholePromptEqualsChunks) {
  auto model = Load(2);
  ASSERT_NE(model, nullptr);
  const auto prompts = Prompts(model->spec().vocab_size);
  const auto whole = RunSchedule(*model, {prompts[0]}, {{{0, 75}}});
  const auto chunks = RunSchedule(*model, {prompts[0]},
                                  {{{0, 16}}, {{0, 7}}, {{0, 33}}, {{0, 1}}, {{0, 18}}});
  ExpectBitwiseEqual(whole[0], chunks[0], "whole vs chunked");
  std::vector<Pass> one_at_a_time;
  for (int i = 0; i < 75; ++i) one_at_a_time.push_back({{0, 1}});
  const auto decode = RunSchedule(*model, {prompts[0]}, one_at_a_time);
  ExpectBitwiseEqual(whole[0], decode[0], "whole vs token by token");
}

TEST_P(BatchInvarianceTest, OneThreadEqualsTwo) {
  auto one = Load(1);
  auto two = Load(2);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  const auto prompts = Prompts(one->spec().vocab_size);
  const auto a = RunSchedule(*one, {prompts[0]}, {{{0, 75}}});
  const auto b = RunSchedule(*two, {prompts[0]}, {{{0, 75}}});
  ExpectBitwiseEqual(a[0], b[0], "1 vs 2 threads");
}

INSTANTIATE_TEST_SUITE_P(
    Models, BatchInvarianceTest,
    ::testing::Values(Case{Architecture::kQwen3, DType::kF32, DType::kF32, false},
                      Case{Architecture::kQwen2, DType::kF32, DType::kF32, false},
                      Case{Architecture::kLlama, DType::kF32, DType::kF32, true},
                      Case{Architecture::kMistral, DType::kF32, DType::kF32, true},
                      Case{Architecture::kQwen3, DType::kBF16, DType::kBF16, true},
                      Case{Architecture::kQwen3, DType::kF16, DType::kF16, false},
                      Case{Architecture::kQwen3, DType::kBF16, DType::kQ8_0, true}),
    CaseName);

}  // namespace
}  // namespace strata::testing
