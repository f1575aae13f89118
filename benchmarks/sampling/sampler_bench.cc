// Cost of one SequenceSampler::Sample on a 151936-token vocabulary (Qwen2/3).
//
// Two logit shapes: "zipf" gives token ranks a 1/r^1.1 distribution (natural-language-like:
// top-p 0.9 keeps a few hundred tokens at T = 0.7); "gauss" is N(0, 1) logits, nearly flat,
// like a random-weight model (top-p 0.9 keeps most of the vocabulary: the worst case).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "sampling/sampler.h"

namespace strata {
namespace {

constexpr int kVocab = 151936;

std::vector<float> Logits(bool zipf) {
  std::mt19937 rng(7);
  std::vector<float> logits(kVocab);
  if (zipf) {
    std::vector<int> ids(kVocab);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    for (int rank = 0; rank < kVocab; ++rank) logits[ids[rank]] = -1.1f * std::log(rank + 1.0f);
  } else {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& v : logits) v = normal(rng);
  }
  return logits;
}

void RunSampler(benchmark::State& state, const SamplingParams& params, bool zipf) {
  const std::vector<float> logits = Logits(zipf);
  SequenceSampler sampler(params, 1234, {}, {});
  for (auto _ : state) {
    auto result = sampler.Sample(logits.data(), kVocab);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Greedy(benchmark::State& state) {
  SamplingParams params;
  params.temperature = 0.0f;
  RunSampler(state, params, true);
}
BENCHMARK(BM_Greedy);

void BM_GreedyLogprobs20(benchmark::State& state) {
  SamplingParams params;
  params.temperature = 0.0f;
  params.logprobs = 20;
  RunSampler(state, params, true);
}
BENCHMARK(BM_GreedyLogprobs20);

void BM_TopP09Temp07(benchmark::State& state) {
  SamplingParams params;
  params.temperature = 0.7f;
  params.top_p = 0.9f;
  RunSampler(state, params, state.range(0) == 1);
}
BENCHMARK(BM_TopP09Temp07)->ArgName("zipf")->Arg(1)->Arg(0);

void BM_Temp1(benchmark::State& state) {
  SamplingParams params;
  params.temperature = 1.0f;
  RunSampler(state, params, true);
}
BENCHMARK(BM_Temp1);

void BM_TopK50Temp07(benchmark::State& state) {
  SamplingParams params;
  params.temperature = 0.7f;
  params.top_k = 50;
  RunSampler(state, params, true);
}
BENCHMARK(BM_TopK50Temp07);

}  // namespace
}  // namespace strata
