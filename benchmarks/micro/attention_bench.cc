// PagedAttention benchmarks on Qwen3-0.6B's attention shape (16 q heads, 8 kv heads, d = 128,
// block 16): decode (one query over a long context, reported as KV bytes/s: memory-bound) and
// prefill (512 queries, reported as FLOP/s), plus a batch of decodes.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "backend/cpu/ops.h"
#include "bench_util.h"
#include "benchmark/benchmark.h"

namespace strata::cpu {
namespace {

constexpr int kHeads = 16, kKvHeads = 8, kHeadDim = 128, kBlock = 16;

// args: sequences, query_len per sequence, context_len per sequence.
void BM_PagedAttention(benchmark::State& state) {
  const int num_seqs = static_cast<int>(state.range(0));
  const int qlen = static_cast<int>(state.range(1));
  const int ctx = static_cast<int>(state.range(2));
  const int blocks_per_seq = (ctx + kBlock - 1) / kBlock;
  const int num_blocks = num_seqs * blocks_per_seq;
  const size_t block_floats = size_t(kKvHeads) * kBlock * kHeadDim;
  const auto k = bench::RandomVector(num_blocks * block_floats, 1);
  const auto v = bench::RandomVector(num_blocks * block_floats, 2);
  // Blocks handed out in a strided order so tables are not contiguous.
  std::vector<int32_t> tables(num_blocks);
  for (int i = 0; i < num_blocks; ++i) tables[i] = (i * 7919) % num_blocks;
  std::vector<AttentionSeq> seqs(num_seqs);
  for (int s = 0; s < num_seqs; ++s)
    seqs[s] = {s * qlen, qlen, ctx, tables.data() + s * blocks_per_seq};
  const int rows = num_seqs * qlen;
  const auto q = bench::RandomVector(size_t(rows) * kHeads * kHeadDim, 3);
  std::vector<float> out(q.size());
  for (auto _ : state) {
    PagedAttention(bench::Pool(), q.data(), kHeads * kHeadDim, seqs.data(), num_seqs, kHeads,
                   kKvHeads, kHeadDim, kBlock, 0, 1.0f / std::sqrt(float(kHeadDim)),
                   {const_cast<float*>(k.data()), const_cast<float*>(v.data())}, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  // Keys each query attends to (causal): sum over its positions.
  double pairs = 0;
  for (int i = 0; i < qlen; ++i) pairs += ctx - qlen + i + 1;
  state.counters["FLOPS"] = benchmark::Counter(num_seqs * pairs * kHeads * kHeadDim * 4.0,
                                               benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(int64_t(state.iterations()) * num_seqs * 2 * int64_t(ctx) * kKvHeads *
                          kHeadDim * 4);
}
BENCHMARK(BM_PagedAttention)
    ->ArgNames({"seqs", "qlen", "ctx"})
    ->Args({1, 1, 1024})
    ->Args({1, 1, 4096})
    ->Args({16, 1, 1024})
    ->Args({1, 512, 512})
    ->Args({1, 512, 2048})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace strata::cpu
