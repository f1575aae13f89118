#include "tokenizer/chat_template/text_util.h"

#include <cmath>
#include <cstdlib>

namespace strata::jinja {

int Utf8Length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  int n = 1;
  if (c >= 0xF0 && c < 0xF8) n = 4;
  else if (c >= 0xE0) n = 3;
  else if (c >= 0xC0) n = 2;
  if (c >= 0xF8) n = 1;
  if (i + n > s.size()) return 1;
  for (int k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  }
  return n;
}

uint32_t DecodeUtf8(std::string_view s, size_t i) {
  const int n = Utf8Length(s, i);
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (n == 1) return c;
  uint32_t cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

namespace {
bool IsJsWhitespace(uint32_t cp) {
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}
}  // namespace

int WhitespaceLength(std::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return IsJsWhitespace(c) ? 1 : 0;
  const int n = Utf8Length(s, i);
  return n > 1 && IsJsWhitespace(DecodeUtf8(s, i)) ? n : 0;
}

std::string TrimStart(std::string_view s) {
  size_t i = 0;
  while (int n = WhitespaceLength(s, i)) i += n;
  return std::string(s.substr(i));
}

std::string TrimEnd(std::string_view s) {
  size_t end = 0;  // end of the last non-whitespace code point
  for (size_t i = 0; i < s.size();) {
    const int w = WhitespaceLength(s, i);
    if (w) {
      i += w;
    } else {
      i += Utf8Length(s, i);
      end = i;
    }
  }
  return std::string(s.substr(0, end));
}

std::string Trim(std::string_view s) { return TrimEnd(TrimStart(s)); }

std::string StripChars(std::string_view s, std::string_view chars, bool left, bool right) {
  std::vector<std::string> set = CodePoints(chars);
  std::vector<std::string> cps = CodePoints(s);
  auto in_set = [&](const std::string& cp) {
    for (const auto& c : set) if (c == cp) return true;
    return false;
  };
  size_t b = 0, e = cps.size();
  if (left) while (b < e && in_set(cps[b])) ++b;
  if (right) while (e > b && in_set(cps[e - 1])) --e;
  std::string out;
  for (size_t k = b; k < e; ++k) out += cps[k];
  return out;
}

std::vector<std::string> CodePoints(std::string_view s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const int n = Utf8Length(s, i);
    out.emplace_back(s.substr(i, n));
    i += n;
  }
  return out;
}

int64_t Utf16Length(std::string_view s) {
  int64_t n = 0;
  for (size_t i = 0; i < s.size();) {
    const int len = Utf8Length(s, i);
    n += len == 4 ? 2 : 1;
    i += len;
  }
  return n;
}

std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  return out;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return out;
}

bool JsParseInt(std::string_view s, double* out) {
  std::string t = TrimStart(s);
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  double v = 0;
  size_t start = i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') v = v * 10 + (t[i++] - '0');
  if (i == start) return false;
  *out = neg ? -v : v;
  return true;
}

bool JsParseFloat(std::string_view s, double* out) {
  std::string t = TrimStart(s);
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  if (t.compare(i, 8, "Infinity") == 0) {
    *out = t[0] == '-' ? -INFINITY : INFINITY;
    return true;
  }
  size_t digits = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    size_t j = i + 1;
    if (j < t.size() && (t[j] == '+' || t[j] == '-')) ++j;
    size_t exp_start = j;
    while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
    if (j > exp_start) i = j;
  }
  *out = std::strtod(t.substr(0, i).c_str(), nullptr);
  return true;
}

}  // namespace strata::jinja
