#include "engine/request.h"

#include <algorithm>
#include <utility>

#include "engine/output_channel.h"
#include "sampling/sampler.h"

namespace strata {

uint64_t SequenceSeed(const SamplingParams& params, uint64_t drawn_seed, int index) {
  return (params.seed.has_value() ? *params.seed : drawn_seed) + static_cast<uint64_t>(index);
}

std::unique_ptr<Request> MakeRequest(EngineRequest request, uint64_t arrival, uint64_t drawn_seed,
                                     RequestId first_kv_id, const std::vector<int>& eos_token_ids,
                                     bool with_samplers,
                                     std::shared_ptr<OutputChannelImpl> channel) {
  auto r = std::make_unique<Request>();
  r->id = std::move(request.id);
  r->params = std::move(request.params);
  r->priority = request.priority;
  r->cache_salt = std::move(request.cache_salt);
  r->arrival = arrival;
  r->channel = std::move(channel);
  const int n = std::max(1, r->params.n);
  const std::vector<int32_t> eos(eos_token_ids.begin(), eos_token_ids.end());
  for (int i = 0; i < n; ++i) {
    auto seq = std::make_unique<Sequence>();
    seq->request = r.get();
    seq->kv_id = first_kv_id + static_cast<RequestId>(i);
    seq->index = i;
    seq->priority = r->priority;
    seq->arrival = arrival;
    seq->cache_salt = &r->cache_salt;
    seq->tokens = request.prompt;
    seq->num_prompt_tokens = static_cast<int>(request.prompt.size());
    if (with_samplers) {
      seq->sampler = std::make_unique<SequenceSampler>(
          r->params, SequenceSeed(r->params, drawn_seed, i), request.prompt, eos);
    }
    r->sequences.push_back(std::move(seq));
  }
  r->num_unfinished = n;
  return r;
}

Usage SequenceUsage(const Sequence& seq) {
  Usage usage;
  usage.prompt_tokens = seq.num_prompt_tokens;
  usage.completion_tokens =
      seq.sampler != nullptr ? seq.sampler->num_generated() : seq.num_output_tokens();
  usage.cached_tokens = std::max(0, seq.num_cached_tokens);
  return usage;
}

}  // namespace strata
