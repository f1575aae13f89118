#include "model/gguf_file.h"

#include <cstring>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/gguf_writer.h"
#include "model/weight_convert.h"
#include "test_util.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using testing_util::ReadBytes;
using testing_util::ScratchDir;
using testing_util::WriteBytes;

struct Parsed {
  std::unique_ptr<MappedFile> mapped;
  std::unique_ptr<GgufFile> gguf;
};

absl::StatusOr<Parsed> Open(const std::string& path) {
  Parsed p;
  auto mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  p.mapped = std::move(*mapped);
  auto g = GgufFile::Parse(*p.mapped);
  if (!g.ok()) return g.status();
  p.gguf = std::move(*g);
  return p;
}

GgufValue Scalar(GgufType t, int64_t i) {
  GgufValue v;
  v.type = t;
  v.i = i;
  return v;
}

// Writes a file with every metadata type and four tensor types; returns the tensor payloads.
void WriteSample(const std::string& path, uint32_t alignment, std::vector<float>* f32,
                 std::vector<BlockQ8_0>* q8) {
  GgufWriter w;
  w.Set("general.architecture", GgufValue::Str("llama"));
  if (alignment != 32) w.Set("general.alignment", GgufValue::U32(alignment));
  w.Set("t.u8", Scalar(GgufType::kUint8, 200));
  w.Set("t.i8", Scalar(GgufType::kInt8, -100));
  w.Set("t.u16", Scalar(GgufType::kUint16, 65000));
  w.Set("t.i16", Scalar(GgufType::kInt16, -30000));
  w.Set("t.u32", GgufValue::U32(4000000000u));
  w.Set("t.i32", GgufValue::I32(-2000000000));
  w.Set("t.u64", GgufValue::U64(1ull << 40));
  w.Set("t.i64", Scalar(GgufType::kInt64, -(1ll << 40)));
  w.Set("t.f32", GgufValue::F32(0.25f));
  GgufValue f64;
  f64.type = GgufType::kFloat64;
  f64.f = 1e-300;
  w.Set("t.f64", f64);
  w.Set("t.bool", GgufValue::Bool(true));
  w.Set("t.str", GgufValue::Str("héllo"));
  w.Set("t.strs", GgufValue::StrArray({"a", "", "ccc"}));
  w.Set("t.i32s", GgufValue::I32Array({1, -2, 3}));
  w.Set("t.f32s", GgufValue::F32Array({0.5f, 1.5f}));
  w.Set("t.nested", GgufValue::Array(GgufType::kArray,
                                     {GgufValue::I32Array({7}), GgufValue::I32Array({8, 9})}));
  f32->resize(3 * 32);
  for (size_t i = 0; i < f32->size(); ++i) (*f32)[i] = static_cast<float>(i) * 0.5f - 3;
  q8->resize(4);
  QuantizeQ8_0(f32->data(), 64, q8->data());
  QuantizeQ8_0(f32->data() + 32, 64, q8->data() + 2);  // overlapping source is fine
  std::vector<uint16_t> half(5, 0x3c00);
  w.AddTensor("w.f32", GgmlType::kF32, {3, 32});
  w.AddTensor("w.q8", GgmlType::kQ8_0, {2, 64});
  w.AddTensor("w.f16", GgmlType::kF16, {5});
  w.AddTensor("w.bf16", GgmlType::kBF16, {1, 5});
  ASSERT_TRUE(w.Open(path).ok());
  ASSERT_TRUE(w.AppendData(f32->data(), 100).ok());  // pieces of any size
  ASSERT_TRUE(w.AppendData(reinterpret_cast<uint8_t*>(f32->data()) + 100, 3 * 32 * 4 - 100).ok());
  ASSERT_TRUE(w.AppendData(q8->data(), 4 * sizeof(BlockQ8_0)).ok());
  ASSERT_TRUE(w.AppendData(half.data(), 10).ok());
  ASSERT_TRUE(w.AppendData(half.data(), 10).ok());
  ASSERT_TRUE(w.Close().ok());
}

