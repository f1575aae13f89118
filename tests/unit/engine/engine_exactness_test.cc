// Exactness: requests run concurrently through the engine — whatever the token budget, KV pool
// size (preemption), chunking or prefix-cache state — produce bitwise the same tokens and
// logprobs as the same requests run one at a time. Model::Forward is batch-invariant and the
// samplers' random streams are counter-based, so any difference is an engine bug.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine_test_util.h"
#include "gtest/gtest.h"

namespace strata::testing {
namespace {

constexpr int kVocab = 1024;  // the tiny model's

SamplingParams MixedParams(int i) {
  SamplingParams p;
  p.max_tokens = 1 + (i * 5) % 13;
  p.seed = 1000 + i;
  switch (i % 8) {
    case 0:
      p.temperature = 0;
      break;
    case 1:
      p.temperature = 0.8f;
      p.logprobs = 2;
      break;
    case 2:
      p.temperature = 1.0f;
      p.top_p = 0.9f;
      break;
    case 3:
      p.temperature = 0.7f;
      p.top_k = 20;
      p.logprobs = 0;
      break;
    case 4:
      p.temperature = 0;
      p.repetition_penalty = 1.3f;
      p.presence_penalty = 0.5f;
      p.frequency_penalty = 0.4f;
      p.logprobs = 5;
      break;
    case 5:
      p.temperature = 1.2f;
      p.min_p = 0.05f;
      p.n = 2;
      break;
    case 6:
      p.temperature = 0.9f;
      p.min_tokens = std::min(3, p.max_tokens);
      p.ignore_eos = true;
      p.logprobs = 1;
      break;
    case 7:
      p.temperature = 0.5f;
      p.logit_bias = {{7, 22.0f}, {11, -5.0f}, {2, 2.0f}};
      p.stop_token_ids = {7};
      break;
  }
  return p;
}

// 64 requests: prompts of 1..~120 tokens, every 16th long (300, 700, 1200, 2000); a third share
// a 48-token system prefix; arrivals staggered over 30 steps.
std::vector<TimedRequest> MixedRequests() {
  const std::vector<int32_t> system = RandomTokens(48, kVocab, 4242);
  const int kLong[] = {300, 700, 1200, 2000};
  std::vector<TimedRequest> requests;
  for (int i = 0; i < 64; ++i) {
    const int length = i % 16 == 15 ? kLong[i / 16] : 1 + (i * 37) % 120;
    TimedRequest r;
    r.request.id = absl::StrCat("r", i);
    if (i % 3 == 0 && length > 60) {
      r.request.prompt = system;
      const auto rest = RandomTokens(length - 48, kVocab, i);
      r.request.prompt.insert(r.request.prompt.end(), rest.begin(), rest.end());
    } else {
      r.request.prompt = RandomTokens(length, kVocab, i);
    }
    r.request.params = MixedParams(i);
    r.request.priority = i % 5 == 0 ? -1 : 0;
    r.arrival_step = (i * 7) % 30;
    requests.push_back(std::move(r));
  }
  return requests;
}

EngineConfig BaseConfig() {
  EngineConfig config;
  config.max_num_seqs = 64;
  config.max_num_batched_tokens = 512;
  config.kv.num_blocks = 4096;
  config.check_invariants = true;
  return config;
}

class EngineExactnessTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    requests_ = new std::vector<TimedRequest>(MixedRequests());
    reference_ = new std::map<std::string, Completions>(RunOneAtATime(BaseConfig(), *requests_));
  }
  static void TearDownTestSuite() {
    delete requests_;
    delete reference_;
  }
  void RunAndCompare(const EngineConfig& config, const std::string& what,
                     EngineStats* stats_out = nullptr) {
    auto engine = MakeEngine(config);
    const auto results = RunStepped(*engine, *requests_);
    ExpectSameCompletions(*reference_, results, what);
    const EngineStats stats = engine->Stats();
    EXPECT_EQ(stats.invariant_error, "") << what;
    EXPECT_EQ(stats.running, 0);
    EXPECT_EQ(stats.waiting, 0);
    EXPECT_EQ(stats.free_blocks, stats.total_blocks) << what << ": blocks leaked";
    if (stats_out != nullptr) *stats_out = stats;
  }

