// SamplingParams: how one request picks its tokens, and when it stops. A plain value type shared
// by the front ends (which fill it from the wire) and the engine (which obeys it).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace strata {

struct SamplingParams {
  int n = 1;                        // completions per prompt; siblings share the prompt's blocks
  float temperature = 1.0f;         // 0 = greedy
  float top_p = 1.0f;               // (0, 1]
  int top_k = 0;                    // 0 or -1 = off
  float min_p = 0.0f;               // [0, 1]
  float repetition_penalty = 1.0f;  // > 0; 1 = off (prompt and output tokens, as vLLM)
  float presence_penalty = 0.0f;    // [-2, 2] (output tokens)
  float frequency_penalty = 0.0f;   // [-2, 2] (output tokens)
  std::vector<std::pair<int32_t, float>> logit_bias;  // added to raw logits
  int max_tokens = 16;              // generated tokens at most (>= 1)
  int min_tokens = 0;               // EOS and stop ids are masked until this many were generated
  std::vector<int32_t> stop_token_ids;
  bool ignore_eos = false;
  int logprobs = -1;                // -1 = none; else top logprobs per token, 0..20
  std::optional<uint64_t> seed;     // fixes this request's random stream
};

}  // namespace strata
