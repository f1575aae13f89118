// PagedAttention (and WriteKv): accuracy against the gather-and-softmax reference, and bitwise
// invariance to batch composition, query chunking and thread count, for f32, bf16 and f16 KV
// caches. A 16-bit cache is compared with the reference reading the same rounded K/V.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "backend/cpu/ops.h"
#include "backend/cpu/reference.h"
#include "gtest/gtest.h"
#include "strata/half.h"
#include "test_util.h"

namespace strata::cpu {
namespace {

using testing::RandomVector;

struct Config {
  int num_heads, num_kv_heads, head_dim, block_size, window;
};

struct SeqSpec {
  int context_len, query_len;
};

// A paged cache whose blocks are handed to sequences in shuffled order, so block tables are
// never contiguous.
class PagedCache {
 public:
  PagedCache(const Config& c, int num_blocks, uint32_t seed, DType dtype = DType::kF32)
      : c_(c),
        dtype_(dtype),
        k_(size_t(num_blocks) * c.num_kv_heads * c.block_size * c.head_dim * DTypeBytes(dtype, 1),
           0),
        v_(k_.size(), 0),
        free_(num_blocks) {
    std::iota(free_.begin(), free_.end(), 0);
    std::shuffle(free_.begin(), free_.end(), std::mt19937(seed));
  }
  PagedKvLayer layer() { return {k_.data(), v_.data(), dtype_}; }

  // Allocates blocks for `len` tokens and returns the block table.
  std::vector<int32_t> Allocate(int len) {
    std::vector<int32_t> table;
    for (int i = 0; i < (len + c_.block_size - 1) / c_.block_size; ++i) {
      table.push_back(free_.back());
      free_.pop_back();
    }
    return table;
  }

  // Writes tokens [begin, end) of a sequence; keys/values: [len, kv_heads, head_dim].
  void Write(const std::vector<int32_t>& table, const std::vector<float>& keys,
             const std::vector<float>& values, int begin, int end) {
    std::vector<int32_t> slots;
    for (int p = begin; p < end; ++p)
      slots.push_back(table[p / c_.block_size] * c_.block_size + p % c_.block_size);
    const int64_t stride = int64_t{c_.num_kv_heads} * c_.head_dim;
    WriteKv(keys.data() + begin * stride, values.data() + begin * stride, stride, end - begin,
            slots.data(), c_.num_kv_heads, c_.head_dim, c_.block_size, layer());
  }

 private:
  Config c_;
  DType dtype_;
  std::vector<uint8_t> k_, v_;
  std::vector<int32_t> free_;
};

class PagedAttentionTest : public ::testing::TestWithParam<std::tuple<Config, DType>> {
 protected:
  const Config& c() const { return std::get<0>(GetParam()); }
  DType dtype() const { return std::get<1>(GetParam()); }
  float scale() const { return 1.0f / std::sqrt(float(c().head_dim)); }
  int64_t kv_stride() const { return int64_t{c().num_kv_heads} * c().head_dim; }
  int64_t q_stride() const { return int64_t{c().num_heads} * c().head_dim; }
};

TEST_P(PagedAttentionTest, MatchesReference) {
  const std::vector<SeqSpec> specs = {{1, 1}, {37, 37}, {50, 1}, {70, 13}, {33, 32}};
  PagedCache cache(c(), 64, 5, dtype());
  std::vector<AttentionSeq> seqs;
  std::vector<std::vector<int32_t>> tables;
  int rows = 0;
  uint32_t seed = 100;
  for (const SeqSpec& s : specs) {
    tables.push_back(cache.Allocate(s.context_len));
    const auto keys = RandomVector(s.context_len * kv_stride(), seed++);
    const auto values = RandomVector(s.context_len * kv_stride(), seed++);
    cache.Write(tables.back(), keys, values, 0, s.context_len);
    seqs.push_back({rows, s.query_len, s.context_len, nullptr});
    rows += s.query_len;
  }
  for (size_t i = 0; i < seqs.size(); ++i) seqs[i].block_table = tables[i].data();
  // Queries scaled up so the softmax is peaked, not uniform (a uniform one hides errors).
  const auto q = RandomVector(rows * q_stride(), 7, -3.0f, 3.0f);
  std::vector<float> out(rows * q_stride()), ref(out.size());
  ThreadPool pool(2);
  PagedAttention(pool, q.data(), q_stride(), seqs.data(), int(seqs.size()), c().num_heads,
                 c().num_kv_heads, c().head_dim, c().block_size, c().window, scale(), cache.layer(),
                 out.data());
  reference::PagedAttention(q.data(), q_stride(), seqs.data(), int(seqs.size()), c().num_heads,
                            c().num_kv_heads, c().head_dim, c().block_size, c().window, scale(),
                            cache.layer(), ref.data());
  // Outputs are convex combinations of V entries in [-1, 1]. Scores |s| <= 3 * head_dim * scale
  // carry ~head_dim/8 f32 roundings, e^x is within ~2 ulp, so probabilities are relatively off
  // by < 1e-5 and the output by < 1e-5 absolute; 3e-5 leaves margin for the sum of weights.
  for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], ref[i], 3e-5) << "at " << i;
}

