// strata_engine_bench: throughput and time-to-first-token of the continuous-batching Engine.
//
// For each concurrency c: c requests (distinct random prompts of --prompt ids, greedy, EOS
// ignored, max_tokens = --output) are submitted at once to one started Engine and consumed by one
// thread each; total output tokens / wall time is the throughput. Then the prefix-cache test: a
// cold request A with a --ttft-prompt prompt, and once it has finished a request B whose first
// --ttft-prefix tokens equal A's (the rest differ); TTFT = Submit to the first token on the
// channel. Prints one JSON object on stdout; progress goes to stderr.
//
// Usage: strata_engine_bench --model q06b.gguf [--concurrency 1,4,16,64] [--prompt 256]
//          [--output 128] [--threads 2] [--ttft-prompt 2000] [--ttft-prefix 1900]
//          [--max-num-batched-tokens 2048] [--kv-memory-mib N] [--kv-dtype f32|bf16|f16]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/flags.h"
#include "nlohmann/json.hpp"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"
#include "strata/engine.h"
#include "strata/kv_cache_manager.h"
#include "strata/model.h"

namespace strata {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void Log(const std::string& msg) { std::fprintf(stderr, "[engine_bench] %s\n", msg.c_str()); }

const std::vector<cli::FlagSpec>& BenchFlags() {
  static const std::vector<cli::FlagSpec> specs = {
      {"model", "model path (.gguf or HF directory)", false, ""},
      {"concurrency", "comma-separated numbers of concurrent requests, or none", false,
       "1,4,16,64"},
      {"prompt", "prompt tokens per request in the throughput test", false, "256"},
      {"output", "output tokens per request in the throughput test", false, "128"},
      {"threads", "CPU threads of the model", false, "2"},
      {"ttft-prompt", "prompt tokens of the TTFT requests; 0 = skip the TTFT test", false, "2000"},
      {"ttft-prefix", "tokens the second TTFT request shares with the first", false, "1900"},
      {"ttft-output", "output tokens of each TTFT request", false, "4"},
      {"max-num-batched-tokens", "engine token budget per step", false, "2048"},
      {"max-num-seqs", "engine limit on running requests", false, "256"},
      {"kv-memory-mib", "KV cache size; 0 = enough for the largest test", false, "0"},
      {"kv-dtype", "KV cache element type: f32, bf16 or f16", false, "f32"},
      {"seed", "seed of the random prompts", false, "1"},
      {"help", "show this help", true, ""},
  };
  return specs;
}

// Ids well inside the Qwen3 vocabulary and clear of the special tokens.
std::vector<int32_t> RandomPrompt(std::mt19937& rng, int len) {
  std::uniform_int_distribution<int32_t> dist(1000, 100999);
  std::vector<int32_t> ids(len);
  for (int32_t& id : ids) id = dist(rng);
  return ids;
}

struct RequestResult {
  double ttft_s = 0;   // Submit to the first token
  double total_s = 0;  // Submit to the finish message
  int tokens = 0;      // generated tokens received
  Usage usage;
  FinishReason finish = FinishReason::kNone;
  std::string error;
};

// Drains one channel; times are relative to `submitted`.
RequestResult Consume(OutputChannel& channel, Clock::time_point submitted) {
  RequestResult r;
  bool first = true;
  while (true) {
    std::optional<RequestOutput> out = channel.Next(absl::Seconds(600));
    if (!out) {
      if (!channel.Done()) r.error = "timed out waiting for output";
      break;
    }
    const Clock::time_point now = Clock::now();
    if (first && !out->token_ids.empty()) {
      r.ttft_s = Seconds(submitted, now);
      first = false;
    }
    r.tokens += static_cast<int>(out->token_ids.size());
    if (out->finish != FinishReason::kNone) {
      r.total_s = Seconds(submitted, now);
      r.finish = out->finish;
      r.usage = out->usage;
      if (!out->error.ok()) r.error = out->error.ToString();
      break;
    }
  }
  return r;
}

EngineRequest MakeRequest(std::string id, std::vector<int32_t> prompt, int max_tokens) {
  EngineRequest req;
  req.id = std::move(id);
  req.prompt = std::move(prompt);
  req.params.temperature = 0;
  req.params.ignore_eos = true;
  req.params.max_tokens = max_tokens;
  return req;
}

// Submits all `requests` at once, one consumer thread each; returns their results and the wall
// time from the first Submit to the last finish.
absl::StatusOr<std::vector<RequestResult>> RunBatch(Engine& engine,
                                                    std::vector<EngineRequest> requests,
                                                    double* wall_s) {
  const size_t n = requests.size();
  std::vector<RequestResult> results(n);
  std::vector<std::shared_ptr<OutputChannel>> channels(n);
  std::vector<Clock::time_point> submitted(n);
  const Clock::time_point start = Clock::now();
  for (size_t i = 0; i < n; ++i) {
    submitted[i] = Clock::now();
    auto channel = engine.Submit(std::move(requests[i]));
    if (!channel.ok()) return channel.status();
    channels[i] = *std::move(channel);
  }
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] { results[i] = Consume(*channels[i], submitted[i]); });
  }
  for (std::thread& t : threads) t.join();
  *wall_s = Seconds(start, Clock::now());
  for (const RequestResult& r : results) {
    if (!r.error.empty()) return absl::InternalError(r.error);
  }
  return results;
}

