#include "strata/model_card.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

constexpr char kFile[] = "cards/m.yaml";

ModelCard ParseOk(const std::string& yaml) {
  absl::StatusOr<ModelCard> card = ParseModelCard(yaml, kFile);
  EXPECT_TRUE(card.ok()) << card.status();
  return card.ok() ? *card : ModelCard{};
}

// The whole error text (one line per problem).
std::string ErrorOf(const std::string& yaml) {
  absl::StatusOr<ModelCard> card = ParseModelCard(yaml, kFile);
  EXPECT_FALSE(card.ok());
  if (card.ok()) return "";
  EXPECT_EQ(card.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(card.status().message());
}

// A valid card; tests append sections to it (lines 1-3).
constexpr char kMinimal[] = "name: m\nsource:\n  path: weights\n";

std::string With(const std::string& extra) { return kMinimal + extra; }

TEST(ModelCardTest, MinimalCardGetsDefaults) {
  const ModelCard card = ParseOk(kMinimal);
  EXPECT_EQ(card.name, "m");
  EXPECT_TRUE(card.aliases.empty());
  EXPECT_EQ(card.source.format, WeightFormat::kHf);
  EXPECT_EQ(card.source.path, "cards/weights");
  EXPECT_EQ(card.source.dtype, std::nullopt);
  EXPECT_EQ(card.max_model_len, std::nullopt);
  EXPECT_EQ(card.tokenizer.path, "cards/weights");
  EXPECT_EQ(card.tokenizer.chat_template, "");
  EXPECT_EQ(card.tokenizer.chat_template_file, "");
  EXPECT_EQ(card.kv_cache.block_size, 16);
  EXPECT_EQ(card.kv_cache.dtype, std::nullopt);
  EXPECT_EQ(card.kv_cache.memory.bytes, 0u);
  EXPECT_DOUBLE_EQ(card.kv_cache.memory.fraction, 0.5);
  EXPECT_TRUE(card.kv_cache.enable_prefix_caching);
  EXPECT_EQ(card.scheduler.max_num_seqs, 256);
  EXPECT_EQ(card.scheduler.max_num_batched_tokens, 2048);
  EXPECT_EQ(card.scheduler.max_waiting_requests, 1024);
  EXPECT_TRUE(card.scheduler.enable_chunked_prefill);
  EXPECT_EQ(card.runtime.threads, 0);
  EXPECT_EQ(card.runtime.device, Device::kCpu);
  EXPECT_EQ(card.generation_defaults.temperature, std::nullopt);
  EXPECT_EQ(card.generation_defaults.max_tokens, std::nullopt);
  EXPECT_EQ(card.speculative.method, SpeculativeMethod::kNone);
  EXPECT_EQ(card.parallel.tensor_parallel_size, 1);
  EXPECT_EQ(card.block_store.backend, BlockStoreBackend::kNone);
  EXPECT_EQ(card.block_store.ttl_chat, absl::Hours(24 * 7));
  EXPECT_EQ(card.block_store.ttl_agent, absl::Hours(24 * 3));
}

TEST(ModelCardTest, EveryKeySet) {
  const ModelCard card = ParseOk(R"(name: full
aliases: [a, b]
source:
  format: gguf
  path: /models/x.bin
  dtype: bfloat16
max_model_len: 4096
tokenizer:
  path: tok
  chat_template: "{{ messages }}"
kv_cache:
  block_size: 32
  dtype: f16
  memory: 4GiB
  enable_prefix_caching: false
scheduler:
  max_num_seqs: 8
  max_num_batched_tokens: 4096
  max_waiting_requests: 0
  enable_chunked_prefill: false
runtime:
  threads: 2
  device: cuda
generation_defaults:
  temperature: 0.7
  top_p: 0.9
  top_k: -1
  min_p: 0.05
  repetition_penalty: 1.1
  max_tokens: 128
speculative:
  method: draft
  num_speculative_tokens: 4
  draft_model: draft
parallel:
  tensor_parallel_size: 2
block_store:
  backend: redis
  url: redis://cache:6379/0
  ttl:
    chat: 1d
    agent: 12h
)");
  EXPECT_EQ(card.aliases, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(card.source.format, WeightFormat::kGguf);
  EXPECT_EQ(card.source.path, "/models/x.bin");
  EXPECT_EQ(card.source.dtype, DType::kBF16);
  EXPECT_EQ(card.max_model_len, 4096);
  EXPECT_EQ(card.tokenizer.path, "cards/tok");
  EXPECT_EQ(card.tokenizer.chat_template, "{{ messages }}");
  EXPECT_EQ(card.kv_cache.block_size, 32);
  EXPECT_EQ(card.kv_cache.dtype, DType::kF16);
  EXPECT_EQ(card.kv_cache.memory.bytes, 4ull << 30);
  EXPECT_FALSE(card.kv_cache.enable_prefix_caching);
  EXPECT_EQ(card.scheduler.max_num_seqs, 8);
  EXPECT_EQ(card.scheduler.max_num_batched_tokens, 4096);
  EXPECT_EQ(card.scheduler.max_waiting_requests, 0);
  EXPECT_FALSE(card.scheduler.enable_chunked_prefill);
  EXPECT_EQ(card.runtime.threads, 2);
  EXPECT_EQ(card.runtime.device, Device::kCuda);
  EXPECT_EQ(card.generation_defaults.temperature, 0.7);
  EXPECT_EQ(card.generation_defaults.top_p, 0.9);
  EXPECT_EQ(card.generation_defaults.top_k, -1);
  EXPECT_EQ(card.generation_defaults.min_p, 0.05);
  EXPECT_EQ(card.generation_defaults.repetition_penalty, 1.1);
  EXPECT_EQ(card.generation_defaults.max_tokens, 128);
  EXPECT_EQ(card.speculative.method, SpeculativeMethod::kDraft);
  EXPECT_EQ(card.speculative.num_speculative_tokens, 4);
  EXPECT_EQ(card.speculative.draft_model, "cards/draft");
  EXPECT_EQ(card.parallel.tensor_parallel_size, 2);
  EXPECT_EQ(card.block_store.backend, BlockStoreBackend::kRedis);
  EXPECT_EQ(card.block_store.url, "redis://cache:6379/0");
  EXPECT_EQ(card.block_store.ttl_chat, absl::Hours(24));
  EXPECT_EQ(card.block_store.ttl_agent, absl::Hours(12));
}

TEST(ModelCardTest, FormatInferredFromPath) {
  EXPECT_EQ(ParseOk("name: m\nsource: {path: m.Q8_0.gguf}\n").source.format, WeightFormat::kGguf);
  EXPECT_EQ(ParseOk("name: m\nsource: {path: M.GGUF}\n").source.format, WeightFormat::kGguf);
  EXPECT_EQ(ParseOk("name: m\nsource: {path: dir/}\n").source.format, WeightFormat::kHf);
  EXPECT_EQ(ParseOk("name: m\nsource: {path: x.gguf, format: hf}\n").source.format,
            WeightFormat::kHf);
}

TEST(ModelCardTest, RelativePathsResolveAgainstCardDirectory) {
  const ModelCard card = ParseOk(R"(name: m
source:
  path: ../../build/demo-model/hf/
tokenizer:
  chat_template: "file: templates/chat.jinja"
block_store:
  backend: file
  path: /var/cache/strata
)");
  EXPECT_EQ(card.source.path, "../build/demo-model/hf");
  EXPECT_EQ(card.tokenizer.path, "../build/demo-model/hf");
  EXPECT_EQ(card.tokenizer.chat_template_file, "cards/templates/chat.jinja");
  EXPECT_EQ(card.tokenizer.chat_template, "");
  EXPECT_EQ(card.block_store.path, "/var/cache/strata");
}

TEST(ModelCardTest, BareFileNameKeepsPathsRelativeToCwd) {
  absl::StatusOr<ModelCard> card = ParseModelCard(kMinimal, "<inline>");
  ASSERT_TRUE(card.ok()) << card.status();
  EXPECT_EQ(card->source.path, "weights");
}

TEST(ModelCardTest, HomeDirectoryExpands) {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') GTEST_SKIP() << "HOME not set";
  EXPECT_EQ(ParseOk("name: m\nsource: {path: ~/models/x}\n").source.path,
            std::filesystem::path(std::string(home) + "/models/x").lexically_normal().string());
}

TEST(ModelCardTest, LoadResolvesAgainstAbsoluteCardDirectory) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("strata_card_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "m.yaml").string();
  std::ofstream(file) << "name: m\nsource:\n  path: ../w.gguf\n";
  absl::StatusOr<ModelCard> card = LoadModelCard(file);
  ASSERT_TRUE(card.ok()) << card.status();
  EXPECT_EQ(card->source.path, (dir.parent_path() / "w.gguf").string());
  EXPECT_EQ(card->card_path, file);
  std::filesystem::remove_all(dir);
}

TEST(ModelCardTest, LoadMissingFileIsNotFound) {
  absl::StatusOr<ModelCard> card = LoadModelCard("/nonexistent/strata/card.yaml");
  EXPECT_EQ(card.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(card.status().message(), HasSubstr("/nonexistent/strata/card.yaml: cannot open"));
}

TEST(ModelCardTest, NullValuesMeanDefault) {
  const ModelCard card = ParseOk(With("max_model_len:\nkv_cache:\nscheduler: ~\n"));
  EXPECT_EQ(card.max_model_len, std::nullopt);
  EXPECT_EQ(card.kv_cache.block_size, 16);
}

// --- Unknown keys -------------------------------------------------------------------------

TEST(ModelCardErrorTest, UnknownTopLevelKeySuggestsNearMiss) {
  EXPECT_EQ(ErrorOf(With("max_model_length: 10\n")),
            "cards/m.yaml:4:1: max_model_length: unknown key; did you mean 'max_model_len'?");
}

TEST(ModelCardErrorTest, UnknownNestedKeySuggestsNearMiss) {
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  block_size: 16\n  blok_size: 8\n")),
            "cards/m.yaml:6:3: kv_cache.blok_size: unknown key; did you mean 'block_size'?");
  EXPECT_EQ(ErrorOf(With("block_store:\n  ttl:\n    chta: 1d\n")),
            "cards/m.yaml:6:5: block_store.ttl.chta: unknown key; did you mean 'chat'?");
}

TEST(ModelCardErrorTest, UnknownKeyWithoutNearMiss) {
  EXPECT_EQ(ErrorOf(With("colour: blue\n")), "cards/m.yaml:4:1: colour: unknown key");
}

TEST(ModelCardErrorTest, KeyInWrongSectionSaysWhereItBelongs) {
  EXPECT_EQ(ErrorOf(With("block_size: 16\n")),
            "cards/m.yaml:4:1: block_size: unknown key; 'block_size' belongs under 'kv_cache'");
  EXPECT_EQ(ErrorOf(With("scheduler:\n  max_model_len: 4\n")),
            "cards/m.yaml:5:3: scheduler.max_model_len: unknown key; 'max_model_len' belongs at "
            "the top level");
  EXPECT_THAT(ErrorOf(With("dtype: f16\n")),
              HasSubstr("'dtype' belongs under 'source' or 'kv_cache'"));
}

TEST(ModelCardErrorTest, DuplicateKey) {
  EXPECT_EQ(ErrorOf(With("max_model_len: 1\nmax_model_len: 2\n")),
            "cards/m.yaml:5:1: max_model_len: duplicate key (first defined at line 4)");
}

// --- Missing required keys -----------------------------------------------------------------

TEST(ModelCardErrorTest, MissingName) {
  EXPECT_EQ(ErrorOf("source:\n  path: w\n"), "cards/m.yaml:1:1: name: required key is missing");
}

TEST(ModelCardErrorTest, MissingSourcePathPointsAtSection) {
  EXPECT_EQ(ErrorOf("name: m\nsource:\n  dtype: f32\n"),
            "cards/m.yaml:3:3: source.path: required key is missing");
  EXPECT_EQ(ErrorOf("name: m\nsource:\n"),
            "cards/m.yaml:2:1: source.path: required key is missing");
  EXPECT_EQ(ErrorOf("name: m\n"), "cards/m.yaml:1:1: source.path: required key is missing");
}

TEST(ModelCardErrorTest, EmptyDocumentReportsEveryRequiredKey) {
  EXPECT_EQ(ErrorOf(""),
            "cards/m.yaml:1:1: name: required key is missing\n"
            "cards/m.yaml:1:1: source.path: required key is missing");
}

TEST(ModelCardErrorTest, NullRequiredValue) {
  EXPECT_EQ(ErrorOf("name:\nsource: {path: w}\n"),
            "cards/m.yaml:1:1: name: required, must not be null");
}

// --- Types -------------------------------------------------------------------------------

TEST(ModelCardErrorTest, WrongTypes) {
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  block_size: abc\n")),
            "cards/m.yaml:5:15: kv_cache.block_size: expected an integer, got 'abc'");
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  block_size: \"16\"\n")),
            "cards/m.yaml:5:15: kv_cache.block_size: expected an integer, got a quoted string");
  EXPECT_EQ(ErrorOf(With("max_model_len: 1.5\n")),
            "cards/m.yaml:4:16: max_model_len: expected an integer, got '1.5'");
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  enable_prefix_caching: yes\n")),
            "cards/m.yaml:5:26: kv_cache.enable_prefix_caching: expected a boolean (true or "
            "false), got 'yes'");
  EXPECT_EQ(ErrorOf(With("aliases: x\n")),
            "cards/m.yaml:4:10: aliases: expected a list of strings, got 'x'");
  EXPECT_EQ(ErrorOf(With("aliases: [a, [b]]\n")),
            "cards/m.yaml:4:14: aliases[1]: expected a non-empty string, got a list");
  EXPECT_EQ(ErrorOf(With("runtime: cpu\n")),
            "cards/m.yaml:4:10: runtime: expected a mapping, got 'cpu'");
  EXPECT_EQ(ErrorOf(With("generation_defaults:\n  temperature: hot\n")),
            "cards/m.yaml:5:16: generation_defaults.temperature: expected a number, got 'hot'");
  EXPECT_EQ(ErrorOf("- name: m\n"), "cards/m.yaml:1:1: expected a mapping, got a list");
  EXPECT_EQ(ErrorOf("name: m\nsource: w\n"),
            "cards/m.yaml:2:9: source: expected a mapping, got 'w'");
}

