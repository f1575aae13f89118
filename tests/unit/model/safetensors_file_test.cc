#include "model/safetensors_file.h"

#include <cstring>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/safetensors_writer.h"
#include "strata/half.h"
#include "test_util.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using testing_util::ReadBytes;
using testing_util::ScratchDir;
using testing_util::WriteBytes;

std::vector<uint8_t> RawSafetensors(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out(8 + header.size() + data_bytes, 0);
  const uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, header.data(), header.size());
  return out;
}

absl::StatusOr<Tensor> ParseAndGet(const std::string& path, const std::string& name,
                                   std::unique_ptr<MappedFile>* keep) {
  auto mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  auto st = SafetensorsFile::Parse(**mapped);
  if (!st.ok()) return st.status();
  auto t = (*st)->Get(name);
  *keep = std::move(*mapped);
  return t;
}

TEST(SafetensorsFileTest, RoundTripsEveryDtype) {
  const std::string path = ScratchDir("st_round") + "/m.safetensors";
  std::vector<float> f32 = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1.0f};
  std::vector<uint16_t> bf16 = {F32ToBf16(1.0f), F32ToBf16(-0.5f)};
  std::vector<uint16_t> f16 = {F32ToF16(0.25f), F32ToF16(2.0f), F32ToF16(-4.0f)};
  Tensor a{DType::kF32, {2, 3}, f32.data()};
  Tensor b{DType::kBF16, {2}, bf16.data()};
  Tensor c{DType::kF16, {3, 1}, f16.data()};
  ASSERT_TRUE(SafetensorsWriter::WriteFile(path, {{"a", a}, {"b.weight", b}, {"c", c}}).ok());
  auto mapped = MappedFile::Open(path);
  ASSERT_TRUE(mapped.ok());
  auto st = SafetensorsFile::Parse(**mapped);
  ASSERT_TRUE(st.ok()) << st.status();
  ASSERT_EQ((*st)->entries().size(), 3u);
  auto ta = (*st)->Get("a");
  ASSERT_TRUE(ta.ok());
  EXPECT_EQ(ta->dtype, DType::kF32);
  EXPECT_EQ(ta->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::memcmp(ta->data, f32.data(), 24), 0);
  auto tb = (*st)->Get("b.weight");
  ASSERT_TRUE(tb.ok());
  EXPECT_EQ(tb->dtype, DType::kBF16);
  EXPECT_EQ(std::memcmp(tb->data, bf16.data(), 4), 0);
  auto tc = (*st)->Get("c");
  ASSERT_TRUE(tc.ok());
  EXPECT_EQ(tc->dtype, DType::kF16);
  EXPECT_EQ(tc->shape, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(std::memcmp(tc->data, f16.data(), 6), 0);
  // The data section starts 8-byte aligned, as the reference writer pads the header.
  uint64_t header = 0;
  std::memcpy(&header, (*mapped)->data(), 8);
  EXPECT_EQ(header % 8, 0u);
}

TEST(SafetensorsFileTest, MissingTensorNamesFileAndTensor) {
  const std::string path = ScratchDir("st_missing") + "/m.safetensors";
  float x = 1;
  ASSERT_TRUE(SafetensorsWriter::WriteFile(path, {{"a", Tensor{DType::kF32, {1}, &x}}}).ok());
  std::unique_ptr<MappedFile> keep;
  auto t = ParseAndGet(path, "model.norm.weight", &keep);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(t.status().message(), HasSubstr(path));
  EXPECT_THAT(t.status().message(), HasSubstr("model.norm.weight"));
}

TEST(SafetensorsFileTest, UnsupportedDtypeNamesFileTensorAndDtype) {
  const std::string path = ScratchDir("st_dtype") + "/m.safetensors";
  WriteBytes(path,
             RawSafetensors(R"({"ids":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})", 16));
  std::unique_ptr<MappedFile> keep;
  auto t = ParseAndGet(path, "ids", &keep);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr(path));
  EXPECT_THAT(t.status().message(), HasSubstr("'ids'"));
  EXPECT_THAT(t.status().message(), HasSubstr("I64"));
}

TEST(SafetensorsFileTest, TruncatedFileNamesFileAndTensor) {
  const std::string path = ScratchDir("st_trunc") + "/m.safetensors";
  std::vector<float> v(64, 1.0f);
  ASSERT_TRUE(SafetensorsWriter::WriteFile(
                  path, {{"first", Tensor{DType::kF32, {32}, v.data()}},
                         {"second.weight", Tensor{DType::kF32, {32}, v.data() + 32}}})
                  .ok());
  std::vector<uint8_t> bytes = ReadBytes(path);
  bytes.resize(bytes.size() - 10);
  WriteBytes(path, bytes);
  auto mapped = MappedFile::Open(path);
  ASSERT_TRUE(mapped.ok());
  auto st = SafetensorsFile::Parse(**mapped);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.status().message(), HasSubstr(path));
  EXPECT_THAT(st.status().message(), HasSubstr("second.weight"));
  EXPECT_THAT(st.status().message(), HasSubstr("truncated"));
}

TEST(SafetensorsFileTest, RejectsShortAndNonJsonHeaders) {
  const std::string dir = ScratchDir("st_bad");
  WriteBytes(dir + "/a", {1, 2, 3});
  WriteBytes(dir + "/b", RawSafetensors("this is not json", 0));
  std::vector<uint8_t> huge(16, 0xff);
  WriteBytes(dir + "/c", huge);
  WriteBytes(dir + "/d",
             RawSafetensors(R"({"x":{"dtype":"F32","shape":[4],"data_offsets":[0,8]}})", 16));
  for (const char* name : {"a", "b", "c", "d"}) {
    auto mapped = MappedFile::Open(dir + "/" + name);
    ASSERT_TRUE(mapped.ok());
    auto st = SafetensorsFile::Parse(**mapped);
    EXPECT_FALSE(st.ok()) << name;
    EXPECT_THAT(st.status().message(), HasSubstr(dir + "/" + name));
  }
}

TEST(SafetensorsFileTest, GarbageMutationsNeverCrash) {
  const std::string dir = ScratchDir("st_fuzz");
  std::vector<float> v(48);
  for (int i = 0; i < 48; ++i) v[i] = i;
  ASSERT_TRUE(SafetensorsWriter::WriteFile(dir + "/good",
                                           {{"a.weight", Tensor{DType::kF32, {4, 8}, v.data()}},
                                            {"b", Tensor{DType::kBF16, {32}, v.data()}}})
                  .ok());
  const std::vector<uint8_t> good = ReadBytes(dir + "/good");
  std::mt19937 rng(7);
  for (int iter = 0; iter < 400; ++iter) {
    std::vector<uint8_t> bad = good;
    const int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % std::min<size_t>(bad.size(), 200);
      bad[pos] = static_cast<uint8_t>(rng());
    }
    if (iter % 5 == 0) bad.resize(rng() % bad.size());
    WriteBytes(dir + "/bad", bad);
    auto mapped = MappedFile::Open(dir + "/bad");
    ASSERT_TRUE(mapped.ok());
    auto st = SafetensorsFile::Parse(**mapped);
    if (!st.ok()) continue;
    for (const auto& e : (*st)->entries()) {
      auto t = (*st)->Get(e.name);
      if (!t.ok()) continue;
      // Touch every byte the view claims: must stay inside the mapping.
      const uint8_t* p = static_cast<const uint8_t*>(t->data);
      ASSERT_GE(p, (*mapped)->data());
      ASSERT_LE(p + t->NumBytes(), (*mapped)->data() + (*mapped)->size());
    }
  }
}

}  // namespace
}  // namespace strata
