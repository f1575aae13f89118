#include "cli/flags.h"

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

const std::vector<FlagSpec> kSpecs = {{"model", "path"}, {"max-tokens", "n"}, {"json", "", true}};

absl::StatusOr<Flags> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), {"strata", "cmd"});
  return Flags::Parse(kSpecs, static_cast<int>(args.size()), const_cast<char**>(args.data()), 2);
}

TEST(FlagsTest, ParsesSpaceAndEqualsForms) {
  auto flags = Parse({"--model", "m.gguf", "--max-tokens=7", "--json"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->String("model"), "m.gguf");
  EXPECT_EQ(*flags->Int("max-tokens", 0), 7);
  EXPECT_TRUE(flags->Bool("json"));
}

TEST(FlagsTest, UnknownFlagIsAnError) {
  auto flags = Parse({"--modle", "x"});
  ASSERT_FALSE(flags.ok());
  EXPECT_NE(flags.status().message().find("unknown flag --modle"), std::string::npos);
}

TEST(FlagsTest, MissingValueAndBadIntegerAreErrors) {
  EXPECT_FALSE(Parse({"--model"}).ok());
  auto flags = Parse({"--max-tokens", "many"});
  ASSERT_TRUE(flags.ok());
  EXPECT_FALSE(flags->Int("max-tokens", 0).ok());
}

}  // namespace
}  // namespace strata::cli