// One sequence's rows are bitwise identical alone, in a batch (at any position), and with 1 or
// 2 threads.
TEST_P(PagedAttentionTest, BatchInvariant) {
  const std::vector<SeqSpec> specs = {{40, 40}, {65, 1}, {29, 9}, {17, 1}};
  PagedCache cache(c(), 64, 9, dtype());
  std::vector<AttentionSeq> seqs;
  std::vector<std::vector<int32_t>> tables;
  int rows = 0;
  uint32_t seed = 300;
  for (const SeqSpec& s : specs) {
    tables.push_back(cache.Allocate(s.context_len));
    cache.Write(tables.back(), RandomVector(s.context_len * kv_stride(), seed),
                RandomVector(s.context_len * kv_stride(), seed + 1), 0, s.context_len);
    seed += 2;
    seqs.push_back({rows, s.query_len, s.context_len, nullptr});
    rows += s.query_len;
  }
  for (size_t i = 0; i < seqs.size(); ++i) seqs[i].block_table = tables[i].data();
  const auto q = RandomVector(rows * q_stride(), 8, -3.0f, 3.0f);
  std::vector<float> batch(rows * q_stride());
  ThreadPool pool2(2), pool1(1);
  PagedAttention(pool2, q.data(), q_stride(), seqs.data(), int(seqs.size()), c().num_heads,
                 c().num_kv_heads, c().head_dim, c().block_size, c().window, scale(), cache.layer(),
                 batch.data());
  for (ThreadPool* pool : {&pool1, &pool2}) {
    for (const AttentionSeq& s : seqs) {
      AttentionSeq alone = s;
      alone.query_start = 0;
      std::vector<float> out(s.query_len * q_stride());
      PagedAttention(*pool, q.data() + s.query_start * q_stride(), q_stride(), &alone, 1,
                     c().num_heads, c().num_kv_heads, c().head_dim, c().block_size, c().window,
                     scale(), cache.layer(), out.data());
      EXPECT_EQ(std::memcmp(out.data(), batch.data() + s.query_start * q_stride(),
                            out.size() * sizeof(float)),
                0)
          << "context " << s.context_len << " threads " << pool->num_threads();
    }
  }
}

