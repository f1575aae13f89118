// The AVX2 matmul kernel for floating-point weights (f32, f16, bf16), as a template over the
// weight loader. Included only by matmul_float.cc.
//
// Dot-product form: an R x C tile keeps one 8-lane accumulator per output element, walks k in
// steps of 8 (each weight vector is loaded once and applied to all R rows), then reduces the
// lanes with simd::HorizontalSum and adds the k % 8 tail with scalar FMAs in increasing k.
// Because every tile shape runs exactly this per-element arithmetic, a row's result does not
// depend on m, on the tile it fell in, or on the thread that computed it.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "backend/cpu/matmul_internal.h"
#include "backend/cpu/simd.h"
#include "strata/half.h"

namespace strata::cpu::internal {

struct F32Weights {
  using T = float;
  static __m256 Load(const float* p) { return _mm256_loadu_ps(p); }
  static float ToF32(float v) { return v; }
};
struct Bf16Weights {
  using T = uint16_t;
  static __m256 Load(const uint16_t* p) { return simd::LoadBf16(p); }
  static float ToF32(uint16_t v) { return Bf16ToF32(v); }
};
struct F16Weights {
  using T = uint16_t;
  static __m256 Load(const uint16_t* p) { return simd::LoadF16(p); }
  static float ToF32(uint16_t v) { return F16ToF32(v); }
};

template <class W>
class FloatMatMulAvx2 {
 public:
  using T = typename W::T;
  // 4 rows x 3 columns: 12 accumulators + 3 weight vectors + 1 x vector = the 16 ymm registers.
  static constexpr int kRows = 4;
  static constexpr int kCols = 3;
  // With a single row (decode) use more columns: more independent FMA chains and load streams.
  static constexpr int kGemvCols = 6;

  static void Columns(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
    const T* w = static_cast<const T*>(p.w);
    const int k = p.k;
    const int64_t block = ColumnBlock(k, k * static_cast<int>(sizeof(T)), kGemvCols);
    for (int64_t nb = n_begin; nb < n_end; nb += block) {
      const int64_t ne = std::min(n_end, nb + block);
      for (int r0 = 0; r0 < p.m; r0 += kRows) {
        const int rows = std::min(kRows, p.m - r0);
        const int cols_per_tile = rows == 1 ? kGemvCols : kCols;
        for (int64_t c0 = nb; c0 < ne; c0 += cols_per_tile) {
          const int cols = static_cast<int>(std::min<int64_t>(cols_per_tile, ne - c0));
          Dispatch(rows, cols, p.x + static_cast<int64_t>(r0) * k, k, w + c0 * k,
                   p.bias ? p.bias + c0 : nullptr, p.y + r0 * p.n + c0, p.n);
        }
      }
    }
  }

 private:
  template <int R, int C>
  static void Tile(const float* x, int k, const T* w, const float* bias, float* y, int64_t ldy) {
    __m256 acc[R][C];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
    }
    const int k8 = k & ~7;
    // Decode streams weights from DRAM in short rows (2-4 KiB) that the hardware prefetcher
    // barely trains on; prefetch the next tile (the C rows after ours, contiguous) in step.
    const char* next_tile = reinterpret_cast<const char*>(w + static_cast<int64_t>(C) * k);
    constexpr int kStepBytes = C * 8 * static_cast<int>(sizeof(T));
    for (int kk = 0; kk < k8; kk += 8) {
      if constexpr (R == 1) {
        const char* pf = next_tile + static_cast<int64_t>(kk) * C * sizeof(T);
#pragma GCC unroll 8
        for (int line = 0; line < (kStepBytes + 63) / 64; ++line) {
          _mm_prefetch(pf + 64 * line, _MM_HINT_T0);
        }
      }
      __m256 wv[C];
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) wv[c] = W::Load(w + static_cast<int64_t>(c) * k + kk);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m256 xv = _mm256_loadu_ps(x + static_cast<int64_t>(r) * k + kk);
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc[r][c] = _mm256_fmadd_ps(xv, wv[c], acc[r][c]);
      }
    }
    // Fully unrolled like the main loop, so acc[][] lives in registers (a loop with a
    // variable index here makes GCC keep the array on the stack and store it every step).
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) {
        float s = simd::HorizontalSum(acc[r][c]);
        const float* xr = x + static_cast<int64_t>(r) * k;
        const T* wc = w + static_cast<int64_t>(c) * k;
        for (int kk = k8; kk < k; ++kk) s = std::fma(xr[kk], W::ToF32(wc[kk]), s);
        if (bias != nullptr) s += bias[c];
        y[r * ldy + c] = s;
      }
    }
  }

  using TileFn = void (*)(const float*, int, const T*, const float*, float*, int64_t);

  template <int R, int... Cs>
  static constexpr auto RowTable(std::integer_sequence<int, Cs...>) {
    return std::array<TileFn, sizeof...(Cs)>{&Tile<R, Cs + 1>...};
  }

  static void Dispatch(int rows, int cols, const float* x, int k, const T* w, const float* bias,
                       float* y, int64_t ldy) {
    if (rows == 1) {
      static constexpr auto kTable = RowTable<1>(std::make_integer_sequence<int, kGemvCols>());
      kTable[cols - 1](x, k, w, bias, y, ldy);
      return;
    }
    static constexpr std::array<std::array<TileFn, kCols>, kRows - 1> kTable = {
        RowTable<2>(std::make_integer_sequence<int, kCols>()),
        RowTable<3>(std::make_integer_sequence<int, kCols>()),
        RowTable<4>(std::make_integer_sequence<int, kCols>())};
    kTable[rows - 2][cols - 1](x, k, w, bias, y, ldy);
  }
};

}  // namespace strata::cpu::internal
