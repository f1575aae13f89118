// Added-token splitting rules (HF AddedVocabulary::find_matches): leftmost-longest matches,
// single_word, lstrip and rstrip.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "strata/tokenizer.h"
#include "test_vocab.h"

namespace strata {
namespace {

using ::testing::ElementsAre;

std::unique_ptr<Tokenizer> WithAdded(nlohmann::json token) {
  nlohmann::json j = testing::ByteLevelJson();
  token["id"] = 310;
  token["special"] = true;
  token["normalized"] = false;
  j["added_tokens"].push_back(token);
  auto t = Tokenizer::FromJson(j.dump());
  EXPECT_TRUE(t.ok()) << t.status();
  return std::move(*t);
}

TEST(AddedVocabulary, LongestMatchWins) {
  nlohmann::json j = testing::ByteLevelJson();
  j["added_tokens"].push_back({{"id", 311}, {"content", "<|end|>x"}, {"special", true},
                               {"normalized", false}});
  auto t = Tokenizer::FromJson(j.dump());
  ASSERT_TRUE(t.ok());
  EXPECT_THAT((*t)->Encode("<|end|>x"), ElementsAre(311));
  EXPECT_THAT((*t)->Encode("<|end|>y"), ElementsAre(300, 'y'));
}

TEST(AddedVocabulary, LstripEatsSpacesBefore) {
  auto t = WithAdded({{"content", "<m>"}, {"lstrip", true}});
  EXPECT_THAT(t->Encode("hello  <m>"), ElementsAre(259, 310));
}

TEST(AddedVocabulary, RstripEatsSpacesAfter) {
  auto t = WithAdded({{"content", "<m>"}, {"rstrip", true}});
  EXPECT_THAT(t->Encode("<m>  hello"), ElementsAre(310, 259));
}

TEST(AddedVocabulary, SingleWordNeedsWordBoundaries) {
  auto t = WithAdded({{"content", "ab"}, {"single_word", true}});
  EXPECT_THAT(t->Encode("ab"), ElementsAre(310));
  // Byte-level ids are the byte values: "x ", then the token, then ".".
  EXPECT_THAT(t->Encode("x ab."), ElementsAre('x', ' ', 310, '.'));
  // Inside a word: not matched, so "abc" is plain bytes.
  EXPECT_THAT(t->Encode("abc"), ElementsAre('a', 'b', 'c'));
}

}  // namespace
}  // namespace strata