TEST(ModelCardErrorTest, UnknownEnumValueSuggestsNearMiss) {
  EXPECT_EQ(ErrorOf(With("runtime:\n  device: gpu\n")),
            "cards/m.yaml:5:11: runtime.device: unknown value 'gpu'; did you mean 'cpu'? "
            "(expected one of: cpu, cuda)");
  EXPECT_THAT(ErrorOf(With("kv_cache:\n  dtype: fp16\n")),
              HasSubstr("cards/m.yaml:5:10: kv_cache.dtype: unknown value 'fp16'; did you mean "
                        "'f16'? (expected one of: auto, f32, bf16, f16,"));
  EXPECT_EQ(ErrorOf("name: m\nsource: {path: w, format: safetensors}\n"),
            "cards/m.yaml:2:27: source.format: unknown value 'safetensors' (expected one of: hf, "
            "gguf)");
}

// --- Impossible values ---------------------------------------------------------------------

TEST(ModelCardErrorTest, BlockSize) {
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  block_size: 24\n")),
            "cards/m.yaml:5:15: kv_cache.block_size: must be a power of two (1, 2, 4, ..., 256), "
            "got 24");
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  block_size: 512\n")),
            "cards/m.yaml:5:15: kv_cache.block_size: must be between 1 and 256, got 512");
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  block_size: 0\n")),
            "cards/m.yaml:5:15: kv_cache.block_size: must be between 1 and 256, got 0");
  EXPECT_EQ(ParseOk(With("kv_cache:\n  block_size: 1\n")).kv_cache.block_size, 1);
  EXPECT_EQ(ParseOk(With("kv_cache:\n  block_size: 256\n")).kv_cache.block_size, 256);
}

