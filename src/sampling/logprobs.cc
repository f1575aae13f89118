#include "sampling/logprobs.h"

#include <cmath>
#include <limits>

#include "sampling/vocab_reductions.h"

namespace strata::sampling {
namespace {

constexpr int kBlock = 64;  // tokens skipped at once when none can enter the list

}  // namespace

LogSoftmaxNorm ComputeLogSoftmaxNorm(const float* logits, int vocab) {
  LogSoftmaxNorm norm;
  norm.max = MaxValue(logits, vocab);
  if (std::isinf(norm.max)) {
    // All -inf (or a +inf logit): no finite shift exists; logprobs become -inf / NaN as in torch.
    norm.log_sum_exp = 0;
    return norm;
  }
  norm.log_sum_exp = std::log(SumExpShifted(logits, vocab, norm.max, nullptr));
  return norm;
}

void TopLogprobs(const float* logits, int vocab, int n, const LogSoftmaxNorm& norm,
                 std::vector<std::pair<int32_t, float>>* top) {
  top->clear();
  if (n <= 0) return;
  // (logit, id) kept sorted best first. A later token (higher id) enters only when strictly
  // greater than the current last entry, and is placed after equal logits: ties favour lower ids.
  top->reserve(n);
  float worst = -std::numeric_limits<float>::infinity();
  int size = 0;
  auto offer = [&](int i) {
    const float v = logits[i];
    if (size == n ? !(v > worst) : !(v >= -std::numeric_limits<float>::infinity())) return;
    int pos = size == n ? n - 1 : size;  // slot to fill, then bubble up
    if (size < n) {
      top->emplace_back(i, v);
      ++size;
    } else {
      (*top)[pos] = {i, v};
    }
    while (pos > 0 && (*top)[pos - 1].second < v) {
      std::swap((*top)[pos - 1], (*top)[pos]);
      --pos;
    }
    if (size == n) worst = (*top)[n - 1].second;
  };
  // Once the buffer is full almost no token beats its worst entry: skip blocks whose max
  // (a vectorized reduction) does not.
  int i = 0;
  for (; i < n && i < vocab; ++i) offer(i);
  for (; i + kBlock <= vocab; i += kBlock) {
    if (size == n && !AnyGreater(logits + i, kBlock, worst)) continue;
    for (int j = i; j < i + kBlock; ++j) offer(j);
  }
  for (; i < vocab; ++i) offer(i);
  for (auto& [id, value] : *top) value = norm.Logprob(value);
}

}  // namespace strata::sampling
