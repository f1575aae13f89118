#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "sampling/sampler.h"

namespace strata {
namespace {

constexpr int kVocab = 1000;

// Applies `mutate` to default params and expects InvalidArgument naming `field`.
void ExpectInvalid(const std::function<void(SamplingParams&)>& mutate, const std::string& field) {
  SamplingParams params;
  mutate(params);
  const absl::Status status = ValidateSamplingParams(params, kVocab);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << field;
  EXPECT_NE(std::string(status.message()).find(field), std::string::npos) << status;
}

TEST(ValidateSamplingParamsTest, DefaultsAndBoundaryValuesAreValid) {
  EXPECT_TRUE(ValidateSamplingParams(SamplingParams{}, kVocab).ok());
  SamplingParams edge;
  edge.temperature = 0.0f;
  edge.top_p = 1.0f;
  edge.top_k = -1;
  edge.min_p = 1.0f;
  edge.presence_penalty = -2.0f;
  edge.frequency_penalty = 2.0f;
  edge.logprobs = 20;
  edge.max_tokens = 1;
  edge.min_tokens = 1;
  edge.logit_bias = {{0, -100.0f}, {kVocab - 1, 100.0f}};
  EXPECT_TRUE(ValidateSamplingParams(edge, kVocab).ok());
}

TEST(ValidateSamplingParamsTest, N) {
  ExpectInvalid([](SamplingParams& p) { p.n = 0; }, "n must be");
}

TEST(ValidateSamplingParamsTest, Temperature) {
  ExpectInvalid([](SamplingParams& p) { p.temperature = -0.1f; }, "temperature");
  ExpectInvalid([](SamplingParams& p) { p.temperature = std::nanf(""); }, "temperature");
  ExpectInvalid([](SamplingParams& p) { p.temperature = INFINITY; }, "temperature");
}

TEST(ValidateSamplingParamsTest, TopP) {
  ExpectInvalid([](SamplingParams& p) { p.top_p = 0.0f; }, "top_p");
  ExpectInvalid([](SamplingParams& p) { p.top_p = 1.01f; }, "top_p");
}

TEST(ValidateSamplingParamsTest, TopK) {
  ExpectInvalid([](SamplingParams& p) { p.top_k = -2; }, "top_k");
}

TEST(ValidateSamplingParamsTest, MinP) {
  ExpectInvalid([](SamplingParams& p) { p.min_p = -0.01f; }, "min_p");
  ExpectInvalid([](SamplingParams& p) { p.min_p = 1.5f; }, "min_p");
}

TEST(ValidateSamplingParamsTest, RepetitionPenalty) {
  ExpectInvalid([](SamplingParams& p) { p.repetition_penalty = 0.0f; }, "repetition_penalty");
}

TEST(ValidateSamplingParamsTest, PresenceAndFrequencyPenalties) {
  ExpectInvalid([](SamplingParams& p) { p.presence_penalty = 2.5f; }, "presence_penalty");
  ExpectInvalid([](SamplingParams& p) { p.frequency_penalty = -2.5f; }, "frequency_penalty");
}

TEST(ValidateSamplingParamsTest, Logprobs) {
  ExpectInvalid([](SamplingParams& p) { p.logprobs = 21; }, "logprobs");
  ExpectInvalid([](SamplingParams& p) { p.logprobs = -2; }, "logprobs");
}

TEST(ValidateSamplingParamsTest, MaxAndMinTokens) {
  ExpectInvalid([](SamplingParams& p) { p.max_tokens = 0; }, "max_tokens");
  ExpectInvalid([](SamplingParams& p) { p.min_tokens = -1; }, "min_tokens");
  ExpectInvalid(
      [](SamplingParams& p) {
        p.max_tokens = 4;
        p.min_tokens = 5;
      },
      "min_tokens must be <= max_tokens");
}

TEST(ValidateSamplingParamsTest, LogitBias) {
  ExpectInvalid([](SamplingParams& p) { p.logit_bias = {{kVocab, 1.0f}}; }, "logit_bias");
  ExpectInvalid([](SamplingParams& p) { p.logit_bias = {{-1, 1.0f}}; }, "logit_bias");
  ExpectInvalid([](SamplingParams& p) { p.logit_bias = {{5, std::nanf("")}}; }, "logit_bias");
}

}  // namespace
}  // namespace strata
