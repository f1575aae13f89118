// strata_membw: measures this machine's memory read bandwidth with N threads, the roofline that
// batch-1 decode is held to (every weight byte is read once per token).
// Usage: strata_membw [threads=all] [MiB=1024]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <immintrin.h>

#include "strata/thread_pool.h"

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 0;
  const size_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1024;
  const size_t n = mib * 1024 * 1024 / sizeof(float);
  std::vector<float> buffer(n, 1.0f);
  strata::ThreadPool pool(threads);
  std::vector<float> sums(pool.num_threads(), 0.0f);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    pool.ParallelFor(static_cast<int64_t>(n), 4096, [&](int t, int64_t begin, int64_t end) {
      __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
      __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
      for (int64_t i = begin; i + 32 <= end; i += 32) {
        acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(&buffer[i]));
        acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(&buffer[i + 8]));
        acc2 = _mm256_add_ps(acc2, _mm256_loadu_ps(&buffer[i + 16]));
        acc3 = _mm256_add_ps(acc3, _mm256_loadu_ps(&buffer[i + 24]));
      }
      __m256 acc = _mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3));
      float lanes[8];
      _mm256_storeu_ps(lanes, acc);
      sums[t] = lanes[0] + lanes[7];
    });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double gbps = n * sizeof(float) / seconds / 1e9;
    if (gbps > best) best = gbps;
  }
  float total = 0;
  for (float s : sums) total += s;
  std::printf("{\"threads\": %d, \"mib\": %zu, \"read_gb_per_s\": %.2f, \"check\": %.0f}\n",
              pool.num_threads(), mib, best, total);
  return 0;
}
