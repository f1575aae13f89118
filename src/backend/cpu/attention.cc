// PagedAttention: causal / sliding-window GQA attention over the paged KV cache (f32, bf16 or
// f16) with an online softmax, streaming K and V block by block.
//
// Work is split into items of (sequence, kv head, tile of consecutive queries); each item reads
// each K/V block once for all g = num_heads / num_kv_heads query heads and all queries of the
// tile. Items are handed out dynamically (an atomic counter), which is safe for determinism:
// a (query, head) pair's arithmetic never depends on the item it is in. For one query at
// position p the keys [lo, p] (lo = p - window + 1 with a window) are visited block by block in
// increasing position; per block: scores (8-lane FMA dot + simd::HorizontalSum), block max,
// rescale of the running sum and accumulator, then p_t = e^(s_t - max) accumulated in
// increasing t. Block boundaries are fixed by position (block_size), so the result is the same
// whether the query ran alone, in a batch, or in any prefill chunk.
//
// A bf16/f16 cache is widened to f32 (exactly) one (block, kv head) at a time, for the rows the
// item needs, into scratch; the arithmetic after that is the f32 kernel's, so a 16-bit cache
// gives bitwise the f32 result on the rounded K/V and stays batch-invariant.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/ops.h"
#include "backend/cpu/simd.h"
#include "strata/half.h"

namespace strata::cpu {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Queries x heads per item: 16 running accumulators of head_dim floats (8 KiB at 128) stay in
// L1 next to one K and one V block.
constexpr int kPairsPerItem = 16;

struct WorkItem {
  int seq;
  int kv_head;
  int q_begin;  // query indices within the sequence
  int q_end;
};

struct Shape {
  int num_heads;
  int num_kv_heads;
  int head_dim;
  int block_size;
  int window;
  float scale;
};

inline float Dot(const float* a, const float* b, int d) {
  __m256 acc = _mm256_setzero_ps();
  int i = 0;
  for (; i + 8 <= d; i += 8)
    acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
  float s = simd::HorizontalSum(acc);
  for (; i < d; ++i) s = std::fma(a[i], b[i], s);
  return s;
}

// Four keys at once: the same per-key arithmetic as Dot (one 8-lane FMA chain each, then
// HorizontalSum, then the scalar tail), only interleaved for instruction-level parallelism, so
// a score does not depend on which of the two functions computed it.
inline void Dot4(const float* q, const float* k, int64_t k_stride, int d, float* out) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int i = 0;
  for (; i + 8 <= d; i += 8) {
    const __m256 qv = _mm256_loadu_ps(q + i);
    a0 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k + i), a0);
    a1 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k + k_stride + i), a1);
    a2 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k + 2 * k_stride + i), a2);
    a3 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k + 3 * k_stride + i), a3);
  }
  float s[4] = {simd::HorizontalSum(a0), simd::HorizontalSum(a1), simd::HorizontalSum(a2),
                simd::HorizontalSum(a3)};
  for (int j = 0; j < 4; ++j) {
    for (int e = i; e < d; ++e) s[j] = std::fma(q[e], k[j * k_stride + e], s[j]);
    out[j] = s[j];
  }
}

// acc[0:d) = acc * alpha (skipped when alpha == 1, which leaves the same bits).
inline void Rescale(float* acc, int d, float alpha) {
  if (alpha == 1.0f) return;
  const __m256 va = _mm256_set1_ps(alpha);
  int i = 0;
  for (; i + 8 <= d; i += 8) _mm256_storeu_ps(acc + i, _mm256_mul_ps(_mm256_loadu_ps(acc + i), va));
  for (; i < d; ++i) acc[i] *= alpha;
}

