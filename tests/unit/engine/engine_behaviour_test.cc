// Request lifecycle: aborts, n > 1 siblings, finish reasons, usage, Stop.
#include <set>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "engine_test_util.h"
#include "gtest/gtest.h"

namespace strata::testing {
namespace {

constexpr int32_t kEos = 2;  // the tiny model's

EngineConfig SmallConfig() {
  EngineConfig config;
  config.kv.num_blocks = 256;
  config.check_invariants = true;
  return config;
}

EngineRequest Request(const std::string& id, int prompt_len, int max_tokens) {
  EngineRequest r;
  r.id = id;
  r.prompt = RandomTokens(prompt_len, 1024, 77 + prompt_len);
  r.params.max_tokens = max_tokens;
  r.params.temperature = 0;
  return r;
}

Completion RunOne(Engine& engine, const EngineRequest& request) {
  auto results = RunStepped(engine, {{request, 0}});
  EXPECT_EQ(results[request.id].size(), 1u);
  return results[request.id].empty() ? Completion() : results[request.id][0];
}

TEST(EngineAbortTest, AbortFromAnotherThreadFreesBlocks) {
  auto engine = MakeEngine(SmallConfig());
  engine->Start();
  EngineRequest r = Request("long", 20, 3000);
  r.params.ignore_eos = true;
  auto channel = engine->Submit(r);
  ASSERT_TRUE(channel.ok());
  auto first = (*channel)->Next(absl::Seconds(30));
  ASSERT_TRUE(first.has_value());
  std::thread aborter([&] { engine->Abort("long"); });
  aborter.join();
  Completions out;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (!DrainChannel(**channel, out) && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].finish, FinishReason::kAbort);
  EXPECT_LT(out[0].tokens.size(), 3000u);
  const EngineStats stats = engine->Stats();
  EXPECT_EQ(stats.free_blocks, stats.total_blocks);
  EXPECT_EQ(stats.running, 0);
  EXPECT_EQ(stats.invariant_error, "");
  engine->Abort("unknown-id");  // ignored
  engine->Stop();
}

TEST(EngineAbortTest, AbortBeforeFirstStepFinishesWithAbort) {
  auto engine = MakeEngine(SmallConfig());
  auto channel = engine->Submit(Request("a", 40, 5));
  ASSERT_TRUE(channel.ok());
  engine->Abort("a");
  engine->Step();
  Completions out;
  EXPECT_TRUE(DrainChannel(**channel, out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].finish, FinishReason::kAbort);
  EXPECT_TRUE(out[0].tokens.empty());
  EXPECT_EQ(engine->Stats().free_blocks, engine->Stats().total_blocks);
}

TEST(EngineAbortTest, StopAbortsWhatIsLeft) {
  auto engine = MakeEngine(SmallConfig());
  engine->Start();
  EngineRequest r = Request("long", 20, 3000);
  r.params.ignore_eos = true;
  auto channel = engine->Submit(r);
  ASSERT_TRUE(channel.ok());
  ASSERT_TRUE((*channel)->Next(absl::Seconds(30)).has_value());
  engine->Stop();
  Completions out;
  EXPECT_TRUE(DrainChannel(**channel, out));
  EXPECT_EQ(out.at(0).finish, FinishReason::kAbort);
  EXPECT_FALSE((*channel)->Next(absl::Seconds(1)).has_value());  // done: returns at once
}

TEST(EngineSiblingsTest, SiblingsAreDistinctSeededStreamsSharingThePrompt) {
  auto engine = MakeEngine(SmallConfig());
  EngineRequest r = Request("n3", 70, 8);  // 4 full blocks of 16
  r.params.n = 3;
  r.params.temperature = 1.0f;
  r.params.seed = 123;
  r.params.ignore_eos = true;
  auto results = RunStepped(*engine, {{r, 0}});
  const Completions& c = results["n3"];
  ASSERT_EQ(c.size(), 3u);
  std::set<std::vector<int32_t>> distinct;
  for (const Completion& one : c) {
    EXPECT_EQ(one.tokens.size(), 8u);
    EXPECT_EQ(one.finish, FinishReason::kLength);
    EXPECT_EQ(one.usage.prompt_tokens, 70);
    distinct.insert(one.tokens);
  }
  EXPECT_EQ(distinct.size(), 3u);
  EXPECT_EQ(c[0].usage.cached_tokens, 0);
  EXPECT_EQ(c[1].usage.cached_tokens, 64);  // sibling 0's prompt blocks
  EXPECT_EQ(c[2].usage.cached_tokens, 64);
  // Completion i is the n = 1 request with seed + i.
  for (int i = 0; i < 3; ++i) {
    auto fresh = MakeEngine(SmallConfig());
    EngineRequest one = r;
    one.id = "one";
    one.params.n = 1;
    one.params.seed = 123 + i;
    EXPECT_EQ(RunOne(*fresh, one).tokens, c[i].tokens) << "completion " << i;
  }
  EXPECT_EQ(engine->Stats().free_blocks, engine->Stats().total_blocks);
}

TEST(EngineFinishTest, EosStopsWithStopToken) {
  auto engine = MakeEngine(SmallConfig());
  EngineRequest r = Request("a", 5, 10);
  r.params.logit_bias = {{kEos, 100.0f}};
  const Completion c = RunOne(*engine, r);
  EXPECT_EQ(c.finish, FinishReason::kStop);
  EXPECT_EQ(c.stop_token, kEos);
  EXPECT_TRUE(c.tokens.empty());
  EXPECT_EQ(c.usage.completion_tokens, 1);
}

TEST(EngineFinishTest, MinTokensDelaysEos) {
  auto engine = MakeEngine(SmallConfig());
  EngineRequest r = Request("a", 5, 10);
  r.params.logit_bias = {{kEos, 100.0f}};
  r.params.min_tokens = 3;
  const Completion c = RunOne(*engine, r);
  EXPECT_EQ(c.finish, FinishReason::kStop);
  EXPECT_EQ(c.stop_token, kEos);
  EXPECT_EQ(c.tokens.size(), 3u);
  EXPECT_EQ(c.usage.completion_tokens, 4);
}

TEST(EngineFinishTest, IgnoreEosRunsToMaxTokens) {
  auto engine = MakeEngine(SmallConfig());
  EngineRequest r = Request("a", 5, 6);
  r.params.logit_bias = {{kEos, 100.0f}};
  r.params.ignore_eos = true;
  const Completion c = RunOne(*engine, r);
  EXPECT_EQ(c.finish, FinishReason::kLength);
  EXPECT_EQ(c.tokens, std::vector<int32_t>(6, kEos));
  EXPECT_FALSE(c.stop_token.has_value());
}

TEST(EngineFinishTest, StopTokenIdStops) {
  auto engine = MakeEngine(SmallConfig());
  EngineRequest r = Request("a", 5, 10);
  r.params.logit_bias = {{99, 100.0f}};
  r.params.stop_token_ids = {99};
  const Completion c = RunOne(*engine, r);
  EXPECT_EQ(c.finish, FinishReason::kStop);
  EXPECT_EQ(c.stop_token, 99);
  EXPECT_TRUE(c.tokens.empty());
}

TEST(EngineFinishTest, MaxTokensIsLength) {
  auto engine = MakeEngine(SmallConfig());
  EngineRequest r = Request("a", 5, 7);
  r.params.ignore_eos = true;
  const Completion c = RunOne(*engine, r);
  EXPECT_EQ(c.finish, FinishReason::kLength);
  EXPECT_EQ(c.tokens.size(), 7u);
  EXPECT_EQ(c.usage.completion_tokens, 7);
  EXPECT_EQ(c.usage.prompt_tokens, 5);
}

TEST(EngineFinishTest, LogprobsAreParallelToTokens) {
  auto engine = MakeEngine(SmallConfig());
  EngineRequest r = Request("a", 9, 5);
  r.params.ignore_eos = true;
  r.params.logprobs = 3;
  const Completion c = RunOne(*engine, r);
  ASSERT_EQ(c.logprobs.size(), c.tokens.size());
  for (size_t i = 0; i < c.tokens.size(); ++i) {
    EXPECT_EQ(c.logprobs[i].token, c.tokens[i]);
    EXPECT_LE(c.logprobs[i].logprob, 0.0f);
    EXPECT_EQ(c.logprobs[i].top.size(), 3u);
    EXPECT_EQ(c.logprobs[i].top[0].first, c.tokens[i]);  // greedy: the best is the choice
  }
}

TEST(EngineUsageTest, CachedTokensCountPrefixHits) {
  auto engine = MakeEngine(SmallConfig());
  EngineRequest r = Request("a", 40, 2);
  r.params.ignore_eos = true;
  const Completion first = RunOne(*engine, r);
  EXPECT_EQ(first.usage.cached_tokens, 0);
  r.id = "b";
  const Completion second = RunOne(*engine, r);
  EXPECT_EQ(second.usage.cached_tokens, 32);  // 2 full blocks of 16
  EXPECT_EQ(second.usage.prompt_tokens, 40);
  EXPECT_EQ(second.tokens, first.tokens);
  r.id = "c";
  r.cache_salt = "tenant-2";  // another tenant does not see the first one's blocks
  EXPECT_EQ(RunOne(*engine, r).usage.cached_tokens, 0);
  const EngineStats stats = engine->Stats();
  EXPECT_GE(stats.prefix_cache.hits, 32);
  EXPECT_EQ(stats.prompt_tokens, 40 + 8 + 40);
}

}  // namespace
}  // namespace strata::testing
