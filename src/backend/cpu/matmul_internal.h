// Internal interface between MatMul (matmul.cc: dtype/ISA dispatch and threading) and the
// per-dtype, per-ISA column kernels. Not part of the backend's public contract.
//
// A column kernel computes y[:, n_begin:n_end) for all m rows. Its output element y[r, j]
// depends only on x[r, :], w[j, :] and bias[j] and is reduced in an order fixed by k, so any
// split of columns over threads and any number of rows give bitwise-equal values.
#pragma once

#include <cstdint>

#include "strata/tensor.h"

namespace strata::cpu::internal {

struct MatMulProblem {
  const float* x = nullptr;  // [m, k] f32
  int m = 0;
  int k = 0;
  int64_t n = 0;
  const void* w = nullptr;      // [n, k] in the weight dtype
  const float* bias = nullptr;  // [n] or nullptr
  float* y = nullptr;           // [m, n]
  // Q8_0 only: x quantized per 32-block (see QuantizeActivationsQ8_0).
  const int8_t* xq = nullptr;     // [m, k]
  const float* xscale = nullptr;  // [m, k / 32]
};

using MatMulColumnsFn = void (*)(const MatMulProblem& p, int64_t n_begin, int64_t n_end);

// AVX2/FMA/F16C kernels (matmul_float.cc, matmul_q8_0.cc).
void MatMulColumnsF32Avx2(const MatMulProblem& p, int64_t n_begin, int64_t n_end);
void MatMulColumnsF16Avx2(const MatMulProblem& p, int64_t n_begin, int64_t n_end);
void MatMulColumnsBf16Avx2(const MatMulProblem& p, int64_t n_begin, int64_t n_end);
void MatMulColumnsQ8_0Avx2(const MatMulProblem& p, int64_t n_begin, int64_t n_end);

// AVX-512 kernels (matmul_float_avx512.cc, matmul_q8_0_avx512.cc); only called when
// CpuSupportsAvx512().
void MatMulColumnsF32Avx512(const MatMulProblem& p, int64_t n_begin, int64_t n_end);
void MatMulColumnsF16Avx512(const MatMulProblem& p, int64_t n_begin, int64_t n_end);
void MatMulColumnsBf16Avx512(const MatMulProblem& p, int64_t n_begin, int64_t n_end);
void MatMulColumnsQ8_0Avx512(const MatMulProblem& p, int64_t n_begin, int64_t n_end);

// Columns per cache block: a block of weight rows is kept in L2 while every row tile of x
// streams past it. Returns a multiple of `tile` of about `kWeightBlockBytes`.
int64_t ColumnBlock(int k, int bytes_per_weight_row, int tile);

}  // namespace strata::cpu::internal
