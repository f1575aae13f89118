// ValidateSamplingParams: range checks on SamplingParams, one InvalidArgument per field, worded
// for an HTTP 400 ("<field> must be ..., got ..."). Ranges follow vLLM's SamplingParams
// (_verify_args) where it defines them.
#include <cmath>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sampling/sampler.h"

namespace strata {
namespace {

absl::Status Invalid(std::string_view field, std::string_view requirement, double got) {
  return absl::InvalidArgumentError(
      absl::StrCat(absl::string_view(field.data(), field.size()), " must be ",
                   absl::string_view(requirement.data(), requirement.size()), ", got ", got));
}

}  // namespace

absl::Status ValidateSamplingParams(const SamplingParams& params, int vocab_size) {
  // Comparisons are written so that NaN fails them.
  if (params.n < 1) return Invalid("n", ">= 1", params.n);
  if (!(params.temperature >= 0.0f) || std::isinf(params.temperature)) {
    return Invalid("temperature", "a finite number >= 0", params.temperature);
  }
  if (!(params.top_p > 0.0f && params.top_p <= 1.0f)) {
    return Invalid("top_p", "in (0, 1]", params.top_p);
  }
  if (params.top_k < -1)
    return Invalid("top_k", "-1 (disabled), 0 (disabled) or >= 1", params.top_k);
  if (!(params.min_p >= 0.0f && params.min_p <= 1.0f)) {
    return Invalid("min_p", "in [0, 1]", params.min_p);
  }
  if (!(params.repetition_penalty > 0.0f) || std::isinf(params.repetition_penalty)) {
    return Invalid("repetition_penalty", "a finite number > 0", params.repetition_penalty);
  }
  if (!(params.presence_penalty >= -2.0f && params.presence_penalty <= 2.0f)) {
    return Invalid("presence_penalty", "in [-2, 2]", params.presence_penalty);
  }
  if (!(params.frequency_penalty >= -2.0f && params.frequency_penalty <= 2.0f)) {
    return Invalid("frequency_penalty", "in [-2, 2]", params.frequency_penalty);
  }
  if (params.logprobs < -1 || params.logprobs > 20) {
    return Invalid("logprobs", "in [-1, 20] (-1 = none)", params.logprobs);
  }
  if (params.max_tokens < 1) return Invalid("max_tokens", ">= 1", params.max_tokens);
  if (params.min_tokens < 0) return Invalid("min_tokens", ">= 0", params.min_tokens);
  if (params.min_tokens > params.max_tokens) {
    return absl::InvalidArgumentError(absl::StrCat(
        "min_tokens must be <= max_tokens (", params.max_tokens, "), got ", params.min_tokens));
  }
  for (const auto& [token, bias] : params.logit_bias) {
    if (token < 0 || token >= vocab_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logit_bias token id ", token, " is out of the vocabulary [0, ", vocab_size, ")"));
    }
    if (!std::isfinite(bias)) {
      return absl::InvalidArgumentError(
          absl::StrCat("logit_bias value for token ", token, " must be finite, got ", bias));
    }
  }
  return absl::OkStatus();
}

}  // namespace strata
