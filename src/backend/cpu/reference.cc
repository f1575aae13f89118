// Scalar reference implementations (see reference.h).
#include "backend/cpu/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "strata/half.h"

namespace strata::cpu::reference {

std::vector<float> Dequantize(const Tensor& w) {
  const int64_t count = w.NumElements();
  std::vector<float> out(count);
  switch (w.dtype) {
    case DType::kF32:
      std::memcpy(out.data(), w.data, count * sizeof(float));
      break;
    case DType::kF16:
      for (int64_t i = 0; i < count; ++i)
        out[i] = F16ToF32(static_cast<const uint16_t*>(w.data)[i]);
      break;
    case DType::kBF16:
      for (int64_t i = 0; i < count; ++i)
        out[i] = Bf16ToF32(static_cast<const uint16_t*>(w.data)[i]);
      break;
    case DType::kQ8_0: {
      const auto* blocks = static_cast<const BlockQ8_0*>(w.data);
      for (int64_t i = 0; i < count; ++i) {
        const BlockQ8_0& b = blocks[i / kQ8BlockSize];
        out[i] = F16ToF32(b.scale_f16) * b.q[i % kQ8BlockSize];
      }
      break;
    }
    default:
      break;
  }
  return out;
}

void MatMul(const float* x, int m, int k, const float* w, int n, const float* bias, float* y) {
  for (int r = 0; r < m; ++r) {
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int i = 0; i < k; ++i)
        s += static_cast<double>(x[int64_t{r} * k + i]) * w[int64_t{j} * k + i];
      if (bias != nullptr) s += bias[j];
      y[int64_t{r} * n + j] = static_cast<float>(s);
    }
  }
}

void MatMulQ8_0(const float* x, int m, const Tensor& w, const float* bias, float* y) {
  const int n = static_cast<int>(w.shape[0]);
  const int k = static_cast<int>(w.shape[1]);
  const int nb = k / kQ8BlockSize;
  const auto* wb = static_cast<const BlockQ8_0*>(w.data);
  std::vector<int> xq(k);
  std::vector<double> xd(nb);
  for (int r = 0; r < m; ++r) {
    const float* xr = x + int64_t{r} * k;
    for (int b = 0; b < nb; ++b) {
      float amax = 0;
      for (int i = 0; i < kQ8BlockSize; ++i)
        amax = std::max(amax, std::fabs(xr[b * kQ8BlockSize + i]));
      const float d = amax / 127.0f;
      const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
      xd[b] = F16ToF32(F32ToF16(d));
      for (int i = 0; i < kQ8BlockSize; ++i) {
        xq[b * kQ8BlockSize + i] = static_cast<int>(std::nearbyint(xr[b * kQ8BlockSize + i] * id));
      }
    }
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int b = 0; b < nb; ++b) {
        const BlockQ8_0& blk = wb[int64_t{j} * nb + b];
        int dot = 0;
        for (int i = 0; i < kQ8BlockSize; ++i) dot += xq[b * kQ8BlockSize + i] * blk.q[i];
        s += xd[b] * F16ToF32(blk.scale_f16) * dot;
      }
      if (bias != nullptr) s += bias[j];
      y[int64_t{r} * n + j] = static_cast<float>(s);
    }
  }
}

void RmsNorm(const float* x, const float* weight, int rows, int dim, float eps, float* out) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + int64_t{r} * dim;
    double ss = 0;
    for (int i = 0; i < dim; ++i) ss += static_cast<double>(xr[i]) * xr[i];
    const double inv = 1.0 / std::sqrt(ss / dim + eps);
    for (int i = 0; i < dim; ++i)
      out[int64_t{r} * dim + i] = static_cast<float>(xr[i] * inv * weight[i]);
  }
}

void SiluMul(const float* gate, const float* up, int rows, int inter, float* out) {
  for (int64_t i = 0; i < int64_t{rows} * inter; ++i) {
    const double g = gate[i];
    out[i] = static_cast<float>(g / (1.0 + std::exp(-g)) * up[i]);
  }
}

void LogSoftmax(const float* logits, int vocab, float* out) {
  double mx = -INFINITY;
  for (int i = 0; i < vocab; ++i) mx = std::max(mx, static_cast<double>(logits[i]));
  double sum = 0;
  for (int i = 0; i < vocab; ++i) sum += std::exp(logits[i] - mx);
  const double shift = mx + std::log(sum);
  for (int i = 0; i < vocab; ++i) out[i] = static_cast<float>(logits[i] - shift);
}