TEST(GgufFileTest, RoundTripsMetadataOfEveryTypeAndTensors) {
  for (uint32_t alignment : {32u, 64u}) {
    const std::string path = ScratchDir("gguf_round") + "/m.gguf";
    std::vector<float> f32;
    std::vector<BlockQ8_0> q8;
    WriteSample(path, alignment, &f32, &q8);
    auto p = Open(path);
    ASSERT_TRUE(p.ok()) << p.status();
    const GgufFile& g = *p->gguf;
    EXPECT_EQ(g.version(), 3u);
    EXPECT_EQ(g.alignment(), alignment);
    EXPECT_EQ(g.data_offset() % alignment, 0u);
    EXPECT_EQ(*g.GetString("general.architecture"), "llama");
    EXPECT_EQ(*g.GetInt("t.u8"), 200);
    EXPECT_EQ(*g.GetInt("t.i8"), -100);
    EXPECT_EQ(*g.GetInt("t.u16"), 65000);
    EXPECT_EQ(*g.GetInt("t.i16"), -30000);
    EXPECT_EQ(*g.GetInt("t.u32"), 4000000000ll);
    EXPECT_EQ(*g.GetInt("t.i32"), -2000000000);
    EXPECT_EQ(*g.GetInt("t.u64"), 1ll << 40);
    EXPECT_EQ(*g.GetInt("t.i64"), -(1ll << 40));
    EXPECT_EQ(*g.GetFloat("t.f32"), 0.25);
    EXPECT_EQ(*g.GetFloat("t.f64"), 1e-300);
    EXPECT_EQ(*g.GetBool("t.bool"), true);
    EXPECT_EQ(*g.GetString("t.str"), "héllo");
    const GgufValue* strs = g.Find("t.strs");
    ASSERT_NE(strs, nullptr);
    EXPECT_EQ(strs->array_type, GgufType::kString);
    ASSERT_EQ(strs->array.size(), 3u);
    EXPECT_EQ(strs->array[2].s, "ccc");
    EXPECT_EQ(g.Find("t.i32s")->array[1].i, -2);
    EXPECT_EQ(g.Find("t.f32s")->array[1].f, 1.5);
    const GgufValue* nested = g.Find("t.nested");
    ASSERT_EQ(nested->array.size(), 2u);
    EXPECT_EQ(nested->array[1].array[1].i, 9);
    EXPECT_FALSE(g.GetString("t.u8").ok());
    EXPECT_THAT(g.GetString("t.u8").status().message(), HasSubstr("t.u8"));
    EXPECT_EQ(g.GetInt("nope").status().code(), absl::StatusCode::kNotFound);

    ASSERT_EQ(g.tensors().size(), 4u);
    for (const auto& t : g.tensors()) EXPECT_EQ((t.offset - g.data_offset()) % alignment, 0u);
    auto tf = g.GetTensor("w.f32");
    ASSERT_TRUE(tf.ok());
    EXPECT_EQ(tf->shape, (std::vector<int64_t>{3, 32}));
    EXPECT_EQ(std::memcmp(tf->data, f32.data(), f32.size() * 4), 0);
    auto tq = g.GetTensor("w.q8");
    ASSERT_TRUE(tq.ok());
    EXPECT_EQ(tq->dtype, DType::kQ8_0);
    EXPECT_EQ(tq->shape, (std::vector<int64_t>{2, 64}));
    EXPECT_EQ(std::memcmp(tq->data, q8.data(), 4 * sizeof(BlockQ8_0)), 0);
    EXPECT_EQ(g.GetTensor("w.f16")->dtype, DType::kF16);
    EXPECT_EQ(g.GetTensor("w.bf16")->shape, (std::vector<int64_t>{1, 5}));
  }
}

TEST(GgufFileTest, WritesDimsInnermostFirst) {
  const std::string path = ScratchDir("gguf_dims") + "/m.gguf";
  std::vector<float> f32;
  std::vector<BlockQ8_0> q8;
  WriteSample(path, 32, &f32, &q8);
  const std::vector<uint8_t> bytes = ReadBytes(path);
  const std::string name = "w.f32";
  auto it = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  ASSERT_NE(it, bytes.end());
  const uint8_t* p = &*it + name.size();
  uint32_t n_dims;
  uint64_t d0, d1;
  std::memcpy(&n_dims, p, 4);
  std::memcpy(&d0, p + 4, 8);
  std::memcpy(&d1, p + 12, 8);
  EXPECT_EQ(n_dims, 2u);
  EXPECT_EQ(d0, 32u);  // ne[0]: the row length
  EXPECT_EQ(d1, 3u);
}