// A prompt prefilled in one call equals the same prompt prefilled in chunks (KV written between
// calls) followed by decode steps, bitwise.
TEST_P(PagedAttentionTest, ChunkedPrefillInvariant) {
  const int len = 53;
  const auto keys = RandomVector(len * kv_stride(), 41);
  const auto values = RandomVector(len * kv_stride(), 42);
  const auto q = RandomVector(len * q_stride(), 43, -3.0f, 3.0f);
  ThreadPool pool(2);
  auto run = [&](const std::vector<int>& boundaries) {
    PagedCache cache(c(), 32, 77, dtype());
    const auto table = cache.Allocate(len);
    std::vector<float> out(len * q_stride());
    for (size_t i = 0; i + 1 < boundaries.size(); ++i) {
      const int b = boundaries[i], e = boundaries[i + 1];
      cache.Write(table, keys, values, b, e);
      AttentionSeq s{0, e - b, e, table.data()};
      PagedAttention(pool, q.data() + b * q_stride(), q_stride(), &s, 1, c().num_heads,
                     c().num_kv_heads, c().head_dim, c().block_size, c().window, scale(),
                     cache.layer(), out.data() + b * q_stride());
    }
    return out;
  };
  const auto whole = run({0, len});
  const auto chunked = run({0, 10, 27, 28, 45, 50, 51, 52, 53});
  const auto decode = run({0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
                           18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
                           36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53});
  EXPECT_EQ(std::memcmp(whole.data(), chunked.data(), whole.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(whole.data(), decode.data(), whole.size() * sizeof(float)), 0);
}

std::vector<Config> Shapes() {
  return {Config{4, 4, 64, 16, 0},    // MHA
          Config{8, 2, 128, 16, 0},   // GQA 4:1
          Config{16, 8, 128, 16, 0},  // Qwen3-0.6B (2:1)
          Config{8, 1, 64, 4, 0},     // MQA, small blocks
          Config{6, 2, 36, 5, 0},     // head_dim and block_size with tails
          Config{8, 2, 64, 16, 7},    // sliding window inside one block
          Config{8, 4, 128, 8, 20},   // sliding window over several blocks
          Config{32, 2, 64, 16, 0}};  // GQA 16:1 (one query per work item)
}

std::string ShapeName(const Config& c) {
  return "h" + std::to_string(c.num_heads) + "kv" + std::to_string(c.num_kv_heads) + "d" +
         std::to_string(c.head_dim) + "bs" + std::to_string(c.block_size) + "w" +
         std::to_string(c.window);
}

INSTANTIATE_TEST_SUITE_P(Shapes, PagedAttentionTest,
                         ::testing::Combine(::testing::ValuesIn(Shapes()),
                                            ::testing::Values(DType::kF32, DType::kBF16,
                                                              DType::kF16)),
                         [](const auto& info) {
                           return ShapeName(std::get<0>(info.param)) + "_" +
                                  std::string(DTypeName(std::get<1>(info.param)));
                         });

// A 16-bit cache gives bitwise the f32 kernel's result on K/V rounded before the write.
class PagedAttentionSixteenBitTest : public ::testing::TestWithParam<std::tuple<Config, DType>> {};

TEST_P(PagedAttentionSixteenBitTest, EqualsF32KernelOnRoundedKv) {
  const auto& [c, dtype] = GetParam();
  const int len = 45;
  const int64_t kv_stride = int64_t{c.num_kv_heads} * c.head_dim;
  const int64_t q_stride = int64_t{c.num_heads} * c.head_dim;
  auto keys = RandomVector(len * kv_stride, 61);
  auto values = RandomVector(len * kv_stride, 62);
  const auto q = RandomVector(len * q_stride, 63, -3.0f, 3.0f);
  ThreadPool pool(2);
  auto run = [&](DType cache_dtype, const std::vector<float>& k, const std::vector<float>& v) {
    PagedCache cache(c, 16, 3, cache_dtype);
    const auto table = cache.Allocate(len);
    cache.Write(table, k, v, 0, len);
    AttentionSeq s{0, len, len, table.data()};
    std::vector<float> out(len * q_stride);
    PagedAttention(pool, q.data(), q_stride, &s, 1, c.num_heads, c.num_kv_heads, c.head_dim,
                   c.block_size, c.window, 1.0f / std::sqrt(float(c.head_dim)), cache.layer(),
                   out.data());
    return out;
  };
  const auto sixteen = run(dtype, keys, values);
  for (auto* vec : {&keys, &values}) {
    for (float& x : *vec) {
      x = dtype == DType::kBF16 ? Bf16ToF32(F32ToBf16(x)) : F16ToF32(F32ToF16(x));
    }
  }
  const auto f32 = run(DType::kF32, keys, values);
  EXPECT_EQ(std::memcmp(sixteen.data(), f32.data(), f32.size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, PagedAttentionSixteenBitTest,
                         ::testing::Combine(::testing::ValuesIn(Shapes()),
                                            ::testing::Values(DType::kBF16, DType::kF16)),
                         [](const auto& info) {
                           return ShapeName(std::get<0>(info.param)) + "_" +
                                  std::string(DTypeName(std::get<1>(info.param)));
                         });

TEST(WriteKvTest, WritesSlotsOfStridedRows) {
  const int kvh = 2, d = 8, bs = 4, tokens = 3;
  const int64_t stride = 40;  // rows come from a fused qkv buffer
  const auto src_k = RandomVector(tokens * stride, 1), src_v = RandomVector(tokens * stride, 2);
  std::vector<float> k(3 * kvh * bs * d, 0.0f), v(k.size(), 0.0f);
  const int32_t slots[tokens] = {9, 2, 11};  // block 2 offset 1, block 0 offset 2, block 2 offset 3
  WriteKv(src_k.data(), src_v.data(), stride, tokens, slots, kvh, d, bs, {k.data(), v.data()});
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < kvh; ++h) {
      for (int e = 0; e < d; ++e) {
        const size_t at = ((slots[t] / bs * kvh + h) * bs + slots[t] % bs) * d + e;
        EXPECT_EQ(k[at], src_k[t * stride + h * d + e]);
        EXPECT_EQ(v[at], src_v[t * stride + h * d + e]);
      }
    }
  }
}

}  // namespace
}  // namespace strata::cpu

namespace strata::cpu {
namespace {

// bf16 and f16 caches hold each value rounded to nearest even (strata/half.h's conversions).
class WriteKvDTypeTest : public ::testing::TestWithParam<DType> {};

TEST_P(WriteKvDTypeTest, RoundsToNearestEven) {
  const DType dtype = GetParam();
  const int kvh = 2, d = 12, bs = 4, tokens = 3;  // d = 12: one 8-lane group and a tail
  const int64_t stride = 30;
  const auto src_k = RandomVector(tokens * stride, 3, -70000.0f, 70000.0f);
  const auto src_v = RandomVector(tokens * stride, 4);
  std::vector<uint16_t> k(3 * kvh * bs * d, 0), v(k.size(), 0);
  const int32_t slots[tokens] = {5, 0, 10};
  WriteKv(src_k.data(), src_v.data(), stride, tokens, slots, kvh, d, bs,
          {k.data(), v.data(), dtype});
  auto round = [&](float x) { return dtype == DType::kBF16 ? F32ToBf16(x) : F32ToF16(x); };
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < kvh; ++h) {
      for (int e = 0; e < d; ++e) {
        const size_t at = ((slots[t] / bs * kvh + h) * bs + slots[t] % bs) * d + e;
        EXPECT_EQ(k[at], round(src_k[t * stride + h * d + e]));
        EXPECT_EQ(v[at], round(src_v[t * stride + h * d + e]));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, WriteKvDTypeTest, ::testing::Values(DType::kBF16, DType::kF16),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

}  // namespace
}  // namespace strata::cpu
