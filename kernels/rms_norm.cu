#include "rms_norm.h"

namespace strata::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void RmsNormKernel(const float* __restrict__ x, const float* __restrict__ weight,
                              int dim, float eps, float* __restrict__ out) {
  const float* row = x + static_cast<size_t>(blockIdx.x) * dim;
  float* out_row = out + static_cast<size_t>(blockIdx.x) * dim;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < dim; i += kThreads) sum += row[i] * row[i];
  __shared__ float partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
    if (threadIdx.x == 0) partial[0] = rsqrtf(sum / dim + eps);
  }
  __syncthreads();
  const float scale = partial[0];
  for (int i = threadIdx.x; i < dim; i += kThreads) out_row[i] = row[i] * scale * weight[i];
}

}  // namespace

cudaError_t RmsNorm(const float* x, const float* weight, int rows, int dim, float eps, float* out,
                    cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  RmsNormKernel<<<rows, kThreads, 0, stream>>>(x, weight, dim, eps, out);
  return cudaGetLastError();
}

}  // namespace strata::cuda
