// RmsNorm and the fused residual-add + RmsNorm.
//
// Computed in f32 like Hugging Face's LlamaRMSNorm (mean of squares, then x * rsqrt(mean + eps),
// then * weight), with the sum of squares reduced in 8 lanes + simd::HorizontalSum + a scalar
// tail: fixed per row, so rows never influence each other.
#include <immintrin.h>

#include <cmath>

#include "backend/cpu/ops.h"
#include "backend/cpu/simd.h"

namespace strata::cpu {
namespace {

float InverseRms(const float* x, int dim, float eps) {
  __m256 acc = _mm256_setzero_ps();
  int i = 0;
  for (; i + 8 <= dim; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    acc = _mm256_fmadd_ps(v, v, acc);
  }
  float ss = simd::HorizontalSum(acc);
  for (; i < dim; ++i) ss = std::fma(x[i], x[i], ss);
  // 1 / sqrt, not the rsqrt approximation: one division per row costs nothing.
  return 1.0f / std::sqrt(ss / static_cast<float>(dim) + eps);
}

void ScaleRow(const float* x, const float* weight, int dim, float inv, float* out) {
  const __m256 vinv = _mm256_set1_ps(inv);
  int i = 0;
  for (; i + 8 <= dim; i += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i), vinv);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(v, _mm256_loadu_ps(weight + i)));
  }
  for (; i < dim; ++i) out[i] = (x[i] * inv) * weight[i];
}

}  // namespace

void RmsNorm(const float* x, const float* weight, int rows, int dim, float eps, float* out) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<int64_t>(r) * dim;
    ScaleRow(xr, weight, dim, InverseRms(xr, dim, eps), out + static_cast<int64_t>(r) * dim);
  }
}

void AddRmsNorm(float* x, const float* residual, const float* weight, int rows, int dim, float eps,
                float* out) {
  for (int r = 0; r < rows; ++r) {
    float* xr = x + static_cast<int64_t>(r) * dim;
    const float* rr = residual + static_cast<int64_t>(r) * dim;
    int i = 0;
    for (; i + 8 <= dim; i += 8) {
      _mm256_storeu_ps(xr + i, _mm256_add_ps(_mm256_loadu_ps(xr + i), _mm256_loadu_ps(rr + i)));
    }
    for (; i < dim; ++i) xr[i] += rr[i];
    ScaleRow(xr, weight, dim, InverseRms(xr, dim, eps), out + static_cast<int64_t>(r) * dim);
  }
}

}  // namespace strata::cpu
