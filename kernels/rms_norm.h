// CUDA RMSNorm: out[r, :] = x[r, :] / rms(x[r, :]) * weight[:], one block per row.
// Host-side launcher; pointers are device memory. Asynchronous on `stream`.
#pragma once

#include <cuda_runtime.h>

namespace strata::cuda {

// x, out: [rows, dim] f32; weight: [dim] f32.
cudaError_t RmsNorm(const float* x, const float* weight, int rows, int dim, float eps, float* out,
                    cudaStream_t stream);

}  // namespace strata::cuda
