// AVX-512 VNNI matmul for Q8_0 weights; runtime-dispatched (see cpu_features.h).
//
// Bitwise equal to the AVX2 kernel (matmul_q8_0.cc): it produces the same 8 int32 lanes per
// block (each the exact sum of 4 products) and accumulates them with the same f32 FMA by
// scale_x * scale_w and the same reduction. It gains from VPDPBUSD (u8 x s8 -> s32, 4 at once)
// and from 32 registers (4 x 4 tiles). VPDPBUSD wants one unsigned operand: with
// u = w + 128 (w XOR 0x80), sum(u * x) = sum(w * x) + 128 * sum(x), so each lane starts from
// -128 * sum(x) of its 4 bytes (one VPDPBUSD per activation block, shared by all columns).
// GCC 12's AVX-512 headers build some intrinsics on _mm512_undefined_*(), which -O3 reports
// as -Wuninitialized at every use; the values are fully overwritten, so silence it here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <utility>

#include "backend/cpu/matmul_internal.h"
#include "backend/cpu/simd.h"

#define STRATA_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,fma,f16c")))

namespace strata::cpu::internal {
namespace {

constexpr int kRows = 4;
constexpr int kCols = 4;
constexpr int kGemvCols = 4;

template <int R, int C>
STRATA_AVX512 void Tile(const int8_t* xq, const float* xs, int k, const BlockQ8_0* w,
                        const float* bias, float* y, int64_t ldy) {
  const int nb = k / kQ8BlockSize;
  const __m256i bias128 = _mm256_set1_epi8(static_cast<char>(0x80));
  __m256 acc[R][C];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  }
  const char* next_tile = reinterpret_cast<const char*>(w + static_cast<int64_t>(C) * nb);
  constexpr int kStepBytes = C * static_cast<int>(sizeof(BlockQ8_0));
  for (int b = 0; b < nb; ++b) {
    if constexpr (R == 1) {
      // See matmul_q8_0.cc: prefetch the next tile's rows during this one.
      const char* pf = next_tile + static_cast<int64_t>(b) * kStepBytes;
#pragma GCC unroll 8
      for (int line = 0; line < (kStepBytes + 63) / 64; ++line)
        _mm_prefetch(pf + 64 * line, _MM_HINT_T0);
    }
    __m256i wu[C];
    __m256 ws[C];
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
      const BlockQ8_0& blk = w[static_cast<int64_t>(c) * nb + b];
      wu[c] =
          _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk.q)), bias128);
      ws[c] = _mm256_set1_ps(_cvtsh_ss(blk.scale_f16));
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256i xv = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(xq + static_cast<int64_t>(r) * k + b * kQ8BlockSize));
      const __m256i neg = _mm256_sub_epi32(
          _mm256_setzero_si256(), _mm256_dpbusd_epi32(_mm256_setzero_si256(), bias128, xv));
      const __m256 xd = _mm256_set1_ps(xs[static_cast<int64_t>(r) * nb + b]);
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) {
        const __m256i dot = _mm256_dpbusd_epi32(neg, wu[c], xv);
        // xd * ws rounds exactly like the AVX2 kernel's scalar product (same two f32 values).
        acc[r][c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(xd, ws[c]), acc[r][c]);
      }
    }
  }
  // Fully unrolled like the main loop, so acc[][] lives in registers (a loop with a
  // variable index here makes GCC keep the array on the stack and store it every step).
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
      float s = simd::HorizontalSum(acc[r][c]);
      if (bias != nullptr) s += bias[c];
      y[r * ldy + c] = s;
    }
  }
}

using TileFn = void (*)(const int8_t*, const float*, int, const BlockQ8_0*, const float*, float*,
                        int64_t);

template <int R, int... Cs>
constexpr auto RowTable(std::integer_sequence<int, Cs...>) {
  return std::array<TileFn, sizeof...(Cs)>{&Tile<R, Cs + 1>...};
}

}  // namespace

STRATA_AVX512 void MatMulColumnsQ8_0Avx512(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
  static constexpr auto kGemv = RowTable<1>(std::make_integer_sequence<int, kGemvCols>());
  static constexpr std::array<std::array<TileFn, kCols>, kRows - 1> kGemm = {
      RowTable<2>(std::make_integer_sequence<int, kCols>()),
      RowTable<3>(std::make_integer_sequence<int, kCols>()),
      RowTable<4>(std::make_integer_sequence<int, kCols>())};
  const int k = p.k;
  const int nb = k / kQ8BlockSize;
  const BlockQ8_0* w = static_cast<const BlockQ8_0*>(p.w);
  const int64_t block = ColumnBlock(k, nb * static_cast<int>(sizeof(BlockQ8_0)), kGemvCols);
  for (int64_t cb = n_begin; cb < n_end; cb += block) {
    const int64_t ce = std::min(n_end, cb + block);
    for (int r0 = 0; r0 < p.m; r0 += kRows) {
      const int rows = std::min(kRows, p.m - r0);
      const int tile_cols = rows == 1 ? kGemvCols : kCols;
      const int8_t* xq = p.xq + static_cast<int64_t>(r0) * k;
      const float* xs = p.xscale + static_cast<int64_t>(r0) * nb;
      for (int64_t c0 = cb; c0 < ce; c0 += tile_cols) {
        const int cols = static_cast<int>(std::min<int64_t>(tile_cols, ce - c0));
        const TileFn fn = rows == 1 ? kGemv[cols - 1] : kGemm[rows - 2][cols - 1];
        fn(xq, xs, k, w + c0 * nb, p.bias ? p.bias + c0 : nullptr, p.y + r0 * p.n + c0, p.n);
      }
    }
  }
}

}  // namespace strata::cpu::internal