  static std::vector<TimedRequest>* requests_;
  static std::map<std::string, Completions>* reference_;
};
std::vector<TimedRequest>* EngineExactnessTest::requests_ = nullptr;
std::map<std::string, Completions>* EngineExactnessTest::reference_ = nullptr;

TEST_F(EngineExactnessTest, ReferenceIsNontrivial) {
  int tokens = 0;
  int stops = 0;
  for (const auto& [id, completions] : *reference_) {
    for (const Completion& c : completions) {
      tokens += static_cast<int>(c.tokens.size());
      if (c.finish == FinishReason::kStop) ++stops;
    }
  }
  EXPECT_GT(tokens, 300);
  EXPECT_GT(stops, 0) << [&] {
    std::string s;
    for (const auto& [id, completions] : *reference_) {
      absl::StrAppend(&s, id, ":", static_cast<int>(completions[0].finish), ":",
                      completions[0].tokens.size(), " ");
      for (int32_t t : completions[0].tokens) absl::StrAppend(&s, t, ",");
      s += "\n";
    }
    return s;
  }();  // stop ids are hit by the biased requests
}

TEST_F(EngineExactnessTest, BudgetOf16Tokens) {
  EngineConfig config = BaseConfig();
  config.max_num_batched_tokens = 16;
  RunAndCompare(config, "budget 16");
}

TEST_F(EngineExactnessTest, BudgetOf64Tokens) {
  EngineConfig config = BaseConfig();
  config.max_num_batched_tokens = 64;
  RunAndCompare(config, "budget 64");
}

TEST_F(EngineExactnessTest, BudgetOf512Tokens) {
  EngineConfig config = BaseConfig();
  config.max_num_batched_tokens = 512;
  RunAndCompare(config, "budget 512");
}

TEST_F(EngineExactnessTest, WithoutChunkedPrefill) {
  EngineConfig config = BaseConfig();
  config.enable_chunked_prefill = false;
  config.max_num_batched_tokens = 2048;
  RunAndCompare(config, "no chunked prefill");
}

TEST_F(EngineExactnessTest, SmallPoolPreempts) {
  EngineConfig config = BaseConfig();
  config.kv.num_blocks = 130;  // the 2000-token request alone needs 126
  EngineStats stats;
  RunAndCompare(config, "small pool", &stats);
  EXPECT_GT(stats.preemptions, 0);
  std::printf("[ small pool ] preemptions=%lld steps=%lld\n",
              static_cast<long long>(stats.preemptions), static_cast<long long>(stats.steps));
}

TEST_F(EngineExactnessTest, WarmPrefixCache) {
  EngineConfig config = BaseConfig();
  config.max_num_batched_tokens = 64;
  auto engine = MakeEngine(config);
  const auto cold = RunStepped(*engine, *requests_);
  ExpectSameCompletions(*reference_, cold, "cold cache");
  const int64_t cold_hits = engine->Stats().prefix_cache.hits;
  const auto warm = RunStepped(*engine, *requests_);
  ExpectSameCompletions(*reference_, warm, "warm cache");
  const EngineStats stats = engine->Stats();
  EXPECT_GT(cold_hits, 0);  // the shared system prefix
  EXPECT_GT(stats.prefix_cache.hits, cold_hits);
  EXPECT_EQ(stats.invariant_error, "");
  EXPECT_EQ(stats.free_blocks, stats.total_blocks);
  int cached = 0;
  for (const auto& [id, completions] : warm) {
    for (const Completion& c : completions) cached += c.usage.cached_tokens;
  }
  EXPECT_GT(cached, 0);
  std::printf("[ warm cache ] hits cold=%lld total=%lld of %lld queried; cached_tokens=%d\n",
              static_cast<long long>(cold_hits), static_cast<long long>(stats.prefix_cache.hits),
              static_cast<long long>(stats.prefix_cache.queries), cached);
}

