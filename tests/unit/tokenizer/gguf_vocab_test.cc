// Tokenizers built from GGUF vocabularies.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "strata/tokenizer.h"
#include "test_vocab.h"

namespace strata {
namespace {

using ::testing::ElementsAre;

TEST(GgufVocab, LlamaMergesFollowScores) {
  GgufVocab v;
  v.model = "llama";
  v.tokens = {"<unk>", "<s>", "</s>"};
  v.token_types = {2, 3, 3};
  v.scores = {0, 0, 0};
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "<0x%02X>", b);
    v.tokens.push_back(buf);
    v.token_types.push_back(6);
    v.scores.push_back(0);
  }
  // ids 259.. : ▁ a b ▁a ab ▁ab ; "ab" scores higher than "▁a", so "▁ab" comes from ▁ + ab.
  for (auto [piece, score] : std::vector<std::pair<std::string, float>>{
           {"▁", -1}, {"a", -2}, {"b", -3}, {"▁a", -5}, {"ab", -4}, {"▁ab", -6}}) {
    v.tokens.push_back(piece);
    v.token_types.push_back(1);
    v.scores.push_back(score);
  }
  v.bos_id = 1;
  v.eos_id = 2;
  v.unk_id = 0;
  v.add_bos = true;
  auto t = Tokenizer::FromGgufVocab(v);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT((*t)->Encode("ab"), ElementsAre(1, 264));
  EXPECT_THAT((*t)->Encode("a", {.add_special_tokens = false}), ElementsAre(262));
  EXPECT_EQ((*t)->Decode((*t)->Encode("ab a"), true), "ab a");
  EXPECT_THAT((*t)->Encode("<s>", {.add_special_tokens = false, .parse_special = true}),
              ElementsAre(1));
}

TEST(GgufVocab, Gpt2ByteLevel) {
  GgufVocab v;
  v.model = "gpt2";
  v.pre = "qwen2";
  for (int b = 0; b < 256; ++b) v.tokens.push_back(testing::ByteChar(b));
  v.tokens.push_back("he");
  v.tokens.push_back("<|end|>");
  v.token_types.assign(v.tokens.size(), 1);
  v.token_types.back() = 3;
  v.merges = {"h e"};
  auto t = Tokenizer::FromGgufVocab(v);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT((*t)->Encode("he<|end|>", {.parse_special = true}), ElementsAre(256, 257));
  EXPECT_EQ((*t)->Decode({256, ' ', 0xC3, 0xA9}), "he é");
}

TEST(GgufVocab, UnknownModelIsAnError) {
  GgufVocab v;
  v.model = "bert";
  v.tokens = {"a"};
  EXPECT_FALSE(Tokenizer::FromGgufVocab(v).ok());
}

}  // namespace
}  // namespace strata
