// AVX2 instantiations of the floating-point-weight matmul kernel (f32, f16, bf16).

#include "backend/cpu/matmul_float_kernel.h"

namespace strata::cpu::internal {

void MatMulColumnsF32Avx2(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
  FloatMatMulAvx2<F32Weights>::Columns(p, n_begin, n_end);
}
void MatMulColumnsF16Avx2(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
  FloatMatMulAvx2<F16Weights>::Columns(p, n_begin, n_end);
}
void MatMulColumnsBf16Avx2(const MatMulProblem& p, int64_t n_begin, int64_t n_end) {
  FloatMatMulAvx2<Bf16Weights>::Columns(p, n_begin, n_end);
}

}  // namespace strata::cpu::internal
