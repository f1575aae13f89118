// Scheduler policy, table-driven: each case lists arrivals and the expected batch of every
// step (which sequences, how many tokens each, who was preempted). The harness plays the model:
// a sequence whose known tokens are all computed "samples" one token, and finishes after
// max_output tokens. No forward pass runs; the KV cache manager is real.
#include "engine/scheduler.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/request.h"
#include "gtest/gtest.h"
#include "strata/kv_cache_manager.h"

namespace strata {
namespace {

struct Arrival {
  std::string name = {};
  int prompt_len = 4;
  int max_output = 1;
  int step = 0;
  int priority = 0;
  uint64_t prompt_seed = 0;  // equal seeds give equal prefixes; 0 = derived from the name
};

struct ExpectedStep {
  std::vector<std::pair<std::string, int>> batch = {};  // (sequence, tokens) in batch order
  std::vector<std::string> preempted = {};
};

struct Case {
  std::string name = {};
  SchedulerConfig config = {};
  int num_blocks = 64;
  int block_size = 4;
  std::vector<Arrival> arrivals = {};
  std::vector<ExpectedStep> steps = {};    // checked step by step
  std::map<std::string, int> cached = {};  // expected num_cached_tokens at the end
  int64_t preemptions = 0;
};

std::vector<int32_t> Tokens(uint64_t seed, int length) {
  std::vector<int32_t> ids;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 99;
  for (int i = 0; i < length; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ids.push_back(static_cast<int32_t>(3 + x % 1000));
  }
  return ids;
}

ModelSpec TinySpec() {
  ModelSpec spec;
  spec.arch = Architecture::kLlama;
  spec.vocab_size = 1024;
  spec.hidden_size = 8;
  spec.intermediate_size = 16;
  spec.num_layers = 1;
  spec.num_heads = 1;
  spec.num_kv_heads = 1;
  spec.head_dim = 8;
  spec.max_position_embeddings = 4096;
  return spec;
}

std::string Format(const std::vector<std::pair<std::string, int>>& batch) {
  return absl::StrJoin(batch, " ", [](std::string* out, const std::pair<std::string, int>& p) {
    absl::StrAppend(out, p.first, ":", p.second);
  });
}

class SchedulerTableTest : public ::testing::TestWithParam<Case> {};

TEST_P(SchedulerTableTest, BatchesMatchTable) {
  const Case& c = GetParam();
  KvCacheManagerConfig kv_config;
  kv_config.block_size = c.block_size;
  kv_config.num_blocks = c.num_blocks;
  auto kv = KvCacheManager::Create(TinySpec(), kv_config);
  ASSERT_TRUE(kv.ok()) << kv.status();
  Scheduler scheduler(c.config, kv->get());

  std::map<std::string, std::unique_ptr<Request>> requests;
  std::map<const Sequence*, std::string> names;
  int max_output_of_all = 0;
  for (const Arrival& a : c.arrivals) max_output_of_all += a.max_output + a.prompt_len;
  const int limit = static_cast<int>(c.steps.size()) + 4 * max_output_of_all + 16;
  uint64_t arrival = 0;
  int live = 0;
  std::map<std::string, int> max_output;
  for (int step = 0; step < limit; ++step) {
    for (const Arrival& a : c.arrivals) {
      if (a.step != step) continue;
      EngineRequest er;
      er.id = a.name;
      er.prompt = Tokens(a.prompt_seed != 0 ? a.prompt_seed : std::hash<std::string>()(a.name),
                         a.prompt_len);
      er.priority = a.priority;
      const uint64_t order = arrival++;
      auto r = MakeRequest(std::move(er), order, /*drawn_seed=*/0, /*first_kv_id=*/order + 1, {2},
                           /*with_samplers=*/false, nullptr);
      names[r->sequences[0].get()] = a.name;
      max_output[a.name] = a.max_output;
      scheduler.AddWaiting(r->sequences[0].get());
      requests[a.name] = std::move(r);
      ++live;
    }
    SchedulerOutput out = scheduler.Schedule();
    std::vector<std::pair<std::string, int>> batch;
    std::vector<std::string> preempted;
    for (const auto& s : out.scheduled) batch.emplace_back(names[s.seq], s.num_new_tokens);
    for (const Sequence* s : out.preempted) preempted.push_back(names[s]);
    if (step < static_cast<int>(c.steps.size())) {
      EXPECT_EQ(Format(c.steps[step].batch), Format(batch)) << "step " << step;
      EXPECT_EQ(c.steps[step].preempted, preempted) << "step " << step;
    }
    int sum = 0;
    for (const auto& s : out.scheduled) sum += s.num_new_tokens;
    EXPECT_EQ(sum, out.num_tokens);
    EXPECT_LE(out.num_tokens, c.config.max_num_batched_tokens);
    EXPECT_LE(scheduler.num_running(), c.config.max_num_seqs);
    // Play the model.
    for (const auto& s : out.scheduled) {
      Sequence* seq = s.seq;
      seq->num_computed_tokens += s.num_new_tokens;
      (*kv)->CacheFullBlocks(seq->kv_id, seq->tokens, seq->num_computed_tokens, "");
      if (seq->num_computed_tokens < seq->num_tokens()) continue;
      seq->tokens.push_back(500 + seq->num_output_tokens());
      if (seq->num_output_tokens() >= max_output[names[seq]]) {
        scheduler.Remove(seq);
        seq->status = SequenceStatus::kFinished;
        --live;
      }
    }
    ASSERT_TRUE((*kv)->CheckInvariants().ok()) << (*kv)->CheckInvariants();
    if (live == 0 && step + 1 >= static_cast<int>(c.steps.size())) break;
  }
  EXPECT_EQ(live, 0) << "sequences left unfinished";
  EXPECT_EQ(c.preemptions, scheduler.num_preemptions());
  for (const auto& [name, cached] : c.cached) {
    EXPECT_EQ(cached, requests[name]->sequences[0]->num_cached_tokens) << name;
  }
  EXPECT_EQ((*kv)->num_free_blocks(), c.num_blocks);
}

SchedulerConfig Config(int max_num_seqs, int budget, bool chunked = true) {
  SchedulerConfig config;
  config.max_num_seqs = max_num_seqs;
  config.max_num_batched_tokens = budget;
  config.enable_chunked_prefill = chunked;
  return config;
}

const Case kCases[] = {
    {.name = "DecodesBeforePrefills",
     .config = Config(8, 10),
     .arrivals = {{.name = "A", .prompt_len = 6, .max_output = 3},
                  {.name = "B", .prompt_len = 12, .max_output = 2, .step = 1}},
     .steps = {{{{"A", 6}}}, {{{"A", 1}, {"B", 9}}}, {{{"A", 1}, {"B", 3}}}, {{{"B", 1}}}}},
    {.name = "ChunkedPrefillUnderBudget",
     .config = Config(8, 8),
     .arrivals = {{.name = "A", .prompt_len = 20, .max_output = 2},
                  {.name = "B", .prompt_len = 5, .max_output = 2}},
     .steps = {{{{"A", 8}}},
               {{{"A", 8}}},
               {{{"A", 4}, {"B", 4}}},
               {{{"A", 1}, {"B", 1}}},
               {{{"B", 1}}}}},
    {.name = "WithoutChunkingAPromptMustFitWhole",
     .config = Config(8, 8, /*chunked=*/false),
     .arrivals = {{.name = "A", .prompt_len = 6, .max_output = 3},
                  {.name = "B", .prompt_len = 8, .max_output = 1}},
     .steps = {{{{"A", 6}}}, {{{"A", 1}}}, {{{"A", 1}}}, {{{"B", 8}}}}},
    {.name = "MaxNumSeqsCap",
     .config = Config(2, 100),
     .arrivals = {{.name = "A", .max_output = 2},
                  {.name = "B", .max_output = 2},
                  {.name = "C", .max_output = 2}},
     .steps = {{{{"A", 4}, {"B", 4}}}, {{{"A", 1}, {"B", 1}}}, {{{"C", 4}}}, {{{"C", 1}}}}},
    {.name = "PriorityThenFcfs",
     .config = Config(1, 100),
     .arrivals = {{.name = "A", .priority = 1},
                  {.name = "B", .priority = 0},
                  {.name = "C", .priority = 0},
                  {.name = "D", .step = 1, .priority = -1}},
     .steps = {{{{"B", 4}}}, {{{"D", 4}}}, {{{"C", 4}}}, {{{"A", 4}}}}},
    {.name = "PreemptsTheNewestAndRecomputesIt",
     .config = Config(8, 100),
     .num_blocks = 4,
     .arrivals = {{.name = "A", .prompt_len = 7, .max_output = 8},
                  {.name = "B", .prompt_len = 7, .max_output = 8}},
     .steps = {{{{"A", 7}, {"B", 7}}},
               {{{"A", 1}, {"B", 1}}},
               {{{"A", 1}}, {"B"}},  // A needs a third block: B (newest) is preempted
               {{{"A", 1}}},
               {{{"A", 1}}},
               {{{"A", 1}}},
               {{{"A", 1}}},
               {{{"A", 1}}},  // A's 8th token: A finishes
               {{{"B", 9}}},  // B recomputes prompt (7) + its 2 outputs
               {{{"B", 1}}}},
     .preemptions = 1},
    {.name = "PrefixHitReducesScheduledTokens",
     .config = Config(8, 100),
     .arrivals = {{.name = "A", .prompt_len = 12, .prompt_seed = 5},
                  {.name = "B", .prompt_len = 18, .step = 2, .prompt_seed = 5},
                  {.name = "C", .prompt_len = 12, .step = 3, .prompt_seed = 5}},
     // B reuses A's 3 full blocks; C's whole prompt is cached but one token must be computed,
     // so it reuses 2 blocks and computes the last 4 tokens.
     .steps = {{{{"A", 12}}}, {{}}, {{{"B", 6}}}, {{{"C", 4}}}},
     .cached = {{"A", 0}, {"B", 12}, {"C", 8}}},
};

INSTANTIATE_TEST_SUITE_P(Tables, SchedulerTableTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace strata