TEST_F(EngineExactnessTest, SmallPoolWithTinyBudgetAndFewSeqs) {
  EngineConfig config = BaseConfig();
  config.kv.num_blocks = 128;
  config.max_num_batched_tokens = 64;
  config.max_num_seqs = 8;
  EngineStats stats;
  RunAndCompare(config, "small pool, budget 64, 8 seqs", &stats);
  std::printf("[ small pool 64/8 ] preemptions=%lld steps=%lld\n",
              static_cast<long long>(stats.preemptions), static_cast<long long>(stats.steps));
}

// Medium prompts with long outputs in a pool that holds about three of them: sequences are
// preempted again and again, and each must still finish with exactly its tokens.
TEST(EnginePreemptionExactnessTest, HeavyPreemption) {
  std::vector<TimedRequest> requests;
  for (int i = 0; i < 24; ++i) {
    TimedRequest r;
    r.request.id = absl::StrCat("p", i);
    r.request.prompt = RandomTokens(100 + (i * 53) % 200, kVocab, 500 + i);
    r.request.params = MixedParams(i);
    r.request.params.max_tokens = 12 + i % 20;
    r.request.params.n = 1;
    r.arrival_step = i % 6;
    requests.push_back(std::move(r));
  }
  EngineConfig config = BaseConfig();
  config.max_num_batched_tokens = 128;
  const auto reference = RunOneAtATime(config, requests);
  config.kv.num_blocks = 48;  // 768 tokens; one request needs at most 20 blocks
  auto engine = MakeEngine(config);
  const auto results = RunStepped(*engine, requests);
  ExpectSameCompletions(reference, results, "heavy preemption");
  const EngineStats stats = engine->Stats();
  EXPECT_GT(stats.preemptions, 3);
  EXPECT_EQ(stats.invariant_error, "");
  EXPECT_EQ(stats.free_blocks, stats.total_blocks);
  std::printf("[ heavy preemption ] preemptions=%lld steps=%lld prefix hits=%lld/%lld\n",
              static_cast<long long>(stats.preemptions), static_cast<long long>(stats.steps),
              static_cast<long long>(stats.prefix_cache.hits),
              static_cast<long long>(stats.prefix_cache.queries));
}

// A sliding-window model (Mistral, window 32): blocks that leave the window are released while
// a sequence runs; chunking, preemption and prefix hits must not change its tokens.
TEST(EngineSlidingWindowExactnessTest, MatchesOneAtATime) {
  std::vector<TimedRequest> requests;
  for (int i = 0; i < 16; ++i) {
    TimedRequest r;
    r.request.id = absl::StrCat("w", i);
    r.request.prompt = RandomTokens(20 + (i * 41) % 180, kVocab, 900 + i % 6);
    r.request.params = MixedParams(i);
    r.request.params.max_tokens = 10 + i % 12;
    r.arrival_step = i % 5;
    requests.push_back(std::move(r));
  }
  EngineConfig config = BaseConfig();
  config.max_num_batched_tokens = 48;
  const auto reference = RunOneAtATime(config, requests, Architecture::kMistral);
  config.kv.num_blocks = 40;
  auto engine = MakeEngine(config, Architecture::kMistral);
  ExpectSameCompletions(reference, RunStepped(*engine, requests), "sliding window, cold");
  ExpectSameCompletions(reference, RunStepped(*engine, requests), "sliding window, warm");
  const EngineStats stats = engine->Stats();
  EXPECT_EQ(stats.invariant_error, "");
  EXPECT_EQ(stats.free_blocks, stats.total_blocks);
  std::printf("[ sliding window ] preemptions=%lld prefix hits=%lld/%lld\n",
              static_cast<long long>(stats.preemptions),
              static_cast<long long>(stats.prefix_cache.hits),
              static_cast<long long>(stats.prefix_cache.queries));
}

}  // namespace
}  // namespace strata::testing
