// Q8_0 quantization and dequantization (AVX2).
#include "backend/cpu/quantize.h"

#include <immintrin.h>

#include <cassert>
#include <cstring>

#include "strata/half.h"

namespace strata::cpu {
namespace {

// Quantizes one 32-block; returns the f16-rounded scale as f32. Mirrors llama.cpp's AVX2
// quantize_row_q8_0: d = amax / 127 is stored as f16 while the values are scaled by
// 127 / amax in f32 and rounded to nearest-even.
float QuantizeBlock(const float* x, int8_t* q, uint16_t* scale_f16) {
  __m256 v[4];
  __m256 amax = _mm256_setzero_ps();
  const __m256 sign_mask = _mm256_set1_ps(-0.0f);
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm256_loadu_ps(x + 8 * i);
    amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign_mask, v[i]));
  }
  __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
  m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
  m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
  const float max_scalar = _mm_cvtss_f32(m4);
  const float d = max_scalar / 127.0f;
  const uint16_t d16 = F32ToF16(d);
  *scale_f16 = d16;
  const __m256 mul = _mm256_set1_ps(max_scalar != 0.0f ? 127.0f / max_scalar : 0.0f);
  __m256i i32[4];
  for (int i = 0; i < 4; ++i) {
    i32[i] = _mm256_cvtps_epi32(
        _mm256_round_ps(_mm256_mul_ps(v[i], mul), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  // Pack 32-bit -> 16-bit -> 8-bit; packs interleave 128-bit lanes, the permute undoes that.
  __m256i i16a = _mm256_packs_epi32(i32[0], i32[1]);
  __m256i i16b = _mm256_packs_epi32(i32[2], i32[3]);
  __m256i i8 = _mm256_packs_epi16(i16a, i16b);
  i8 = _mm256_permutevar8x32_epi32(i8, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), i8);
  return F16ToF32(d16);
}

}  // namespace

void QuantizeRowQ8_0(const float* x, int64_t k, BlockQ8_0* out) {
  assert(k % kQ8BlockSize == 0);
  for (int64_t b = 0; b < k / kQ8BlockSize; ++b) {
    QuantizeBlock(x + b * kQ8BlockSize, out[b].q, &out[b].scale_f16);
  }
}

void DequantizeRowQ8_0(const BlockQ8_0* blocks, int64_t k, float* out) {
  assert(k % kQ8BlockSize == 0);
  for (int64_t b = 0; b < k / kQ8BlockSize; ++b) {
    const __m256 d = _mm256_set1_ps(F16ToF32(blocks[b].scale_f16));
    for (int i = 0; i < kQ8BlockSize; i += 8) {
      __m128i q8 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(blocks[b].q + i));
      __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q8));
      _mm256_storeu_ps(out + b * kQ8BlockSize + i, _mm256_mul_ps(d, f));
    }
  }
}

void QuantizeActivationsQ8_0(const float* x, int rows, int k, int8_t* q, float* scale) {
  assert(k % kQ8BlockSize == 0);
  const int blocks = k / kQ8BlockSize;
  for (int r = 0; r < rows; ++r) {
    for (int b = 0; b < blocks; ++b) {
      uint16_t d16;
      const int64_t off = static_cast<int64_t>(r) * k + b * kQ8BlockSize;
      scale[static_cast<int64_t>(r) * blocks + b] = QuantizeBlock(x + off, q + off, &d16);
    }
  }
}

}  // namespace strata::cpu