// acc[0:d) += sum_t p[t] * v[t, 0:d), one FMA per element per t in increasing t. The
// accumulator is held in registers 32 floats at a time across all n rows of V.
inline void AccumulateV(float* acc, const float* v, int64_t v_stride, const float* p, int n,
                        int d) {
  int i = 0;
  for (; i + 32 <= d; i += 32) {
    __m256 a0 = _mm256_loadu_ps(acc + i), a1 = _mm256_loadu_ps(acc + i + 8);
    __m256 a2 = _mm256_loadu_ps(acc + i + 16), a3 = _mm256_loadu_ps(acc + i + 24);
    for (int t = 0; t < n; ++t) {
      const __m256 vp = _mm256_set1_ps(p[t]);
      const float* vt = v + t * v_stride + i;
      a0 = _mm256_fmadd_ps(vp, _mm256_loadu_ps(vt), a0);
      a1 = _mm256_fmadd_ps(vp, _mm256_loadu_ps(vt + 8), a1);
      a2 = _mm256_fmadd_ps(vp, _mm256_loadu_ps(vt + 16), a2);
      a3 = _mm256_fmadd_ps(vp, _mm256_loadu_ps(vt + 24), a3);
    }
    _mm256_storeu_ps(acc + i, a0);
    _mm256_storeu_ps(acc + i + 8, a1);
    _mm256_storeu_ps(acc + i + 16, a2);
    _mm256_storeu_ps(acc + i + 24, a3);
  }
  for (; i + 8 <= d; i += 8) {
    __m256 a = _mm256_loadu_ps(acc + i);
    for (int t = 0; t < n; ++t)
      a = _mm256_fmadd_ps(_mm256_set1_ps(p[t]), _mm256_loadu_ps(v + t * v_stride + i), a);
    _mm256_storeu_ps(acc + i, a);
  }
  for (; i < d; ++i) {
    float a = acc[i];
    for (int t = 0; t < n; ++t) a = std::fma(p[t], v[t * v_stride + i], a);
    acc[i] = a;
  }
}

// dst[0:n) = the 16-bit values src[0:n) widened to f32 (exact).
void Widen(const uint16_t* src, DType dtype, int64_t n, float* dst) {
  int64_t i = 0;
  if (dtype == DType::kBF16) {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, simd::LoadBf16(src + i));
    for (; i < n; ++i) dst[i] = Bf16ToF32(src[i]);
  } else {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, simd::LoadF16(src + i));
    for (; i < n; ++i) dst[i] = F16ToF32(src[i]);
  }
}

// Rows [row_begin, row_end) of one (block, kv head) of K or V as f32: the cache itself for an
// f32 cache, else widened into `buf` (laid out like the block, rows at their own offsets).
const float* BlockRows(const void* base, DType dtype, int64_t elem_offset, int row_begin,
                       int row_end, int d, float* buf) {
  if (dtype == DType::kF32) return static_cast<const float*>(base) + elem_offset;
  const auto* src = static_cast<const uint16_t*>(base) + elem_offset;
  const int64_t first = static_cast<int64_t>(row_begin) * d;
  Widen(src + first, dtype, static_cast<int64_t>(row_end - row_begin) * d, buf + first);
  return buf;
}

