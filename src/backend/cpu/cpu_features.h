// Runtime CPU feature detection and the process-wide choice of kernel ISA.
//
// The library is compiled for x86-64-v3 (AVX2/FMA/F16C). Some kernels also have AVX-512
// variants, compiled with target attributes in their own functions and chosen at run time.
// The choice is made once per process (the first call of ActiveIsa), so every call of a kernel
// in a process reduces in the same order: results are bitwise reproducible within a process and
// on any machine with the same ISA level, but an AVX-512 machine and an AVX2-only machine may
// differ in the last bits of f32/bf16/f16 matmuls (q8_0 is identical on both).
// Thread-safety: ActiveIsa is safe to call from any thread; SetIsaForTesting is not.
#pragma once

namespace strata::cpu {

enum class Isa {
  kAvx2,    // AVX2 + FMA + F16C (the baseline the library is compiled for)
  kAvx512,  // + AVX512F/BW/VL/VNNI
};

// Whether the running CPU (and OS) supports AVX-512 F/BW/VL/VNNI.
bool CpuSupportsAvx512();

// The ISA the kernels use in this process: kAvx512 when supported, unless the environment
// variable STRATA_CPU_ISA=avx2 asks for the baseline.
Isa ActiveIsa();

// Forces an ISA (tests and benchmarks exercise both paths). REQUIRES: the CPU supports it and
// no kernel runs concurrently.
void SetIsaForTesting(Isa isa);

const char* IsaName(Isa isa);

}  // namespace strata::cpu