TEST(ModelCardErrorTest, NegativeAndZero) {
  EXPECT_EQ(ErrorOf(With("max_model_len: 0\n")),
            "cards/m.yaml:4:16: max_model_len: must be >= 1, got 0");
  EXPECT_EQ(ErrorOf(With("scheduler:\n  max_num_seqs: -3\n")),
            "cards/m.yaml:5:17: scheduler.max_num_seqs: must be >= 1, got -3");
  EXPECT_EQ(ErrorOf(With("runtime:\n  threads: -1\n")),
            "cards/m.yaml:5:12: runtime.threads: must be between 0 and 4096, got -1");
  EXPECT_EQ(ErrorOf(With("parallel:\n  tensor_parallel_size: 0\n")),
            "cards/m.yaml:5:25: parallel.tensor_parallel_size: must be between 1 and 1024, got 0");
  EXPECT_EQ(ErrorOf(With("generation_defaults:\n  temperature: -0.5\n")),
            "cards/m.yaml:5:16: generation_defaults.temperature: must be >= 0, got -0.5");
  EXPECT_EQ(ErrorOf(With("generation_defaults:\n  top_p: 0\n")),
            "cards/m.yaml:5:10: generation_defaults.top_p: must be in (0, 1], got 0");
  EXPECT_EQ(ErrorOf(With("generation_defaults:\n  min_p: 1.5\n")),
            "cards/m.yaml:5:10: generation_defaults.min_p: must be in [0, 1], got 1.5");
  EXPECT_EQ(ErrorOf(With("generation_defaults:\n  top_k: -2\n")),
            "cards/m.yaml:5:10: generation_defaults.top_k: must be >= -1, got -2");
  EXPECT_EQ(ErrorOf(With("generation_defaults:\n  max_tokens: 0\n")),
            "cards/m.yaml:5:15: generation_defaults.max_tokens: must be >= 1, got 0");
  EXPECT_EQ(ErrorOf(With("generation_defaults:\n  repetition_penalty: 0\n")),
            "cards/m.yaml:5:23: generation_defaults.repetition_penalty: must be > 0, got 0");
}

