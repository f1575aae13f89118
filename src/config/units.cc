#include "config/units.h"

#include <cctype>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace strata::config {
namespace {

// Splits "12.5GiB" into "12.5" and "GiB" (whitespace between them allowed).
std::pair<std::string, std::string> SplitNumber(const std::string& text, size_t* pos) {
  size_t start = *pos;
  size_t i = start;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    ++i;
  }
  std::string number = text.substr(start, i - start);
  while (i < text.size() && text[i] == ' ') ++i;
  size_t unit_start = i;
  while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
  *pos = i;
  return {number, text.substr(unit_start, i - unit_start)};
}

}  // namespace

absl::StatusOr<uint64_t> ParseByteSize(const std::string& raw) {
  const std::string text(absl::StripAsciiWhitespace(raw));
  const std::string kHint = "; expected a byte size such as '4GiB', '512MiB' or '1048576'";
  if (text.empty()) return absl::InvalidArgumentError("empty byte size" + kHint);
  if (text[0] == '-') return absl::InvalidArgumentError("byte size must not be negative");
  size_t pos = 0;
  auto [number, unit] = SplitNumber(text, &pos);
  double value = 0;
  if (number.empty() || pos != text.size() || !absl::SimpleAtod(number, &value) ||
      !std::isfinite(value)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid byte size '", text, "'", kHint));
  }
  const std::string u = absl::AsciiStrToLower(unit);
  double multiplier = 0;
  if (u.empty() || u == "b") {
    multiplier = 1;
  } else if (u == "k" || u == "kb") {
    multiplier = 1e3;
  } else if (u == "m" || u == "mb") {
    multiplier = 1e6;
  } else if (u == "g" || u == "gb") {
    multiplier = 1e9;
  } else if (u == "t" || u == "tb") {
    multiplier = 1e12;
  } else if (u == "ki" || u == "kib") {
    multiplier = 1024.0;
  } else if (u == "mi" || u == "mib") {
    multiplier = 1024.0 * 1024;
  } else if (u == "gi" || u == "gib") {
    multiplier = 1024.0 * 1024 * 1024;
  } else if (u == "ti" || u == "tib") {
    multiplier = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown size unit '", unit, "' in '", text,
                     "'; use B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (1024)"));
  }
  if (multiplier == 1 && number.find('.') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid byte size '", text, "': a number of bytes must be whole"));
  }
  const double bytes = std::floor(value * multiplier);
  if (bytes >= 1.8e19)
    return absl::InvalidArgumentError(absl::StrCat("byte size '", text, "' is too large"));
  return static_cast<uint64_t>(bytes);
}

absl::StatusOr<absl::Duration> ParseDurationText(const std::string& raw) {
  const std::string text(absl::StripAsciiWhitespace(raw));
  const std::string kHint = "; expected a duration such as '30s', '500ms', '1h30m' or '7d'";
  if (text.empty()) return absl::InvalidArgumentError("empty duration" + kHint);
  if (text[0] == '-') return absl::InvalidArgumentError("duration must not be negative");
  absl::Duration total = absl::ZeroDuration();
  size_t pos = 0;
  while (pos < text.size()) {
    auto [number, unit] = SplitNumber(text, &pos);
    double value = 0;
    if (number.empty() || !absl::SimpleAtod(number, &value) || !std::isfinite(value)) {
      return absl::InvalidArgumentError(absl::StrCat("invalid duration '", text, "'", kHint));
    }
    if (unit.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("duration '", text, "' needs a unit (ms, s, m, h, d or w)", kHint));
    }
    absl::Duration one;
    if (unit == "ms") {
      one = absl::Milliseconds(1);
    } else if (unit == "s") {
      one = absl::Seconds(1);
    } else if (unit == "m") {
      one = absl::Minutes(1);
    } else if (unit == "h") {
      one = absl::Hours(1);
    } else if (unit == "d") {
      one = absl::Hours(24);
    } else if (unit == "w") {
      one = absl::Hours(24 * 7);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown duration unit '", unit, "' in '",
                                                     text, "'; use ms, s, m, h, d or w"));
    }
    total += value * one;
    while (pos < text.size() && text[pos] == ' ') ++pos;
  }
  return total;
}

std::string FormatByteSize(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return absl::StrCat(bytes, kUnits[unit]);
}

}  // namespace strata::config