nlohmann::json StatsJson(const EngineStats& before, const EngineStats& after) {
  return {
      {"steps", after.steps - before.steps},
      {"prompt_tokens_computed", after.prompt_tokens - before.prompt_tokens},
      {"generation_tokens", after.generation_tokens - before.generation_tokens},
      {"preemptions", after.preemptions - before.preemptions},
      {"prefix_cache_queries", after.prefix_cache.queries - before.prefix_cache.queries},
      {"prefix_cache_hits", after.prefix_cache.hits - before.prefix_cache.hits},
  };
}

absl::StatusOr<std::vector<int>> ParseIntList(const std::string& text) {
  std::vector<int> values;
  if (text == "none") return values;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int v;
    if (!absl::SimpleAtoi(part, &v) || v <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("bad list entry '", std::string(part), "'"));
    }
    values.push_back(v);
  }
  return values;
}

absl::StatusOr<DType> ParseKvDtype(const std::string& name) {
  if (name == "f32") return DType::kF32;
  if (name == "bf16") return DType::kBF16;
  if (name == "f16") return DType::kF16;
  return absl::InvalidArgumentError(absl::StrCat("--kv-dtype: unknown '", name, "'"));
}

#define BENCH_ASSIGN(lhs, expr)                 \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = *std::move(lhs##_or)

