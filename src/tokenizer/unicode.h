// Unicode helpers for the tokenizer: UTF-8 walking, Rust-compatible lossy decoding, the GPT-2
// byte-to-character table and the character classes HF `tokenizers` uses (Rust's
// `char::is_whitespace`, `is_alphanumeric`, `is_numeric`, punctuation).
//
// All functions are pure and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata::tokenizer {

// Length in bytes of the UTF-8 sequence starting at `s[pos]` and its code point. REQUIRES: `s`
// is valid UTF-8 and pos < s.size().
size_t DecodeUtf8(std::string_view s, size_t pos, char32_t* cp);
void AppendUtf8(char32_t cp, std::string* out);

// Length of the valid UTF-8 sequence at `s[pos]`, or 0 when the bytes there are not one (or are
// a truncated one).
size_t ValidUtf8Length(std::string_view s, size_t pos);
bool IsValidUtf8(std::string_view s);

// Rust's `String::from_utf8_lossy`: each maximal invalid subpart becomes one U+FFFD.
std::string Utf8Lossy(std::string_view bytes);
// Length of the longest prefix of `bytes` that ends on a complete character, treating a trailing
// incomplete-but-valid-so-far sequence as not yet complete.
size_t CompleteUtf8Prefix(std::string_view bytes);

// GPT-2's bytes_to_unicode table: the UTF-8 string of the character byte `b` maps to.
const std::string& ByteToUnicode(uint8_t b);
// The inverse; returns -1 for a character outside the table.
int UnicodeToByte(char32_t cp);

bool IsWhitespace(char32_t cp);    // Rust char::is_whitespace (Unicode White_Space)
bool IsNumeric(char32_t cp);       // Rust char::is_numeric (Nd, Nl, No)
bool IsAlphanumeric(char32_t cp);  // Rust char::is_alphanumeric (approximately Alphabetic | N)
bool IsPunctuation(char32_t cp);   // HF is_punc: ASCII punctuation or Unicode P*
bool IsMark(char32_t cp);          // Mn

}  // namespace strata::tokenizer