std::vector<double> RopeInvFreq(const ModelSpec& spec) {
  const int dim = spec.head_dim;
  std::vector<double> f(dim / 2);
  for (int i = 0; i < dim / 2; ++i) f[i] = 1.0 / std::pow(double{spec.rope_theta}, 2.0 * i / dim);
  const RopeScaling& s = spec.rope_scaling;
  if (s.kind == RopeScaling::Kind::kLinear) {
    for (double& v : f) v /= s.factor;
  } else if (s.kind == RopeScaling::Kind::kLlama3) {
    const double low_wavelen = s.original_max_position_embeddings / double{s.low_freq_factor};
    const double high_wavelen = s.original_max_position_embeddings / double{s.high_freq_factor};
    for (double& v : f) {
      const double wavelen = 2 * M_PI / v;
      if (wavelen < high_wavelen) continue;  // high frequency: unchanged
      if (wavelen > low_wavelen) {           // low frequency: divided by factor
        v /= s.factor;
        continue;
      }
      const double smooth = (s.original_max_position_embeddings / wavelen - s.low_freq_factor) /
                            (s.high_freq_factor - s.low_freq_factor);
      v = (1 - smooth) * v / s.factor + smooth * v;
    }
  }
  return f;
}

void Rope(float* x, int tokens, int heads, int head_dim, int64_t token_stride,
          const int32_t* positions, const float* inv_freq, RopeLayout layout) {
  const int half = head_dim / 2;
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < heads; ++h) {
      float* v = x + t * token_stride + int64_t{h} * head_dim;
      for (int i = 0; i < half; ++i) {
        // The angle is rounded to f32 as in HF (f32 positions times f32 inv_freq); the rest
        // is double.
        const double angle = static_cast<float>(positions[t]) * inv_freq[i];
        const double c = std::cos(angle), s = std::sin(angle);
        const int i1 = layout == RopeLayout::kNeox ? i : 2 * i;
        const int i2 = layout == RopeLayout::kNeox ? i + half : 2 * i + 1;
        const double x1 = v[i1], x2 = v[i2];
        v[i1] = static_cast<float>(x1 * c - x2 * s);
        v[i2] = static_cast<float>(x2 * c + x1 * s);
      }
    }
  }
}

void PagedAttention(const float* q, int64_t q_stride, const AttentionSeq* seqs, int num_seqs,
                    int num_heads, int num_kv_heads, int head_dim, int block_size, int window,
                    float scale, PagedKvLayer layer, float* out) {
  const int g = num_heads / num_kv_heads;
  for (int si = 0; si < num_seqs; ++si) {
    const AttentionSeq& sq = seqs[si];
    for (int i = 0; i < sq.query_len; ++i) {
      const int pos = sq.context_len - sq.query_len + i;
      const int64_t row = sq.query_start + i;
      const int lo = window > 0 ? std::max(0, pos - window + 1) : 0;
      for (int h = 0; h < num_heads; ++h) {
        const int kvh = h / g;
        const float* qv = q + row * q_stride + int64_t{h} * head_dim;
        auto addr = [&](int p) {
          const int64_t blk = sq.block_table[p / block_size];
          return ((blk * num_kv_heads + kvh) * block_size + p % block_size) * head_dim;
        };
        auto load = [&](const void* base, int64_t i) -> double {
          switch (layer.dtype) {
            case DType::kBF16:
              return Bf16ToF32(static_cast<const uint16_t*>(base)[i]);
            case DType::kF16:
              return F16ToF32(static_cast<const uint16_t*>(base)[i]);
            default:
              return static_cast<const float*>(base)[i];
          }
        };
        std::vector<double> sc(pos + 1 - lo);
        double mx = -INFINITY;
        for (int p = lo; p <= pos; ++p) {
          double d = 0;
          for (int e = 0; e < head_dim; ++e)
            d += static_cast<double>(qv[e]) * load(layer.k, addr(p) + e);
          sc[p - lo] = d * scale;
          mx = std::max(mx, sc[p - lo]);
        }
        double sum = 0;
        for (double& v : sc) sum += (v = std::exp(v - mx));
        for (int e = 0; e < head_dim; ++e) {
          double acc = 0;
          for (int p = lo; p <= pos; ++p) acc += sc[p - lo] * load(layer.v, addr(p) + e);
          out[row * num_heads * head_dim + int64_t{h} * head_dim + e] =
              static_cast<float>(acc / sum);
        }
      }
    }
  }
}

}  // namespace strata::cpu::reference
