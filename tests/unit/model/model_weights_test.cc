#include "strata/model_weights.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/make_model.h"
#include "model/safetensors_file.h"
#include "model/safetensors_writer.h"
#include "model/weight_convert.h"
#include "nlohmann/json.hpp"
#include "test_util.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_util::ReadBytes;
using testing_util::ScratchDir;
using testing_util::WriteBytes;

MakeModelOptions Tiny(Architecture arch, const std::string& out, DType hf = DType::kF32,
                      std::optional<DType> gguf = std::nullopt) {
  MakeModelOptions o;
  o.arch = arch;
  o.preset = ModelPreset::kTiny;
  o.seed = 42;
  o.out_dir = out;
  o.hf_dtype = hf;
  o.gguf_dtype = gguf;
  o.show_progress = false;
  return o;
}

void ExpectSameTensor(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.dtype, b.dtype) << what;
  ASSERT_EQ(a.shape, b.shape) << what;
  ASSERT_EQ(std::memcmp(a.data, b.data, a.NumBytes()), 0) << what << " differs";
}

void ExpectSameOptional(const std::optional<Tensor>& a, const std::optional<Tensor>& b,
                        const std::string& what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (a.has_value()) ExpectSameTensor(*a, *b, what);
}

// Every tensor bitwise equal (this is what makes HF and GGUF logits bitwise equal).
void ExpectSameWeights(const ModelWeights& a, const ModelWeights& b) {
  ExpectSameTensor(a.embedding, b.embedding, "embedding");
  ExpectSameTensor(a.final_norm, b.final_norm, "final_norm");
  ExpectSameTensor(a.lm_head, b.lm_head, "lm_head");
  ExpectSameOptional(a.rope_freqs, b.rope_freqs, "rope_freqs");
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t l = 0; l < a.layers.size(); ++l) {
    const LayerWeights &x = a.layers[l], &y = b.layers[l];
    const std::string p = "layer " + std::to_string(l) + " ";
    ExpectSameTensor(x.attn_norm, y.attn_norm, p + "attn_norm");
    ExpectSameTensor(x.wq, y.wq, p + "wq");
    ExpectSameTensor(x.wk, y.wk, p + "wk");
    ExpectSameTensor(x.wv, y.wv, p + "wv");
    ExpectSameTensor(x.wo, y.wo, p + "wo");
    ExpectSameOptional(x.bq, y.bq, p + "bq");
    ExpectSameOptional(x.bk, y.bk, p + "bk");
    ExpectSameOptional(x.bv, y.bv, p + "bv");
    ExpectSameOptional(x.q_norm, y.q_norm, p + "q_norm");
    ExpectSameOptional(x.k_norm, y.k_norm, p + "k_norm");
    ExpectSameTensor(x.ffn_norm, y.ffn_norm, p + "ffn_norm");
    ExpectSameTensor(x.w_gate, y.w_gate, p + "w_gate");
    ExpectSameTensor(x.w_up, y.w_up, p + "w_up");
    ExpectSameTensor(x.w_down, y.w_down, p + "w_down");
  }
}

void ExpectSameExecutionSpec(const ModelSpec& a, const ModelSpec& b) {
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.vocab_size, b.vocab_size);
  EXPECT_EQ(a.hidden_size, b.hidden_size);
  EXPECT_EQ(a.intermediate_size, b.intermediate_size);
  EXPECT_EQ(a.num_layers, b.num_layers);
  EXPECT_EQ(a.num_heads, b.num_heads);
  EXPECT_EQ(a.num_kv_heads, b.num_kv_heads);
  EXPECT_EQ(a.head_dim, b.head_dim);
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings);
  EXPECT_EQ(a.rms_norm_eps, b.rms_norm_eps);
  EXPECT_EQ(a.rope_theta, b.rope_theta);
  EXPECT_EQ(a.rope_scaling.kind, b.rope_scaling.kind);
  EXPECT_EQ(a.rope_scaling.factor, b.rope_scaling.factor);
  EXPECT_EQ(a.attention_bias, b.attention_bias);
  EXPECT_EQ(a.qk_norm, b.qk_norm);
  EXPECT_EQ(a.sliding_window, b.sliding_window);
  EXPECT_EQ(a.tie_word_embeddings, b.tie_word_embeddings);
  EXPECT_EQ(a.bos_token_id, b.bos_token_id);
  EXPECT_EQ(a.eos_token_ids, b.eos_token_ids);
}

