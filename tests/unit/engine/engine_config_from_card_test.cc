// Model card → EngineConfig: scheduler limits, KV sizing (bytes or fraction) and the fingerprint.
#include "engine/engine_config_from_card.h"

#include "engine_test_util.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

ModelCard CardWith(const std::string& yaml) {
  auto card = ParseModelCard("name: t\nsource:\n  path: /nonexistent/model\n" + yaml, "<test>");
  EXPECT_TRUE(card.ok()) << card.status();
  return card.ok() ? *card : ModelCard();
}

TEST(EngineConfigFromCardTest, CopiesSchedulerAndKvSettings) {
  auto model = testing::LoadTinyModel();
  const ModelCard card = CardWith(
      "max_model_len: 512\nkv_cache:\n  block_size: 32\n  dtype: bf16\n  memory: 8MiB\n"
      "  enable_prefix_caching: false\nscheduler:\n  max_num_seqs: 8\n"
      "  max_num_batched_tokens: 64\n  max_waiting_requests: 3\n");
  auto config = EngineConfigFromCard(card, model->weights(), int64_t{1} << 30);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->max_model_len, 512);
  EXPECT_EQ(config->max_num_seqs, 8);
  EXPECT_EQ(config->max_num_batched_tokens, 64);
  EXPECT_EQ(config->max_waiting_requests, 3);
  EXPECT_EQ(config->kv.block_size, 32);
  EXPECT_EQ(config->kv.kv_dtype, DType::kBF16);
  EXPECT_FALSE(config->kv.enable_prefix_caching);
  EXPECT_EQ(config->kv_memory_bytes, 8 << 20);
}

TEST(EngineConfigFromCardTest, FractionIsOfAvailableMemory) {
  auto model = testing::LoadTinyModel();
  auto config = EngineConfigFromCard(CardWith("kv_cache:\n  memory: 0.25\n"), model->weights(),
                                     int64_t{4} << 30);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->kv_memory_bytes, int64_t{1} << 30);
  auto available = AvailableMemoryBytes();
  ASSERT_TRUE(available.ok()) << available.status();
  EXPECT_GT(*available, 0);
}

TEST(EngineConfigFromCardTest, MaxModelLenBeyondTheModelIsAnError) {
  auto model = testing::LoadTinyModel();
  const int too_long = model->spec().max_position_embeddings + 1;
  auto config = EngineConfigFromCard(CardWith("max_model_len: " + std::to_string(too_long) + "\n"),
                                     model->weights(), int64_t{1} << 30);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("max_position_embeddings"), std::string::npos);
}

TEST(EngineConfigFromCardTest, FingerprintSeparatesKvLayouts) {
  auto model = testing::LoadTinyModel();
  const BlockHash a = ModelFingerprint(model->weights(), DType::kF32, 16);
  EXPECT_EQ(a, ModelFingerprint(model->weights(), DType::kF32, 16));
  EXPECT_FALSE(a == ModelFingerprint(model->weights(), DType::kBF16, 16));
  EXPECT_FALSE(a == ModelFingerprint(model->weights(), DType::kF32, 32));
  auto other = testing::LoadTinyModel(Architecture::kLlama);
  EXPECT_FALSE(a == ModelFingerprint(other->weights(), DType::kF32, 16));
}

TEST(EngineConfigFromCardTest, CardConfigRunsAnEngine) {
  auto model = testing::LoadTinyModel();
  auto config = EngineConfigFromCard(CardWith("kv_cache:\n  memory: 4MiB\n"), model->weights(),
                                     int64_t{1} << 30);
  ASSERT_TRUE(config.ok()) << config.status();
  auto engine = Engine::Create(std::move(model), *config);
  ASSERT_TRUE(engine.ok()) << engine.status();
  EXPECT_GT((*engine)->Stats().total_blocks, 0);
}

}  // namespace
}  // namespace strata
