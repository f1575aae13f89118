// Small AVX2/FMA/F16C helpers shared by the CPU kernels (internal to backend/cpu).
//
// Everything that fixes a reduction order lives here (HorizontalSum), so all kernels that must
// agree bitwise (GEMV and GEMM, or one attention tile and another) use literally the same code.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace strata::cpu::simd {

// Sum of the 8 lanes in a fixed order: (l0+l4, l1+l5, l2+l6, l3+l7), then pairs, then the last
// two. Every kernel that reduces 8-lane accumulators uses this one order.
inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float HorizontalMax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// 8 bf16 values to f32: bf16 is the top half of an f32, so this is a zero-extend and a shift.
inline __m256 LoadBf16(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

inline __m256 LoadF16(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// e^x for 8 lanes (Cephes expf: range reduction by ln 2 and a degree-6 polynomial), about 2 ulp
// over the clamped range. Inputs below -87.3 give ~1e-38 rather than 0, which no softmax sum
// can notice; callers that need exact zeros (masked lanes) must not rely on this.
inline __m256 Exp(__m256 x) {
  x = _mm256_min_ps(x, _mm256_set1_ps(88.3762626647949f));
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.3365447504f));
  __m256 fx = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f));
  fx = _mm256_floor_ps(fx);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
  __m256 y = _mm256_set1_ps(1.9875691500e-4f);
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507e-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073e-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894e-2f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459e-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 x2 = _mm256_mul_ps(x, x);
  y = _mm256_fmadd_ps(y, x2, _mm256_add_ps(x, _mm256_set1_ps(1.0f)));
  __m256i n = _mm256_cvttps_epi32(fx);
  n = _mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(y, _mm256_castsi256_ps(n));
}

// Scalar e^x with exactly the lane arithmetic of Exp (for tails, so a value never depends on
// whether it fell in a full vector or a tail).
inline float ExpScalar(float x) { return _mm256_cvtss_f32(Exp(_mm256_set1_ps(x))); }

}  // namespace strata::cpu::simd