absl::Status Run(int argc, char** argv) {
  // stdout carries only the JSON result; the library's log lines go to stderr.
  spdlog::set_default_logger(spdlog::stderr_logger_st("stderr"));
  BENCH_ASSIGN(flags, cli::Flags::Parse(BenchFlags(), argc, argv, 1));
  if (flags.Bool("help") || !flags.Has("model")) {
    std::fprintf(
        stderr, "%s",
        cli::Flags::Help("strata_engine_bench --model PATH [flags]", BenchFlags()).c_str());
    return flags.Bool("help") ? absl::OkStatus() : absl::InvalidArgumentError("--model missing");
  }
  BENCH_ASSIGN(concurrency, ParseIntList(flags.String("concurrency", "1,4,16,64")));
  BENCH_ASSIGN(prompt_len, flags.Int("prompt", 256));
  BENCH_ASSIGN(output_len, flags.Int("output", 128));
  BENCH_ASSIGN(threads, flags.Int("threads", 2));
  BENCH_ASSIGN(ttft_prompt, flags.Int("ttft-prompt", 2000));
  BENCH_ASSIGN(ttft_prefix, flags.Int("ttft-prefix", 1900));
  BENCH_ASSIGN(ttft_output, flags.Int("ttft-output", 4));
  BENCH_ASSIGN(max_batched, flags.Int("max-num-batched-tokens", 2048));
  BENCH_ASSIGN(max_seqs, flags.Int("max-num-seqs", 256));
  BENCH_ASSIGN(kv_mib, flags.Int("kv-memory-mib", 0));
  BENCH_ASSIGN(kv_dtype, ParseKvDtype(flags.String("kv-dtype", "f32")));
  BENCH_ASSIGN(seed, flags.Int("seed", 1));
  if (ttft_prompt > 0 && ttft_prefix > ttft_prompt) {
    return absl::InvalidArgumentError("--ttft-prefix > --ttft-prompt");
  }

  Log(absl::StrCat("loading ", flags.String("model")));
  const Clock::time_point load_start = Clock::now();
  ModelOptions model_options;
  model_options.threads = threads;
  BENCH_ASSIGN(model, Model::Load(flags.String("model"), model_options));
  const double load_s = Seconds(load_start, Clock::now());
  const ModelSpec spec = model->spec();

  EngineConfig config;
  config.max_num_seqs = max_seqs;
  config.max_num_batched_tokens = max_batched;
  config.kv.kv_dtype = kv_dtype;
  const int block = config.kv.block_size;
  const int64_t block_bytes = KvCacheManager::BytesPerBlock(spec, block, kv_dtype);
  if (kv_mib > 0) {
    config.kv_memory_bytes = int64_t{kv_mib} << 20;
  } else {
    // Every throughput request resident at once (no preemption), or the two TTFT requests (A's
    // blocks stay cached while B runs), plus a margin of 64 blocks.
    const int64_t per_request = (prompt_len + output_len + block - 1) / block + 1;
    int64_t blocks = 0;
    for (int c : concurrency) blocks = std::max<int64_t>(blocks, per_request * c);
    blocks = std::max<int64_t>(blocks, 2 * ((ttft_prompt + ttft_output + block - 1) / block + 1));
    config.kv_memory_bytes = (blocks + 64) * block_bytes;
  }
  Log(absl::StrCat("KV cache: ", config.kv_memory_bytes >> 20, " MiB (",
                   config.kv_memory_bytes / block_bytes, " blocks of ", block, " tokens)"));
  BENCH_ASSIGN(engine, Engine::Create(std::move(model), config));
  engine->Start();

  std::mt19937 rng(static_cast<uint32_t>(seed));
  nlohmann::json result;
  result["model"] = flags.String("model");
  result["threads"] = threads;
  result["prompt"] = prompt_len;
  result["output"] = output_len;
  result["max_num_batched_tokens"] = max_batched;
  result["kv_memory_mib"] = config.kv_memory_bytes >> 20;
  result["kv_dtype"] = flags.String("kv-dtype", "f32");
  result["load_s"] = load_s;

  // Warm-up: one short request so thread pools and workspaces exist before timing.
  {
    Log("warm-up");
    std::vector<EngineRequest> warm;
    warm.push_back(MakeRequest("warmup", RandomPrompt(rng, 32), 4));
    double wall = 0;
    BENCH_ASSIGN(unused, RunBatch(*engine, std::move(warm), &wall));
    (void)unused;
  }

  nlohmann::json runs = nlohmann::json::array();
  for (int c : concurrency) {
    std::vector<EngineRequest> requests;
    for (int i = 0; i < c; ++i) {
      requests.push_back(
          MakeRequest(absl::StrCat("c", c, "-", i), RandomPrompt(rng, prompt_len), output_len));
    }
    Log(absl::StrCat("concurrency ", c, ": ", c, " x (prompt ", prompt_len, ", output ", output_len,
                     ")"));
    const EngineStats before = engine->Stats();
    double wall = 0;
    BENCH_ASSIGN(results, RunBatch(*engine, std::move(requests), &wall));
    const EngineStats after = engine->Stats();
    int64_t out_tokens = 0;
    double ttft_sum = 0, ttft_max = 0, total_max = 0;
    for (const RequestResult& r : results) {
      out_tokens += r.tokens;
      ttft_sum += r.ttft_s;
      ttft_max = std::max(ttft_max, r.ttft_s);
      total_max = std::max(total_max, r.total_s);
    }
    // Decode phase: from the last request's first token to the last finish; every step in it
    // is (mostly) a pure decode batch.
    nlohmann::json run = {
        {"concurrency", c},
        {"wall_s", wall},
        {"output_tokens", out_tokens},
        {"output_tok_per_s", out_tokens / wall},
        {"total_tok_per_s", (out_tokens + int64_t{c} * prompt_len) / wall},
        {"ttft_mean_s", ttft_sum / c},
        {"ttft_max_s", ttft_max},
        {"engine", StatsJson(before, after)},
    };
    const int64_t steps = after.steps - before.steps;
    if (steps > 0) run["ms_per_step"] = 1000 * wall / steps;
    if (total_max > ttft_max && output_len > 1) {
      run["decode_phase_s"] = total_max - ttft_max;
      run["decode_ms_per_token_step"] = 1000 * (total_max - ttft_max) / (output_len - 1);
    }
    Log(absl::StrCat("  ", out_tokens, " tokens in ", wall, " s = ", out_tokens / wall,
                     " tok/s; mean TTFT ", ttft_sum / c, " s; ", steps, " steps"));
    runs.push_back(run);
  }
  result["throughput"] = runs;

  if (ttft_prompt > 0) {
    const std::vector<int32_t> a = RandomPrompt(rng, ttft_prompt);
    std::vector<int32_t> b(a.begin(), a.begin() + ttft_prefix);
    std::vector<int32_t> tail = RandomPrompt(rng, ttft_prompt - ttft_prefix);
    b.insert(b.end(), tail.begin(), tail.end());
    if (ttft_prefix < ttft_prompt && b[ttft_prefix] == a[ttft_prefix]) b[ttft_prefix] ^= 1;
    nlohmann::json ttft;
    for (const auto& [name, prompt] : {std::pair{"cold", a}, std::pair{"cached", b}}) {
      Log(absl::StrCat("TTFT ", name, ": prompt ", prompt.size()));
      std::vector<EngineRequest> one;
      one.push_back(MakeRequest(absl::StrCat("ttft-", name), prompt, ttft_output));
      const EngineStats before = engine->Stats();
      double wall = 0;
      BENCH_ASSIGN(results, RunBatch(*engine, std::move(one), &wall));
      const EngineStats after = engine->Stats();
      ttft[name] = {
          {"prompt_tokens", results[0].usage.prompt_tokens},
          {"cached_tokens", results[0].usage.cached_tokens},
          {"ttft_s", results[0].ttft_s},
          {"total_s", results[0].total_s},
          {"engine", StatsJson(before, after)},
      };
      Log(absl::StrCat("  TTFT ", results[0].ttft_s, " s, cached tokens ",
                       results[0].usage.cached_tokens));
    }
    ttft["prefix"] = ttft_prefix;
    ttft["cached_over_cold"] =
        ttft["cached"]["ttft_s"].get<double>() / ttft["cold"]["ttft_s"].get<double>();
    result["ttft"] = ttft;
  }

  engine->Stop();
  const EngineStats s = engine->Stats();
  result["engine_total"] = {{"steps", s.steps},
                            {"preemptions", s.preemptions},
                            {"prefix_cache_queries", s.prefix_cache.queries},
                            {"prefix_cache_hits", s.prefix_cache.hits},
                            {"total_blocks", s.total_blocks}};
  if (!s.invariant_error.empty()) result["invariant_error"] = s.invariant_error;
  std::printf("%s\n", result.dump(2).c_str());
  return absl::OkStatus();
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  absl::Status status = strata::Run(argc, argv);
  if (!status.ok()) {
    std::fprintf(stderr, "strata_engine_bench: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
