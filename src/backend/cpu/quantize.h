// Q8_0 quantization (GGML's layout, see strata/tensor.h) for weights and activations.
//
// Activations are quantized exactly as llama.cpp's quantize_row_q8_0 does on AVX2 (scale
// amax/127 rounded to f16, values round(x * 127/amax) to nearest-even), so a Q8_0 matmul sees
// the same integers as llama.cpp. Pure functions; thread-safe.
#pragma once

#include <cstdint>

#include "strata/tensor.h"

namespace strata::cpu {

// Quantizes one row of k floats into k / 32 blocks. REQUIRES: k % 32 == 0.
void QuantizeRowQ8_0(const float* x, int64_t k, BlockQ8_0* out);

// Inverse of QuantizeRowQ8_0: out[i] = scale * q[i]. REQUIRES: k % 32 == 0.
void DequantizeRowQ8_0(const BlockQ8_0* blocks, int64_t k, float* out);

// Activation form used by the Q8_0 matmul: the same integers as QuantizeRowQ8_0 but split into
// a plain int8 array and f32 scales (already rounded through f16) so kernels load them
// directly. x: [rows, k]; q: [rows, k]; scale: [rows, k / 32]. REQUIRES: k % 32 == 0.
void QuantizeActivationsQ8_0(const float* x, int rows, int k, int8_t* q, float* scale);

}  // namespace strata::cpu
