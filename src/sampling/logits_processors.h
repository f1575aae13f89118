// Logits processors that change individual tokens' logits in place, before temperature: logit
// bias, min_tokens masking and the repetition / presence / frequency penalties. Each follows
// vLLM v1 (vllm/v1/sample/logits_processor/builtin.py, vllm/v1/sample/ops/penalties.py,
// vllm/model_executor/layers/utils.py) and touches only the listed tokens, so its cost does not
// grow with the vocabulary. Token ids outside [0, vocab) are ignored. Thread-safe (pure
// functions over caller-owned buffers).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace strata::sampling {

// logits[id] += bias for every (id, bias).  logits: [vocab]
void ApplyLogitBias(const std::vector<std::pair<int32_t, float>>& bias, float* logits, int vocab);

// logits[id] = -inf for every id in `ids` (min_tokens: stop ids and EOS may not end the sequence
// yet).  logits: [vocab]
void MaskTokens(const std::vector<int32_t>& ids, float* logits, int vocab);

// vLLM's repetition penalty (from CTRL, Keskar et al. 2019): for every token in the prompt or the
// output, logit > 0 ? logit / penalty : logit * penalty; each such token once.
//   prompt_ids: distinct prompt token ids; in_prompt: [vocab] 1 where a prompt token;
//   output_counts: token → times generated.  logits: [vocab]
void ApplyRepetitionPenalty(float penalty, const std::vector<int32_t>& prompt_ids,
                            const std::vector<uint8_t>& in_prompt,
                            const absl::flat_hash_map<int32_t, int>& output_counts, float* logits,
                            int vocab);

// OpenAI's presence and frequency penalties over output tokens only (as vLLM):
// logit -= presence * (count > 0) + frequency * count.  logits: [vocab]
void ApplyPresenceFrequencyPenalties(float presence, float frequency,
                                     const absl::flat_hash_map<int32_t, int>& output_counts,
                                     float* logits, int vocab);

}  // namespace strata::sampling
