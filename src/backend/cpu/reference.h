// Scalar reference implementations of the CPU kernels, for tests and benchmarks only.
//
// Straightforward loops with double accumulation: slow, obviously correct, and independent of
// the SIMD code (they share no helpers with it). Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <vector>

#include "backend/cpu/ops.h"
#include "strata/model_spec.h"
#include "strata/tensor.h"

namespace strata::cpu::reference {

// Weights of any dtype as f32 [n, k] (scalar conversion; q8_0: scale * q).
std::vector<float> Dequantize(const Tensor& w);

// y = x w^T (+ bias), accumulated in double. x: [m, k]; w: [n, k] f32.
void MatMul(const float* x, int m, int k, const float* w, int n, const float* bias, float* y);

// Q8_0 with x quantized like QuantizeActivationsQ8_0 (scalar re-implementation): integer block
// dots, scaled and summed in double. The SIMD kernel differs only by its f32 accumulation.
void MatMulQ8_0(const float* x, int m, const Tensor& w, const float* bias, float* y);

void RmsNorm(const float* x, const float* weight, int rows, int dim, float eps, float* out);
void SiluMul(const float* gate, const float* up, int rows, int inter, float* out);
void LogSoftmax(const float* logits, int vocab, float* out);

// Inverse frequencies in double, from the formulas (not the f32 step order).
std::vector<double> RopeInvFreq(const ModelSpec& spec);

// RoPE: angle = f32(pos) * inv_freq rounded to f32 (as HF does), cos/sin and rotation in double.
void Rope(float* x, int tokens, int heads, int head_dim, int64_t token_stride,
          const int32_t* positions, const float* inv_freq, RopeLayout layout);

// Attention by gathering each sequence's keys through its block table (widening a bf16/f16
// cache with strata/half.h), softmax in double.
void PagedAttention(const float* q, int64_t q_stride, const AttentionSeq* seqs, int num_seqs,
                    int num_heads, int num_kv_heads, int head_dim, int block_size, int window,
                    float scale, PagedKvLayer layer, float* out);

}  // namespace strata::cpu::reference
