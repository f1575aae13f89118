// Random token selection after the logits processors: temperature → min-p → top-k → top-p →
// one draw from the renormalized distribution. The order and the definitions are vLLM v1's
// (vllm/v1/sample/sampler.py: temperature, then the argmax-invariant min-p processor, then
// vllm/v1/sample/ops/topk_topp_sampler.py's apply_top_k_top_p):
//   min-p:  drop tokens whose probability < min_p * (largest probability);
//   top-k:  keep tokens whose logit >= the k-th largest logit (ties at the boundary all stay,
//           as torch's `logits < kth_value` mask does);
//   top-p:  over the distribution renormalized after min-p and top-k, rank tokens by logit
//           (ties: lower id first) and keep a token iff the mass ranked before it is < top_p,
//           i.e. the smallest prefix whose mass reaches top_p (never empty).
// Each filter keeps a prefix of the rank order, so the kept set is "rank key >= a cut". The
// draw inverts the CDF with one uniform u in [0, 1) over the kept tokens in ascending id order,
// so the chosen token depends only on (distribution, u), not on how the cut was found.
//
// Cost: a few vectorized passes over the vocabulary; top-k uses a k-sized heap (small k) or
// nth_element; top-p a logit histogram that finds the boundary bucket, then sorts that bucket
// only. No full sort of the vocabulary. Thread-compatible: a TokenSelector owns scratch buffers
// reused across calls (no allocation once warm).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace strata::sampling {

struct RandomSamplingOptions {
  float temperature = 1.0f;  // > 0
  int top_k = 0;             // <= 0: off
  float top_p = 1.0f;        // (0, 1]; 1: off
  float min_p = 0.0f;        // [0, 1]; 0: off
};

class TokenSelector {
 public:
  // Writes logits / temperature to `scaled` (may alias `logits`), then picks a token with the
  // uniform `u`. When no token has positive probability (all -inf, or a +inf logit) it returns
  // the lowest-id argmax.  logits, scaled: [vocab]
  int32_t Sample(const float* logits, float* scaled, int vocab,
                 const RandomSamplingOptions& options, double u);

 private:
  // The kept set: w > 0, w >= min_w, and (logit, -id) >= (cut_logit, -cut_id).
  struct Cut {
    float min_w = 0;
    float cut_logit = -std::numeric_limits<float>::infinity();
    int32_t cut_id = INT32_MAX;
  };
  float KthLargestLogit(const float* scaled, int vocab, const Cut& cut, int k);
  // `small_top_k`: a top-k of at most kDirectTopP tokens is in `cut`; rank those directly.
  void CutTopP(const float* scaled, int vocab, float max_logit, float top_p, bool small_top_k,
               Cut* cut);
  int32_t Draw(const float* scaled, int vocab, const Cut& cut, double u);

  std::vector<float> weights_;  // [vocab] exp(scaled logit - max)
  std::vector<float> values_;   // top-k selection
  std::vector<uint64_t> keys_;  // rank keys of the top-p boundary bucket
  std::vector<double> bucket_mass_;
  std::vector<double> block_mass_;  // Draw: kept mass per block of the vocabulary
};

}  // namespace strata::sampling
