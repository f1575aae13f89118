// Stress: many mixed requests with random aborts through the threaded engine; afterwards no
// block may leak and the KV manager's invariants must hold. A second, time-bounded run
// (STRATA_STRESS_SECONDS, default 10) checks invariants and budget limits at every step.
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "engine_test_util.h"
#include "gtest/gtest.h"

namespace strata::testing {
namespace {

struct Tally {
  std::atomic<int> finished{0};
  std::atomic<int> aborted{0};
  std::atomic<int> rejected{0};
  std::atomic<int> bad_outputs{0};
};

// Random small request; `rng` draws shape and sampling. Prompts share 4-token prefixes often,
// so the block-size-4 cache sees hits.
EngineRequest RandomRequest(std::mt19937_64& rng, const std::string& id) {
  EngineRequest r;
  r.id = id;
  const int len = 1 + static_cast<int>(rng() % 12);
  r.prompt = RandomTokens(len, 1024, rng() % 8);  // 8 prompt families: shared prefixes
  const int tail = static_cast<int>(rng() % 4);
  for (int i = 0; i < tail; ++i) r.prompt.push_back(3 + static_cast<int32_t>(rng() % 1000));
  r.params.max_tokens = 1 + static_cast<int>(rng() % 4);
  r.params.temperature = (rng() % 2) ? 0.0f : 0.8f;
  r.params.top_k = (rng() % 3 == 0) ? 5 : 0;
  r.params.n = (rng() % 10 == 0) ? 2 : 1;
  r.params.logprobs = (rng() % 4 == 0) ? 2 : -1;
  if (rng() % 2) r.params.seed = rng() % 1000;
  r.priority = static_cast<int>(rng() % 3);
  if (rng() % 5 == 0) r.cache_salt = "t1";
  return r;
}

// Reads a channel to the end, checking the shape of every message.
void Consume(std::shared_ptr<OutputChannel> channel, int n, Tally& tally) {
  std::vector<int> finishes(n, 0);
  while (true) {
    auto out = channel->Next(absl::Seconds(60));
    if (!out.has_value()) break;
    if (out->index < 0 || out->index >= n) {
      ++tally.bad_outputs;
      continue;
    }
    if (out->finish != FinishReason::kNone) {
      ++finishes[out->index];
      if (out->finish == FinishReason::kAbort) {
        ++tally.aborted;
      } else {
        ++tally.finished;
      }
    }
  }
  for (int f : finishes) {
    if (f != 1) ++tally.bad_outputs;
  }
  if (!channel->Done()) ++tally.bad_outputs;
}

EngineConfig StressConfig() {
  EngineConfig config;
  config.max_num_seqs = 64;
  config.max_num_batched_tokens = 96;
  config.max_waiting_requests = 256;
  config.kv.block_size = 4;
  config.kv.num_blocks = 40;  // tight: preemptions happen
  config.check_invariants = true;
  return config;
}

void ExpectCleanEnd(Engine& engine) {
  // The engine publishes stats after the outputs of a step; wait until it settles.
  EngineStats stats;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  do {
    stats = engine.Stats();
    if (stats.running == 0 && stats.waiting == 0 && stats.free_blocks == stats.total_blocks) break;
    absl::SleepFor(absl::Milliseconds(2));
  } while (absl::Now() < deadline);
  EXPECT_EQ(stats.running, 0);
  EXPECT_EQ(stats.waiting, 0);
  EXPECT_EQ(stats.free_blocks, stats.total_blocks) << "KV blocks leaked";
  EXPECT_EQ(stats.invariant_error, "");
}

// Polls many channels from one thread without blocking on any, so submitters never wait for
// consumers and the engine sees a deep queue (overload, preemption).
class ChannelPoller {
 public:
  explicit ChannelPoller(Tally& tally) : tally_(tally), thread_([this] { Run(); }) {}
  ~ChannelPoller() { Finish(); }
  void Add(std::shared_ptr<OutputChannel> channel, int n) {
    std::lock_guard<std::mutex> lock(mu_);
    incoming_.push_back({std::move(channel), std::vector<int>(n, 0)});
  }
  // Waits until every added channel is done.
  void Finish() {
    closing_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Tracked {
    std::shared_ptr<OutputChannel> channel;
    std::vector<int> finishes;
  };
  void Run() {
    std::vector<Tracked> live;
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& t : incoming_) live.push_back(std::move(t));
        incoming_.clear();
        if (closing_ && live.empty()) return;
      }
      std::vector<Tracked> still;
      for (Tracked& t : live) {
        while (auto out = t.channel->Next(absl::ZeroDuration())) {
          if (out->index < 0 || out->index >= static_cast<int>(t.finishes.size())) {
            ++tally_.bad_outputs;
            continue;
          }
          if (out->finish == FinishReason::kNone) continue;
          ++t.finishes[out->index];
          if (out->finish == FinishReason::kAbort) {
            ++tally_.aborted;
          } else {
            ++tally_.finished;
          }
        }
        if (!t.channel->Done()) {
          still.push_back(std::move(t));
          continue;
        }
        for (int f : t.finishes) {
          if (f != 1) ++tally_.bad_outputs;
        }
      }
      live.swap(still);
      absl::SleepFor(absl::Microseconds(200));
    }
  }
  Tally& tally_;
  std::mutex mu_;
  std::vector<Tracked> incoming_;
  std::atomic<bool> closing_{false};
  std::thread thread_;
};

