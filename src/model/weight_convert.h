// Element-wise conversions between weight formats, shared by the loaders and the writers.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "strata/model_spec.h"
#include "strata/tensor.h"

namespace strata {

// Decodes `t` (f32, f16, bf16 or q8_0) to f32. REQUIRES: t.data holds t.NumBytes() bytes.
std::vector<float> ToF32(const Tensor& t);

// Encodes `n` floats as `dtype` (f32, f16, bf16; round to nearest even) into `dst`.
void FromF32(const float* src, int64_t n, DType dtype, void* dst);

// ggml's quantize_row_q8_0_ref: per block of 32, d = amax / 127 (stored as f16) and
// q = roundf(x * (1 / d)). REQUIRES: n % 32 == 0; `dst` holds n / 32 blocks.
void QuantizeQ8_0(const float* src, int64_t n, BlockQ8_0* dst);

// llama.cpp's convert_hf_to_gguf.py reorders the rows of q_proj/k_proj (weights and biases)
// for llama/mistral so GGML can use its "normal" RoPE: within each head of `head_dim` rows,
// GGUF row 2j + t holds HF row t * head_dim / 2 + j. `rows` must be a multiple of `head_dim`.
// PermuteRowsHfToGguf applies that order; UnpermuteRowsGgufToHf undoes it. Rows are opaque
// byte strings of `row_bytes` (so q8_0 rows permute too).
void PermuteRowsHfToGguf(const void* src, int64_t rows, size_t row_bytes, int head_dim, void* dst);
void UnpermuteRowsGgufToHf(const void* src, int64_t rows, size_t row_bytes, int head_dim,
                           void* dst);

// The llama3 RoPE frequency divisors [head_dim / 2], computed as llama.cpp's converter does
// (rope_freqs.weight): 1 for high frequencies, `factor` for low ones, smooth in between.
// The inverse frequency of pair i is theta^(-2i/head_dim) / factors[i].
// REQUIRES: spec.rope_scaling.kind == kLlama3.
std::vector<float> Llama3RopeFactors(const ModelSpec& spec);

}  // namespace strata