TEST(ModelCardErrorTest, EmptyStrings) {
  EXPECT_EQ(ErrorOf("name: \"\"\nsource: {path: w}\n"),
            "cards/m.yaml:1:7: name: must not be empty");
  EXPECT_EQ(ErrorOf(With("tokenizer:\n  chat_template: \"file:\"\n")),
            "cards/m.yaml:5:18: tokenizer.chat_template: 'file:' needs a path, e.g. "
            "'file:templates/chatml.jinja'");
}

TEST(ModelCardErrorTest, AliasesMustBeDistinct) {
  EXPECT_EQ(ErrorOf(With("aliases: [x, m]\n")),
            "cards/m.yaml:4:10: aliases: 'm' is listed twice (or repeats the name)");
}

// --- Memory: sizes and fractions ------------------------------------------------------------

TEST(ModelCardTest, MemoryFractionOrSize) {
  EXPECT_DOUBLE_EQ(ParseOk(With("kv_cache: {memory: 0.9}\n")).kv_cache.memory.fraction, 0.9);
  EXPECT_DOUBLE_EQ(ParseOk(With("kv_cache: {memory: 1}\n")).kv_cache.memory.fraction, 1.0);
  EXPECT_EQ(ParseOk(With("kv_cache: {memory: 512MiB}\n")).kv_cache.memory.bytes, 512ull << 20);
  EXPECT_EQ(ParseOk(With("kv_cache: {memory: \"4 GiB\"}\n")).kv_cache.memory.bytes, 4ull << 30);
  EXPECT_EQ(ParseOk(With("kv_cache: {memory: 2GB}\n")).kv_cache.memory.bytes, 2000000000ull);
}

