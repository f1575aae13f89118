#include "strata/detokenizer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_vocab.h"

namespace strata {
namespace {

using ::testing::ElementsAre;

std::unique_ptr<Tokenizer> Load(const nlohmann::json& j) {
  auto t = Tokenizer::FromJson(j.dump());
  EXPECT_TRUE(t.ok()) << t.status();
  return std::move(*t);
}

std::vector<std::string> Stream(const Tokenizer& t, const std::vector<int32_t>& ids,
                                bool skip = false) {
  IncrementalDetokenizer d(t, skip);
  std::vector<std::string> pieces;
  for (int32_t id : ids) pieces.push_back(d.Step(id));
  pieces.push_back(d.Flush());
  return pieces;
}

TEST(IncrementalDetokenizer, HoldsBackPartialCharacters) {
  auto t = Load(testing::ByteLevelJson());
  // "é" is two byte tokens (0xC3 0xA9); nothing is emitted until both arrived.
  EXPECT_THAT(Stream(*t, {'a', 0xC3, 0xA9, 'b'}), ElementsAre("a", "", "é", "b", ""));
}

TEST(IncrementalDetokenizer, ByteFallbackMultiTokenCharacter) {
  auto t = Load(testing::SentencePieceJson());
  // ▁ a, then 中 as three byte-fallback tokens, then ▁a. The leading space of the first token is
  // stripped, exactly as Decode does.
  std::vector<int32_t> ids = {263, 3 + 0xE4, 3 + 0xB8, 3 + 0xAD, 263};
  auto pieces = Stream(*t, ids);
  EXPECT_THAT(pieces, ElementsAre("a", "", "", "中", " a", ""));
  std::string all;
  for (auto& p : pieces) all += p;
  EXPECT_EQ(all, t->Decode(ids));
}

TEST(IncrementalDetokenizer, InvalidBytesAreFlushedAsReplacementCharacters) {
  auto t = Load(testing::ByteLevelJson());
  auto pieces = Stream(*t, {'a', 0xE4});
  EXPECT_THAT(pieces, ElementsAre("a", "", "\xEF\xBF\xBD"));
}

TEST(IncrementalDetokenizer, SkipsSpecialTokens) {
  auto t = Load(testing::ByteLevelJson());
  EXPECT_THAT(Stream(*t, {259, 300, 'x'}, /*skip=*/true), ElementsAre("hello", "", "x", ""));
  EXPECT_THAT(Stream(*t, {259, 300, 'x'}, /*skip=*/false),
              ElementsAre("hello", "<|end|>", "x", ""));
}

TEST(IncrementalDetokenizer, PromptContextKeepsLeadingSpace) {
  auto t = Load(testing::SentencePieceJson());
  IncrementalDetokenizer d(*t, false, {263});  // prompt "a"
  EXPECT_EQ(d.Step(263), " a");
}

TEST(StopStringMatcher, CutsStopSpanningPieces) {
  StopStringMatcher m({"STOP"});
  auto r1 = m.Feed("hello ST");
  EXPECT_EQ(r1.text, "hello ");  // "ST" could start the stop string: held back
  EXPECT_FALSE(r1.stopped);
  auto r2 = m.Feed("OP and more");
  EXPECT_EQ(r2.text, "");
  EXPECT_TRUE(r2.stopped);
  EXPECT_EQ(r2.stop_index, 0);
  EXPECT_EQ(m.Feed("later").text, "");
  EXPECT_EQ(m.Flush(), "");
}

TEST(StopStringMatcher, ReleasesHeldTextWhenItDiverges) {
  StopStringMatcher m({"STOP", "</s>"});
  EXPECT_EQ(m.Feed("a S").text, "a ");
  EXPECT_EQ(m.Feed("Tx").text, "STx");
  EXPECT_EQ(m.Feed("<").text, "");
  EXPECT_EQ(m.Flush(), "<");
}

TEST(StopStringMatcher, EarliestStopWins) {
  StopStringMatcher m({"world", "lo w"});
  auto r = m.Feed("hello world");
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.text, "hel");
  EXPECT_EQ(r.stop_index, 1);
}

TEST(StopStringMatcher, MultiByteStop) {
  StopStringMatcher m({"世界"});
  EXPECT_EQ(m.Feed("你好世").text, "你好");
  auto r = m.Feed("界!");
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.text, "");
}

}  // namespace
}  // namespace strata
