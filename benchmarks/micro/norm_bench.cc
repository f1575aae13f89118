// RmsNorm, SiluMul and LogSoftmax benchmarks (memory-streaming ops; reported as bytes/s).
#include <vector>

#include "backend/cpu/ops.h"
#include "backend/cpu/reference.h"
#include "bench_util.h"
#include "benchmark/benchmark.h"

namespace strata::cpu {
namespace {

void BM_RmsNorm(benchmark::State& state) {
  const int rows = static_cast<int>(state.range(0)), dim = static_cast<int>(state.range(1));
  const auto x = bench::RandomVector(size_t(rows) * dim, 1);
  const auto w = bench::RandomVector(dim, 2);
  std::vector<float> out(x.size());
  for (auto _ : state) {
    RmsNorm(x.data(), w.data(), rows, dim, 1e-6f, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 2 * x.size() * sizeof(float));
}
BENCHMARK(BM_RmsNorm)->Args({1, 1024})->Args({512, 1024})->Args({512, 4096});

void BM_RmsNormReference(benchmark::State& state) {
  const int rows = 512, dim = 1024;
  const auto x = bench::RandomVector(size_t(rows) * dim, 1);
  const auto w = bench::RandomVector(dim, 2);
  std::vector<float> out(x.size());
  for (auto _ : state) {
    reference::RmsNorm(x.data(), w.data(), rows, dim, 1e-6f, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 2 * x.size() * sizeof(float));
}
BENCHMARK(BM_RmsNormReference);

void BM_SiluMul(benchmark::State& state) {
  const int rows = static_cast<int>(state.range(0)), inter = 3072;
  const auto g = bench::RandomVector(size_t(rows) * inter, 1);
  const auto u = bench::RandomVector(size_t(rows) * inter, 2);
  std::vector<float> out(g.size());
  for (auto _ : state) {
    SiluMul(g.data(), u.data(), rows, inter, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 3 * g.size() * sizeof(float));
}
BENCHMARK(BM_SiluMul)->Arg(1)->Arg(512);

void BM_LogSoftmax(benchmark::State& state) {
  const int vocab = 151936;
  const auto x = bench::RandomVector(vocab, 1);
  std::vector<float> out(vocab);
  for (auto _ : state) {
    LogSoftmax(x.data(), vocab, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 2 * vocab * sizeof(float));
}
BENCHMARK(BM_LogSoftmax);

}  // namespace
}  // namespace strata::cpu
