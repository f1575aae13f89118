// Shared set-up for the micro benchmarks: a process-wide thread pool and fast random fills.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "backend/cpu/cpu_features.h"
#include "strata/thread_pool.h"

namespace strata::cpu::bench {

// Threads from STRATA_BENCH_THREADS (default: all cores).
inline ThreadPool& Pool() {
  static ThreadPool* pool = [] {
    const char* env = std::getenv("STRATA_BENCH_THREADS");
    return new ThreadPool(env ? std::atoi(env) : 0);
  }();
  return *pool;
}

// Uniform values in [-1, 1) from a 32-bit LCG: generating hundreds of MB with mt19937 would
// dominate start-up, and the values do not affect speed.
inline void FillRandom(float* p, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(static_cast<int32_t>(s)) * (1.0f / 2147483648.0f);
  }
}

inline std::vector<float> RandomVector(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  FillRandom(v.data(), n, seed);
  return v;
}

}  // namespace strata::cpu::bench
