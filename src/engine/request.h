// Request and Sequence: the engine's state for one client request and each of its completions.
//
// A request with SamplingParams::n > 1 becomes n sequences ("siblings", as vLLM v1 fans out
// child requests): each has its own token list, KV blocks and sampler seeded with seed + index,
// and they share the prompt's KV through the prefix cache. Siblings 1..n-1 are held back until
// sibling 0 has computed the prompt, so their prompt blocks are cache hits instead of being
// computed n times in the same step. Owned and mutated by the engine thread only; the scheduler
// reads and updates the scheduling fields (status, num_computed_tokens, num_cached_tokens).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sampling/sampler.h"
#include "strata/engine.h"
#include "strata/kv_cache_manager.h"
#include "strata/sampling_params.h"

namespace strata {

class OutputChannelImpl;
struct Request;

enum class SequenceStatus {
  kWaiting,    // not yet admitted (or a sibling held back until the prompt is cached)
  kRunning,    // admitted: holds KV blocks, scheduled every step the budget allows
  kPreempted,  // lost its blocks; waits to recompute prompt + output from scratch
  kFinished,
};

struct Sequence {
  Request* request = nullptr;
  RequestId kv_id = 0;                      // the KvCacheManager's handle for this sequence
  int index = 0;                            // completion index within the request
  int priority = 0;                         // copied from the request (lower runs first)
  uint64_t arrival = 0;                     // submission order of the request
  const std::string* cache_salt = nullptr;  // the request's

  std::vector<int32_t> tokens;  // prompt, then generated tokens (a stop token is not appended)
  int num_prompt_tokens = 0;
  int num_computed_tokens = 0;  // tokens whose KV is in the cache
  int num_cached_tokens = -1;   // prompt tokens served by the prefix cache at first admission
  SequenceStatus status = SequenceStatus::kWaiting;
  FinishReason finish = FinishReason::kNone;
  std::unique_ptr<SequenceSampler> sampler;  // null in scheduler-only tests

  int num_tokens() const { return static_cast<int>(tokens.size()); }
  int num_output_tokens() const { return num_tokens() - num_prompt_tokens; }
  bool finished() const { return status == SequenceStatus::kFinished; }
};

struct Request {
  std::string id;
  SamplingParams params;
  int priority = 0;
  std::string cache_salt;
  uint64_t arrival = 0;
  std::shared_ptr<OutputChannelImpl> channel;
  std::vector<std::unique_ptr<Sequence>> sequences;  // [n], index order
  int num_unfinished = 0;
  bool siblings_released = false;  // sequences 1..n-1 were handed to the scheduler
};

// The seed of completion `index`: SamplingParams::seed + index when set, else drawn + index.
uint64_t SequenceSeed(const SamplingParams& params, uint64_t drawn_seed, int index);

// Builds the request and its n sequences (kv ids first_kv_id, first_kv_id + 1, ...), each with
// a SequenceSampler when `with_samplers` (tests of the scheduler pass false).
std::unique_ptr<Request> MakeRequest(EngineRequest request, uint64_t arrival, uint64_t drawn_seed,
                                     RequestId first_kv_id, const std::vector<int>& eos_token_ids,
                                     bool with_samplers,
                                     std::shared_ptr<OutputChannelImpl> channel);

// Usage of one completion so far.
Usage SequenceUsage(const Sequence& seq);

}  // namespace strata
