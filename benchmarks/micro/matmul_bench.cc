// MatMul benchmarks: decode (m = 1, reported as weight bytes/s: it is memory-bound) and
// prefill (m = 512, reported as FLOP/s) for f32, bf16 and q8_0 weights on Qwen3-0.6B-like
// shapes, plus the scalar reference for scale.
//
// Decode cycles through enough copies of the weight (>= 512 MiB in all) that every call streams
// it from DRAM, as a real forward pass does; otherwise a 2 MiB matrix would sit in L3.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/ops.h"
#include "backend/cpu/quantize.h"
#include "backend/cpu/reference.h"
#include "bench_util.h"
#include "benchmark/benchmark.h"
#include "strata/half.h"

namespace strata::cpu {
namespace {

constexpr size_t kStreamBytes = size_t{512} << 20;

struct Weights {
  std::vector<Tensor> copies;
  std::vector<std::vector<uint8_t>> storage;
  size_t bytes_per_copy = 0;
};

Weights MakeWeights(DType dtype, int64_t n, int64_t k, bool stream) {
  Weights w;
  w.bytes_per_copy = DTypeBytes(dtype, n * k);
  const size_t copies = stream ? std::max<size_t>(1, kStreamBytes / w.bytes_per_copy) : 1;
  std::vector<float> row(k);
  for (size_t c = 0; c < copies; ++c) {
    w.storage.emplace_back(w.bytes_per_copy);
    uint8_t* dst = w.storage.back().data();
    for (int64_t r = 0; r < n; ++r) {
      bench::FillRandom(row.data(), k, static_cast<uint32_t>(r * 7 + c));
      switch (dtype) {
        case DType::kF32:
          std::memcpy(dst + r * k * 4, row.data(), k * 4);
          break;
        case DType::kBF16:
          for (int64_t i = 0; i < k; ++i)
            reinterpret_cast<uint16_t*>(dst)[r * k + i] = F32ToBf16(row[i]);
          break;
        case DType::kQ8_0:
          QuantizeRowQ8_0(row.data(), k,
                          reinterpret_cast<BlockQ8_0*>(dst) + r * (k / kQ8BlockSize));
          break;
        default:
          break;
      }
    }
    w.copies.push_back(Tensor{dtype, {n, k}, dst});
  }
  return w;
}

void BM_MatMul(benchmark::State& state, DType dtype) {
  const int m = static_cast<int>(state.range(0));
  const int64_t n = state.range(1), k = state.range(2);
  // STRATA_BENCH_IN_CACHE=1 keeps one copy (measures the kernel, not DRAM).
  const bool stream = m == 1 && std::getenv("STRATA_BENCH_IN_CACHE") == nullptr;
  const Weights w = MakeWeights(dtype, n, k, stream);
  const auto x = bench::RandomVector(size_t(m) * k, 1);
  std::vector<float> y(size_t(m) * n);
  size_t i = 0;
  for (auto _ : state) {
    MatMul(bench::Pool(), x.data(), m, w.copies[i], nullptr, y.data());
    benchmark::DoNotOptimize(y.data());
    i = (i + 1) % w.copies.size();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * w.bytes_per_copy);
  state.counters["FLOPS"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(IsaName(ActiveIsa())) +
                 " threads=" + std::to_string(bench::Pool().num_threads()));
}

void MatMulArgs(benchmark::internal::Benchmark* b) {
  for (auto [n, k] : {std::pair{1024, 1024}, {3072, 1024}, {1024, 3072}, {151936, 1024}}) {
    b->Args({1, n, k});
  }
  // Small batches: continuous batching decodes a few sequences per step.
  for (int m : {4, 16}) {
    b->Args({m, 3072, 1024});
    b->Args({m, 1024, 3072});
    b->Args({m, 151936, 1024});
  }
  for (auto [n, k] : {std::pair{1024, 1024}, {3072, 1024}, {1024, 3072}}) b->Args({512, n, k});
  b->ArgNames({"m", "n", "k"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}

BENCHMARK_CAPTURE(BM_MatMul, f32, DType::kF32)->Apply(MatMulArgs);
BENCHMARK_CAPTURE(BM_MatMul, bf16, DType::kBF16)->Apply(MatMulArgs);
BENCHMARK_CAPTURE(BM_MatMul, q8_0, DType::kQ8_0)->Apply(MatMulArgs);

void BM_MatMulReference(benchmark::State& state) {
  const int m = 4, n = 256, k = 1024;
  const auto x = bench::RandomVector(size_t(m) * k, 1);
  const auto w = bench::RandomVector(size_t(n) * k, 2);
  std::vector<float> y(size_t(m) * n);
  for (auto _ : state) {
    reference::MatMul(x.data(), m, k, w.data(), n, nullptr, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["FLOPS"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MatMulReference)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace strata::cpu
