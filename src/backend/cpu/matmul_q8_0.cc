// AVX2 matmul for Q8_0 weights on Q8_0-quantized activations (int8 dot products).
//
// Per 32-block, the integer dot product of an activation block and a weight block is exact
// (the sign trick of llama.cpp's ggml_vec_dot_q8_0_q8_0: |w| as u8 times x*sign(w) as s8 with
// _mm256_maddubs_epi16 cannot saturate for values in [-127, 127], then _mm256_madd_epi16 sums
// pairs into 8 int32 lanes of 4 products each). The 8 lanes are converted to f32 and
// accumulated with one FMA per block by scale_x * scale_w, then reduced with
// simd::HorizontalSum. Any kernel producing the same 8 int32 lanes (AVX-VNNI, AVX-512 VNNI on
// ymm) therefore yields bitwise-equal results, which matmul_q8_0_avx512.cc relies on.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <utility>

#include "backend/cpu/matmul_internal.h"
#include "backend/cpu/simd.h"
#include "strata/half.h"

namespace strata::cpu::internal {
namespace {

// 4 rows x 2 columns: 8 accumulators plus |w|, w for 2 columns, x, temporaries and the ones
// vector fit in 16 registers.
constexpr int kRows = 4;
constexpr int kCols = 2;
constexpr int kGemvCols = 4;

template <int R, int C>
void Tile(const int8_t* xq, const float* xs, int k, const BlockQ8_0* w, const float* bias, float* y,
          int64_t ldy) {
  const int nb = k / kQ8BlockSize;
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[R][C];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  }
  // Decode streams weight rows of ~1 KiB from DRAM, too short for the hardware prefetcher to
  // train on; prefetch the next tile (the C rows after ours, contiguous) in step instead.
  const char* next_tile = reinterpret_cast<const char*>(w + static_cast<int64_t>(C) * nb);
  constexpr int kStepBytes = C * static_cast<int>(sizeof(BlockQ8_0));
  for (int b = 0; b < nb; ++b) {
    if constexpr (R == 1) {
      const char* pf = next_tile + static_cast<int64_t>(b) * kStepBytes;
#pragma GCC unroll 8
      for (int line = 0; line < (kStepBytes + 63) / 64; ++line) {
        _mm_prefetch(pf + 64 * line, _MM_HINT_T0);
      }
    }
    __m256i wq[C];
    __m256i wabs[C];
    float ws[C];
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
      const BlockQ8_0& blk = w[static_cast<int64_t>(c) * nb + b];
      wq[c] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk.q));
      wabs[c] = _mm256_sign_epi8(wq[c], wq[c]);
      ws[c] = _cvtsh_ss(blk.scale_f16);
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256i xv = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(xq + static_cast<int64_t>(r) * k + b * kQ8BlockSize));
      const float xd = xs[static_cast<int64_t>(r) * nb + b];
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) {
        const __m256i sx = _mm256_sign_epi8(xv, wq[c]);
        const __m256i dot = _mm256_madd_epi16(_mm256_maddubs_epi16(wabs[c], sx), ones);
        acc[r][c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(xd * ws[c]), acc[r][c]);
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

void MatMulColumnsQ8_0Avx2(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
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
