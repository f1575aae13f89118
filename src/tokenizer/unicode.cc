#include "tokenizer/unicode.h"

#include <array>

#include "utf8proc.h"

namespace strata::tokenizer {

size_t DecodeUtf8(std::string_view s, size_t pos, char32_t* cp) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data()) + pos;
  uint8_t c = p[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if ((c & 0xE0) == 0xC0) {
    *cp = ((c & 0x1F) << 6) | (p[1] & 0x3F);
    return 2;
  }
  if ((c & 0xF0) == 0xE0) {
    *cp = ((c & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    return 3;
  }
  *cp = ((c & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
  return 4;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

namespace {

// Number of leading bytes of s[pos..] that form a valid prefix of some UTF-8 sequence, and the
// full length that sequence needs (Unicode Table 3-7 well-formed byte sequences).
void ValidPrefix(std::string_view s, size_t pos, size_t* valid, size_t* need) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t n = s.size();
  uint8_t c = p[pos];
  *valid = 0;
  *need = 1;
  if (c < 0x80) {
    *valid = 1;
    return;
  }
  uint8_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    *need = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    *need = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    *need = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *need = 1;
    return;  // invalid lead byte: valid = 0
  }
  *valid = 1;
  for (size_t i = 1; i < *need; ++i) {
    if (pos + i >= n) return;
    uint8_t b = p[pos + i];
    uint8_t l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
    if (b < l || b > h) return;
    ++*valid;
  }
}

}  // namespace

size_t ValidUtf8Length(std::string_view s, size_t pos) {
  size_t valid, need;
  ValidPrefix(s, pos, &valid, &need);
  return valid == need ? need : 0;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<uint8_t>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t len = ValidUtf8Length(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string Utf8Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    if (static_cast<uint8_t>(bytes[i]) < 0x80) {
      out.push_back(bytes[i++]);
      continue;
    }
    size_t valid, need;
    ValidPrefix(bytes, i, &valid, &need);
    if (valid == need) {
      out.append(bytes.substr(i, need));
      i += need;
    } else {
      out.append("\xEF\xBF\xBD");
      i += valid == 0 ? 1 : valid;
    }
  }
  return out;
}

size_t CompleteUtf8Prefix(std::string_view bytes) {
  // Walk back over at most 3 bytes looking for a lead byte whose sequence is incomplete.
  size_t n = bytes.size();
  for (size_t back = 1; back <= 4 && back <= n; ++back) {
    uint8_t c = static_cast<uint8_t>(bytes[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte
    if (c < 0x80) return n;
    size_t valid, need;
    ValidPrefix(bytes, n - back, &valid, &need);
    if (valid == back && need > back) return n - back;  // truncated but valid so far
    return n;
  }
  return n;
}

namespace {

struct ByteTables {
  std::array<std::string, 256> to_unicode;
  std::array<char32_t, 256> code;
  ByteTables() {
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      code[b] = printable ? b : 256 + extra++;
      AppendUtf8(code[b], &to_unicode[b]);
    }
  }
};

const ByteTables& Tables() {
  static const ByteTables* tables = new ByteTables();
  return *tables;
}

}  // namespace

const std::string& ByteToUnicode(uint8_t b) { return Tables().to_unicode[b]; }

int UnicodeToByte(char32_t cp) {
  if (cp < 256) {
    bool printable = (cp >= '!' && cp <= '~') || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE);
    return printable ? static_cast<int>(cp) : -1;
  }
  if (cp >= 256 && cp < 256 + 68) {
    const auto& t = Tables();
    for (int b = 0; b < 256; ++b) {
      if (t.code[b] == cp) return b;
    }
  }
  return -1;
}

bool IsWhitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

bool IsNumeric(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat == UTF8PROC_CATEGORY_ND || cat == UTF8PROC_CATEGORY_NL ||
         cat == UTF8PROC_CATEGORY_NO;
}

bool IsAlphanumeric(char32_t c) {
  if (c < 0x80) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
  auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  switch (cat) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_MC:
      return true;
    default:
      return false;
  }
}

bool IsPunctuation(char32_t c) {
  if (c < 0x80) {
    return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
           (c >= '{' && c <= '~');
  }
  auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat == UTF8PROC_CATEGORY_PC || cat == UTF8PROC_CATEGORY_PD ||
         cat == UTF8PROC_CATEGORY_PS || cat == UTF8PROC_CATEGORY_PE ||
         cat == UTF8PROC_CATEGORY_PI || cat == UTF8PROC_CATEGORY_PF ||
         cat == UTF8PROC_CATEGORY_PO;
}

bool IsMark(char32_t c) {
  return c >= 0x80 && utf8proc_category(static_cast<utf8proc_int32_t>(c)) == UTF8PROC_CATEGORY_MN;
}

}  // namespace strata::tokenizer
