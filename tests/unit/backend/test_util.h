// Helpers for the CPU backend tests: random data, owned weight tensors of any dtype, and the
// list of ISAs this machine can run.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/quantize.h"
#include "strata/half.h"
#include "strata/tensor.h"

namespace strata::cpu::testing {

inline std::vector<float> RandomVector(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// A Tensor plus the bytes it points to.
struct OwnedTensor {
  Tensor tensor;
  std::vector<uint8_t> bytes;
};

// Converts f32 values [rows, cols] to `dtype` (bf16/f16 round to nearest even; q8_0 as GGML).
inline OwnedTensor MakeTensor(DType dtype, int64_t rows, int64_t cols,
                              const std::vector<float>& v) {
  OwnedTensor t;
  t.tensor.dtype = dtype;
  t.tensor.shape = {rows, cols};
  t.bytes.resize(DTypeBytes(dtype, rows * cols));
  switch (dtype) {
    case DType::kF32:
      std::memcpy(t.bytes.data(), v.data(), v.size() * sizeof(float));
      break;
    case DType::kBF16:
    case DType::kF16: {
      auto* p = reinterpret_cast<uint16_t*>(t.bytes.data());
      for (size_t i = 0; i < v.size(); ++i)
        p[i] = dtype == DType::kBF16 ? F32ToBf16(v[i]) : F32ToF16(v[i]);
      break;
    }
    case DType::kQ8_0: {
      auto* p = reinterpret_cast<BlockQ8_0*>(t.bytes.data());
      for (int64_t r = 0; r < rows; ++r)
        QuantizeRowQ8_0(v.data() + r * cols, cols, p + r * (cols / kQ8BlockSize));
      break;
    }
    default:
      break;
  }
  t.tensor.data = t.bytes.data();
  return t;
}

inline std::vector<Isa> SupportedIsas() {
  std::vector<Isa> isas = {Isa::kAvx2};
  if (CpuSupportsAvx512()) isas.push_back(Isa::kAvx512);
  return isas;
}

// Sets the kernel ISA for the scope of a test and restores the default afterwards.
class ScopedIsa {
 public:
  explicit ScopedIsa(Isa isa) : saved_(ActiveIsa()) { SetIsaForTesting(isa); }
  ~ScopedIsa() { SetIsaForTesting(saved_); }

 private:
  Isa saved_;
};

inline std::string DTypeLabel(DType d) { return std::string(DTypeName(d)); }

}  // namespace strata::cpu::testing
