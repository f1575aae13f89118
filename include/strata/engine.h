// Engine: the continuous-batching inference loop over a Model and its paged KV cache.
//
// Front ends (HTTP, gRPC, CLI, tests) talk to it only through Submit/Abort and a per-request
// OutputChannel carrying token ids, logprobs, a finish reason and usage; the engine never sees
// JSON or text. One engine thread runs Step() in a loop: drain the submit/abort queue →
// schedule (decodes first, then prefill chunks, under max_num_batched_tokens and max_num_seqs;
// preempt the newest running request when blocks run out) → one forward pass → sample → append
// tokens → publish outputs → free finished requests. Submit, Abort and Stats are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "strata/kv_cache_manager.h"
#include "strata/model.h"
#include "strata/sampling_params.h"

namespace strata {

struct EngineConfig {
  int max_num_seqs = 256;
  int max_num_batched_tokens = 2048;
  int max_waiting_requests = 1024;
  bool enable_chunked_prefill = true;
  int max_model_len = 0;  // 0 = the model's max_position_embeddings
  KvCacheManagerConfig kv;  // kv.num_blocks == 0: sized from kv_memory_bytes
  int64_t kv_memory_bytes = 256ll << 20;
  // Debug: after every schedule, check the KV manager's invariants and the budget limits;
  // the first failure is reported in EngineStats::invariant_error. Costly; tests only.
  bool check_invariants = false;
};

struct EngineRequest {
  std::string id;               // unique among live requests
  std::vector<int32_t> prompt;  // token ids
  SamplingParams params;
  int priority = 0;             // lower runs first; FCFS within a priority
  std::string cache_salt;       // isolates tenants in the prefix cache
};

enum class FinishReason { kNone, kStop, kLength, kAbort, kError };
const char* FinishReasonName(FinishReason reason);  // "stop", "length", "abort", "error"

struct TokenLogprob {
  int32_t token = 0;
  float logprob = 0;                          // of the sampled token, raw model distribution
  std::vector<std::pair<int32_t, float>> top;  // SamplingParams::logprobs entries, best first
};

struct Usage {
  int prompt_tokens = 0;
  int completion_tokens = 0;  // generated tokens, including a stop token
  int cached_tokens = 0;  // prompt tokens served from the prefix cache
};

// One message on a request's channel: new tokens of completion `index` (0..n-1), and on the
// last message of that completion its finish reason and usage.
struct RequestOutput {
  int index = 0;
  std::vector<int32_t> token_ids;
  std::vector<TokenLogprob> logprobs;  // parallel to token_ids when logprobs were asked
  FinishReason finish = FinishReason::kNone;
  std::optional<int32_t> stop_token;  // the EOS/stop id that finished it (not in token_ids)
  Usage usage;
  absl::Status error;  // set with FinishReason::kError
};

// Per-request queue from the engine thread to one consumer. Thread-safe.
class OutputChannel {
 public:
  virtual ~OutputChannel() = default;
  // Waits up to `timeout` for the next output; nullopt on timeout. After every completion has
  // finished, returns nullopt at once.
  virtual std::optional<RequestOutput> Next(absl::Duration timeout) = 0;
  // True once every completion of the request has finished and all outputs were taken.
  virtual bool Done() const = 0;
};

struct EngineStats {
  int running = 0;
  int waiting = 0;
  double kv_usage = 0;
  PrefixCacheStats prefix_cache;
  int64_t preemptions = 0;
  int64_t prompt_tokens = 0;      // computed (not cached)
  int64_t generation_tokens = 0;
  int64_t steps = 0;
  int free_blocks = 0;
  int total_blocks = 0;
  std::string invariant_error;  // first failure of EngineConfig::check_invariants; empty if none
};

class Engine {
 public:
  static absl::StatusOr<std::unique_ptr<Engine>> Create(std::unique_ptr<Model> model,
                                                        const EngineConfig& config);
  ~Engine();  // stops the thread; aborts what is left

  // Validates and queues a request. InvalidArgument when prompt + max_tokens exceeds
  // max_model_len (the message names both numbers) or the request could never fit in the KV
  // pool, or a parameter is out of range; ResourceExhausted ("server overloaded") when
  // max_waiting_requests are already waiting; AlreadyExists for a live id.
  absl::StatusOr<std::shared_ptr<OutputChannel>> Submit(EngineRequest request);
  // Aborts a request from any thread; it leaves the batch at the next step and its blocks are
  // released. Unknown ids are ignored.
  void Abort(const std::string& id);

  void Start();  // runs Step() on the engine thread until Stop()
  void Stop();   // finishes the current step, aborts everything left, joins the thread
  // One iteration, for tests that drive the engine without its thread. Returns whether any work
  // was done. REQUIRES: Start() was not called.
  bool Step();

  EngineStats Stats() const;
  const Model& model() const;
  int max_model_len() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  explicit Engine(std::unique_ptr<Impl> impl);
};

}  // namespace strata
