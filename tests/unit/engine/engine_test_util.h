// Helpers for engine tests: a tiny random model, request builders, and drivers that run
// requests through an Engine (stepped by the test, or on its thread) and collect every output.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/make_model.h"
#include "strata/engine.h"
#include "strata/model.h"

namespace strata::testing {

// Makes (once per process) a random tiny model of `arch` and loads it.
std::unique_ptr<Model> LoadTinyModel(Architecture arch = Architecture::kQwen3, int threads = 2);

std::unique_ptr<Engine> MakeEngine(const EngineConfig& config,
                                   Architecture arch = Architecture::kQwen3);

// Deterministic pseudo-random ids in [3, vocab) (0..2 avoided: 2 is the tiny model's EOS).
std::vector<int32_t> RandomTokens(int length, int vocab, uint64_t seed);

// Everything one completion produced.
struct Completion {
  std::vector<int32_t> tokens;
  std::vector<TokenLogprob> logprobs;
  FinishReason finish = FinishReason::kNone;
  std::optional<int32_t> stop_token;
  Usage usage;
  int messages = 0;
};
using Completions = std::vector<Completion>;  // [n]

// Takes every output already queued on `channel` into `out`; returns whether it is done.
bool DrainChannel(OutputChannel& channel, Completions& out);

// A request and the engine step at which the test submits it.
struct TimedRequest {
  EngineRequest request;
  int arrival_step = 0;
};

// Submits each request at its arrival step and calls Step() until all finished (or
// `max_steps`). `on_step` (optional) runs after every step. Results are keyed by request id.
std::map<std::string, Completions> RunStepped(Engine& engine,
                                              const std::vector<TimedRequest>& requests,
                                              int max_steps = 1000000,
                                              const std::function<void(int)>& on_step = nullptr);

// Runs each request alone, one after the other, on a fresh engine with `config` and prefix
// caching off: the reference the concurrent runs must match bitwise.
std::map<std::string, Completions> RunOneAtATime(const EngineConfig& config,
                                                 const std::vector<TimedRequest>& requests,
                                                 Architecture arch = Architecture::kQwen3);

// Bitwise comparison of tokens, logprobs (incl. top lists), finish reasons and token counts.
void ExpectSameCompletions(const std::map<std::string, Completions>& expected,
                           const std::map<std::string, Completions>& actual,
                           const std::string& what);

}  // namespace strata::testing
