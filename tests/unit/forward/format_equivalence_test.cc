// The same random model loaded from its Hugging Face directory and from its GGUF file gives
// bitwise-identical logits (the GGUF loader undoes llama.cpp's q/k permutation).
#include <cstring>

#include "gtest/gtest.h"
#include "forward_harness.h"

namespace strata::testing {
namespace {

class FormatEquivalenceTest
    : public ::testing::TestWithParam<std::tuple<Architecture, DType>> {};

TEST_P(FormatEquivalenceTest, HfAndGgufLogitsAreBitwiseEqual) {
  const auto [arch, dtype] = GetParam();
  const MakeModelOptions options = TinyModel(arch, dtype, dtype);
  auto hf = Model::Load(RandomModelHfDir(options), {});
  auto gguf = Model::Load(RandomModelGgufPath(options), {});
  ASSERT_TRUE(hf.ok()) << hf.status();
  ASSERT_TRUE(gguf.ok()) << gguf.status();
  const auto prompt = RandomPrompt(50, (*hf)->spec().vocab_size, 5);
  const auto a = RunSchedule(**hf, {prompt}, {{{0, 50}}});
  const auto b = RunSchedule(**gguf, {prompt}, {{{0, 50}}});
  for (size_t pos = 0; pos < a[0].size(); ++pos) {
    ASSERT_EQ(0, std::memcmp(a[0][pos].data(), b[0][pos].data(), a[0][pos].size() * 4))
        << "position " << pos;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, FormatEquivalenceTest,
    ::testing::Combine(::testing::Values(Architecture::kLlama, Architecture::kQwen2,
                                         Architecture::kQwen3, Architecture::kMistral),
                       ::testing::Values(DType::kF32, DType::kBF16)),
    [](const auto& info) {
      return std::string(ArchitectureName(std::get<0>(info.param))) + "_" +
             std::string(DTypeName(std::get<1>(info.param)));
    });

}  // namespace
}  // namespace strata::testing
