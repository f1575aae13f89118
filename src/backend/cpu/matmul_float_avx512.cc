// AVX-512 matmul for floating-point weights (f32, f16, bf16); runtime-dispatched (see
// cpu_features.h). Same dot-product structure as matmul_float_kernel.h but with 16-lane
// accumulators, 32 registers (6 x 4 tiles) and masked loads for the k % 16 tail: one fixed
// per-element order (16 lanes in increasing k, then ReduceAdd), so it is batch- and
// thread-invariant on its own, but its last bits differ from the AVX2 kernel's.
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

#define STRATA_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,f16c")))

namespace strata::cpu::internal {
namespace {

struct F32Load {
  using T = float;
  STRATA_AVX512 static __m512 Load(const float* p, __mmask16 m) {
    return _mm512_maskz_loadu_ps(m, p);
  }
};
struct Bf16Load {
  using T = uint16_t;
  STRATA_AVX512 static __m512 Load(const uint16_t* p, __mmask16 m) {
    const __m256i h = _mm256_maskz_loadu_epi16(m, p);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
};
struct F16Load {
  using T = uint16_t;
  STRATA_AVX512 static __m512 Load(const uint16_t* p, __mmask16 m) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
  }
};

// Fixed lane order: fold 512 -> 256 bits, then the AVX2 order.
STRATA_AVX512 inline float ReduceAdd(__m512 v) {
  const __m256 lo = _mm512_castps512_ps256(v);
  // (A shuffle rather than _mm512_extractf64x4_pd, which trips a GCC 12 -Wuninitialized.)
  const __m256 hi = _mm512_castps512_ps256(_mm512_shuffle_f32x4(v, v, 0xEE));
  return simd::HorizontalSum(_mm256_add_ps(lo, hi));
}

template <class W>
class FloatMatMulAvx512 {
 public:
  using T = typename W::T;
  static constexpr int kRows = 6;
  static constexpr int kCols = 4;
  static constexpr int kGemvCols = 8;

  STRATA_AVX512 static void Columns(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
    const T* w = static_cast<const T*>(p.w);
    const int k = p.k;
    const int64_t block = ColumnBlock(k, k * static_cast<int>(sizeof(T)), kGemvCols);
    for (int64_t nb = n_begin; nb < n_end; nb += block) {
      const int64_t ne = std::min(n_end, nb + block);
      for (int r0 = 0; r0 < p.m; r0 += kRows) {
        const int rows = std::min(kRows, p.m - r0);
        const int tile_cols = rows == 1 ? kGemvCols : kCols;
        for (int64_t c0 = nb; c0 < ne; c0 += tile_cols) {
          const int cols = static_cast<int>(std::min<int64_t>(tile_cols, ne - c0));
          Dispatch(rows, cols, p.x + static_cast<int64_t>(r0) * k, k, w + c0 * k,
                   p.bias ? p.bias + c0 : nullptr, p.y + r0 * p.n + c0, p.n);
        }
      }
    }
  }

 private:
  template <int R, int C>
  STRATA_AVX512 static void Tile(const float* x, int k, const T* w, const float* bias, float* y,
                                 int64_t ldy) {
    __m512 acc[R][C];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
    }
    const char* next_tile = reinterpret_cast<const char*>(w + static_cast<int64_t>(C) * k);
    constexpr int kStepBytes = C * 16 * static_cast<int>(sizeof(T));
    for (int kk = 0; kk < k; kk += 16) {
      const __mmask16 mask = k - kk >= 16 ? __mmask16(0xffff) : __mmask16((1u << (k - kk)) - 1);
      if constexpr (R == 1) {
        // See matmul_float_kernel.h: prefetch the next tile's rows during this one.
        const char* pf = next_tile + static_cast<int64_t>(kk) * C * sizeof(T);
#pragma GCC unroll 8
        for (int line = 0; line < (kStepBytes + 63) / 64; ++line)
          _mm_prefetch(pf + 64 * line, _MM_HINT_T0);
      }
      __m512 wv[C];
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) wv[c] = W::Load(w + static_cast<int64_t>(c) * k + kk, mask);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m512 xv = _mm512_maskz_loadu_ps(mask, x + static_cast<int64_t>(r) * k + kk);
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(xv, wv[c], acc[r][c]);
      }
    }
    // Fully unrolled like the main loop, so acc[][] lives in registers (a loop with a
    // variable index here makes GCC keep the array on the stack and store it every step).
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) {
        float s = ReduceAdd(acc[r][c]);
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

  STRATA_AVX512 static void Dispatch(int rows, int cols, const float* x, int k, const T* w,
                                     const float* bias, float* y, int64_t ldy) {
    if (rows == 1) {
      static constexpr auto kTable = RowTable<1>(std::make_integer_sequence<int, kGemvCols>());
      kTable[cols - 1](x, k, w, bias, y, ldy);
      return;
    }
    static constexpr std::array<std::array<TileFn, kCols>, kRows - 1> kTable = {
        RowTable<2>(std::make_integer_sequence<int, kCols>()),
        RowTable<3>(std::make_integer_sequence<int, kCols>()),
        RowTable<4>(std::make_integer_sequence<int, kCols>()),
        RowTable<5>(std::make_integer_sequence<int, kCols>()),
        RowTable<6>(std::make_integer_sequence<int, kCols>())};
    kTable[rows - 2][cols - 1](x, k, w, bias, y, ldy);
  }
};

}  // namespace

void MatMulColumnsF32Avx512(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
  FloatMatMulAvx512<F32Load>::Columns(p, n_begin, n_end);
}
void MatMulColumnsF16Avx512(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
  FloatMatMulAvx512<F16Load>::Columns(p, n_begin, n_end);
}
void MatMulColumnsBf16Avx512(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
  FloatMatMulAvx512<Bf16Load>::Columns(p, n_begin, n_end);
}

}  // namespace strata::cpu::internal
