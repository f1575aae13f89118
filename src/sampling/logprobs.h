// Logprobs of the raw model distribution (vLLM v1's default logprobs_mode "raw_logprobs":
// log_softmax of the logits before bias, penalties and temperature). Thread-safe.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace strata::sampling {

// log_softmax(logits)[i] = logits[i] - max - log_sum_exp, with the sum taken in double.
struct LogSoftmaxNorm {
  float max = 0;
  double log_sum_exp = 0;  // log(sum_i exp(logits[i] - max))

  float Logprob(float logit) const {
    return static_cast<float>(static_cast<double>(logit) - max - log_sum_exp);
  }
};

// One pass for the max, one for the sum of exponentials.  logits: [vocab]
LogSoftmaxNorm ComputeLogSoftmaxNorm(const float* logits, int vocab);

// The `n` most likely tokens as (id, logprob), best first, ties by lower id; one pass with a
// small sorted buffer (n <= 20), no sort of the vocabulary. NaN logits are skipped.
// logits: [vocab]
void TopLogprobs(const float* logits, int vocab, int n, const LogSoftmaxNorm& norm,
                 std::vector<std::pair<int32_t, float>>* top);

}  // namespace strata::sampling