class HfVsGgufTest : public ::testing::TestWithParam<Architecture> {};

TEST_P(HfVsGgufTest, F32HfAndGgufLoadBitwiseIdenticalTensors) {
  const std::string out = ScratchDir(std::string("hfgguf_") + ArchitectureName(GetParam()));
  const MakeModelOptions o = Tiny(GetParam(), out);
  ASSERT_TRUE(MakeRandomModel(o).ok());
  auto hf = LoadModelWeights(RandomModelHfDir(o));
  ASSERT_TRUE(hf.ok()) << hf.status();
  auto gguf = LoadModelWeights(RandomModelGgufPath(o));
  ASSERT_TRUE(gguf.ok()) << gguf.status();
  EXPECT_EQ((*hf)->format, "hf");
  EXPECT_EQ((*gguf)->format, "gguf");
  ExpectSameExecutionSpec((*hf)->spec, (*gguf)->spec);
  ExpectSameWeights(**hf, **gguf);
  const ModelSpec& s = (*hf)->spec;
  EXPECT_EQ(s.arch, GetParam());
  EXPECT_EQ(s.hidden_size, 64);
  EXPECT_EQ(s.vocab_size, 1024);
  EXPECT_FALSE(s.tie_word_embeddings);
  EXPECT_NE((*hf)->lm_head.data, (*hf)->embedding.data);
  EXPECT_EQ(s.attention_bias, GetParam() == Architecture::kQwen2);
  EXPECT_EQ(s.qk_norm, GetParam() == Architecture::kQwen3);
  EXPECT_EQ(s.sliding_window, GetParam() == Architecture::kMistral ? 32 : 0);
  EXPECT_EQ((*hf)->rope_freqs.has_value(), GetParam() == Architecture::kLlama);
  EXPECT_EQ((*hf)->layers[0].attn_norm.dtype, DType::kF32);
}

TEST_P(HfVsGgufTest, Bf16AndF16HfAndGgufLoadBitwiseIdenticalTensors) {
  for (DType d : {DType::kBF16, DType::kF16}) {
    const std::string out = ScratchDir("hfgguf16");
    const MakeModelOptions o = Tiny(GetParam(), out, d);
    ASSERT_TRUE(MakeRandomModel(o).ok());
    auto hf = LoadModelWeights(RandomModelHfDir(o));
    ASSERT_TRUE(hf.ok()) << hf.status();
    auto gguf = LoadModelWeights(RandomModelGgufPath(o));
    ASSERT_TRUE(gguf.ok()) << gguf.status();
    EXPECT_EQ((*hf)->layers[1].wq.dtype, d);
    EXPECT_EQ((*hf)->layers[1].ffn_norm.dtype, DType::kF32);  // norms become f32 on load
    ExpectSameWeights(**hf, **gguf);
  }
}