TEST(ModelCardErrorTest, MemoryErrors) {
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  memory: 1.5\n")),
            "cards/m.yaml:5:11: kv_cache.memory: a fraction of free memory must be in (0, 1], got "
            "1.5; for a byte size add a unit, e.g. '4GiB'");
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  memory: 4096\n")),
            "cards/m.yaml:5:11: kv_cache.memory: a fraction of free memory must be in (0, 1], got "
            "4096; for a byte size add a unit, e.g. '4GiB'");
  EXPECT_THAT(ErrorOf(With("kv_cache:\n  memory: 0\n")),
              HasSubstr("kv_cache.memory: a fraction of free memory must be in (0, 1], got 0"));
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  memory: 4GB2\n")),
            "cards/m.yaml:5:11: kv_cache.memory: invalid byte size '4GB2'; expected a byte size "
            "such as '4GiB', '512MiB' or '1048576'");
  EXPECT_THAT(ErrorOf(With("kv_cache:\n  memory: 4XB\n")),
              HasSubstr("cards/m.yaml:5:11: kv_cache.memory: unknown size unit 'XB'"));
  EXPECT_EQ(ErrorOf(With("kv_cache:\n  memory: 0GiB\n")),
            "cards/m.yaml:5:11: kv_cache.memory: must be greater than 0 bytes");
  EXPECT_THAT(ErrorOf(With("kv_cache:\n  memory: [1]\n")),
              HasSubstr("cards/m.yaml:5:11: kv_cache.memory: expected a byte size"));
}

