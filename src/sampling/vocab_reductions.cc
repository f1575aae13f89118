#include "sampling/vocab_reductions.h"

#include <limits>

namespace strata::sampling {
namespace {

constexpr int kLanes = 8;  // one AVX2 register of floats

}  // namespace

float MaxValue(const float* x, int n) {
  // 32 lanes = four independent max chains, so the loop is not bound by vmaxps latency.
  constexpr int kMaxLanes = 32;
  float lanes[kMaxLanes];
  for (float& lane : lanes) lane = -std::numeric_limits<float>::infinity();
  int i = 0;
  for (; i + kMaxLanes <= n; i += kMaxLanes) {
    // `a > b ? a : b` keeps b when a is NaN: NaN never enters a lane (and maps to maxps).
    for (int j = 0; j < kMaxLanes; ++j) lanes[j] = x[i + j] > lanes[j] ? x[i + j] : lanes[j];
  }
  for (; i < n; ++i) lanes[0] = x[i] > lanes[0] ? x[i] : lanes[0];
  float m = lanes[0];
  for (int j = 1; j < kMaxLanes; ++j) m = lanes[j] > m ? lanes[j] : m;
  return m;
}

int32_t ArgMax(const float* x, int n) {
  // One pass: each lane keeps its best value and the first index holding it (strict >), so
  // the lowest index among the lanes that hold the overall max is the first occurrence.
  float best[kLanes];
  int32_t index[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    best[j] = -std::numeric_limits<float>::infinity();
    index[j] = 0;
  }
  int i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const bool better = x[i + j] > best[j];
      best[j] = better ? x[i + j] : best[j];
      index[j] = better ? i + j : index[j];
    }
  }
  for (; i < n; ++i) {
    if (x[i] > best[0]) {
      best[0] = x[i];
      index[0] = i;
    }
  }
  float m = best[0];
  int32_t arg = index[0];
  for (int j = 1; j < kLanes; ++j) {
    if (best[j] > m || (best[j] == m && index[j] < arg)) {
      m = best[j];
      arg = index[j];
    }
  }
  return arg;
}

double SumExpShifted(const float* x, int n, float shift, float* out) {
  // Exponentials of a block into `terms` (a straight loop the compiler vectorizes), then a
  // double-precision sum in kLanes partial sums (fixed order: the result depends only on n).
  constexpr int kBlock = 512;
  float block[kBlock];
  double lanes[kLanes] = {};
  for (int start = 0; start < n; start += kBlock) {
    const int len = n - start < kBlock ? n - start : kBlock;
    float* terms = out != nullptr ? out + start : block;
    const float* xs = x + start;
    for (int i = 0; i < len; ++i) terms[i] = ExpNonPositive(xs[i] - shift);
    int i = 0;
    for (; i + kLanes <= len; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(terms[i + j]);
    }
    for (; i < len; ++i) lanes[0] += static_cast<double>(terms[i]);
  }
  double sum = 0.0;
  for (double lane : lanes) sum += lane;
  return sum;
}

}  // namespace strata::sampling
