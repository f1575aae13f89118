#include "sampling/logits_processors.h"

#include <limits>

namespace strata::sampling {
namespace {

bool InVocab(int32_t id, int vocab) { return id >= 0 && id < vocab; }

float RepetitionPenalized(float logit, float penalty) {
  return logit > 0.0f ? logit / penalty : logit * penalty;
}

}  // namespace

void ApplyLogitBias(const std::vector<std::pair<int32_t, float>>& bias, float* logits, int vocab) {
  for (const auto& [id, value] : bias) {
    if (InVocab(id, vocab)) logits[id] += value;
  }
}

void MaskTokens(const std::vector<int32_t>& ids, float* logits, int vocab) {
  for (int32_t id : ids) {
    if (InVocab(id, vocab)) logits[id] = -std::numeric_limits<float>::infinity();
  }
}

void ApplyRepetitionPenalty(float penalty, const std::vector<int32_t>& prompt_ids,
                            const std::vector<uint8_t>& in_prompt,
                            const absl::flat_hash_map<int32_t, int>& output_counts, float* logits,
                            int vocab) {
  if (penalty == 1.0f) return;
  for (int32_t id : prompt_ids) {
    if (InVocab(id, vocab)) logits[id] = RepetitionPenalized(logits[id], penalty);
  }
  for (const auto& [id, count] : output_counts) {
    // A token both in the prompt and in the output is penalized once (vLLM ORs the two masks).
    if (count > 0 && InVocab(id, vocab) && !in_prompt[id]) {
      logits[id] = RepetitionPenalized(logits[id], penalty);
    }
  }
}

void ApplyPresenceFrequencyPenalties(float presence, float frequency,
                                     const absl::flat_hash_map<int32_t, int>& output_counts,
                                     float* logits, int vocab) {
  if (presence == 0.0f && frequency == 0.0f) return;
  for (const auto& [id, count] : output_counts) {
    if (count <= 0 || !InVocab(id, vocab)) continue;
    // vLLM subtracts frequency * count first, then presence * mask.
    logits[id] -= frequency * static_cast<float>(count);
    logits[id] -= presence;
  }
}

}  // namespace strata::sampling
