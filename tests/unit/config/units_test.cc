#include "config/units.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace strata::config {
namespace {

using ::testing::HasSubstr;

TEST(ParseByteSizeTest, BinaryAndDecimalUnits) {
  EXPECT_EQ(*ParseByteSize("4GiB"), 4ull << 30);
  EXPECT_EQ(*ParseByteSize("512MiB"), 512ull << 20);
  EXPECT_EQ(*ParseByteSize("512Mi"), 512ull << 20);
  EXPECT_EQ(*ParseByteSize("64KiB"), 64ull << 10);
  EXPECT_EQ(*ParseByteSize("1TiB"), 1ull << 40);
  EXPECT_EQ(*ParseByteSize("2GB"), 2000000000ull);
  EXPECT_EQ(*ParseByteSize("2G"), 2000000000ull);
  EXPECT_EQ(*ParseByteSize("3kb"), 3000ull);
  EXPECT_EQ(*ParseByteSize("4 gib"), 4ull << 30);
}

TEST(ParseByteSizeTest, PlainNumbersAreBytes) {
  EXPECT_EQ(*ParseByteSize("1048576"), 1048576ull);
  EXPECT_EQ(*ParseByteSize("100B"), 100ull);
  EXPECT_EQ(*ParseByteSize("0"), 0ull);
}

TEST(ParseByteSizeTest, FractionsRoundDown) {
  EXPECT_EQ(*ParseByteSize("1.5GiB"), 3ull << 29);
  EXPECT_EQ(*ParseByteSize("0.5KiB"), 512ull);
}

TEST(ParseByteSizeTest, Errors) {
  EXPECT_THAT(ParseByteSize("-1GiB").status().message(), HasSubstr("must not be negative"));
  EXPECT_THAT(ParseByteSize("4XB").status().message(), HasSubstr("unknown size unit 'XB'"));
  EXPECT_THAT(ParseByteSize("GiB").status().message(), HasSubstr("invalid byte size"));
  EXPECT_THAT(ParseByteSize("4GiB extra").status().message(), HasSubstr("invalid byte size"));
  EXPECT_THAT(ParseByteSize("1.5").status().message(), HasSubstr("must be whole"));
  EXPECT_THAT(ParseByteSize("").status().message(), HasSubstr("empty byte size"));
  EXPECT_THAT(ParseByteSize("99999999TiB").status().message(), HasSubstr("too large"));
}

TEST(ParseDurationTextTest, UnitsAndSums) {
  EXPECT_EQ(*ParseDurationText("7d"), absl::Hours(24 * 7));
  EXPECT_EQ(*ParseDurationText("2w"), absl::Hours(24 * 14));
  EXPECT_EQ(*ParseDurationText("30s"), absl::Seconds(30));
  EXPECT_EQ(*ParseDurationText("500ms"), absl::Milliseconds(500));
  EXPECT_EQ(*ParseDurationText("1h30m"), absl::Minutes(90));
  EXPECT_EQ(*ParseDurationText("1.5h"), absl::Minutes(90));
  EXPECT_EQ(*ParseDurationText("0s"), absl::ZeroDuration());
}

TEST(ParseDurationTextTest, Errors) {
  EXPECT_THAT(ParseDurationText("30").status().message(), HasSubstr("needs a unit"));
  EXPECT_THAT(ParseDurationText("7 days").status().message(),
              HasSubstr("unknown duration unit 'days'"));
  EXPECT_THAT(ParseDurationText("-5s").status().message(), HasSubstr("must not be negative"));
  EXPECT_THAT(ParseDurationText("s").status().message(), HasSubstr("invalid duration"));
}

TEST(FormatByteSizeTest, LargestExactBinaryUnit) {
  EXPECT_EQ(FormatByteSize(4ull << 30), "4GiB");
  EXPECT_EQ(FormatByteSize(1536ull << 20), "1536MiB");
  EXPECT_EQ(FormatByteSize(1000), "1000B");
  EXPECT_EQ(FormatByteSize(0), "0B");
}

}  // namespace
}  // namespace strata::config
