// Rotary position embedding: inverse frequencies (with linear / llama3 scaling) and the
// in-place rotation of q/k heads in both pairings (NeoX half-split and GGML's interleaved).
//
// Numerics follow Hugging Face transformers, which computes everything in f32:
//   inv_freq[i] = 1 / theta ** (f32(2i) / dim)                (_compute_default_rope_parameters)
//   angle = f32(position) * inv_freq[i]; cos/sin in f32        (LlamaRotaryEmbedding.forward)
// HF's f32 tensor ops with Python scalars round the scalar to f32 first; we do the same, and
// the library is built with -ffp-contract=off so no step is fused differently. (llama.cpp
// instead raises theta_scale to successive powers and, for llama3, stores precomputed
// frequency factors in the GGUF; its angles may differ from these in the last bits.)
#include <immintrin.h>

#include <cassert>
#include <cmath>
#include <vector>

#include "backend/cpu/ops.h"

namespace strata::cpu {

void ComputeRopeInvFreq(const ModelSpec& spec, float* inv_freq) {
  const int dim = spec.head_dim;
  const int half = dim / 2;
  const float theta = spec.rope_theta;
  for (int i = 0; i < half; ++i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(dim);
    inv_freq[i] = 1.0f / std::pow(theta, exponent);
  }
  const RopeScaling& s = spec.rope_scaling;
  switch (s.kind) {
    case RopeScaling::Kind::kNone:
      break;
    case RopeScaling::Kind::kLinear:
      // HF _compute_linear_scaling_rope_parameters: inv_freq /= factor.
      for (int i = 0; i < half; ++i) inv_freq[i] /= s.factor;
      break;
    case RopeScaling::Kind::kLlama3: {
      // HF _compute_llama3_parameters, step by step. The wavelength bounds are Python floats
      // (double) compared with f32 tensors: torch rounds them to f32 first.
      const float factor = s.factor;
      const float low_freq_factor = s.low_freq_factor;
      const float high_freq_factor = s.high_freq_factor;
      const double old_context_len = s.original_max_position_embeddings;
      const float low_freq_wavelen = static_cast<float>(old_context_len / s.low_freq_factor);
      const float high_freq_wavelen = static_cast<float>(old_context_len / s.high_freq_factor);
      const float two_pi = static_cast<float>(2.0 * M_PI);
      const float factor_span = static_cast<float>(static_cast<double>(high_freq_factor) -
                                                   static_cast<double>(low_freq_factor));
      for (int i = 0; i < half; ++i) {
        const float f = inv_freq[i];
        const float wavelen = two_pi / f;
        float out = wavelen > low_freq_wavelen ? f / factor : f;
        const float smooth =
            (static_cast<float>(old_context_len) / wavelen - low_freq_factor) / factor_span;
        const float smoothed = (1.0f - smooth) * out / factor + smooth * out;
        const bool is_medium = !(wavelen < high_freq_wavelen) && !(wavelen > low_freq_wavelen);
        if (is_medium) out = smoothed;
        inv_freq[i] = out;
      }
      break;
    }
  }
}

void Rope(float* x, int tokens, int heads, int head_dim, int64_t token_stride,
          const int32_t* positions, const float* inv_freq, RopeLayout layout) {
  assert(head_dim % 2 == 0);
  const int half = head_dim / 2;
  // cos/sin once per token, shared by all heads.
  thread_local std::vector<float> cos_sin;
  cos_sin.resize(2 * static_cast<size_t>(half));
  float* cs = cos_sin.data();
  float* sn = cs + half;
  for (int t = 0; t < tokens; ++t) {
    const float pos = static_cast<float>(positions[t]);
    for (int i = 0; i < half; ++i) {
      const float angle = pos * inv_freq[i];
      cs[i] = std::cos(angle);
      sn[i] = std::sin(angle);
    }
    for (int h = 0; h < heads; ++h) {
      float* v = x + t * token_stride + static_cast<int64_t>(h) * head_dim;
      if (layout == RopeLayout::kNeox) {
        // HF: out = x * cos + rotate_half(x) * sin, rotate_half(x) = (-x2, x1).
        int i = 0;
        for (; i + 8 <= half; i += 8) {
          const __m256 x1 = _mm256_loadu_ps(v + i);
          const __m256 x2 = _mm256_loadu_ps(v + half + i);
          const __m256 c = _mm256_loadu_ps(cs + i);
          const __m256 s = _mm256_loadu_ps(sn + i);
          _mm256_storeu_ps(v + i, _mm256_sub_ps(_mm256_mul_ps(x1, c), _mm256_mul_ps(x2, s)));
          _mm256_storeu_ps(v + half + i, _mm256_add_ps(_mm256_mul_ps(x2, c), _mm256_mul_ps(x1, s)));
        }
        for (; i < half; ++i) {
          const float x1 = v[i];
          const float x2 = v[half + i];
          v[i] = x1 * cs[i] - x2 * sn[i];
          v[half + i] = x2 * cs[i] + x1 * sn[i];
        }
      } else {
        // Interleaved pairs (2i, 2i + 1); same arithmetic per pair.
        for (int i = 0; i < half; ++i) {
          const float x1 = v[2 * i];
          const float x2 = v[2 * i + 1];
          v[2 * i] = x1 * cs[i] - x2 * sn[i];
          v[2 * i + 1] = x2 * cs[i] + x1 * sn[i];
        }
      }
    }
  }
}

}  // namespace strata::cpu