// --- Cross-field rules --------------------------------------------------------------------

TEST(ModelCardErrorTest, SchedulerBudgetCoversSequences) {
  EXPECT_EQ(ErrorOf(With("scheduler:\n  max_num_seqs: 512\n  max_num_batched_tokens: 256\n")),
            "cards/m.yaml:6:27: scheduler.max_num_batched_tokens: max_num_batched_tokens (256) "
            "must be >= max_num_seqs (512)");
  EXPECT_EQ(ErrorOf(With("scheduler:\n  max_num_seqs: 4096\n")),
            "cards/m.yaml:5:17: scheduler.max_num_seqs: max_num_batched_tokens (2048) must be >= "
            "max_num_seqs (4096)");
}

TEST(ModelCardErrorTest, NoChunkingNeedsBudgetForWholePrompt) {
  EXPECT_EQ(ErrorOf(With("max_model_len: 8192\nscheduler:\n  enable_chunked_prefill: false\n")),
            "cards/m.yaml:6:27: scheduler.enable_chunked_prefill: with enable_chunked_prefill: "
            "false, max_num_batched_tokens (2048) must be >= max_model_len (8192)");
  ParseOk(With("max_model_len: 2048\nscheduler:\n  enable_chunked_prefill: false\n"));
}

TEST(ModelCardErrorTest, Speculative) {
  EXPECT_EQ(ErrorOf(With("speculative:\n  method: ngram\n")),
            "cards/m.yaml:5:3: speculative.num_speculative_tokens: required when method is "
            "'ngram'");
  EXPECT_EQ(ErrorOf(With("speculative:\n  method: draft\n  num_speculative_tokens: 3\n")),
            "cards/m.yaml:5:3: speculative.draft_model: required when method is 'draft'");
  EXPECT_EQ(ErrorOf(With("speculative:\n  num_speculative_tokens: 3\n")),
            "cards/m.yaml:5:27: speculative.num_speculative_tokens: has no effect unless method "
            "is 'ngram' or 'draft'");
  EXPECT_EQ(ErrorOf(With("speculative:\n  method: ngram\n  num_speculative_tokens: 3\n"
                         "  draft_model: d\n")),
            "cards/m.yaml:7:16: speculative.draft_model: only used when method is 'draft'");
  const ModelCard card = ParseOk(With("speculative: {method: ngram, num_speculative_tokens: 5}\n"));
  EXPECT_EQ(card.speculative.method, SpeculativeMethod::kNgram);
  EXPECT_EQ(card.speculative.num_speculative_tokens, 5);
}