TEST_P(HfVsGgufTest, Q8GgufQuantizesTheHfBf16Values) {
  const std::string out = ScratchDir("hfq8");
  const MakeModelOptions o = Tiny(GetParam(), out, DType::kBF16, DType::kQ8_0);
  ASSERT_TRUE(MakeRandomModel(o).ok());
  EXPECT_TRUE(fs::exists(out + "/model-q8_0.gguf"));
  auto hf = LoadModelWeights(RandomModelHfDir(o));
  ASSERT_TRUE(hf.ok()) << hf.status();
  auto gguf = LoadModelWeights(RandomModelGgufPath(o));
  ASSERT_TRUE(gguf.ok()) << gguf.status();
  auto expect_quantized = [](const Tensor& hf_t, const Tensor& q8, const std::string& what) {
    ASSERT_EQ(q8.dtype, DType::kQ8_0) << what;
    ASSERT_EQ(q8.shape, hf_t.shape) << what;
    const std::vector<float> x = ToF32(hf_t);
    std::vector<BlockQ8_0> want(x.size() / kQ8BlockSize);
    QuantizeQ8_0(x.data(), x.size(), want.data());
    ASSERT_EQ(std::memcmp(want.data(), q8.data, q8.NumBytes()), 0) << what;
  };
  const ModelWeights &a = **hf, &b = **gguf;
  expect_quantized(a.embedding, b.embedding, "embedding");
  expect_quantized(a.lm_head, b.lm_head, "lm_head");
  for (size_t l = 0; l < a.layers.size(); ++l) {
    expect_quantized(a.layers[l].wq, b.layers[l].wq, "wq");
    expect_quantized(a.layers[l].wk, b.layers[l].wk, "wk");
    expect_quantized(a.layers[l].wv, b.layers[l].wv, "wv");
    expect_quantized(a.layers[l].wo, b.layers[l].wo, "wo");
    expect_quantized(a.layers[l].w_down, b.layers[l].w_down, "w_down");
    ExpectSameTensor(a.layers[l].attn_norm, b.layers[l].attn_norm, "attn_norm");
    ExpectSameOptional(a.layers[l].bq, b.layers[l].bq, "bq");
    ExpectSameOptional(a.layers[l].q_norm, b.layers[l].q_norm, "q_norm");
  }
  EXPECT_LT(b.WeightBytesPerToken(), a.WeightBytesPerToken());
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, HfVsGgufTest,
                         ::testing::Values(Architecture::kLlama, Architecture::kQwen2,
                                           Architecture::kQwen3, Architecture::kMistral),
                         [](const auto& info) {
                           return std::string(ArchitectureName(info.param));
                         });

TEST(ModelWeightsTest, WeightBytesPerTokenCountsMatmulsAndOneEmbeddingRow) {
  const std::string out = ScratchDir("bytes");
  const MakeModelOptions o = Tiny(Architecture::kQwen3, out);
  ASSERT_TRUE(MakeRandomModel(o).ok());
  auto w = LoadModelWeights(RandomModelHfDir(o));
  ASSERT_TRUE(w.ok()) << w.status();
  // Per layer: q 64x64, k 32x64, v 32x64, o 64x64, gate/up 192x64, down 64x192; f32.
  const size_t per_layer = (64 * 64 * 2 + 32 * 64 * 2 + 192 * 64 * 3) * 4;
  EXPECT_EQ((*w)->WeightBytesPerToken(), 4 * per_layer + 1024 * 64 * 4 + 64 * 4);
}

TEST(ModelWeightsTest, LoadsShardedSafetensors) {
  const std::string out = ScratchDir("sharded");
  const MakeModelOptions o = Tiny(Architecture::kQwen2, out, DType::kBF16);
  ASSERT_TRUE(MakeRandomModel(o).ok());
  const std::string dir = RandomModelHfDir(o);
  auto whole = LoadModelWeights(dir);
  ASSERT_TRUE(whole.ok()) << whole.status();
  // Split model.safetensors into two shards plus an index.
  {
    auto mapped = MappedFile::Open(dir + "/model.safetensors");
    ASSERT_TRUE(mapped.ok());
    auto st = SafetensorsFile::Parse(**mapped);
    ASSERT_TRUE(st.ok());
    std::vector<std::pair<std::string, Tensor>> shard[2];
    nlohmann::json index;
    int k = 0;
    for (const auto& e : (*st)->entries()) {
      const int which = k++ % 2;
      shard[which].push_back({e.name, *(*st)->Get(e.name)});
      index["weight_map"][e.name] =
          which == 0 ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    }
    ASSERT_TRUE(
        SafetensorsWriter::WriteFile(dir + "/model-00001-of-00002.safetensors", shard[0]).ok());
    ASSERT_TRUE(
        SafetensorsWriter::WriteFile(dir + "/model-00002-of-00002.safetensors", shard[1]).ok());
    std::ofstream(dir + "/model.safetensors.index.json") << index.dump();
  }
  fs::remove(dir + "/model.safetensors");
  auto sharded = LoadModelWeights(dir);
  ASSERT_TRUE(sharded.ok()) << sharded.status();
  EXPECT_EQ((*sharded)->files.size(), 2u);
  ExpectSameWeights(**whole, **sharded);
}

class LoadErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = ScratchDir("errors");
    options_ = Tiny(Architecture::kQwen3, out_);
    ASSERT_TRUE(MakeRandomModel(options_).ok());
    hf_ = RandomModelHfDir(options_);
    gguf_ = RandomModelGgufPath(options_);
  }
  // Replaces the first occurrence of `from` with `to` (same length) in a file.
  void Patch(const std::string& path, const std::string& from, const std::string& to) {
    ASSERT_EQ(from.size(), to.size());
    std::vector<uint8_t> bytes = ReadBytes(path);
    auto it = std::search(bytes.begin(), bytes.end(), from.begin(), from.end());
    ASSERT_NE(it, bytes.end()) << from;
    std::copy(to.begin(), to.end(), it);
    WriteBytes(path, bytes);
  }
  void EditConfig(const std::function<void(nlohmann::json&)>& edit) {
    std::ifstream in(hf_ + "/config.json");
    nlohmann::json j = nlohmann::json::parse(in);
    edit(j);
    std::ofstream(hf_ + "/config.json") << j.dump();
  }
  std::string out_, hf_, gguf_;
  MakeModelOptions options_;
};

TEST_F(LoadErrorTest, MissingHfTensorNamesFileAndTensor) {
  Patch(hf_ + "/model.safetensors", "model.layers.2.mlp.up_proj.weight",
        "model.layers.2.mlp.up_proj.weighX");
  auto w = LoadModelWeights(hf_);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr(hf_ + "/model.safetensors"));
  EXPECT_THAT(w.status().message(), HasSubstr("'model.layers.2.mlp.up_proj.weight' is missing"));
}

TEST_F(LoadErrorTest, MissingGgufTensorNamesFileAndTensor) {
  Patch(gguf_, "blk.3.attn_k_norm.weight", "blk.3.attn_k_norm.weighX");
  auto w = LoadModelWeights(gguf_);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr(gguf_));
  EXPECT_THAT(w.status().message(), HasSubstr("'blk.3.attn_k_norm.weight' is missing"));
}

TEST_F(LoadErrorTest, WrongShapeNamesFileTensorAndShapes) {
  EditConfig([](nlohmann::json& j) { j["intermediate_size"] = 128; });
  auto w = LoadModelWeights(hf_);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr(hf_ + "/model.safetensors"));
  EXPECT_THAT(w.status().message(), HasSubstr("model.layers.0.mlp.gate_proj.weight"));
  EXPECT_THAT(w.status().message(), HasSubstr("[192, 64]"));
  EXPECT_THAT(w.status().message(), HasSubstr("[128, 64]"));
}

TEST_F(LoadErrorTest, WrongGgufShapeNamesFileAndTensor) {
  // Swap the dims of one tensor: its shape no longer matches the metadata.
  Patch(gguf_, "blk.0.ffn_down.weight", "blk.0.ffn_gate.weighX");
  Patch(gguf_, "blk.0.ffn_gate.weight", "blk.0.ffn_down.weight");
  Patch(gguf_, "blk.0.ffn_gate.weighX", "blk.0.ffn_gate.weight");
  auto w = LoadModelWeights(gguf_);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr(gguf_));
  EXPECT_THAT(w.status().message(), HasSubstr("blk.0.ffn_gate.weight"));
  EXPECT_THAT(w.status().message(), HasSubstr("expected [192, 64]"));
}