void RunItem(const WorkItem& item, const float* q, int64_t q_stride, const AttentionSeq& seq,
             const Shape& s, PagedKvLayer layer, float* out, std::vector<float>& scratch) {
  const int g = s.num_heads / s.num_kv_heads;
  const int d = s.head_dim;
  const int bs = s.block_size;
  const int nq = item.q_end - item.q_begin;
  const int pairs = nq * g;
  const bool widen = layer.dtype != DType::kF32;
  const size_t block_floats = static_cast<size_t>(bs) * d;
  scratch.resize(static_cast<size_t>(pairs) * (d + 2) + bs + (widen ? 2 * block_floats : 0));
  float* acc = scratch.data();                            // [pairs, d]
  float* run_max = acc + static_cast<size_t>(pairs) * d;  // [pairs]
  float* run_sum = run_max + pairs;                       // [pairs]
  float* scores = run_sum + pairs;                        // [bs]
  float* k_buf = scores + bs;                             // [bs, d] widened K (16-bit cache)
  float* v_buf = k_buf + block_floats;                    // [bs, d] widened V (16-bit cache)
  std::fill(acc, acc + static_cast<size_t>(pairs) * d, 0.0f);
  std::fill(run_max, run_max + pairs, kNegInf);
  std::fill(run_sum, run_sum + pairs, 0.0f);

  const int first_pos = seq.context_len - seq.query_len;  // position of query 0
  auto lo_of = [&](int pos) { return s.window > 0 ? std::max(0, pos - s.window + 1) : 0; };
  const int key_begin = lo_of(first_pos + item.q_begin);
  const int key_end = first_pos + item.q_end;  // exclusive; the last query's own position + 1
  const int64_t head_stride = static_cast<int64_t>(bs) * d;

  for (int b = key_begin / bs; b * bs < key_end; ++b) {
    const int64_t phys = seq.block_table[b];
    const int64_t at = (phys * s.num_kv_heads + item.kv_head) * head_stride;
    const int block_start = b * bs;
    // Rows any query of the item reads: from the first query's window start to the last
    // query's own position.
    const int row_begin = std::max(key_begin, block_start) - block_start;
    const int row_end = std::min(key_end, block_start + bs) - block_start;
    const float* kb = BlockRows(layer.k, layer.dtype, at, row_begin, row_end, d, k_buf);
    const float* vb = BlockRows(layer.v, layer.dtype, at, row_begin, row_end, d, v_buf);
    for (int qi = 0; qi < nq; ++qi) {
      const int pos = first_pos + item.q_begin + qi;
      const int a = std::max(lo_of(pos), block_start);
      const int e = std::min(pos + 1, block_start + bs);
      if (a >= e) continue;
      const int64_t row = seq.query_start + item.q_begin + qi;
      for (int j = 0; j < g; ++j) {
        const int head = item.kv_head * g + j;
        const float* qv = q + row * q_stride + static_cast<int64_t>(head) * d;
        const int pair = qi * g + j;
        const float* k_first = kb + static_cast<int64_t>(a - block_start) * d;
        int t = 0;
        for (; t + 4 <= e - a; t += 4)
          Dot4(qv, k_first + static_cast<int64_t>(t) * d, d, d, scores + t);
        for (; t < e - a; ++t) scores[t] = Dot(qv, k_first + static_cast<int64_t>(t) * d, d);
        float block_max = kNegInf;
        for (t = 0; t < e - a; ++t) {
          scores[t] *= s.scale;
          block_max = std::max(block_max, scores[t]);
        }
        const float old_max = run_max[pair];
        const float new_max = std::max(old_max, block_max);
        const float alpha = old_max == kNegInf ? 0.0f : simd::ExpScalar(old_max - new_max);
        run_max[pair] = new_max;
        const int n = e - a;
        t = 0;
        const __m256 vmax = _mm256_set1_ps(new_max);
        for (; t + 8 <= n; t += 8) {
          _mm256_storeu_ps(scores + t, simd::Exp(_mm256_sub_ps(_mm256_loadu_ps(scores + t), vmax)));
        }
        for (; t < n; ++t) scores[t] = simd::ExpScalar(scores[t] - new_max);
        float sum = run_sum[pair] * alpha;
        for (t = 0; t < n; ++t) sum += scores[t];
        run_sum[pair] = sum;
        float* pacc = acc + static_cast<size_t>(pair) * d;
        Rescale(pacc, d, alpha);
        AccumulateV(pacc, vb + static_cast<int64_t>(a - block_start) * d, d, scores, n, d);
      }
    }
  }
  for (int qi = 0; qi < nq; ++qi) {
    const int64_t row = seq.query_start + item.q_begin + qi;
    for (int j = 0; j < g; ++j) {
      const int pair = qi * g + j;
      const int head = item.kv_head * g + j;
      float* o = out + row * s.num_heads * d + static_cast<int64_t>(head) * d;
      const float* pacc = acc + static_cast<size_t>(pair) * d;
      const __m256 vl = _mm256_set1_ps(run_sum[pair]);
      int i = 0;
      for (; i + 8 <= d; i += 8)
        _mm256_storeu_ps(o + i, _mm256_div_ps(_mm256_loadu_ps(pacc + i), vl));
      for (; i < d; ++i) o[i] = pacc[i] / run_sum[pair];
    }
  }
}

}  // namespace

void PagedAttention(ThreadPool& pool, const float* q, int64_t q_stride, const AttentionSeq* seqs,
                    int num_seqs, int num_heads, int num_kv_heads, int head_dim, int block_size,
                    int window, float scale, PagedKvLayer layer, float* out) {
  assert(num_kv_heads > 0 && num_heads % num_kv_heads == 0);
  assert(layer.dtype == DType::kF32 || layer.dtype == DType::kBF16 || layer.dtype == DType::kF16);
  const int g = num_heads / num_kv_heads;
  const int tile = std::max(1, kPairsPerItem / g);
  std::vector<WorkItem> items;
  for (int si = 0; si < num_seqs; ++si) {
    const AttentionSeq& sq = seqs[si];
    assert(sq.query_len <= sq.context_len);
    for (int h = 0; h < num_kv_heads; ++h) {
      for (int q0 = 0; q0 < sq.query_len; q0 += tile) {
        items.push_back({si, h, q0, std::min(sq.query_len, q0 + tile)});
      }
    }
  }
  const Shape shape{num_heads, num_kv_heads, head_dim, block_size, window, scale};
  std::atomic<size_t> next{0};
  auto worker = [&](int) {
    thread_local std::vector<float> scratch;
    for (size_t i = next.fetch_add(1); i < items.size(); i = next.fetch_add(1)) {
      const WorkItem& it = items[i];
      RunItem(it, q, q_stride, seqs[it.seq], shape, layer, out, scratch);
    }
  };
  if (items.size() <= 1) {
    worker(0);
  } else {
    pool.RunOnAll(worker);
  }
}

}  // namespace strata::cpu
