// MatMul: weight-dtype and ISA dispatch, activation quantization for Q8_0, and the split of
// output columns over the thread pool. The arithmetic lives in the column kernels.
#include <algorithm>
#include <cassert>
#include <vector>

#include "backend/cpu/cpu_features.h"
#include "backend/cpu/matmul_internal.h"
#include "backend/cpu/ops.h"
#include "backend/cpu/quantize.h"

namespace strata::cpu {
namespace internal {

// Weight bytes of one column block; about a quarter of a Zen 4 L2 (1 MiB), so the block stays
// in L2 while x row tiles stream past it and the other thread's block fits too.
constexpr int64_t kWeightBlockBytes = 256 * 1024;

int64_t ColumnBlock(int k, int bytes_per_weight_row, int tile) {
  int64_t cols = kWeightBlockBytes / std::max(1, bytes_per_weight_row);
  cols = std::max<int64_t>(tile, cols / tile * tile);
  return cols;
}

}  // namespace internal

namespace {

using internal::MatMulColumnsFn;

MatMulColumnsFn SelectKernel(DType dtype, Isa isa) {
  const bool avx512 = isa == Isa::kAvx512;
  switch (dtype) {
    case DType::kF32:
      return avx512 ? internal::MatMulColumnsF32Avx512 : internal::MatMulColumnsF32Avx2;
    case DType::kF16:
      return avx512 ? internal::MatMulColumnsF16Avx512 : internal::MatMulColumnsF16Avx2;
    case DType::kBF16:
      return avx512 ? internal::MatMulColumnsBf16Avx512 : internal::MatMulColumnsBf16Avx2;
    case DType::kQ8_0:
      return avx512 ? internal::MatMulColumnsQ8_0Avx512 : internal::MatMulColumnsQ8_0Avx2;
    default:
      return nullptr;
  }
}

// Output columns per ParallelFor chunk: a multiple of every tile width (2, 3, 4, 6, 8, 16) so
// tiles are not cut short at chunk edges (which would be correct, only slower).
constexpr int64_t kColumnGrain = 48;

}  // namespace

void MatMul(ThreadPool& pool, const float* x, int m, const Tensor& w, const float* bias, float* y) {
  assert(w.shape.size() == 2);
  if (m <= 0) return;
  internal::MatMulProblem p;
  p.x = x;
  p.m = m;
  p.n = w.shape[0];
  p.k = static_cast<int>(w.shape[1]);
  p.w = w.data;
  p.bias = bias;
  p.y = y;
  const MatMulColumnsFn kernel = SelectKernel(w.dtype, ActiveIsa());
  assert(kernel != nullptr && "MatMul: unsupported weight dtype");

  // Scratch for quantized activations; grows to the largest batch seen by this thread.
  // (Thread-local, so the lambdas below must use the pointers, not the vectors: a worker
  // naming a thread_local would see its own instance.)
  thread_local std::vector<int8_t> xq_scratch;
  thread_local std::vector<float> xscale_scratch;
  if (w.dtype == DType::kQ8_0) {
    assert(p.k % kQ8BlockSize == 0);
    const int64_t blocks_per_row = p.k / kQ8BlockSize;
    xq_scratch.resize(static_cast<size_t>(m) * p.k);
    xscale_scratch.resize(static_cast<size_t>(m * blocks_per_row));
    int8_t* xq = xq_scratch.data();
    float* xscale = xscale_scratch.data();
    // Rows are independent, so splitting them over threads cannot change any value.
    pool.ParallelFor(m, 16, [&](int, int64_t begin, int64_t end) {
      QuantizeActivationsQ8_0(x + begin * p.k, static_cast<int>(end - begin), p.k, xq + begin * p.k,
                              xscale + begin * blocks_per_row);
    });
    p.xq = xq;
    p.xscale = xscale;
  }
  pool.ParallelFor(p.n, kColumnGrain,
                   [&](int, int64_t begin, int64_t end) { kernel(p, begin, end); });
}

}  // namespace strata::cpu