TEST_F(LoadErrorTest, UnknownDtypeNamesFileTensorAndDtype) {
  Patch(hf_ + "/model.safetensors", R"("dtype":"F32")", R"("dtype":"I32")");
  auto w = LoadModelWeights(hf_);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr(hf_ + "/model.safetensors"));
  EXPECT_THAT(w.status().message(), HasSubstr("model.embed_tokens.weight"));
  EXPECT_THAT(w.status().message(), HasSubstr("I32"));
}

TEST_F(LoadErrorTest, TruncatedFilesNameFileAndTensor) {
  std::vector<uint8_t> st = ReadBytes(hf_ + "/model.safetensors");
  st.resize(st.size() - 100);
  WriteBytes(hf_ + "/model.safetensors", st);
  auto w = LoadModelWeights(hf_);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr(hf_ + "/model.safetensors"));
  EXPECT_THAT(w.status().message(), HasSubstr("lm_head.weight"));
  EXPECT_THAT(w.status().message(), HasSubstr("truncated"));

  std::vector<uint8_t> g = ReadBytes(gguf_);
  g.resize(g.size() - 100);
  WriteBytes(gguf_, g);
  auto w2 = LoadModelWeights(gguf_);
  ASSERT_FALSE(w2.ok());
  EXPECT_THAT(w2.status().message(), HasSubstr(gguf_));
  EXPECT_THAT(w2.status().message(), HasSubstr("output.weight"));
  EXPECT_THAT(w2.status().message(), HasSubstr("truncated"));
}

TEST_F(LoadErrorTest, UnsupportedArchitectureIsAnError) {
  EditConfig([](nlohmann::json& j) { j["architectures"] = {"GemmaForCausalLM"}; });
  auto w = LoadModelWeights(hf_);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr(hf_ + "/config.json"));
  EXPECT_THAT(w.status().message(), HasSubstr("GemmaForCausalLM"));
  EXPECT_THAT(w.status().message(), HasSubstr("LlamaForCausalLM"));

  Patch(gguf_, "qwen3", "gemma");
  auto w2 = LoadModelWeights(gguf_);
  ASSERT_FALSE(w2.ok());
  EXPECT_THAT(w2.status().message(), HasSubstr(gguf_));
  EXPECT_THAT(w2.status().message(), HasSubstr("'gemma'"));
  EXPECT_THAT(w2.status().message(), HasSubstr("qwen3"));
}

TEST_F(LoadErrorTest, GarbageAndMissingFilesAreErrors) {
  std::vector<uint8_t> junk(4096);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<uint8_t>(i * 131 + 7);
  WriteBytes(gguf_, junk);
  auto w = LoadModelWeights(gguf_);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr(gguf_));
  WriteBytes(hf_ + "/model.safetensors", junk);
  auto w2 = LoadModelWeights(hf_);
  ASSERT_FALSE(w2.ok());
  EXPECT_THAT(w2.status().message(), HasSubstr(hf_ + "/model.safetensors"));
  fs::remove(hf_ + "/model.safetensors");
  EXPECT_THAT(LoadModelWeights(hf_).status().message(), HasSubstr("model.safetensors"));
  EXPECT_EQ(LoadModelWeights(out_ + "/nope.gguf").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(LoadErrorTest, GgufMetadataMutationsNeverCrash) {
  const std::vector<uint8_t> good = ReadBytes(gguf_);
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int iter = 0; iter < 150; ++iter) {
    std::vector<uint8_t> bad = good;
    for (int e = 0; e < 2; ++e) bad[next() % 3000] = static_cast<uint8_t>(next() >> 24);
    WriteBytes(gguf_, bad);
    auto w = LoadModelWeights(gguf_);  // may succeed (a harmless byte) or fail; never crash
    if (!w.ok()) {
      EXPECT_THAT(w.status().message(), HasSubstr(gguf_));
    }
  }
}

}  // namespace
}  // namespace strata
