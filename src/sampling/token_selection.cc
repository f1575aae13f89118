#include "sampling/token_selection.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

#include "sampling/vocab_reductions.h"

namespace strata::sampling {
namespace {

// Rank key: high 32 bits the logit mapped to an order-preserving unsigned, low 32 bits ~id, so
// descending key order is (logit desc, id asc).
uint64_t RankKey(float logit, int32_t id) {
  // IEEE floats order like sign-magnitude integers: flip all bits of negatives, set the sign
  // bit of non-negatives, and unsigned order equals float order.
  const uint32_t bits = std::bit_cast<uint32_t>(logit);
  const uint32_t ordered = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return (static_cast<uint64_t>(ordered) << 32) | ~static_cast<uint32_t>(id);
}
int32_t KeyId(uint64_t key) { return static_cast<int32_t>(~static_cast<uint32_t>(key)); }

// Top-k below this uses a k-sized heap in one pass; above, nth_element on the survivors.
constexpr int kHeapTopK = 1024;
// Top-p after a top-k at most this large ranks the top-k survivors directly.
constexpr int kDirectTopP = 4096;
// Top-p histogram: buckets of (max - logit) over [0, kHistogramRange); the last bucket takes
// everything below (weights under e^-32 of the max).
constexpr int kBuckets = 1024;
constexpr float kHistogramRange = 32.0f;
// Draw: the vocabulary is summed per block, then one block is scanned.
constexpr int kDrawBlock = 1024;

}  // namespace

int32_t TokenSelector::Sample(const float* logits, float* scaled, int vocab,
                              const RandomSamplingOptions& options, double u) {
  // vLLM divides the logits by the temperature (logits.div_(temp)).
  const float temperature = options.temperature;
  for (int i = 0; i < vocab; ++i) scaled[i] = logits[i] / temperature;
  const float max_logit = MaxValue(scaled, vocab);
  if (!std::isfinite(max_logit)) return ArgMax(scaled, vocab);  // all -inf, or a +inf
  weights_.resize(vocab);
  SumExpShifted(scaled, vocab, max_logit, weights_.data());

  Cut cut;
  // min-p in probability space, as vLLM: p_i < min_p * p_max  <=>  w_i < min_p (w_max == 1).
  cut.min_w = options.min_p;
  bool small_top_k = false;
  if (options.top_k > 0 && options.top_k < vocab) {
    cut.cut_logit = KthLargestLogit(scaled, vocab, cut, options.top_k);
    small_top_k = cut.cut_logit > -INFINITY && options.top_k <= kDirectTopP;
  }
  if (options.top_p < 1.0f) CutTopP(scaled, vocab, max_logit, options.top_p, small_top_k, &cut);
  return Draw(scaled, vocab, cut, u);
}

float TokenSelector::KthLargestLogit(const float* scaled, int vocab, const Cut& cut, int k) {
  const float* w = weights_.data();
  values_.clear();
  if (k <= kHeapTopK) {
    // Min-heap of the k largest so far; most tokens fail the comparison with its top, and
    // once it is full whole blocks that cannot beat it are skipped.
    auto offer = [&](int i) {
      if (!(w[i] > 0.0f && w[i] >= cut.min_w)) return;
      const float v = scaled[i];
      if (static_cast<int>(values_.size()) < k) {
        values_.push_back(v);
        std::push_heap(values_.begin(), values_.end(), std::greater<>());
      } else if (v > values_.front()) {
        std::pop_heap(values_.begin(), values_.end(), std::greater<>());
        values_.back() = v;
        std::push_heap(values_.begin(), values_.end(), std::greater<>());
      }
    };
    constexpr int kBlock = 64;
    int i = 0;
    for (; i + kBlock <= vocab; i += kBlock) {
      if (static_cast<int>(values_.size()) == k &&
          !AnyGreater(scaled + i, kBlock, values_.front())) {
        continue;
      }
      for (int j = i; j < i + kBlock; ++j) offer(j);
    }
    for (; i < vocab; ++i) offer(i);
    if (static_cast<int>(values_.size()) < k) return -INFINITY;
    return values_.front();
  }
  for (int i = 0; i < vocab; ++i) {
    if (w[i] > 0.0f && w[i] >= cut.min_w) values_.push_back(scaled[i]);
  }
  if (static_cast<int>(values_.size()) <= k) return -INFINITY;
  std::nth_element(values_.begin(), values_.begin() + (k - 1), values_.end(), std::greater<>());
  return values_[k - 1];
}

void TokenSelector::CutTopP(const float* scaled, int vocab, float max_logit, float top_p,
                            bool small_top_k, Cut* cut) {
  const float* w = weights_.data();
  // Survivors of min-p and top-k (top-k keeps its ties, so no id in the cut yet).
  auto alive = [&](int i) {
    return w[i] > 0.0f && w[i] >= cut->min_w && scaled[i] >= cut->cut_logit;
  };
  // Walks `keys_` best first from `before` (the mass ranked above them) and cuts at the first
  // token whose inclusion reaches `target`; the last one when rounding never reaches it.
  auto cut_in_keys = [&](double before, double target) {
    std::sort(keys_.begin(), keys_.end(), std::greater<>());
    uint64_t last = keys_.back();
    for (uint64_t key : keys_) {
      before += w[KeyId(key)];
      if (before >= target) {
        last = key;
        break;
      }
    }
    cut->cut_logit = scaled[KeyId(last)];
    cut->cut_id = KeyId(last);
  };

  keys_.clear();
  if (small_top_k) {
    double mass = 0;
    for (int i = 0; i < vocab; ++i) {
      if (alive(i)) {
        keys_.push_back(RankKey(scaled[i], i));
        mass += w[i];
      }
    }
    cut_in_keys(0.0, static_cast<double>(top_p) * mass);
    return;
  }

  // Histogram of the survivors' mass by distance from the max logit; the bucket where the
  // running mass reaches top_p holds the cut, and only that bucket is sorted.
  const float scale = kBuckets / kHistogramRange;
  auto bucket = [&](int i) {
    const float d = (max_logit - scaled[i]) * scale;
    return d < static_cast<float>(kBuckets - 1) ? static_cast<int>(d) : kBuckets - 1;
  };
  bucket_mass_.assign(kBuckets, 0.0);
  for (int i = 0; i < vocab; ++i) {
    if (alive(i)) bucket_mass_[bucket(i)] += w[i];
  }
  double total = 0;
  for (double m : bucket_mass_) total += m;
  const double target = static_cast<double>(top_p) * total;
  double before = 0;
  int boundary = 0;
  for (int b = 0; b < kBuckets; ++b) {
    if (bucket_mass_[b] == 0) continue;
    boundary = b;
    if (before + bucket_mass_[b] >= target) break;
    before += bucket_mass_[b];
  }
  for (int i = 0; i < vocab; ++i) {
    if (alive(i) && bucket(i) == boundary) keys_.push_back(RankKey(scaled[i], i));
  }
  cut_in_keys(before, target);
}

int32_t TokenSelector::Draw(const float* scaled, int vocab, const Cut& cut, double u) {
  const float* w = weights_.data();
  const float min_w = cut.min_w, cut_logit = cut.cut_logit;
  const int32_t cut_id = cut.cut_id;
  auto kept_weight = [&](int i) {
    const bool kept = w[i] > 0.0f && w[i] >= min_w &&
                      (scaled[i] > cut_logit || (scaled[i] == cut_logit && i <= cut_id));
    return kept ? w[i] : 0.0f;
  };
  // Kept mass per block (a branch-free loop that vectorizes), then the total in block order.
  const int blocks = (vocab + kDrawBlock - 1) / kDrawBlock;
  block_mass_.resize(blocks);
  double total = 0;
  for (int b = 0; b < blocks; ++b) {
    const int end = std::min(vocab, (b + 1) * kDrawBlock);
    double lanes[8] = {};
    int i = b * kDrawBlock;
    for (; i + 8 <= end; i += 8) {
      for (int j = 0; j < 8; ++j) lanes[j] += kept_weight(i + j);
    }
    for (; i < end; ++i) lanes[0] += kept_weight(i);
    double sum = 0;
    for (double lane : lanes) sum += lane;
    block_mass_[b] = sum;
    total += sum;
  }
  // Inverse CDF in id order: skip whole blocks, then scan one. The running sum must strictly
  // exceed the target, so a zero-weight token is never picked.
  const double target = u * total;
  double cumulative = 0;
  int32_t last = -1;
  for (int b = 0; b < blocks; ++b) {
    if (block_mass_[b] == 0) continue;
    if (cumulative + block_mass_[b] <= target) {
      cumulative += block_mass_[b];
      continue;
    }
    const int end = std::min(vocab, (b + 1) * kDrawBlock);
    for (int i = b * kDrawBlock; i < end; ++i) {
      const float weight = kept_weight(i);
      if (weight == 0.0f) continue;
      cumulative += weight;
      last = i;
      if (cumulative > target) return i;
    }
  }
  if (last >= 0) return last;  // rounding left the target unreached: the last kept token
  for (int i = vocab - 1; i >= 0; --i) {
    if (kept_weight(i) > 0.0f) return i;
  }
  return ArgMax(scaled, vocab);
}

}  // namespace strata::sampling
