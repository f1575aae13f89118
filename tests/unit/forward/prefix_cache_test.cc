// Prefix caching is exact: a sequence whose prefix KV comes from another request's cached blocks
// (through KvCacheManager) gets bitwise the logits it gets when computed from scratch, for every
// KV dtype, and a sliding-window model stays exact while the manager frees and reuses blocks
// that fell out of the window.
#include <cstring>

#include "forward_harness.h"
#include "gtest/gtest.h"
#include "strata/kv_cache_manager.h"

namespace strata::testing {
namespace {

struct Case {
  Architecture arch;
  DType kv_dtype;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(ArchitectureName(info.param.arch)) + "_kv_" +
         std::string(DTypeName(info.param.kv_dtype));
}

using Logits = std::vector<std::vector<float>>;  // [position][vocab]

class PrefixCacheForwardTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const MakeModelOptions options = TinyModel(GetParam().arch, DType::kF32, DType::kF32);
    ModelOptions model_options;
    model_options.threads = 2;
    auto model = Model::Load(RandomModelHfDir(options), model_options);
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = std::move(*model);
  }

  std::unique_ptr<KvCacheManager> Manager(int num_blocks) {
    KvCacheManagerConfig config;
    config.block_size = 16;
    config.num_blocks = num_blocks;
    config.kv_dtype = GetParam().kv_dtype;
    config.fingerprint = {1, 2};
    auto m = KvCacheManager::Create(model_->spec(), config);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? std::move(*m) : nullptr;
  }

  // Runs `tokens` of request `id` through the model in passes of `chunks` tokens, starting after
  // its cached prefix (`match`, if any), as the engine would: allocate, forward, cache full
  // blocks. Returns the logits of every computed position.
  Logits Run(KvCacheManager& m, RequestId id, const std::vector<int32_t>& tokens,
             const std::vector<int>& chunks, const PrefixMatch* match = nullptr) {
    const int vocab = model_->spec().vocab_size;
    int done = match != nullptr ? match->num_cached_tokens : 0;
    Logits out;
    for (size_t c = 0; c < chunks.size(); ++c) {
      const int n = chunks[c];
      if (!m.AllocateSlots(id, n, c == 0 ? match : nullptr)) {
        ADD_FAILURE() << "KV cache full";
        return out;
      }
      ForwardBatch batch;
      for (int i = 0; i < n; ++i) {
        batch.tokens.push_back(tokens[done + i]);
        batch.positions.push_back(done + i);
        batch.slots.push_back(m.Slot(id, done + i));
        batch.logit_rows.push_back(i);
      }
      batch.sequences.push_back({0, n, done + n, m.BlockTable(id).data()});
      std::vector<float> logits(static_cast<size_t>(n) * vocab);
      const absl::Status s = model_->Forward(batch, m.view(), logits.data());
      if (!s.ok()) {
        ADD_FAILURE() << s;
        return out;
      }
      for (int i = 0; i < n; ++i) {
        out.emplace_back(logits.begin() + static_cast<size_t>(i) * vocab,
                         logits.begin() + static_cast<size_t>(i + 1) * vocab);
      }
      done += n;
      m.CacheFullBlocks(id, tokens, done, "");
    }
    return out;
  }

  std::unique_ptr<Model> model_;
};

void ExpectBitwiseEqual(const Logits& a, const Logits& b, int first_position, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size());
    ASSERT_EQ(0, std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(float)))
        << what << ": logits differ at position " << first_position + i;
  }
}

std::vector<int32_t> Concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Request 1 computes a 70-token prompt and finishes; request 2 shares its first 50 tokens and
// takes over 3 cached blocks (48 tokens). Its logits equal a cold run of the same prompt.
TEST_P(PrefixCacheForwardTest, HitFromAFinishedRequestEqualsColdRun) {
  const int vocab = model_->spec().vocab_size;
  const auto a = RandomPrompt(70, vocab, 1);
  const auto b =
      Concat(std::vector<int32_t>(a.begin(), a.begin() + 50), RandomPrompt(25, vocab, 2));

  auto cold_cache = Manager(16);
  const Logits cold = Run(*cold_cache, 1, b, {75});

  auto m = Manager(16);
  Run(*m, 1, a, {70});
  m->Free(1);
  const PrefixMatch match = m->FindCachedPrefix(b, "");
  ASSERT_EQ(match.num_cached_tokens, 48);
  const Logits warm = Run(*m, 2, b, {27}, &match);
  ExpectBitwiseEqual(Logits(cold.begin() + 48, cold.end()), warm, 48, "cold vs prefix hit");
  EXPECT_TRUE(m->CheckInvariants().ok());
}

// The same with the first request still running (blocks shared, refcount 2), and the rest of
// the second prompt computed in chunks after the hit.
TEST_P(PrefixCacheForwardTest, HitSharedWithARunningRequestEqualsColdRun) {
  const int vocab = model_->spec().vocab_size;
  const auto a = RandomPrompt(40, vocab, 3);
  const auto b = Concat(a, RandomPrompt(30, vocab, 4));

  auto cold_cache = Manager(16);
  const Logits cold = Run(*cold_cache, 1, b, {70});

  auto m = Manager(16);
  Run(*m, 1, a, {23, 17});
  const PrefixMatch match = m->FindCachedPrefix(b, "");
  ASSERT_EQ(match.num_cached_tokens, 32);
  const Logits warm = Run(*m, 2, b, {5, 20, 13}, &match);
  ExpectBitwiseEqual(Logits(cold.begin() + 32, cold.end()), warm, 32, "cold vs shared prefix");
  EXPECT_EQ(m->BlockTable(2)[1], m->BlockTable(1)[1]);  // [0] may have left a window
  EXPECT_TRUE(m->CheckInvariants().ok());
}

INSTANTIATE_TEST_SUITE_P(Models, PrefixCacheForwardTest,
                         ::testing::Values(Case{Architecture::kQwen3, DType::kF32},
                                           Case{Architecture::kLlama, DType::kF32},
                                           Case{Architecture::kMistral, DType::kF32},
                                           Case{Architecture::kQwen3, DType::kBF16},
                                           Case{Architecture::kMistral, DType::kF16}),
                         CaseName);

using SlidingWindowPrefixCacheForwardTest = PrefixCacheForwardTest;

// Token by token in a pool too small for the whole prompt: a sliding-window model (window 32)
// only works because blocks that left the window are freed and reused; logits stay exact.
TEST_P(SlidingWindowPrefixCacheForwardTest, WindowBlocksFreedAndReusedKeepLogitsExact) {
  ASSERT_EQ(model_->spec().sliding_window, 32);
  const auto prompt = RandomPrompt(75, model_->spec().vocab_size, 5);
  auto big = Manager(8);
  const Logits whole = Run(*big, 1, prompt, {75});
  auto small = Manager(4);  // 75 tokens need 5 blocks; the window needs at most 3 at a time
  const Logits decode = Run(*small, 1, prompt, std::vector<int>(75, 1));
  ExpectBitwiseEqual(whole, decode, 0, "whole vs token by token with freed window blocks");
  EXPECT_TRUE(small->CheckInvariants().ok());
}

INSTANTIATE_TEST_SUITE_P(Models, SlidingWindowPrefixCacheForwardTest,
                         ::testing::Values(Case{Architecture::kMistral, DType::kF32},
                                           Case{Architecture::kMistral, DType::kBF16}),
                         CaseName);

}  // namespace
}  // namespace strata::testing
