// Embedding: gathers rows of an embedding table of any weight dtype into f32.
#include <cassert>
#include <cstring>

#include "backend/cpu/ops.h"
#include "backend/cpu/quantize.h"
#include "backend/cpu/simd.h"
#include "strata/half.h"

namespace strata::cpu {
namespace {

template <class Load, class Scalar>
void ConvertRow(const uint16_t* src, int64_t dim, float* out, Load load, Scalar scalar) {
  int64_t i = 0;
  for (; i + 8 <= dim; i += 8) _mm256_storeu_ps(out + i, load(src + i));
  for (; i < dim; ++i) out[i] = scalar(src[i]);
}

}  // namespace

void Embedding(const Tensor& table, const int32_t* ids, int n, float* out) {
  assert(table.shape.size() == 2);
  const int64_t vocab = table.shape[0];
  const int64_t dim = table.shape[1];
  for (int t = 0; t < n; ++t) {
    const int64_t id = ids[t];
    assert(id >= 0 && id < vocab);
    (void)vocab;
    float* dst = out + t * dim;
    switch (table.dtype) {
      case DType::kF32:
        std::memcpy(dst, static_cast<const float*>(table.data) + id * dim, dim * sizeof(float));
        break;
      case DType::kBF16:
        ConvertRow(static_cast<const uint16_t*>(table.data) + id * dim, dim, dst, simd::LoadBf16,
                   Bf16ToF32);
        break;
      case DType::kF16:
        ConvertRow(static_cast<const uint16_t*>(table.data) + id * dim, dim, dst, simd::LoadF16,
                   F16ToF32);
        break;
      case DType::kQ8_0:
        DequantizeRowQ8_0(static_cast<const BlockQ8_0*>(table.data) + id * (dim / kQ8BlockSize),
                          dim, dst);
        break;
      default:
        assert(false && "Embedding: unsupported dtype");
    }
  }
}

}  // namespace strata::cpu