TEST(GgufFileTest, UnsupportedTensorTypeNamesFileTensorAndType) {
  const std::string path = ScratchDir("gguf_type") + "/m.gguf";
  GgufWriter w;
  w.Set("general.architecture", GgufValue::Str("llama"));
  w.AddTensor("blk.0.attn_q.weight", static_cast<GgmlType>(12), {256, 256});  // q4_K
  ASSERT_TRUE(w.Open(path).ok());
  ASSERT_TRUE(w.Close().ok());
  auto p = Open(path);
  ASSERT_TRUE(p.ok()) << p.status();
  auto t = p->gguf->GetTensor("blk.0.attn_q.weight");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr(path));
  EXPECT_THAT(t.status().message(), HasSubstr("blk.0.attn_q.weight"));
  EXPECT_THAT(t.status().message(), HasSubstr("q4_K"));
}

TEST(GgufFileTest, TruncatedFileNamesFileAndTensor) {
  const std::string path = ScratchDir("gguf_trunc") + "/m.gguf";
  std::vector<float> f32;
  std::vector<BlockQ8_0> q8;
  WriteSample(path, 32, &f32, &q8);
  std::vector<uint8_t> bytes = ReadBytes(path);
  bytes.resize(bytes.size() - 40);
  WriteBytes(path, bytes);
  auto p = Open(path);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr(path));
  EXPECT_THAT(p.status().message(), HasSubstr("w.bf16"));
  EXPECT_THAT(p.status().message(), HasSubstr("truncated"));
}

TEST(GgufFileTest, RejectsBadMagicAndVersion) {
  const std::string dir = ScratchDir("gguf_magic");
  WriteBytes(dir + "/a.gguf", {'G', 'G', 'U', 'X', 3, 0, 0, 0});
  WriteBytes(dir + "/b.gguf", {'G', 'G', 'U', 'F', 9, 0, 0, 0});
  WriteBytes(dir + "/c.gguf", {});
  auto a = Open(dir + "/a.gguf");
  EXPECT_THAT(a.status().message(), HasSubstr("bad magic"));
  auto b = Open(dir + "/b.gguf");
  EXPECT_THAT(b.status().message(), HasSubstr("version 9"));
  EXPECT_FALSE(Open(dir + "/c.gguf").ok());
}

TEST(GgufFileTest, GarbageMutationsNeverCrash) {
  const std::string dir = ScratchDir("gguf_fuzz");
  std::vector<float> f32;
  std::vector<BlockQ8_0> q8;
  WriteSample(dir + "/good.gguf", 32, &f32, &q8);
  const std::vector<uint8_t> good = ReadBytes(dir + "/good.gguf");
  std::mt19937 rng(11);
  int parsed = 0;
  for (int iter = 0; iter < 600; ++iter) {
    std::vector<uint8_t> bad = good;
    const int edits = 1 + rng() % 3;
    for (int e = 0; e < edits; ++e) {
      // Mostly the header (counts, lengths, types), sometimes anywhere.
      const size_t limit = iter % 3 == 0 ? bad.size() : std::min<size_t>(bad.size(), 600);
      bad[rng() % limit] = static_cast<uint8_t>(rng());
    }
    if (iter % 7 == 0) bad.resize(rng() % bad.size());
    WriteBytes(dir + "/bad.gguf", bad);
    auto p = Open(dir + "/bad.gguf");
    if (!p.ok()) {
      EXPECT_THAT(p.status().message(), HasSubstr(dir + "/bad.gguf"));
      continue;
    }
    ++parsed;
    for (const auto& info : p->gguf->tensors()) {
      auto t = p->gguf->GetTensor(info.name);
      if (!t.ok()) continue;
      const uint8_t* d = static_cast<const uint8_t*>(t->data);
      ASSERT_LE(d + t->NumBytes(), p->mapped->data() + p->mapped->size()) << info.name;
    }
  }
  EXPECT_GT(parsed, 0);  // some mutations (in data or values) still parse
}

}  // namespace
}  // namespace strata