TEST(EngineStressTest, TenThousandRequestsWithRandomAborts) {
  EngineConfig config = StressConfig();
  config.max_waiting_requests = 64;
  auto engine = MakeEngine(config);
  engine->Start();
  constexpr int kRequests = 10000;
  constexpr int kSubmitters = 2;
  Tally tally;
  ChannelPoller poller(tally);
  std::atomic<int> next{0};
  std::atomic<int> overloaded{0};
  auto submitter = [&](int t) {
    std::mt19937_64 rng(1000 + t);
    while (true) {
      const int i = next++;
      if (i >= kRequests) return;
      EngineRequest r = RandomRequest(rng, absl::StrCat("s", i));
      const int n = r.params.n;
      absl::StatusOr<std::shared_ptr<OutputChannel>> channel;
      while (true) {
        channel = engine->Submit(r);
        if (channel.ok() || channel.status().code() != absl::StatusCode::kResourceExhausted) break;
        ++overloaded;
        absl::SleepFor(absl::Microseconds(200));
      }
      if (!channel.ok()) {
        ++tally.rejected;
        continue;
      }
      if (rng() % 7 == 0) engine->Abort(r.id);
      poller.Add(*channel, n);
    }
  };
  std::atomic<bool> done{false};
  std::thread aborter([&] {
    std::mt19937_64 rng(7);
    while (!done) {
      const int hi = std::max(1, next.load());
      engine->Abort(absl::StrCat("s", rng() % hi));
      absl::SleepFor(absl::Microseconds(300));
    }
  });
  std::vector<std::thread> submitters;
  for (int t = 0; t < kSubmitters; ++t) submitters.emplace_back(submitter, t);
  for (auto& t : submitters) t.join();
  poller.Finish();
  done = true;
  aborter.join();
  EXPECT_EQ(tally.rejected.load(), 0);
  EXPECT_EQ(tally.bad_outputs.load(), 0);
  EXPECT_GT(tally.aborted.load(), 0);
  EXPECT_GT(tally.finished.load(), kRequests / 2);
  EXPECT_GT(overloaded.load(), 0);
  ExpectCleanEnd(*engine);
  const EngineStats stats = engine->Stats();
  std::printf(
      "[ stress ] finished=%d aborted=%d overloaded_retries=%d steps=%lld "
      "preemptions=%lld prefix hits=%lld/%lld\n",
      tally.finished.load(), tally.aborted.load(), overloaded.load(),
      static_cast<long long>(stats.steps), static_cast<long long>(stats.preemptions),
      static_cast<long long>(stats.prefix_cache.hits),
      static_cast<long long>(stats.prefix_cache.queries));
  engine->Stop();
}

TEST(EngineStressTest, TimedRandomArrivalsKeepInvariantsEveryStep) {
  double seconds = 10;
  if (const char* env = std::getenv("STRATA_STRESS_SECONDS")) seconds = std::atof(env);
  EngineConfig config = StressConfig();
  config.max_num_seqs = 16;
  config.max_num_batched_tokens = 32;
  config.enable_chunked_prefill = true;
  auto engine = MakeEngine(config);
  engine->Start();
  Tally tally;
  std::vector<std::thread> consumers;
  std::mt19937_64 rng(99);
  const absl::Time end = absl::Now() + absl::Seconds(seconds);
  int submitted = 0;
  int invalid = 0;
  while (absl::Now() < end) {
    EngineRequest r = RandomRequest(rng, absl::StrCat("t", submitted));
    // Now and then something a client should not send: it must be refused, not hang the loop.
    switch (rng() % 40) {
      case 0:
        r.prompt.push_back(1 << 20);
        break;
      case 1:
        r.params.max_tokens = 1 << 30;
        break;
      case 2:
        r.params.top_p = 2;
        break;
      case 3:
        r.prompt.assign(120, 5);  // needs 31 of 40 blocks: fits, and forces preemptions
        break;
      default:
        break;
    }
    const int n = r.params.n;
    auto channel = engine->Submit(r);
    ++submitted;
    if (!channel.ok()) {
      if (channel.status().code() == absl::StatusCode::kInvalidArgument) ++invalid;
      continue;
    }
    if (rng() % 5 == 0) {
      std::thread([&engine, id = r.id, delay = rng() % 3000] {
        absl::SleepFor(absl::Microseconds(delay));
        engine->Abort(id);
      }).join();
    }
    consumers.emplace_back(Consume, *channel, n, std::ref(tally));
    if (consumers.size() > 64) {
      for (auto& c : consumers) c.join();
      consumers.clear();
    }
    absl::SleepFor(absl::Microseconds(rng() % 2000));
  }
  for (auto& c : consumers) c.join();
  EXPECT_GT(invalid, 0);
  EXPECT_EQ(tally.bad_outputs.load(), 0);
  ExpectCleanEnd(*engine);
  const EngineStats stats = engine->Stats();
  std::printf(
      "[ timed stress %.0fs ] submitted=%d invalid=%d finished=%d aborted=%d "
      "steps=%lld preemptions=%lld prefix hits=%lld/%lld\n",
      seconds, submitted, invalid, tally.finished.load(), tally.aborted.load(),
      static_cast<long long>(stats.steps), static_cast<long long>(stats.preemptions),
      static_cast<long long>(stats.prefix_cache.hits),
      static_cast<long long>(stats.prefix_cache.queries));
  engine->Stop();
}

}  // namespace
}  // namespace strata::testing
