// UTF-8 helpers that reproduce the JS string semantics @huggingface/jinja relies on: JS's
// whitespace set (String.prototype.trim, /\s/), UTF-16 lengths, code point iteration.
// Case mapping is ASCII-only (a known gap against JS's full Unicode toUpperCase).
// Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::jinja {

// Byte length of the JS whitespace character starting at s[i], or 0.
int WhitespaceLength(std::string_view s, size_t i);
// Byte length of the UTF-8 sequence starting at s[i] (1 for invalid bytes).
int Utf8Length(std::string_view s, size_t i);
// Decodes the code point at s[i] (invalid bytes decode as themselves).
uint32_t DecodeUtf8(std::string_view s, size_t i);

std::string TrimStart(std::string_view s);
std::string TrimEnd(std::string_view s);
std::string Trim(std::string_view s);
// Python str.strip(chars) family: strips code points contained in `chars`.
std::string StripChars(std::string_view s, std::string_view chars, bool left, bool right);

// Split into code points (Array.from(str)).
std::vector<std::string> CodePoints(std::string_view s);
// String length in UTF-16 code units (JS `.length`).
int64_t Utf16Length(std::string_view s);

std::string AsciiUpper(std::string_view s);
std::string AsciiLower(std::string_view s);
inline bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// JS parseInt(s, 10) / parseFloat(s); false when the result is NaN.
bool JsParseInt(std::string_view s, double* out);
bool JsParseFloat(std::string_view s, double* out);

}  // namespace strata::jinja
