// Token sampling for one sequence: logits processors (logit bias, min_tokens masking,
// repetition/presence/frequency penalties, temperature, top-k, top-p, min-p) applied in vLLM's
// order, then greedy or seeded random choice, plus logprobs of the raw model distribution.
//
// The random stream is counter-based (seed, step): a sequence draws the same numbers whatever
// else shares the batch and wherever it sits in it. Thread-compatible; the scratch buffers make
// a SequenceSampler single-threaded, but distinct samplers may run on different threads.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "sampling/token_selection.h"
#include "strata/engine.h"
#include "strata/sampling_params.h"

namespace strata {

// Checks ranges (temperature >= 0, 0 < top_p <= 1, top_k >= -1, 0 <= min_p <= 1,
// repetition_penalty > 0, penalties in [-2, 2], logprobs in [-1, 20], max_tokens >= 1,
// 0 <= min_tokens <= max_tokens, n >= 1, bias ids within the vocabulary); InvalidArgument naming
// the field otherwise.
absl::Status ValidateSamplingParams(const SamplingParams& params, int vocab_size);

class SequenceSampler {
 public:
  // `seed` fixes the random stream (derive it from SamplingParams::seed and the completion index,
  // or draw it once at submission when unset). `prompt` feeds the repetition penalty.
  SequenceSampler(const SamplingParams& params, uint64_t seed, const std::vector<int32_t>& prompt,
                  std::vector<int32_t> eos_token_ids);

  struct Result {
    int32_t token = 0;
    bool is_stop = false;  // an EOS (unless ignore_eos) or stop_token_ids token
    TokenLogprob logprob;  // filled when params.logprobs >= 0
  };
  // Picks the next token from raw logits [vocab] and records it as generated.
  Result Sample(const float* logits, int vocab);

  int num_generated() const { return static_cast<int>(output_count_); }

 private:
  SamplingParams params_;
  uint64_t seed_;
  int64_t output_count_ = 0;
  std::vector<int32_t> eos_token_ids_;
  absl::flat_hash_map<int32_t, int> output_counts_;  // token → times generated
  std::vector<uint8_t> in_prompt_;                   // [vocab] lazily sized, repetition penalty
  std::vector<int32_t> prompt_;                      // distinct prompt token ids, ascending
  std::vector<float> scratch_;                       // [vocab] processed logits
  sampling::TokenSelector selector_;                 // temperature, min-p, top-k, top-p, draw
};

}  // namespace strata
