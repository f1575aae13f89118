#include "model/weight_convert.h"

#include <cmath>
#include <cstring>

#include "strata/half.h"

namespace strata {

std::vector<float> ToF32(const Tensor& t) {
  const int64_t n = t.NumElements();
  std::vector<float> out(n);
  switch (t.dtype) {
    case DType::kF32:
      std::memcpy(out.data(), t.data, n * 4);
      break;
    case DType::kF16: {
      const uint16_t* p = static_cast<const uint16_t*>(t.data);
      for (int64_t i = 0; i < n; ++i) out[i] = F16ToF32(p[i]);
      break;
    }
    case DType::kBF16: {
      const uint16_t* p = static_cast<const uint16_t*>(t.data);
      for (int64_t i = 0; i < n; ++i) out[i] = Bf16ToF32(p[i]);
      break;
    }
    case DType::kQ8_0: {
      const BlockQ8_0* b = static_cast<const BlockQ8_0*>(t.data);
      for (int64_t i = 0; i < n / kQ8BlockSize; ++i) {
        BlockQ8_0 blk;
        std::memcpy(&blk, b + i, sizeof(blk));
        const float d = F16ToF32(blk.scale_f16);
        for (int j = 0; j < kQ8BlockSize; ++j) out[i * kQ8BlockSize + j] = d * blk.q[j];
      }
      break;
    }
    case DType::kI32: {
      const int32_t* p = static_cast<const int32_t*>(t.data);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
      break;
    }
  }
  return out;
}

void FromF32(const float* src, int64_t n, DType dtype, void* dst) {
  switch (dtype) {
    case DType::kF32:
      std::memcpy(dst, src, n * 4);
      break;
    case DType::kF16: {
      uint16_t* p = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) p[i] = F32ToF16(src[i]);
      break;
    }
    case DType::kBF16: {
      uint16_t* p = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) p[i] = F32ToBf16(src[i]);
      break;
    }
    case DType::kQ8_0:
      QuantizeQ8_0(src, n, static_cast<BlockQ8_0*>(dst));
      break;
    case DType::kI32:
      break;
  }
}

void QuantizeQ8_0(const float* src, int64_t n, BlockQ8_0* dst) {
  for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
    const float* x = src + b * kQ8BlockSize;
    float amax = 0.0f;
    for (int j = 0; j < kQ8BlockSize; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    BlockQ8_0 blk;
    blk.scale_f16 = F32ToF16(d);
    for (int j = 0; j < kQ8BlockSize; ++j) blk.q[j] = static_cast<int8_t>(std::roundf(x[j] * id));
    std::memcpy(dst + b, &blk, sizeof(blk));
  }
}

namespace {

// Row h*head_dim + t*half + j of HF's layout is row h*head_dim + 2j + t of llama.cpp's (the
// converter's LlamaModel.permute); the two directions copy along the same pairing.
void PairRows(const void* src, int64_t rows, size_t row_bytes, int head_dim, void* dst,
              bool hf_to_gguf) {
  const uint8_t* s = static_cast<const uint8_t*>(src);
  uint8_t* d = static_cast<uint8_t*>(dst);
  const int half = head_dim / 2;
  for (int64_t h = 0; h < rows / head_dim; ++h) {
    for (int j = 0; j < half; ++j) {
      for (int t = 0; t < 2; ++t) {
        const int64_t gguf_row = h * head_dim + 2 * j + t;
        const int64_t hf_row = h * head_dim + t * half + j;
        const int64_t from = hf_to_gguf ? hf_row : gguf_row;
        const int64_t to = hf_to_gguf ? gguf_row : hf_row;
        std::memcpy(d + to * row_bytes, s + from * row_bytes, row_bytes);
      }
    }
  }
}

}  // namespace

void PermuteRowsHfToGguf(const void* src, int64_t rows, size_t row_bytes, int head_dim, void* dst) {
  PairRows(src, rows, row_bytes, head_dim, dst, /*hf_to_gguf=*/true);
}

void UnpermuteRowsGgufToHf(const void* src, int64_t rows, size_t row_bytes, int head_dim,
                           void* dst) {
  PairRows(src, rows, row_bytes, head_dim, dst, /*hf_to_gguf=*/false);
}

std::vector<float> Llama3RopeFactors(const ModelSpec& spec) {
  // Mirrors LlamaModel.generate_extra_tensors in convert_hf_to_gguf.py (float32 like torch).
  const RopeScaling& rs = spec.rope_scaling;
  const int dim = spec.head_dim;
  const float base = spec.rope_theta;
  const float factor = rs.factor;
  const float low = rs.low_freq_factor, high = rs.high_freq_factor;
  const float old_context_len = static_cast<float>(rs.original_max_position_embeddings);
  const float low_freq_wavelen = old_context_len / low;
  const float high_freq_wavelen = old_context_len / high;
  std::vector<float> factors(dim / 2);
  for (int i = 0; i < dim / 2; ++i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(dim);
    const float freq = 1.0f / std::pow(base, exponent);
    const float wavelen = 2.0f * static_cast<float>(M_PI) / freq;
    if (wavelen < high_freq_wavelen) {
      factors[i] = 1.0f;
    } else if (wavelen > low_freq_wavelen) {
      factors[i] = factor;
    } else {
      const float smooth = (old_context_len / wavelen - low) / (high - low);
      factors[i] = 1.0f / ((1.0f - smooth) / factor + smooth);
    }
  }
  return factors;
}

}  // namespace strata
