#include "model/hf_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kLlama31[] = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
  "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
  "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "attention_bias": false, "mlp_bias": false, "tie_word_embeddings": false,
  "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu"
})";

TEST(HfConfigTest, ParsesLlama31WithLlama3RopeScaling) {
  auto spec = ParseHfConfig(kLlama31, "/m/config.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->arch, Architecture::kLlama);
  EXPECT_EQ(spec->hf_architecture, "LlamaForCausalLM");
  EXPECT_EQ(spec->vocab_size, 128256);
  EXPECT_EQ(spec->num_kv_heads, 8);
  EXPECT_EQ(spec->head_dim, 128);  // hidden / heads by default
  EXPECT_FLOAT_EQ(spec->rms_norm_eps, 1e-5f);
  EXPECT_FLOAT_EQ(spec->rope_theta, 500000.0f);
  EXPECT_EQ(spec->rope_scaling.kind, RopeScaling::Kind::kLlama3);
  EXPECT_FLOAT_EQ(spec->rope_scaling.factor, 8.0f);
  EXPECT_FLOAT_EQ(spec->rope_scaling.low_freq_factor, 1.0f);
  EXPECT_FLOAT_EQ(spec->rope_scaling.high_freq_factor, 4.0f);
  EXPECT_EQ(spec->rope_scaling.original_max_position_embeddings, 8192);
  EXPECT_EQ(spec->bos_token_id, 128000);
  EXPECT_THAT(spec->eos_token_ids, ElementsAre(128001, 128008, 128009));
  EXPECT_FALSE(spec->attention_bias);
  EXPECT_FALSE(spec->qk_norm);
  EXPECT_EQ(spec->sliding_window, 0);
}

TEST(HfConfigTest, ParsesLinearRopeScalingWithOldTypeKey) {
  auto spec = ParseHfConfig(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 100,
      "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "rope_scaling": {"type": "linear", "factor": 2.0}})",
                            "c.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->rope_scaling.kind, RopeScaling::Kind::kLinear);
  EXPECT_FLOAT_EQ(spec->rope_scaling.factor, 2.0f);
  EXPECT_EQ(spec->num_kv_heads, 4);  // defaults to num_attention_heads
  EXPECT_FLOAT_EQ(spec->rope_theta, 10000.0f);
}

TEST(HfConfigTest, ParsesQwen2WithBiasAndNoSlidingWindow) {
  auto spec = ParseHfConfig(R"({"architectures": ["Qwen2ForCausalLM"], "vocab_size": 151936,
      "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
      "num_attention_heads": 14, "num_key_value_heads": 2, "rope_theta": 1000000.0,
      "sliding_window": 32768, "use_sliding_window": false, "max_window_layers": 21,
      "tie_word_embeddings": true, "bos_token_id": 151643, "eos_token_id": 151645,
      "rope_scaling": null})",
                            "qwen2/config.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->arch, Architecture::kQwen2);
  EXPECT_TRUE(spec->attention_bias);
  EXPECT_FALSE(spec->qk_norm);
  EXPECT_EQ(spec->sliding_window, 0);
  EXPECT_EQ(spec->head_dim, 64);
  EXPECT_TRUE(spec->tie_word_embeddings);
  EXPECT_THAT(spec->eos_token_ids, ElementsAre(151645));
  EXPECT_EQ(spec->rope_scaling.kind, RopeScaling::Kind::kNone);
}

TEST(HfConfigTest, ParsesQwen3WithExplicitHeadDimAndQkNorm) {
  auto spec = ParseHfConfig(R"({"architectures": ["Qwen3ForCausalLM"], "vocab_size": 151936,
      "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
      "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
      "rms_norm_eps": 1e-06, "rope_theta": 1000000, "attention_bias": false,
      "sliding_window": null, "use_sliding_window": false, "tie_word_embeddings": true})",
                            "q3.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->arch, Architecture::kQwen3);
  EXPECT_EQ(spec->head_dim, 128);
  EXPECT_EQ(spec->QDim(), 2048);
  EXPECT_TRUE(spec->qk_norm);
  EXPECT_FALSE(spec->attention_bias);
  EXPECT_FLOAT_EQ(spec->rope_theta, 1e6f);
}

TEST(HfConfigTest, ParsesMistralSlidingWindowAndNullHeadDim) {
  auto spec = ParseHfConfig(R"({"architectures": ["MistralForCausalLM"], "vocab_size": 32000,
      "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": null,
      "sliding_window": 4096, "rope_theta": 10000.0})",
                            "mistral.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->arch, Architecture::kMistral);
  EXPECT_EQ(spec->sliding_window, 4096);
  EXPECT_EQ(spec->head_dim, 128);
}

TEST(HfConfigTest, UnsupportedArchitectureListsSupported) {
  auto spec =
      ParseHfConfig(R"({"architectures": ["GPT2LMHeadModel"], "vocab_size": 5})", "/x/config.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("/x/config.json"));
  EXPECT_THAT(spec.status().message(), HasSubstr("GPT2LMHeadModel"));
  EXPECT_THAT(spec.status().message(), HasSubstr("Qwen3ForCausalLM"));
  EXPECT_THAT(spec.status().message(), HasSubstr("MistralForCausalLM"));
}

TEST(HfConfigTest, RejectsBadValuesWithFieldNames) {
  auto missing =
      ParseHfConfig(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 5})", "c.json");
  EXPECT_THAT(missing.status().message(), HasSubstr("hidden_size"));
  auto wrong_type = ParseHfConfig(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": "x",
      "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4})",
                                  "c.json");
  EXPECT_THAT(wrong_type.status().message(), HasSubstr("vocab_size"));
  auto heads = ParseHfConfig(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 5,
      "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 3})",
                             "c.json");
  EXPECT_THAT(heads.status().message(), HasSubstr("num_key_value_heads"));
  auto yarn = ParseHfConfig(R"({"architectures": ["Qwen2ForCausalLM"], "vocab_size": 5,
      "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "rope_scaling": {"type": "yarn", "factor": 4}})",
                            "c.json");
  EXPECT_THAT(yarn.status().message(), HasSubstr("yarn"));
  EXPECT_FALSE(ParseHfConfig("{not json", "c.json").ok());
  EXPECT_FALSE(ParseHfConfig("[1, 2]", "c.json").ok());
}

TEST(HfConfigTest, ParsesGenerationConfig) {
  ModelSpec spec;
  spec.eos_token_ids = {7};
  auto g = ParseGenerationConfig(R"({"temperature": 0.6, "top_p": 0.95, "top_k": 20,
      "min_p": 0.05, "repetition_penalty": 1.1, "eos_token_id": [151645, 151643]})",
                                 "gen.json", spec);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FLOAT_EQ(*g->temperature, 0.6f);
  EXPECT_FLOAT_EQ(*g->top_p, 0.95f);
  EXPECT_EQ(*g->top_k, 20);
  EXPECT_FLOAT_EQ(*g->min_p, 0.05f);
  EXPECT_FLOAT_EQ(*g->repetition_penalty, 1.1f);
  EXPECT_THAT(g->eos_token_ids, ElementsAre(151645, 151643));
  auto empty = ParseGenerationConfig("{}", "gen.json", spec);
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->temperature.has_value());
  EXPECT_THAT(empty->eos_token_ids, ElementsAre(7));
  auto single = ParseGenerationConfig(R"({"eos_token_id": 3})", "gen.json", spec);
  EXPECT_THAT(single->eos_token_ids, ElementsAre(3));
}

}  // namespace
}  // namespace strata
