// CPU feature checks (CpuSupportsKernels, CpuSupportsAvx512) and the process-wide ISA choice.
#include "backend/cpu/cpu_features.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "backend/cpu/ops.h"

namespace strata::cpu {
namespace {

// -1: not chosen yet; otherwise static_cast<int>(Isa).
std::atomic<int> g_isa{-1};

Isa ChooseIsa() {
  const char* env = std::getenv("STRATA_CPU_ISA");
  if (env != nullptr && std::strcmp(env, "avx2") == 0) return Isa::kAvx2;
  return CpuSupportsAvx512() ? Isa::kAvx512 : Isa::kAvx2;
}

}  // namespace

bool CpuSupportsKernels() {
  // __builtin_cpu_supports also checks that the OS saves the YMM state (XGETBV).
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
}

bool CpuSupportsAvx512() {
  return CpuSupportsKernels() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512vnni");
}

Isa ActiveIsa() {
  int isa = g_isa.load(std::memory_order_acquire);
  if (isa < 0) {
    int chosen = static_cast<int>(ChooseIsa());
    // Whoever wins the race decides; both computed the same value anyway.
    g_isa.compare_exchange_strong(isa, chosen, std::memory_order_acq_rel);
    isa = g_isa.load(std::memory_order_acquire);
  }
  return static_cast<Isa>(isa);
}

void SetIsaForTesting(Isa isa) { g_isa.store(static_cast<int>(isa), std::memory_order_release); }

const char* IsaName(Isa isa) { return isa == Isa::kAvx512 ? "avx512" : "avx2"; }

}  // namespace strata::cpu
