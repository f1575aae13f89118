#include "engine_test_util.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace strata::testing {
namespace {

void DieUnlessOk(const absl::Status& status, const char* what) {
  if (!status.ok()) {
    ADD_FAILURE() << what << ": " << status;
    std::abort();
  }
}

std::string TinyModelDir(Architecture arch) {
  static std::mutex mu;
  static std::map<Architecture, std::string> made;
  std::lock_guard<std::mutex> lock(mu);
  MakeModelOptions options;
  options.arch = arch;
  options.preset = ModelPreset::kTiny;
  options.seed = 7;
  options.show_progress = false;
  options.out_dir = (std::filesystem::temp_directory_path() /
                     absl::StrCat("strata-engine-test-", getpid(), "-", ArchitectureName(arch)))
                        .string();
  DieUnlessOk(MakeRandomModel(options), "MakeRandomModel");
  static const bool cleanup = [] {
    std::atexit([] {
      for (const auto& [a, dir] : made) {
        std::error_code ec;
        std::filesystem::remove_all(std::filesystem::path(dir), ec);
      }
    });
    return true;
  }();
  (void)cleanup;
  const std::string hf = RandomModelHfDir(options);
  made[arch] = options.out_dir;
  return hf;
}

bool SameFloat(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

}  // namespace

std::unique_ptr<Model> LoadTinyModel(Architecture arch, int threads) {
  static std::mutex mu;
  static std::map<Architecture, std::string> hf_dirs;
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = hf_dirs.find(arch);
    if (it == hf_dirs.end()) it = hf_dirs.emplace(arch, TinyModelDir(arch)).first;
    dir = it->second;
  }
  ModelOptions options;
  options.threads = threads;
  auto model = Model::Load(dir, options);
  DieUnlessOk(model.status(), "Model::Load");
  return std::move(*model);
}

std::unique_ptr<Engine> MakeEngine(const EngineConfig& config, Architecture arch) {
  auto engine = Engine::Create(LoadTinyModel(arch), config);
  DieUnlessOk(engine.status(), "Engine::Create");
  return std::move(*engine);
}

std::vector<int32_t> RandomTokens(int length, int vocab, uint64_t seed) {
  std::vector<int32_t> ids;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
  for (int i = 0; i < length; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ids.push_back(3 + static_cast<int32_t>(x % static_cast<uint64_t>(vocab - 3)));
  }
  return ids;
}

bool DrainChannel(OutputChannel& channel, Completions& out) {
  while (auto msg = channel.Next(absl::ZeroDuration())) {
    if (msg->index >= static_cast<int>(out.size())) out.resize(msg->index + 1);
    Completion& c = out[msg->index];
    ++c.messages;
    c.tokens.insert(c.tokens.end(), msg->token_ids.begin(), msg->token_ids.end());
    c.logprobs.insert(c.logprobs.end(), msg->logprobs.begin(), msg->logprobs.end());
    if (msg->finish != FinishReason::kNone) {
      c.finish = msg->finish;
      c.stop_token = msg->stop_token;
      c.usage = msg->usage;
    }
  }
  return channel.Done();
}

std::map<std::string, Completions> RunStepped(Engine& engine,
                                              const std::vector<TimedRequest>& requests,
                                              int max_steps,
                                              const std::function<void(int)>& on_step) {
  std::map<std::string, Completions> results;
  std::map<std::string, std::shared_ptr<OutputChannel>> channels;
  size_t submitted = 0;
  std::vector<const TimedRequest*> order;
  for (const TimedRequest& r : requests) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const TimedRequest* a, const TimedRequest* b) {
    return a->arrival_step < b->arrival_step;
  });
  for (int step = 0; step < max_steps; ++step) {
    while (submitted < order.size() && order[submitted]->arrival_step <= step) {
      auto channel = engine.Submit(order[submitted]->request);
      EXPECT_TRUE(channel.ok()) << order[submitted]->request.id << ": " << channel.status();
      if (channel.ok()) channels[order[submitted]->request.id] = *channel;
      ++submitted;
    }
    engine.Step();
    if (on_step) on_step(step);
    bool all_done = submitted == order.size();
    for (auto& [id, channel] : channels) {
      if (!DrainChannel(*channel, results[id])) all_done = false;
    }
    if (all_done) return results;
  }
  ADD_FAILURE() << "requests did not finish within " << max_steps << " steps";
  return results;
}

std::map<std::string, Completions> RunOneAtATime(const EngineConfig& config,
                                                 const std::vector<TimedRequest>& requests,
                                                 Architecture arch) {
  EngineConfig reference = config;
  reference.kv.enable_prefix_caching = false;
  auto engine = MakeEngine(reference, arch);
  std::map<std::string, Completions> results;
  for (const TimedRequest& r : requests) {
    TimedRequest alone = r;
    alone.arrival_step = 0;
    auto one = RunStepped(*engine, {alone});
    results[r.request.id] = one[r.request.id];
  }
  return results;
}

void ExpectSameCompletions(const std::map<std::string, Completions>& expected,
                           const std::map<std::string, Completions>& actual,
                           const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (const auto& [id, want] : expected) {
    auto it = actual.find(id);
    ASSERT_NE(it, actual.end()) << what << ": missing " << id;
    const Completions& got = it->second;
    ASSERT_EQ(want.size(), got.size()) << what << ": " << id;
    for (size_t i = 0; i < want.size(); ++i) {
      const std::string where = absl::StrCat(what, ": request ", id, " completion ", i);
      EXPECT_EQ(want[i].tokens, got[i].tokens) << where;
      EXPECT_EQ(want[i].finish, got[i].finish) << where;
      EXPECT_EQ(want[i].stop_token, got[i].stop_token) << where;
      EXPECT_EQ(want[i].usage.prompt_tokens, got[i].usage.prompt_tokens) << where;
      EXPECT_EQ(want[i].usage.completion_tokens, got[i].usage.completion_tokens) << where;
      ASSERT_EQ(want[i].logprobs.size(), got[i].logprobs.size()) << where;
      for (size_t t = 0; t < want[i].logprobs.size(); ++t) {
        const TokenLogprob& a = want[i].logprobs[t];
        const TokenLogprob& b = got[i].logprobs[t];
        EXPECT_EQ(a.token, b.token) << where << " token " << t;
        EXPECT_TRUE(SameFloat(a.logprob, b.logprob))
            << where << " token " << t << ": " << a.logprob << " vs " << b.logprob;
        ASSERT_EQ(a.top.size(), b.top.size()) << where << " token " << t;
        for (size_t k = 0; k < a.top.size(); ++k) {
          EXPECT_EQ(a.top[k].first, b.top[k].first) << where << " token " << t << " top " << k;
          EXPECT_TRUE(SameFloat(a.top[k].second, b.top[k].second))
              << where << " token " << t << " top " << k;
        }
      }
    }
  }
}

}  // namespace strata::testing
