// Passes over a whole vocabulary row (~152k floats): max, argmax and sum of exponentials. They
// are the only O(vocab) work of a sampling step besides the copy of the logits, so they are
// written as plain C++ in fixed-width lanes that the compiler vectorizes (no intrinsics: only
// backend/ knows SIMD). Thread-safe (pure functions).
#pragma once

#include <bit>
#include <cstdint>

namespace strata::sampling {

// Largest value of x[0, n); -inf when n == 0 or all are -inf. NaN entries are skipped.
float MaxValue(const float* x, int n);

// Lowest index holding the largest value (torch.argmax's tie rule); 0 when nothing beats -inf.
// NaN entries are skipped.
int32_t ArgMax(const float* x, int n);

// Whether any x[i] > threshold for i in [0, n) (NaN is not); vectorizes for a constant n.
inline bool AnyGreater(const float* x, int n, float threshold) {
  int any = 0;
  for (int i = 0; i < n; ++i) any |= x[i] > threshold;
  return any != 0;
}

// exp(v) for v <= 0 (v - max of a row), within 2 ulp of std::exp; exactly 0 for v < -87
// (including -inf) and for NaN, so masked tokens get weight 0. Branch-free so it vectorizes.
inline float ExpNonPositive(float v) {
  // Cephes expf: exp(v) = 2^k * exp(r), k = round(v / ln 2), r = v - k ln 2 in [-ln2/2, ln2/2],
  // exp(r) by a degree-6 polynomial. Rounding uses the 1.5 * 2^23 trick (no libm call, so the
  // loop vectorizes without -ffast-math).
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;   // 1.5 * 2^23
  const bool underflow = !(v >= -87.0f);  // also NaN
  const float clamped = underflow ? -87.0f : v;
  const float biased = clamped * kLog2e + kRound;
  const float k = biased - kRound;
  float r = clamped - k * kLn2Hi;
  r = r - k * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * r * r + r + 1.0f;
  // 2^k from the exponent bits; k in [-126, 0] here, so the result stays normal.
  const int32_t k_int = std::bit_cast<int32_t>(biased) - std::bit_cast<int32_t>(kRound);
  const float scale = std::bit_cast<float>((k_int + 127) << 23);
  return underflow ? 0.0f : er * scale;
}

// Returns sum_i exp(x[i] - shift) accumulated in double; when out != nullptr also stores each
// term as float.  x, out: [n]; REQUIRES: shift >= every x[i].
double SumExpShifted(const float* x, int n, float shift, float* out);

}  // namespace strata::sampling
