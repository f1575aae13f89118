#include "config/yaml_reader.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace strata::config {
namespace {

TEST(ClosestMatchTest, SuggestsNearMisses) {
  const std::vector<std::string> keys = {"max_model_len", "name", "aliases", "kv_cache"};
  EXPECT_EQ(ClosestMatch("max_model_lenn", keys), "max_model_len");
  EXPECT_EQ(ClosestMatch("max_modle_len", keys), "max_model_len");
  EXPECT_EQ(ClosestMatch("max_model_length", keys), "max_model_len");
  EXPECT_EQ(ClosestMatch("Name", keys), "name");
  EXPECT_EQ(ClosestMatch("kvcache", keys), "kv_cache");
}

TEST(ClosestMatchTest, NoSuggestionWhenFar) {
  EXPECT_EQ(ClosestMatch("temperature", {"name", "aliases"}), std::nullopt);
  EXPECT_EQ(ClosestMatch("x", {}), std::nullopt);
}

TEST(ErrorListTest, FormatsAndSortsByPosition) {
  ErrorList errors("f.yaml");
  EXPECT_TRUE(errors.ToStatus().ok());
  YAML::Mark second;
  second.line = 4;
  second.column = 2;
  errors.Add(second, "a.b", "second");
  errors.Add(YAML::Mark(), "", "first");
  EXPECT_EQ(errors.ToStatus().message(), "f.yaml:1:1: first\nf.yaml:5:3: a.b: second");
  EXPECT_EQ(errors.ToStatus().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MapReaderTest, TracksUnknownKeys) {
  ErrorList errors("f.yaml");
  MapReader reader(&errors, YAML::Load("a: 1\nb: 2\n"), "sec", YAML::Mark());
  int a = 0;
  EXPECT_TRUE(reader.ReadInt("a", &a));
  EXPECT_EQ(a, 1);
  reader.Finish();
  EXPECT_EQ(errors.ToStatus().message(), "f.yaml:2:1: sec.b: unknown key");
}

TEST(MapReaderTest, NullMeansAbsent) {
  ErrorList errors("f.yaml");
  MapReader reader(&errors, YAML::Load("a:\nb: ~\n"), "", YAML::Mark());
  int a = 7;
  EXPECT_FALSE(reader.ReadInt("a", &a));
  EXPECT_FALSE(reader.Has("b"));
  EXPECT_EQ(a, 7);
  reader.Finish();
  EXPECT_TRUE(errors.empty());
}

}  // namespace
}  // namespace strata::config