TEST(ModelCardErrorTest, BlockStore) {
  EXPECT_EQ(ErrorOf(With("block_store:\n  backend: file\n")),
            "cards/m.yaml:5:3: block_store.path: required when backend is 'file'");
  EXPECT_EQ(ErrorOf(With("block_store:\n  backend: redis\n")),
            "cards/m.yaml:5:3: block_store.url: required when backend is 'redis'");
  EXPECT_EQ(ErrorOf(With("block_store:\n  backend: redis\n  url: http://x\n")),
            "cards/m.yaml:6:8: block_store.url: expected a redis://, rediss:// or unix:// URL, "
            "got 'http://x'");
  EXPECT_EQ(ErrorOf(With("block_store:\n  path: /tmp/x\n")),
            "cards/m.yaml:5:9: block_store.path: only used when backend is 'file'");
  EXPECT_EQ(ErrorOf(With("block_store:\n  ttl:\n    chat: 0s\n")),
            "cards/m.yaml:6:11: block_store.ttl.chat: must be greater than 0");
  EXPECT_EQ(ErrorOf(With("block_store:\n  ttl:\n    agent: 3\n")),
            "cards/m.yaml:6:12: block_store.ttl.agent: duration '3' needs a unit (ms, s, m, h, d "
            "or w); expected a duration such as '30s', '500ms', '1h30m' or '7d'");
  const ModelCard card = ParseOk(With("block_store: {backend: file, path: store}\n"));
  EXPECT_EQ(card.block_store.path, "cards/store");
}

// --- Syntax and several errors ------------------------------------------------------------

TEST(ModelCardErrorTest, YamlSyntaxErrorHasPosition) {
  EXPECT_THAT(ErrorOf("name: m\nsource:\n  path: [w\n"),
              MatchesRegex("cards/m\\.yaml:[34]:[0-9]+: YAML syntax error: .+"));
  EXPECT_THAT(ErrorOf("name: m\n  bad indent: 1\n"),
              MatchesRegex("cards/m\\.yaml:2:[0-9]+: YAML syntax error: .+"));
  EXPECT_THAT(ErrorOf("name: m\n---\nname: n\n"),
              HasSubstr("expected one YAML document, found several"));
}

TEST(ModelCardErrorTest, ReportsEveryProblemInFileOrder) {
  EXPECT_EQ(ErrorOf("kv_cache:\n  block_size: 3\nnme: m\nsource: {path: w}\n"),
            "cards/m.yaml:1:1: name: required key is missing\n"
            "cards/m.yaml:2:15: kv_cache.block_size: must be a power of two (1, 2, 4, ..., 256), "
            "got 3\n"
            "cards/m.yaml:3:1: nme: unknown key; did you mean 'name'?");
}

// --- Shipped configs ----------------------------------------------------------------------

TEST(ShippedModelCardsTest, DemoCard) {
  absl::StatusOr<ModelCard> card = LoadModelCard(STRATA_SOURCE_DIR "/configs/models/demo.yaml");
  ASSERT_TRUE(card.ok()) << card.status();
  EXPECT_EQ(card->name, "demo");
  EXPECT_EQ(card->source.format, WeightFormat::kHf);
  EXPECT_EQ(card->source.path,
            std::filesystem::path(STRATA_SOURCE_DIR "/build/demo-model/hf").lexically_normal());
}

TEST(ShippedModelCardsTest, Qwen3Card) {
  absl::StatusOr<ModelCard> card =
      LoadModelCard(STRATA_SOURCE_DIR "/configs/models/qwen3-0.6b.yaml");
  ASSERT_TRUE(card.ok()) << card.status();
  EXPECT_EQ(card->name, "Qwen/Qwen3-0.6B");
  EXPECT_EQ(card->max_model_len, 40960);
  EXPECT_EQ(card->source.dtype, DType::kBF16);
}

TEST(ShippedModelCardsTest, EveryCardParses) {
  int count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(STRATA_SOURCE_DIR "/configs/models")) {
    if (entry.path().extension() != ".yaml") continue;
    absl::StatusOr<ModelCard> card = LoadModelCard(entry.path().string());
    EXPECT_TRUE(card.ok()) << card.status();
    ++count;
  }
  EXPECT_GE(count, 2);
}

}  // namespace
}  // namespace strata
