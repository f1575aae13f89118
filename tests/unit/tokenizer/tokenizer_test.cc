#include "strata/tokenizer.h"

#include <atomic>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_vocab.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<Tokenizer> Load(const nlohmann::json& j, const std::string& config = "") {
  auto t = Tokenizer::FromJson(j.dump(), config);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? std::move(*t) : nullptr;
}

TEST(ByteLevelBpe, AppliesMergesByRank) {
  auto t = Load(testing::ByteLevelJson());
  EXPECT_THAT(t->Encode("hello"), ElementsAre(259));
  // "hello world": the regex splits "hello" | " world"; Ġw + o merge, the rest are bytes.
  EXPECT_THAT(t->Encode("hello wor"), ElementsAre(259, 261, 'r'));
}

TEST(ByteLevelBpe, DecodeRoundTripsArbitraryUtf8) {
  auto t = Load(testing::ByteLevelJson());
  for (std::string s : {"hello world", "héllo 世界 👍🏽", "  \t\n x", ""}) {
    EXPECT_EQ(t->Decode(t->Encode(s)), s);
  }
}

TEST(ByteLevelBpe, InvalidBytesDecodeToReplacementCharacter) {
  auto t = Load(testing::ByteLevelJson());
  EXPECT_EQ(t->Decode({0xE4, 'a'}), "\xEF\xBF\xBD" "a");
}

TEST(AddedTokens, SpecialTokenParsedOnlyWhenAsked) {
  auto t = Load(testing::ByteLevelJson());
  EXPECT_THAT(t->Encode("hello<|end|>", {.parse_special = true}), ElementsAre(259, 300));
  auto plain = t->Encode("hello<|end|>", {.parse_special = false});
  EXPECT_EQ(plain.size(), 1u + std::string("<|end|>").size());
  EXPECT_EQ(t->Decode(plain), "hello<|end|>");
  // Non-special added tokens are always recognised, as in HF.
  EXPECT_THAT(t->Encode("<tool>", {.parse_special = false}), ElementsAre(301));
}

TEST(AddedTokens, SkipSpecialTokensOnDecode) {
  auto t = Load(testing::ByteLevelJson());
  EXPECT_EQ(t->Decode({259, 300}, /*skip_special_tokens=*/true), "hello");
  EXPECT_EQ(t->Decode({259, 300}, false), "hello<|end|>");
  EXPECT_TRUE(t->IsSpecial(300));
  EXPECT_FALSE(t->IsSpecial(301));
}

TEST(SentencePieceBpe, PrependsSpaceAndAddsBos) {
  auto t = Load(testing::SentencePieceJson());
  // "ab a" → "▁ab▁a" → [▁ab, ▁a]
  EXPECT_THAT(t->Encode("ab a"), ElementsAre(1, 265, 263));
  EXPECT_THAT(t->Encode("ab a", {.add_special_tokens = false}), ElementsAre(265, 263));
  // As in HF: Strip removes one space at the start of the fused text, which is "<s>" here.
  EXPECT_EQ(t->Decode(t->Encode("ab a")), "<s> ab a");
  EXPECT_EQ(t->Decode(t->Encode("ab a"), true), "ab a");
}

TEST(SentencePieceBpe, ByteFallbackForUnknownCharacters) {
  auto t = Load(testing::SentencePieceJson());
  // "中" is not in the vocabulary: its three UTF-8 bytes become <0xE4><0xB8><0xAD>.
  EXPECT_THAT(t->Encode("中", {.add_special_tokens = false}),
              ElementsAre(259, 3 + 0xE4, 3 + 0xB8, 3 + 0xAD));
  EXPECT_EQ(t->Decode(t->Encode("a中é"), true), "a中é");
  // A lone continuation byte is invalid: one U+FFFD per byte token, as HF's ByteFallback.
  EXPECT_EQ(t->Decode({3 + 0xE4, 3 + 0xB8}), "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Config, ReadsSpecialTokensAndChatTemplate) {
  auto t = Load(testing::SentencePieceJson(),
                R"({"bos_token": "<s>", "eos_token": {"content": "</s>"}, "add_bos_token": true,
                    "chat_template": "{{ messages }}"})");
  EXPECT_EQ(t->bos_id(), 1);
  EXPECT_EQ(t->eos_id(), 2);
  EXPECT_EQ(t->unk_id(), 0);
  EXPECT_TRUE(t->add_bos_token());
  EXPECT_EQ(t->chat_template(), "{{ messages }}");
  EXPECT_EQ(t->TokenToPiece(263), "▁a");
  EXPECT_EQ(t->PieceToId("▁ab"), 265);
  EXPECT_EQ(t->vocab_size(), 267);
}

TEST(Errors, UnsupportedModelsAreClearErrors) {
  nlohmann::json j = testing::ByteLevelJson();
  j["model"]["type"] = "Unigram";
  auto t = Tokenizer::FromJson(j.dump());
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("not supported yet"));
  j["model"]["type"] = "WordPiece";
  EXPECT_FALSE(Tokenizer::FromJson(j.dump()).ok());
}

TEST(Errors, DropoutIsRejected) {
  nlohmann::json j = testing::ByteLevelJson();
  j["model"]["dropout"] = 0.1;
  EXPECT_FALSE(Tokenizer::FromJson(j.dump()).ok());
}

TEST(Errors, MalformedJsonIsAnErrorNotAnException) {
  EXPECT_FALSE(Tokenizer::FromJson("{not json").ok());
  EXPECT_FALSE(Tokenizer::FromJson(R"({"model": {"type": "BPE", "vocab": 3}})").ok());
  EXPECT_FALSE(Tokenizer::FromDirectory("/nonexistent/dir").ok());
}

TEST(PreTokenizers, MetaspaceFirstOnlyPrependsAtInputStart) {
  nlohmann::json j = testing::SentencePieceJson();
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Metaspace"},
                        {"replacement", "▁"},
                        {"prepend_scheme", "first"},
                        {"split", false}};
  auto t = Load(j);
  EXPECT_THAT(t->Encode("a", {.add_special_tokens = false}), ElementsAre(263));
  // After a special token the text does not start the input: no "▁" is prepended.
  EXPECT_THAT(t->Encode("<s>a", {.add_special_tokens = false}), ElementsAre(1, 260));
}

TEST(Concurrency, ConstMethodsAreThreadSafe) {
  auto t = Load(testing::ByteLevelJson());
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int k = 0; k < 200; ++k) {
        if (t->Decode(t->Encode("hello world 👍")) != "hello world 👍") ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace strata
