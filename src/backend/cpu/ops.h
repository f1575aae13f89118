// CPU kernels for the decoder forward pass (AVX2/FMA).
//
// Every kernel is batch-invariant: the value of an output element depends only on its own
// inputs, reduced in an order fixed by position (never by how many rows/sequences share the
// call or by the thread count). Matmuls split output columns (N) across threads, never the
// reduction (K). Activations are f32 row-major; weights are [N, K] in any weight dtype.
// Kernels that take a ThreadPool use it; the pool must not be used concurrently.
#pragma once

#include <cstdint>

#include "strata/model_spec.h"
#include "strata/tensor.h"
#include "strata/thread_pool.h"

namespace strata::cpu {

// y[m, n] = sum_k x[m, k] * w[n, k]  (+ bias[n] when bias != nullptr; bias is f32 [n]).
// x: [m, k] f32; w: Tensor of shape [n, k], dtype f32/f16/bf16/q8_0; y: [m, n] f32.
// For q8_0 weights x is quantized to q8_0 per 32-block first (as llama.cpp does).
void MatMul(ThreadPool& pool, const float* x, int m, const Tensor& w, const float* bias, float* y);

// Copies rows `ids` of an embedding table [vocab, dim] (any weight dtype) into out [n, dim] f32.
void Embedding(const Tensor& table, const int32_t* ids, int n, float* out);

// out[r, :] = x[r, :] / rms(x[r, :]) * weight[:]  for r in [0, rows). weight: [dim] f32.
// out may alias x.
void RmsNorm(const float* x, const float* weight, int rows, int dim, float eps, float* out);

// x += residual, then out = RmsNorm(x). Fused because both stream the same rows.
void AddRmsNorm(float* x, const float* residual, const float* weight, int rows, int dim, float eps,
                float* out);

// RoPE in place on x: [tokens, heads, head_dim] with row stride `token_stride` floats.
// inv_freq: [head_dim / 2] (already scaled, see ComputeRopeInvFreq). positions: [tokens].
void Rope(float* x, int tokens, int heads, int head_dim, int64_t token_stride,
          const int32_t* positions, const float* inv_freq, RopeLayout layout);

// Inverse frequencies for RoPE with the model's theta and scaling: [head_dim / 2].
void ComputeRopeInvFreq(const ModelSpec& spec, float* inv_freq);

// out[r, i] = silu(gate[r, i]) * up[r, i]. gate, up, out: [rows, inter]; out may alias gate.
void SiluMul(const float* gate, const float* up, int rows, int inter, float* out);

// Paged KV cache layout for one layer: [num_blocks, num_kv_heads, block_size, head_dim] of
// `dtype` (f32, bf16 or f16). WriteKv rounds to bf16/f16 to nearest even; attention widens the
// stored values exactly to f32, so its result equals the f32 kernel run on the rounded K/V.
struct PagedKvLayer {
  void* k = nullptr;
  void* v = nullptr;
  DType dtype = DType::kF32;
};

// Writes k/v rows of `tokens` new tokens into their cache slots. slots[t] = block * block_size
// + offset. k, v: [tokens, num_kv_heads, head_dim] f32 with row stride `token_stride` floats.
void WriteKv(const float* k, const float* v, int64_t token_stride, int tokens, const int32_t* slots,
             int num_kv_heads, int head_dim, int block_size, PagedKvLayer layer);

// One sequence's share of a flat attention batch.
struct AttentionSeq {
  int query_start = 0;  // first row of this sequence in q / out
  int query_len = 0;    // number of new tokens (rows)
  int context_len = 0;  // tokens in the cache after writing the new ones; queries are its tail
  const int32_t* block_table = nullptr;  // [ceil(context_len / block_size)]
};

// Causal (optionally sliding-window) GQA attention over the paged cache, online softmax.
// q: [num_tokens, num_heads, head_dim] (row stride q_stride); out: [num_tokens, num_heads *
// head_dim]. The query at row query_start + i sits at position context_len - query_len + i and
// attends to positions p with p <= its position and (window == 0 or p > position - window).
// Keys are visited in increasing position order, so results are batch-invariant.
void PagedAttention(ThreadPool& pool, const float* q, int64_t q_stride, const AttentionSeq* seqs,
                    int num_seqs, int num_heads, int num_kv_heads, int head_dim, int block_size,
                    int window, float scale, PagedKvLayer layer, float* out);

// Writes log-softmax of `logits` [vocab] into out (may alias).
void LogSoftmax(const float* logits, int vocab, float* out);

// True when the running CPU supports the instructions these kernels were compiled for.
bool CpuSupportsKernels();

}  // namespace strata::cpu
