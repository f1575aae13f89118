// Admission: what Submit and Create accept and reject, with which status.
#include <limits>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "strata/kv_cache_manager.h"

namespace strata::testing {
namespace {

using ::testing::HasSubstr;

EngineRequest Request(const std::string& id, int prompt_len, int max_tokens = 4) {
  EngineRequest r;
  r.id = id;
  r.prompt = RandomTokens(prompt_len, 1024, prompt_len);
  r.params.max_tokens = max_tokens;
  r.params.temperature = 0;
  return r;
}

TEST(EngineAdmissionTest, OverloadIsResourceExhausted) {
  EngineConfig config;
  config.max_waiting_requests = 3;
  config.kv.num_blocks = 64;
  auto engine = MakeEngine(config);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(engine->Submit(Request(std::to_string(i), 4)).ok());
  auto overloaded = engine->Submit(Request("x", 4));
  EXPECT_EQ(overloaded.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(overloaded.status().message()), HasSubstr("server overloaded"));
}

TEST(EngineAdmissionTest, TooLongNamesBothNumbers) {
  EngineConfig config;
  config.max_model_len = 64;
  config.kv.num_blocks = 64;
  auto engine = MakeEngine(config);
  auto too_long = engine->Submit(Request("a", 50, 20));
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(too_long.status().message()), HasSubstr("70"));
  EXPECT_THAT(std::string(too_long.status().message()), HasSubstr("64"));
  EXPECT_TRUE(engine->Submit(Request("b", 50, 14)).ok());  // exactly max_model_len
}

TEST(EngineAdmissionTest, NeverFitsInThePoolIsInvalidArgument) {
  EngineConfig config;
  config.kv.num_blocks = 4;  // 64 tokens of 16
  auto engine = MakeEngine(config);
  auto never = engine->Submit(Request("a", 100, 1));
  EXPECT_EQ(never.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(never.status().message()), HasSubstr("never fit"));
  EXPECT_TRUE(engine->Submit(Request("b", 60, 5)).ok());  // 64 tokens: the last is not cached
}

TEST(EngineAdmissionTest, WithoutChunkingAPromptOverTheBudgetIsInvalidArgument) {
  EngineConfig config;
  config.kv.num_blocks = 64;
  config.enable_chunked_prefill = false;
  config.max_num_batched_tokens = 32;
  auto engine = MakeEngine(config);
  EXPECT_EQ(engine->Submit(Request("a", 33, 1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(engine->Submit(Request("b", 32, 1)).ok());
}

TEST(EngineAdmissionTest, BadParametersAreInvalidArgument) {
  EngineConfig config;
  config.kv.num_blocks = 64;
  auto engine = MakeEngine(config);
  auto expect_invalid = [&](EngineRequest r, const char* what) {
    EXPECT_EQ(engine->Submit(std::move(r)).status().code(), absl::StatusCode::kInvalidArgument)
        << what;
  };
  EngineRequest r = Request("a", 4);
  r.params.temperature = -1;
  expect_invalid(r, "temperature");
  r = Request("a", 4);
  r.params.top_p = 0;
  expect_invalid(r, "top_p");
  r = Request("a", 4);
  r.params.logprobs = 21;
  expect_invalid(r, "logprobs");
  r = Request("a", 4);
  r.params.max_tokens = 0;
  expect_invalid(r, "max_tokens");
  r = Request("a", 4);
  r.params.n = 0;
  expect_invalid(r, "n");
  r = Request("a", 4);
  r.params.n = 100000;
  expect_invalid(r, "huge n");
  r = Request("a", 4);
  r.prompt[1] = 1024;
  expect_invalid(r, "token outside the vocabulary");
  r = Request("a", 4);
  r.prompt[0] = -1;
  expect_invalid(r, "negative token");
  r = Request("a", 4);
  r.prompt.clear();
  expect_invalid(r, "empty prompt");
  r = Request("", 4);
  expect_invalid(r, "empty id");
  r = Request("a", 4);
  r.params.logit_bias = {{5000, 1.0f}};
  expect_invalid(r, "bias id");
  EXPECT_EQ(engine->Stats().waiting, 0);
}

// Non-finite numbers from a client must be refused or survive a run; never hang or crash.
TEST(EngineAdmissionTest, NonFiniteParametersAreRefusedOrHarmless) {
  EngineConfig config;
  config.kv.num_blocks = 64;
  auto engine = MakeEngine(config);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<EngineRequest> requests;
  for (int i = 0; i < 9; ++i) {
    EngineRequest r = Request("nf" + std::to_string(i), 6, 3);
    r.params.seed = i;
    switch (i) {
      case 0:
        r.params.temperature = nan;
        break;
      case 1:
        r.params.temperature = inf;
        break;
      case 2:
        r.params.top_p = nan;
        break;
      case 3:
        r.params.min_p = nan;
        break;
      case 4:
        r.params.repetition_penalty = nan;
        break;
      case 5:
        r.params.presence_penalty = nan;
        break;
      case 6:
        r.params.logit_bias = {{5, nan}};
        break;
      case 7:
        r.params.logit_bias = {{5, inf}, {6, -inf}};
        break;
      case 8:
        r.params.frequency_penalty = inf;
        break;
    }
    requests.push_back(r);
  }
  int accepted = 0;
  for (const EngineRequest& r : requests) {
    auto channel = engine->Submit(r);
    if (!channel.ok()) {
      EXPECT_EQ(channel.status().code(), absl::StatusCode::kInvalidArgument) << r.id;
      continue;
    }
    ++accepted;
    Completions out;
    for (int step = 0; step < 20 && !DrainChannel(**channel, out); ++step) engine->Step();
    EXPECT_TRUE((*channel)->Done()) << r.id;
    for (const Completion& c : out) {
      for (int32_t t : c.tokens) EXPECT_TRUE(t >= 0 && t < 1024) << r.id;
    }
  }
  std::printf("[ non-finite ] %d of %zu accepted\n", accepted, requests.size());
}

TEST(EngineAdmissionTest, DuplicateLiveIdIsAlreadyExistsUntilItFinishes) {
  EngineConfig config;
  config.kv.num_blocks = 64;
  auto engine = MakeEngine(config);
  auto first = engine->Submit(Request("same", 4, 2));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(engine->Submit(Request("same", 4, 2)).status().code(),
            absl::StatusCode::kAlreadyExists);
  Completions out;
  for (int i = 0; i < 10 && !DrainChannel(**first, out); ++i) engine->Step();
  ASSERT_TRUE((*first)->Done());
  EXPECT_TRUE(engine->Submit(Request("same", 4, 2)).ok());
}

TEST(EngineAdmissionTest, KvPoolIsSizedFromMemoryWhenNumBlocksIsZero) {
  auto model = LoadTinyModel();
  const int64_t per_block = KvCacheManager::BytesPerBlock(model->spec(), 16, DType::kF32);
  EngineConfig config;
  config.kv_memory_bytes = per_block * 37 + per_block / 2;
  auto engine = Engine::Create(std::move(model), config);
  ASSERT_TRUE(engine.ok()) << engine.status();
  EXPECT_EQ((*engine)->Stats().total_blocks, 37);
  EXPECT_EQ((*engine)->Stats().free_blocks, 37);
}

TEST(EngineAdmissionTest, CreateRejectsBadConfig) {
  EngineConfig config;
  config.max_model_len = 100000;  // beyond max_position_embeddings
  EXPECT_EQ(Engine::Create(LoadTinyModel(), config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config = EngineConfig();
  config.kv_memory_bytes = 10;
  EXPECT_EQ(Engine::Create(LoadTinyModel(), config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config = EngineConfig();
  config.max_num_seqs = 0;
  EXPECT_EQ(Engine::Create(LoadTinyModel(), config).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(EngineAdmissionTest, SubmitAfterStopIsRejected) {
  EngineConfig config;
  config.kv.num_blocks = 64;
  auto engine = MakeEngine(config);
  engine->Stop();
  EXPECT_FALSE(engine->Submit(Request("a", 4)).ok());
}

}  // namespace
}  // namespace strata::testing
