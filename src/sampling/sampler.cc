// SequenceSampler: one sequence's sampling step in vLLM v1's order (vllm/v1/sample/sampler.py):
// raw logprobs → logit bias and min_tokens → repetition, frequency and presence penalties →
// greedy argmax, or temperature → min-p → top-k → top-p → seeded draw.
#include "sampling/sampler.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "sampling/logits_processors.h"
#include "sampling/logprobs.h"
#include "sampling/random.h"
#include "sampling/vocab_reductions.h"

namespace strata {
namespace {

// vLLM's _SAMPLING_EPS: a temperature below it means greedy.
constexpr float kGreedyTemperature = 1e-5f;

bool Contains(const std::vector<int32_t>& ids, int32_t token) {
  return std::find(ids.begin(), ids.end(), token) != ids.end();
}

}  // namespace

SequenceSampler::SequenceSampler(const SamplingParams& params, uint64_t seed,
                                 const std::vector<int32_t>& prompt,
                                 std::vector<int32_t> eos_token_ids)
    : params_(params), seed_(seed), eos_token_ids_(std::move(eos_token_ids)) {
  if (params_.repetition_penalty != 1.0f) {
    prompt_ = prompt;
    std::sort(prompt_.begin(), prompt_.end());
    prompt_.erase(std::unique(prompt_.begin(), prompt_.end()), prompt_.end());
  }
}

SequenceSampler::Result SequenceSampler::Sample(const float* logits, int vocab) {
  Result result;

  // 1. Logprobs of the raw distribution (vLLM v1 default logprobs_mode = raw_logprobs).
  sampling::LogSoftmaxNorm norm;
  if (params_.logprobs >= 0) {
    norm = sampling::ComputeLogSoftmaxNorm(logits, vocab);
    sampling::TopLogprobs(logits, vocab, params_.logprobs, norm, &result.logprob.top);
  }

  // 2. Logits processors on a copy: bias, min_tokens, penalties. Each touches a few ids; when
  // none applies the raw logits are used as they are (no copy on the plain greedy path).
  const bool mask_stops = output_count_ < params_.min_tokens &&
                          (!params_.stop_token_ids.empty() || !eos_token_ids_.empty());
  const bool repetition =
      params_.repetition_penalty != 1.0f && (!prompt_.empty() || !output_counts_.empty());
  const bool presence_frequency =
      (params_.presence_penalty != 0.0f || params_.frequency_penalty != 0.0f) &&
      !output_counts_.empty();
  const bool processed =
      !params_.logit_bias.empty() || mask_stops || repetition || presence_frequency;
  scratch_.resize(vocab);
  float* work = scratch_.data();
  if (processed) {
    std::memcpy(work, logits, sizeof(float) * vocab);
    sampling::ApplyLogitBias(params_.logit_bias, work, vocab);
    if (mask_stops) {
      // vLLM's MinTokensLogitsProcessor masks all_stop_token_ids: the stop ids and the model's
      // EOS ids, the latter even with ignore_eos.
      sampling::MaskTokens(params_.stop_token_ids, work, vocab);
      sampling::MaskTokens(eos_token_ids_, work, vocab);
    }
    if (repetition) {
      if (in_prompt_.size() != static_cast<size_t>(vocab)) {
        in_prompt_.assign(vocab, 0);
        for (int32_t id : prompt_) {
          if (id >= 0 && id < vocab) in_prompt_[id] = 1;
        }
      }
      sampling::ApplyRepetitionPenalty(params_.repetition_penalty, prompt_, in_prompt_,
                                       output_counts_, work, vocab);
    }
    if (presence_frequency) {
      sampling::ApplyPresenceFrequencyPenalties(params_.presence_penalty, params_.frequency_penalty,
                                                output_counts_, work, vocab);
    }
  }
  const float* current = processed ? work : logits;

  // 3. Choose.
  int32_t token;
  if (params_.temperature < kGreedyTemperature) {
    token = sampling::ArgMax(current, vocab);
  } else {
    const sampling::RandomSamplingOptions options{.temperature = params_.temperature,
                                                  .top_k = params_.top_k,
                                                  .top_p = params_.top_p,
                                                  .min_p = params_.min_p};
    const double u = sampling::Uniform(seed_, static_cast<uint64_t>(output_count_));
    token = selector_.Sample(current, work, vocab, options, u);
  }

  // 4. Record.
  result.token = token;
  result.is_stop = Contains(params_.stop_token_ids, token) ||
                   (!params_.ignore_eos && Contains(eos_token_ids_, token));
  if (params_.logprobs >= 0) {
    result.logprob.token = token;
    result.logprob.logprob = norm.Logprob(logits[token]);
  }
  ++output_counts_[token];
  ++output_count_;
  return result;
}

}  // namespace strata
